#!/usr/bin/env bash
# Regenerates the committed corpus in test/corpus/files/ from real producers (Debian packages:
# ghostscript, python3-cairo, python3-reportlab, python3-pikepdf, img2pdf, imagemagick, qpdf).
# The files are committed so that tests do not depend on these tools' versions; the expected
# reports are regenerated with `npm run corpus:expect` and reviewed before committing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/files"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3          # Debian's python, which sees python3-reportlab/pikepdf/cairo
magick=/usr/bin/convert      # /usr/local/bin/convert is not ImageMagick
export MAGICK_CONFIGURE_PATH="$here/magick"
export SOURCE_DATE_EPOCH=1700000000
mkdir -p "$out"
rm -f "$out"/*.pdf

# Ghostscript (pdfwrite), keeping colour spaces as written.
for ps in "$here"/producers/*.ps; do
  gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dColorConversionStrategy=/LeaveColorUnchanged \
     -dAutoFilterColorImages=false -sOutputFile="$out/$(basename "${ps%.ps}").pdf" "$ps"
done

$py "$here/producers/cairo_cases.py" "$out"
$py "$here/producers/reportlab_cases.py" "$out" "$tmp"
$py "$here/producers/pikepdf_cases.py" "$out"

# Source images made by ImageMagick.
$magick -size 400x548 gradient:'#e03030-#3060e0' "$tmp/rgb.jpg"
$magick -size 400x548 gradient:'#e03030-#3060e0' -colorspace CMYK "$tmp/cmyk.jpg"
$magick -size 400x548 gradient:white-black -colorspace Gray "$tmp/gray.png"
$magick -size 400x548 gradient:'#e03030-#3060e0' +dither -colors 16 "$tmp/palette.png"
$magick -size 400x548 gradient:'#e03030-#3060e0' -profile /usr/share/color/icc/ghostscript/srgb.icc "$tmp/icc.png"
$magick -size 15001x20 gradient:white-black -colorspace Gray "$tmp/wide.png"
$magick -size 400x400 gradient:'#30e030-#3060e0' "$tmp/square.jpg"

# img2pdf: images on pages of exact sizes (tanktop M: 540 x 740 mm; duvet 200x200: 2040 mm).
i2p() { img2pdf --pagesize 540mmx740mm --imgsize 540mmx740mm "$@"; }
i2p "$tmp/cmyk.jpg" "$tmp/cmyk.jpg" -o "$out/img2pdf-tanktop-cmyk-jpeg.pdf"
i2p "$tmp/palette.png" "$tmp/palette.png" -o "$out/img2pdf-tanktop-palette.pdf"
i2p "$tmp/gray.png" "$tmp/gray.png" -o "$out/img2pdf-tanktop-gray.pdf"
i2p "$tmp/icc.png" "$tmp/icc.png" -o "$out/img2pdf-tanktop-icc-rgb.pdf"
img2pdf --pagesize 540mmx740mm "$tmp/wide.png" "$tmp/wide.png" -o "$out/img2pdf-tanktop-image-too-large.pdf"
img2pdf --pagesize 1020mmx1020mm --imgsize 1020mmx1020mm "$tmp/square.jpg" "$tmp/square.jpg" -o "$out/img2pdf-duvet-half-scale.pdf"

# ImageMagick's own PDF writer: 400 x 548 px at 18.8 ppi is 540.4 x 740.4 mm (tanktop M).
# Debian's system policy forbids the "PDF" coder whatever MAGICK_CONFIGURE_PATH says; the PDF/A
# coder is the same writer and is not blocked.
$magick -units PixelsPerInch -density 18.8 "$tmp/rgb.jpg" "$tmp/rgb.jpg" -compress jpeg "PDFA:$out/imagemagick-tanktop-rgb-jpeg.pdf"
$magick -units PixelsPerInch -density 18.8 "$tmp/cmyk.jpg" "$tmp/cmyk.jpg" -compress jpeg "PDFA:$out/imagemagick-tanktop-cmyk-jpeg.pdf"

# qpdf: object streams, encryption (user password; owner password only, AES-256 and RC4-128).
src="$out/reportlab-tshirt-M-exact.pdf"
qpdf --object-streams=generate "$src" "$out/qpdf-tshirt-M-object-streams.pdf"
# Pages in another order than the layers: sleeve, sleeve, front, back (page-order-mismatch).
qpdf "$src" --pages . 3,4,1,2 -- "$out/qpdf-tshirt-M-sleeves-first.pdf"
qpdf --encrypt secret owner 256 -- "$src" "$out/qpdf-encrypted-user-password.pdf"
qpdf --encrypt "" owner 256 -- "$src" "$out/qpdf-encrypted-owner-only-aes256.pdf"
qpdf --allow-weak-crypto --object-streams=generate --encrypt "" owner 128 --use-aes=n -- "$src" "$out/qpdf-encrypted-owner-only-rc4.pdf"
qpdf --encrypt "" owner 128 --use-aes=y -- "$src" "$out/qpdf-encrypted-owner-only-aes128.pdf"

# Broken inputs.
cp "$tmp/palette.png" "$out/broken-png-renamed.pdf"
: > "$out/broken-empty.pdf"
size=$(stat -c %s "$out/gs-duvet-exact.pdf")
head -c $((size * 6 / 10)) "$out/gs-duvet-exact.pdf" > "$out/broken-truncated.pdf"

ls -la "$out"
