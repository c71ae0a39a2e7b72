/**
 * Which pages an image path draws: a page whose one image covers it, with nothing else painted,
 * drawn axis-aligned — the plan says where the image lies and how it is turned. Decided from the
 * structure facts alone (no bytes read, no decoder loaded), by the caller before it hands the page
 * to a worker: raster/fast-path.ts (JPEG), flate-path.ts and ccitt-path.ts draw it. No schema
 * library loads with it (pool/tasks.ts holds the schema of a JPEG's location, checked against this type).
 */
import type { ImageFacts, PageFacts } from '../pdf/facts.js';
import type { Matrix, Rect } from '../model/geometry.js';
import { MAX_CCITT_INPUT_PIXELS, MAX_CCITT_WIDTH_PX, MAX_FAST_PATH_INPUT_PIXELS, fastPathFits } from './budget.js';

/** What the worker needs to draw a page from its image alone. */
export interface ImagePlan {
  ref: string;
  ctm: Matrix;
  checkedBox: Rect;
  rotate: number;
  widthPx: number;
  heightPx: number;
}

const FAST_FAMILIES = new Set(['DeviceRGB', 'DeviceGray', 'DeviceCMYK', 'ICCBased']);

/**
 * The page's one image when it covers the page with nothing else painted, drawn axis-aligned and
 * without a mask; otherwise null. The geometry both image paths (JPEG and Flate) need.
 */
export function coveringImage(page: PageFacts): ImageFacts | null {
  if (page.images.length !== 1 || page.colours.length !== 0) return null;
  const image = page.images[0]!;
  if (image.inline || !image.ref || image.imageMask || image.hasSMask || image.mask) return null;
  const [a, b, c, d] = image.ctm;
  const axisAligned = (Math.abs(b) < 1e-6 && Math.abs(c) < 1e-6) || (Math.abs(a) < 1e-6 && Math.abs(d) < 1e-6);
  if (!axisAligned) return null;
  const box = page.checkedBox;
  const eps = 0.002 * Math.max(box[2] - box[0], box[3] - box[1]);
  const [x0, y0, x1, y1] = image.bbox;
  if (x0 > box[0] + eps || y0 > box[1] + eps || x1 < box[2] - eps || y1 < box[3] - eps) return null;
  return image;
}

/** The plan that draws `page` from its covering `image`. */
export function planFor(page: PageFacts, image: ImageFacts): ImagePlan {
  return { ref: image.ref!, ctm: image.ctm, checkedBox: page.checkedBox, rotate: page.rotate, widthPx: image.widthPx, heightPx: image.heightPx };
}

/**
 * A plan when the page is one JPEG image covering the page with nothing else painted, drawn
 * axis-aligned; otherwise null (pdf.js renders the page).
 */
export function imagePlan(page: PageFacts): ImagePlan | null {
  const image = coveringImage(page);
  if (!image) return null;
  if (image.filters.length !== 1 || image.filters[0] !== 'DCTDecode') return null;
  if (!image.colourSpace || !FAST_FAMILIES.has(image.colourSpace.family)) return null;
  // The JPEG must be what the PDF says it is, and decodable within the fast path's budget.
  const coded = image.coded;
  if (!coded || coded.widthPx !== image.widthPx || coded.heightPx !== image.heightPx || !fastPathFits(coded)) return null;
  return planFor(page, image);
}

const FLATE_FAMILIES = new Set(['DeviceGray', 'DeviceRGB', 'ICCBased']);
/** Spot and multi-ink images: drawn here through their tint transform (PDFium and pdf.js miss some: a sampled function with a /Size 1 dimension). */
const INK_FAMILIES = new Set(['Separation', 'DeviceN']);

/**
 * A plan when the page is one Flate-compressed (or uncompressed) gray, RGB, Separation or DeviceN
 * image of 8 or 16 bits covering the page, drawn axis-aligned (flate-path.ts draws it); otherwise null. The worker
 * checks the stream's own dictionary again (predictor, /Decode, colour-key mask) before it
 * inflates a byte.
 */
export function flatePlan(page: PageFacts): ImagePlan | null {
  const image = coveringImage(page);
  if (!image) return null;
  if (image.filters.length > 1 || (image.filters.length === 1 && image.filters[0] !== 'FlateDecode')) return null;
  if (image.bitsPerComponent !== 8 && image.bitsPerComponent !== 16) return null;
  const cs = image.colourSpace;
  if (!cs) return null;
  const inks = INK_FAMILIES.has(cs.family) && cs.components >= 1 && cs.components <= 8;
  if (!inks && (cs.components !== (cs.model === 'gray' ? 1 : cs.model === 'rgb' ? 3 : 0) || !FLATE_FAMILIES.has(cs.family))) return null;
  if (image.widthPx * image.heightPx > MAX_FAST_PATH_INPUT_PIXELS) return null;
  return planFor(page, image);
}

/**
 * A plan when the page is one CCITT fax image (1 bit, DeviceGray) covering the page, drawn
 * axis-aligned (ccitt-path.ts draws it, a row at a time); otherwise null. The worker checks the
 * stream's own dictionary again (/K, /EncodedByteAlign, /EndOfLine, /BlackIs1, /Decode, /Columns)
 * before libtiff reads a byte.
 */
export function ccittPlan(page: PageFacts): ImagePlan | null {
  const image = coveringImage(page);
  if (!image) return null;
  if (image.filters.length !== 1 || image.filters[0] !== 'CCITTFaxDecode') return null;
  if (image.bitsPerComponent !== 1 || image.colourSpace?.family !== 'DeviceGray') return null;
  // The data must be as big as the image says (/Columns and /Rows): it is decoded at that size.
  if (!image.coded || image.coded.widthPx !== image.widthPx || image.coded.heightPx !== image.heightPx) return null;
  if (image.widthPx > MAX_CCITT_WIDTH_PX || image.widthPx * image.heightPx > MAX_CCITT_INPUT_PIXELS) return null;
  return planFor(page, image);
}

/** Where a JPEG image's stream data lies in the file (offset and length), and what its dictionary says about decoding it: the worker draws it from there. */
export interface JpegLocation {
  /** Offset of the stream's data in the file, and its length in bytes. */
  at: [number, number];
  decodeInverted: boolean;
  interpolate: boolean;
}
