/**
 * The fax path for pages that are one CCITT image: scans of drawings and text at 300–1,200 ppi,
 * tiff2pdf's and img2pdf's pages from Group 4 TIFFs. pdf.js would decode the whole image into
 * memory (a 35,000 × 35,000 scan is 1.2 gigapixels), so such pages were refused; every other reader
 * decodes the fax rows one at a time (MuPDF, poppler and Ghostscript draw that scan in 20–31 MB).
 * Here the stream's data is wrapped, untouched, in a one-strip TIFF: libtiff decodes it a row at a
 * time and libvips averages the rows down to the image's size on the preview, so memory is a few
 * rows and the preview, whatever the image's size. sharp then turns, mirrors and places that small
 * image exactly as the JPEG and Flate paths do.
 *
 * Taken: a lone CCITTFaxDecode filter with /K < 0 (Group 4, rows not byte-aligned), /K 0 with
 * /EncodedByteAlign true and no /EndOfLine (TIFF's Modified Huffman), or /K ≥ 0 with /EndOfLine
 * true (Group 3, 1-D or 2-D, byte-aligned or not); /Columns equal to /Width, /Rows absent or equal
 * to /Height, 1-bit DeviceGray, no mask, /Decode absent, [0 1] or [1 0]. Anything else — Group 3
 * without EOLs (but the byte-aligned 1-D case), byte-aligned Group 4 (TIFF cannot say so) — returns
 * null and the page goes to pdf.js within the render budget, as before.
 */
import { MAX_CCITT_INPUT_PIXELS, MAX_CCITT_WIDTH_PX } from './budget.js';
import { drawPlaced, placement } from './fast-path.js';
import type { ImagePlan } from './image-plan.js';
import type { RawPixels } from './pixels.js';
import { loadSharp } from './sharp.js';
import { faxToTiff, type FaxCoding } from './tiff.js';
import { PDFArray, dictOf, get, getBool, getNumber, items, nameOf, numberOf, type PDFContext, type PDFRawStream } from '../pdf/objects.js';
import { filtersOf, fullFilterName } from '../pdf/streams.js';

/** A CCITT image XObject as the fax path reads it. */
export interface CcittImage {
  /** The stream's data, still fax-coded. */
  data: Uint8Array;
  widthPx: number;
  heightPx: number;
  coding: FaxCoding;
  interpolate: boolean;
}

/** Why the fax path gave a page back (its data could not be decoded). */
export class CcittFallback extends Error {}

/**
 * Reads an image XObject's dictionary; null when the fax path cannot draw it exactly (another
 * filter or a chain, a coding TIFF cannot express, a colour space other than DeviceGray, a mask,
 * an unexpected /Decode array or /Columns).
 * @example
 * const fax = readCcittImage(context, stream);
 * if (fax) pixels = await renderFromCcitt(fax, plan, 1200);
 */
export function readCcittImage(context: PDFContext, stream: PDFRawStream): CcittImage | null {
  const dict = stream.dict;
  const filters = filtersOf(context, dict).map(fullFilterName);
  if (filters.length !== 1 || filters[0] !== 'CCITTFaxDecode') return null;
  if (getBool(context, dict, 'ImageMask') === true || get(context, dict, 'SMask') || get(context, dict, 'Mask')) return null;
  const int = (key: string) => {
    const v = getNumber(context, dict, key);
    return v !== undefined && Number.isInteger(v) ? v : null;
  };
  const widthPx = int('Width');
  const heightPx = int('Height');
  if (!widthPx || !heightPx || widthPx < 1 || heightPx < 1) return null;
  if (widthPx > MAX_CCITT_WIDTH_PX || widthPx * heightPx > MAX_CCITT_INPUT_PIXELS) return null;
  if (int('BitsPerComponent') !== 1 || nameOf(get(context, dict, 'ColorSpace')) !== 'DeviceGray') return null;

  const parmsObj = get(context, dict, 'DecodeParms') ?? get(context, dict, 'DP');
  const parms = parmsObj instanceof PDFArray ? dictOf(items(context, parmsObj)[0]) : dictOf(parmsObj);
  if (parmsObj !== undefined && !parms && !(parmsObj instanceof PDFArray && parmsObj.size() === 0)) return null;
  const num = (key: string, fallback: number) => {
    const v = parms ? get(context, parms, key) : undefined;
    return v === undefined ? fallback : (numberOf(v) ?? NaN);
  };
  const bool = (key: string, fallback: boolean) => (parms ? (getBool(context, parms, key) ?? fallback) : fallback);
  const k = num('K', 0);
  const rows = num('Rows', 0);
  if (!Number.isInteger(k) || num('Columns', 1728) !== widthPx || (rows !== 0 && rows !== heightPx)) return null;
  const byteAlign = bool('EncodedByteAlign', false);
  const endOfLine = bool('EndOfLine', false);
  let coding: Omit<FaxCoding, 'photometric'>;
  if (k < 0 && !byteAlign) coding = { compression: 4 };
  else if (k === 0 && byteAlign && !endOfLine) coding = { compression: 2 };
  // Group 3 with EOLs (libtiff finds each row by its EOL): 1-D, or mixed 1-D/2-D when K > 0; a
  // byte-aligned row is TIFF's fill bits before each EOL.
  else if (k >= 0 && endOfLine) coding = { compression: 3, t4Options: (k > 0 ? 1 : 0) | (byteAlign ? 4 : 0) };
  else return null;

  // BlackIs1 false (the default): the filter gives 0 for black pixels, which DeviceGray draws
  // black. BlackIs1 true or /Decode [1 0] (not both) draws them white.
  let inverted = bool('BlackIs1', false);
  const decode = get(context, dict, 'Decode');
  if (decode instanceof PDFArray) {
    const values = items(context, decode).map(numberOf);
    if (values.length !== 2) return null;
    if (values[0] === 1 && values[1] === 0) inverted = !inverted;
    else if (!(values[0] === 0 && values[1] === 1)) return null;
  } else if (decode !== undefined) return null;
  return {
    data: stream.contents,
    widthPx,
    heightPx,
    coding: { ...coding, photometric: inverted ? 1 : 0 },
    interpolate: getBool(context, dict, 'Interpolate') === true,
  };
}

/**
 * Draws the page from its CCITT image at `maxPx` on the longest side, a row at a time. Returns null
 * when the image is placed mostly off the page; throws CcittFallback when libtiff cannot decode its
 * data.
 */
export async function renderFromCcitt(image: CcittImage, plan: ImagePlan, maxPx: number): Promise<RawPixels | null> {
  if (image.widthPx !== plan.widthPx || image.heightPx !== plan.heightPx) return null;
  const at = placement(plan, maxPx);
  if (!at) return null;
  // Reduce in image orientation first (libvips streams the rows), then turn the small result: a
  // rotation of the full image would need all of it at once.
  const turned = at.angle === 90 || at.angle === 270;
  const targetW = Math.min(image.widthPx, turned ? at.rh : at.rw);
  const targetH = Math.min(image.heightPx, turned ? at.rw : at.rh);
  const sharp = await loadSharp();
  const tiff = faxToTiff(image.data, image.widthPx, image.heightPx, image.coding);
  let reduced: { data: Buffer; info: { width: number; height: number; channels: number } };
  try {
    reduced = await sharp(tiff, { failOn: 'error', limitInputPixels: MAX_CCITT_INPUT_PIXELS, sequentialRead: true })
      .resize(targetW, targetH, { fit: 'fill', kernel: 'lanczos3' })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new CcittFallback(`its CCITT data could not be decoded (${(error as Error).message})`);
  }
  const { width, height, channels } = reduced.info;
  const input = sharp(reduced.data, { raw: { width, height, channels: channels as 1 | 2 | 3 | 4 } });
  return drawPlaced(input, plan, at, image.interpolate);
}
