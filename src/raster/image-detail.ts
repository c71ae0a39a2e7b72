/**
 * Measures the detail of a page's JPEG images in the worker (raster/detail.ts judges the pixels):
 * each image is decoded at full resolution only down to the end of one band of 512 rows — the first
 * from the top that is textured enough (judged on the page preview when the page is the image) —
 * and the most textured
 * 512 × 512 window of that band is analysed. Memory is bounded by the band, never the whole image;
 * time by the rows above it (about 25 ms of decoding for the top band of a 4,800-px photo, 35–80 ms
 * of analysis).
 */
import { z } from 'zod';
import { busiestWindow, estimateDetail, DETAIL_TILE } from './detail.js';

/** An image the main thread asks the worker to measure. */
export const DetailRequestSchema = z.object({ ref: z.string(), widthPx: z.number().int().positive(), heightPx: z.number().int().positive() });
export type DetailRequest = z.infer<typeof DetailRequestSchema>;

export const ImageDetailSchema = z.object({
  /** The image XObject ("12 0 R"). */
  ref: z.string(),
  /** Enlargement factor when the image was upscaled from a smaller picture, else null. */
  factor: z.number().nullable(),
  factorX: z.number().nullable(),
  factorY: z.number().nullable(),
  /** The coherence behind the verdict (raster/detail.ts). */
  evidence: z.number(),
});
export type ImageDetail = z.infer<typeof ImageDetailSchema>;

/** Images smaller than this on a side are not measured (too few pixels to matter or to tell). */
export const MIN_DETAIL_PIXELS = 256;
/** At most this many images are measured per page. */
export const MAX_DETAIL_IMAGES = 4;
/** Most pixels of the decoded band. */
const MAX_BAND_PIXELS = 16_000_000;

/**
 * The JPEG images of a page worth measuring: XObjects drawn with one DCTDecode filter, at least
 * {@link MIN_DETAIL_PIXELS} on each side, largest placed first, at most {@link MAX_DETAIL_IMAGES}.
 */
export function detailRequests(
  images: readonly { ref: string | null; inline: boolean; filters: string[]; widthPx: number; heightPx: number; imageMask: boolean; placedWidthPt: number; placedHeightPt: number; coded?: { widthPx: number; heightPx: number } | null }[],
): DetailRequest[] {
  const seen = new Set<string>();
  return images
    .filter((i) => {
      if (i.inline || !i.ref || i.imageMask || seen.has(i.ref)) return false;
      seen.add(i.ref);
      const coded = i.coded;
      return (
        i.filters.length === 1 &&
        i.filters[0] === 'DCTDecode' &&
        Math.min(i.widthPx, i.heightPx) >= MIN_DETAIL_PIXELS &&
        (!coded || (coded.widthPx === i.widthPx && coded.heightPx === i.heightPx))
      );
    })
    .sort((a, b) => b.placedWidthPt * b.placedHeightPt - a.placedWidthPt * a.placedHeightPt)
    .slice(0, MAX_DETAIL_IMAGES)
    .map((i) => ({ ref: i.ref!, widthPx: i.widthPx, heightPx: i.heightPx }));
}

/** Enlargements beyond this are not looked for (raster/detail.ts). */
const MAX_FACTOR = 8.5;

/**
 * Whether an image printed at `printedPpi` is worth measuring: an enlargement can only be reported
 * when its detail could fall below minPpi (printed below minPpi × 8.5), and an image printed below
 * minPpiError already fails image-low-resolution.
 */
export function worthMeasuring(printedPpi: number | null, limits: { minPpi: number; minPpiError: number }): boolean {
  return printedPpi !== null && printedPpi >= limits.minPpiError && printedPpi < limits.minPpi * MAX_FACTOR;
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
  const bands: { top: number; energy: number }[] = [];
  for (let top = 0; top + rows <= h; top += 64) {
    const y0 = Math.floor(top * scale);
    const y1 = Math.min(height, Math.ceil((top + rows) * scale));
    let e = 0;
    for (let y = y0; y < y1; y++) for (let x = 1; x < width; x++) e += Math.abs(data[(y * width + x) * channels + g]! - data[(y * width + x - 1) * channels + g]!);
    bands.push({ top, energy: e / Math.max(1, y1 - y0) });
  }
  let max = 0;
  for (const b of bands) if (b.energy > max) max = b.energy;
  return bands.find((b) => b.energy >= BAND_ENOUGH * max)?.top ?? 0;
}

/** Measures one JPEG; null when it cannot be decoded (the page's other findings say why). */
export async function measureJpegDetail(jpeg: Uint8Array, request: DetailRequest, maxInputPixels: number, overview: Overview | null = null): Promise<ImageDetail | null> {
  const { default: sharp } = await import('sharp');
  const { widthPx: w, heightPx: h } = request;
  const rows = Math.min(h, DETAIL_TILE);
  const width = Math.min(w, Math.max(DETAIL_TILE, Math.floor(MAX_BAND_PIXELS / rows)));
  try {
    const top = Math.floor(bandTop(overview, h, rows) / 16) * 16;
    const { data, info } = await sharp(jpeg, { failOn: 'none', limitInputPixels: maxInputPixels, sequentialRead: true })
      .extract({ left: 0, top, width, height: rows })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const estimate = estimateDetail(busiestWindow(data, info.width, info.height, info.channels));
    return { ref: request.ref, ...estimate };
  } catch {
    return null;
  }
}
