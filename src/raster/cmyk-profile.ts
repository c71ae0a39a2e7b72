/**
 * The one colour-management chain for CMYK: every CMYK colour (vector fill, image sample, tint
 * transform result) goes to sRGB through lcms from its source profile — the file's own (an
 * ICCBased space, or for Device colours the document's CMYK OutputIntent) else the default below —
 * with relative colorimetric intent, so in-gamut colours keep their appearance exactly.
 *
 * The default is SWOP on grade 3 coated paper (CGATS TR 003, built by icc/make-default-cmyk.sh):
 * what Ghostscript (its Artifex SWOP profile), pdf.js and PDFium (their fitted SWOP conversions)
 * assume for DeviceCMYK, so previews, mockups and the colour fix put a CMYK colour in the same
 * place. libvips's own fallback ("Chemical proof", a wide-gamut proofing space) put CMYK 0 100 100 0
 * at 232,0,0 where those readers draw 237,28,36 (ΔE76 11.2). Measured against Ghostscript 10 over a
 * 135-colour CMYK grid: mean ΔE76 3.7 (Ghostscript's own profile through lcms: 3.3 — it also applies
 * black-point compensation, which sharp does not expose); the solids C, M+Y, Y, C+Y within 1.9.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';

/** The default CMYK profile's file, under the package root. */
export const DEFAULT_CMYK_PROFILE_FILE = 'icc/cgats-tr003-swop-grade3.icc';
/** What reports and docs call it. */
export const DEFAULT_CMYK_PROFILE_NAME = 'SWOP grade 3 coated (CGATS TR 003)';

let profile: Uint8Array | undefined;

/**
 * The ICC profile assumed for CMYK colours that come with none.
 * @example
 * const tiff = rawToTiff(samples, width, height, 'cmyk', defaultCmykProfile());
 */
export function defaultCmykProfile(): Uint8Array {
  profile ??= new Uint8Array(readFileSync(join(packageRoot(), DEFAULT_CMYK_PROFILE_FILE)));
  return profile;
}

/**
 * The source profile of samples in `model`: the one given (ICCBased, OutputIntent), else for CMYK
 * the default; gray and RGB without one stay with lcms's sRGB-based defaults.
 */
export function sourceProfile(model: 'cmyk' | 'gray' | 'rgb', icc: Uint8Array | undefined): Uint8Array | undefined {
  return icc ?? (model === 'cmyk' ? defaultCmykProfile() : undefined);
}
