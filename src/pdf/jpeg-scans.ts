/**
 * The scans of a JPEG stream, counted from its markers before any decoder sees it. A progressive
 * JPEG's decoder goes over the whole image's coefficients at every scan (libjpeg, libvips, PDFium
 * and pdf.js alike), so its time grows with scans × pixels, not with the file's size: 2 MB of
 * repeated scan headers over a 1-megapixel image keep a decoder busy for a minute. Encoders write
 * about ten scans (libjpeg's progressive script: 10 for colour, 6 for grey; mozjpeg's a few more);
 * libjpeg-turbo's own fuzzers stop a decoder at 500. Restart markers are counted as well: a decoder
 * resynchronises at each one.
 */
import { grouped } from '../util/text.js';

export interface JpegScans {
  /** Start-of-scan markers in the stream (0 when it is not a JPEG). */
  scans: number;
  /** Restart markers (RST0–RST7) inside the scans' data. */
  restarts: number;
}

/** What a decoder may be given: scans, and scans times the image's pixels. */
export interface JpegScanLimits {
  /** Most scans of one JPEG image. */
  maxJpegScans: number;
  /** Most scans × pixels of one JPEG image (a decoder's passes over the image). */
  maxJpegScanPixels: number;
}

/**
 * 500 scans, as libjpeg-turbo's fuzzers allow; 3 billion scan-pixels is ten scans of a 300-megapixel
 * image, a few seconds of a decoder's time.
 */
export const DEFAULT_JPEG_SCAN_LIMITS: JpegScanLimits = { maxJpegScans: 500, maxJpegScanPixels: 3_000_000_000 };

/**
 * Counts the scans and restart markers of a JPEG stream, walking its marker segments and the
 * entropy-coded data between them (stuffed 0xFF00 bytes skipped). Stops counting past `stopAt`
 * scans. Data cut short counts what is there.
 * @example
 * jpegScans(bytes).scans; // 10 for libjpeg's progressive script on a colour image
 */
export function jpegScans(data: Uint8Array, stopAt = Number.POSITIVE_INFINITY): JpegScans {
  const out: JpegScans = { scans: 0, restarts: 0 };
  if (data[0] !== 0xff || data[1] !== 0xd8) return out;
  let i = 2;
  while (i + 1 < data.length) {
    if (data[i] !== 0xff) {
      // Entropy-coded data (or garbage a decoder skips): on to the next 0xFF.
      const next = data.indexOf(0xff, i);
      if (next < 0) break;
      i = next;
      continue;
    }
    const marker = data[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x00) {
      i += 2; // a stuffed 0xFF inside scan data
      continue;
    }
    if (marker >= 0xd0 && marker <= 0xd7) {
      out.restarts++;
      i += 2;
      continue;
    }
    if (marker === 0xd9) break; // end of image
    if (marker === 0x01 || marker === 0xd8) {
      i += 2;
      continue;
    }
    if (i + 3 >= data.length) break;
    const length = (data[i + 2]! << 8) | data[i + 3]!;
    if (length < 2) break;
    if (marker === 0xda && ++out.scans > stopAt) break;
    i += 2 + length;
  }
  return out;
}

/**
 * Why a decoder must not be given this JPEG (its scans, or scans × pixels, past the limits), or null.
 * @example
 * jpegScanReason(bytes, 1000 * 1000); // null for an ordinary photo
 */
export function jpegScanReason(data: Uint8Array, pixels: number, limits: JpegScanLimits = DEFAULT_JPEG_SCAN_LIMITS): string | null {
  const { scans } = jpegScans(data, limits.maxJpegScans);
  if (scans > limits.maxJpegScans) return `a JPEG image has more than ${grouped(limits.maxJpegScans)} scans (a decoder goes over the whole image at each)`;
  if (scans * pixels > limits.maxJpegScanPixels)
    return `a JPEG image of ${grouped(pixels)} pixels has ${grouped(scans)} scans (a decoder goes over the whole image at each; more than ${grouped(limits.maxJpegScanPixels)} pixels in all)`;
  return null;
}
