/**
 * Measures the detail of a page's JPEG images in the worker (raster/detail.ts judges the pixels):
 * each image is decoded at full resolution only down to the end of one band of 512 rows — the first
 * from the top that is textured enough — and the most textured 512 × 512 window of that band is
 * analysed. When the page is the image, band and window are chosen on the page preview and only the
 * window's columns are kept; otherwise the top band is decoded across and its busiest window found
 * on the pixels. Memory is bounded by the band, never the whole image; time by the rows above it
 * (a fresh worker's first measurement of the top band of a 4,800-px photo: about 20 ms of decoding
 * and 40–50 ms of analysis, most of it V8 compiling the loops once).
 */
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import type { DetailRequest, ImageDetail, Placed } from './image-detail-schema.js';
import { busiestWindow, estimateDetail, lumaOf, DETAIL_TILE } from './detail.js';

// The shapes of a request and a measure are zod schemas in image-detail-schema.ts: this module runs
// in the pool's workers, which load no schema library.
export type { DetailRequest, ImageDetail, Placed } from './image-detail-schema.js';

/** Images smaller than this on a side are not measured (too few pixels to matter or to tell). */
export const MIN_DETAIL_PIXELS = 256;
/** At most this many images are measured per page. */
export const MAX_DETAIL_IMAGES = 4;
/** Most pixels of the decoded band. */
const MAX_BAND_PIXELS = 16_000_000;

/** Filters that may wrap an image's own data (ASCII85 around a JPEG, Flate around LZW…). */
const ROW_FILTERS = new Set(['FlateDecode', 'LZWDecode', 'RunLengthDecode', 'ASCII85Decode', 'ASCIIHexDecode', 'Fl', 'LZW', 'RL', 'A85', 'AHx', 'Crypt']);

/**
 * Whether an image's pixels can be read for their detail (raster/image-band.ts): a JPEG or JPEG 2000
 * behind any wrapping filters, or row data (Flate, LZW, RunLength, ASCII, none) of 8 or 16 bits;
 * not a stencil mask, 1–4-bit data, JBIG2 or CCITT.
 */
export function readableForDetail(image: {
  filters: string[];
  bitsPerComponent: number | null;
  imageMask: boolean;
  widthPx: number;
  heightPx: number;
  coded?: { widthPx: number; heightPx: number } | null;
}): boolean {
  if (image.imageMask || image.filters.length > 4) return false;
  const last = image.filters[image.filters.length - 1];
  const wrappers = image.filters.slice(0, -1);
  if (!wrappers.every((f) => ROW_FILTERS.has(f))) return false;
  if (last === 'DCTDecode' || last === 'DCT' || last === 'JPXDecode') {
    const coded = image.coded;
    return !coded || (coded.widthPx === image.widthPx && coded.heightPx === image.heightPx);
  }
  if (last !== undefined && !ROW_FILTERS.has(last)) return false;
  return image.bitsPerComponent === 8 || image.bitsPerComponent === 16;
}

/**
 * The images of a page worth measuring: XObjects whose pixels can be read for their detail
 * ({@link readableForDetail}), at least {@link MIN_DETAIL_PIXELS} on each side, largest placed
 * first, at most {@link MAX_DETAIL_IMAGES}.
 */
export function detailRequests(
  images: readonly {
    ref: string | null;
    inline: boolean;
    filters: string[];
    widthPx: number;
    heightPx: number;
    bitsPerComponent: number | null;
    imageMask: boolean;
    placedWidthPt: number;
    placedHeightPt: number;
    coded?: { widthPx: number; heightPx: number } | null;
    ctm?: readonly number[];
  }[],
  page?: { checkedBox: readonly number[]; rotate: number },
): DetailRequest[] {
  const seen = new Set<string>();
  return images
    .filter((i) => {
      if (i.inline || !i.ref || i.imageMask || seen.has(i.ref)) return false;
      seen.add(i.ref);
      return Math.min(i.widthPx, i.heightPx) >= MIN_DETAIL_PIXELS && readableForDetail(i);
    })
    .sort((a, b) => b.placedWidthPt * b.placedHeightPt - a.placedWidthPt * a.placedHeightPt)
    .slice(0, MAX_DETAIL_IMAGES)
    .map((i) => {
      const request: DetailRequest = { ref: i.ref!, widthPx: i.widthPx, heightPx: i.heightPx };
      if (page && i.ctm?.length === 6 && page.checkedBox.length === 4) {
        request.placed = { ctm: i.ctm as Placed['ctm'], checkedBox: page.checkedBox as Placed['checkedBox'], rotate: page.rotate };
      }
      return request;
    });
}

/** Enlargements beyond this are not looked for (raster/detail.ts). */
const MAX_FACTOR = 8.5;

/**
 * Whether an image printed at `printedPpi` is worth measuring: an enlargement can only be reported
 * when its detail could fall below minPpi (printed below minPpi × 8.5), and an image printed below
 * minPpiError already fails image-low-resolution.
 */
export function worthMeasuring(printedPpi: number | null, limits: { minPpi: number; minPpiError: number }): boolean {
  if (printedPpi === null) return false;
  // "Below minPpiError" as image-low-resolution judges it (rules/threshold.ts: past 1e-4 and as shown
  // with one decimal): an image at 49.99 ppi is a warning there, so its detail is measured here.
  const error = printedPpi < limits.minPpiError * (1 - 1e-4) && Math.round(printedPpi * 10) < Math.round(limits.minPpiError * 10);
  return !error && printedPpi < limits.minPpi * MAX_FACTOR;
}

/** A band is taken once its texture is this share of the busiest band's (decoding costs the rows above it). */
const BAND_ENOUGH = 0.7;

/** A picture of the whole image at a reduced scale, upright (the page preview of an image page). */
export interface Overview {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  channels: number;
}

/**
 * Where the band of `rows` rows to analyse starts: the first one from the top (steps of 64 rows)
 * whose texture is at least {@link BAND_ENOUGH} of the busiest band's, judged on an overview of
 * the image that was decoded anyway (the preview of a page drawn from it) — so that a sky at the
 * top does not hide the picture's detail, and a picture textured all over is decoded no further
 * than its top. Without an overview, the top band. (A look of its own at the whole image would cost
 * its entropy decoding: ~90 ms for a 4,800-px photo.)
 */
export function bandTop(overview: Overview | null, h: number, rows: number): number {
  if (!overview || h <= rows) return 0;
  const { data, width, height, channels } = overview;
  const scale = height / h;
  const g = channels >= 3 ? 1 : 0;
  // Texture per overview row once, summed up, so that each band's is a difference of two sums.
  const upTo = new Float64Array(height + 1);
  for (let y = 0; y < height; y++) upTo[y + 1] = upTo[y]! + rowTexture(data, y * width * channels + g, width, channels);
  const bands: { top: number; energy: number }[] = [];
  for (let top = 0; top + rows <= h; top += 64) {
    const y0 = Math.floor(top * scale);
    const y1 = Math.min(height, Math.ceil((top + rows) * scale));
    bands.push({ top, energy: (upTo[y1]! - upTo[y0]!) / Math.max(1, y1 - y0) });
  }
  let max = 0;
  for (const b of bands) if (b.energy > max) max = b.energy;
  return bands.find((b) => b.energy >= BAND_ENOUGH * max)?.top ?? 0;
}

/**
 * Where the window of {@link DETAIL_TILE} columns starts within the band (a multiple of 16, so that
 * a JPEG's block grid stays where it was): the most textured one on the overview, candidates every
 * 256 columns and flush with the right edge, like raster/detail.ts's busiestWindow on the pixels.
 */
export function windowLeft(overview: Overview, w: number, h: number, top: number, rows: number): number {
  const size = Math.min(w, DETAIL_TILE);
  if (size >= w) return 0;
  const { data, width, height, channels } = overview;
  const sx = width / w;
  const sy = height / h;
  const y0 = Math.floor(top * sy);
  const y1 = Math.max(y0 + 1, Math.min(height, Math.ceil((top + rows) * sy)));
  // Texture per overview column over the band's rows, summed up.
  const column = new Float64Array(width);
  const g = channels >= 3 ? 1 : 0;
  for (let y = y0; y < y1; y++) columnTexture(data, y * width * channels + g, width, channels, column);
  const upTo = new Float64Array(width + 1);
  for (let x = 0; x < width; x++) upTo[x + 1] = upTo[x]! + column[x]!;
  const lefts: number[] = [];
  for (let x = 0; x + size <= w; x += 256) lefts.push(x);
  const last = Math.floor((w - size) / 16) * 16;
  if (lefts[lefts.length - 1] !== last) lefts.push(last);
  let best = 0;
  let most = -1;
  for (const x of lefts) {
    const e = upTo[Math.min(width, Math.ceil((x + size) * sx))]! - upTo[Math.floor(x * sx)]!;
    if (e > most) {
      most = e;
      best = x;
    }
  }
  return best;
}

/** Adds each pixel's step from its left neighbour (one channel, from `p`) to `into`. */
function columnTexture(data: Uint8Array | Uint8ClampedArray, p: number, width: number, channels: number, into: Float64Array): void {
  for (let x = 1; x < width; x++, p += channels) into[x] = into[x]! + Math.abs(data[p + channels]! - data[p]!);
}

/** Sum of the steps between neighbours along one row of one channel (from `p`). */
function rowTexture(data: Uint8Array | Uint8ClampedArray, p: number, width: number, channels: number): number {
  let e = 0;
  for (let x = 1; x < width; x++, p += channels) e += Math.abs(data[p + channels]! - data[p]!);
  return e;
}

/** Measures one JPEG; null when it cannot be decoded (the page's other findings say why). */
export async function measureJpegDetail(jpeg: Uint8Array, request: DetailRequest, maxInputPixels: number, overview: Overview | null = null): Promise<ImageDetail | null> {
  const { default: sharp } = await import('sharp');
  const { widthPx: w, heightPx: h } = request;
  // A decoder goes over the whole image at every scan (jpeg-scans.ts): too many, and it is not measured.
  if (jpegScanReason(jpeg, w * h)) return null;
  const rows = Math.min(h, DETAIL_TILE);
  const width = Math.min(w, Math.max(DETAIL_TILE, Math.floor(MAX_BAND_PIXELS / rows)));
  try {
    const top = Math.floor(bandTop(overview, h, rows) / 16) * 16;
    // With an overview the window is chosen on it too, and only the window's columns are kept.
    const left = overview ? windowLeft(overview, w, h, top, rows) : null;
    const { data, info } = await sharp(jpeg, { failOn: 'none', limitInputPixels: maxInputPixels, sequentialRead: true })
      .extract({ left: left ?? 0, top, width: left === null ? width : Math.min(w, DETAIL_TILE), height: rows })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const tile = left === null ? busiestWindow(data, info.width, info.height, info.channels) : lumaOf(data, info.width, info.height, info.channels);
    const estimate = estimateDetail(tile);
    return { ref: request.ref, ...estimate };
  } catch {
    return null;
  }
}
