#!/usr/bin/env bash
# Rebuilds icc/cgats-tr003-swop-grade3.icc, the CMYK profile print-preflight assumes for DeviceCMYK
# colours when a file gives none (no ICCBased space, no CMYK OutputIntent): SWOP on grade 3 coated
# paper, from the CGATS TR 003 characterization data (ANSI CGATS and SWOP committee, 2006) as
# Debian's icc-profiles-free ships it (TR003.ti3, Zlib licence), made by ArgyllCMS's colprof.
# Needs: apt-get install argyll icc-profiles-free
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
cp /usr/share/color/icc/TR003.ti3 "$work/TR003.ti3"
# -qm: medium quality; -bn: no B2A tables (the profile is only ever a source: CMYK → sRGB).
(cd "$work" && colprof -qm -bn -D "SWOP grade 3 coated (CGATS TR 003), print-preflight default CMYK" \
  -C "From CGATS TR 003 characterization data (icc-profiles-free, Zlib licence); made with ArgyllCMS colprof" TR003)
cp "$work/TR003.icc" cgats-tr003-swop-grade3.icc
rm -rf "$work"
sha256sum cgats-tr003-swop-grade3.icc
