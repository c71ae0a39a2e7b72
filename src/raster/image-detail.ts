/**
 * Measures the detail of a page's JPEG images in the worker (raster/detail.ts judges the pixels):
 * each image is decoded at full resolution only down to a band of 512 rows at its top, and the most
 * textured 512 × 512 window of that band is analysed. The cost is bounded by the band (about 25 ms
 * of decoding for a 4,800-px photo, 35–80 ms of analysis), never the whole image.
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

/** Measures one JPEG; null when it cannot be decoded (the page's other findings say why). */
export async function measureJpegDetail(jpeg: Uint8Array, request: DetailRequest, maxInputPixels: number): Promise<ImageDetail | null> {
  const { default: sharp } = await import('sharp');
  const { widthPx: w, heightPx: h } = request;
  const rows = Math.min(h, DETAIL_TILE);
  const width = Math.min(w, Math.max(DETAIL_TILE, Math.floor(MAX_BAND_PIXELS / rows)));
  try {
    const { data, info } = await sharp(jpeg, { failOn: 'none', limitInputPixels: maxInputPixels, sequentialRead: true })
      .extract({ left: 0, top: 0, width, height: rows })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const estimate = estimateDetail(busiestWindow(data, info.width, info.height, info.channels));
    return { ref: request.ref, ...estimate };
  } catch {
    return null;
  }
}
