/**
 * The memory budget of rendering one page, decided on the main thread before any decoder runs.
 * pdf.js decodes every image it draws whole (about 11 bytes per pixel at its peak, measured:
 * a 64-megapixel Flate image takes a worker from 270 MB to 1 GB), so a page is rendered only
 * when the images it draws — soft masks and mask images included, each at the larger of its
 * declared size and the size its JPEG / JPEG 2000 data gives — stay within a pixel budget.
 * The sharp fast path decodes a sequential JPEG with shrink-on-load (1/8 scale), so it is
 * bounded by `limitInputPixels`; a progressive JPEG keeps every DCT coefficient (2 bytes per
 * pixel and component) whatever the output size, so it is held to a byte budget too.
 */
import type { ImageFacts, PageFacts } from '../pdf/facts.js';
import { allocatedSize } from '../pdf/allocated-size.js';

/** Default pixel budget of the images one page draws through pdf.js (≈ 550 MB of worker memory). */
export const MAX_RENDER_IMAGE_PIXELS = 48_000_000;
/** sharp's limitInputPixels on the fast path: shrink-on-load decodes a sequential JPEG at 1/8 scale. */
export const MAX_FAST_PATH_INPUT_PIXELS = 1_000_000_000;
/**
 * Pixels of a CCITT fax image drawn from its data alone (raster/ccitt-path.ts): libtiff decodes it
 * a row at a time and libvips averages the rows down to the preview, so memory is a few rows, and
 * time grows with the pixels (a 35,000 × 35,000 scan of 1.2 gigapixels: about 3 s of CPU). 4
 * gigapixels is a 65,000-pixel square, the largest a TIFF fax reader is made for.
 */
export const MAX_CCITT_INPUT_PIXELS = 4_000_000_000;
/**
 * Widest CCITT image drawn from its data. libvips reduces the rows as they come, but holds a band of
 * them at 1 byte per pixel while it does: measured with Group 4 scans made by Pillow, the process
 * peaks at about 64 MB + 0.7 KB per pixel of width whatever the height (200,000 px across: 165–260 MB;
 * 1,000,000: 760–810 MB). At this width the fax path stays within 300 MB; a wider image goes to
 * pdf.js within the page's pixel budget, which keeps the page from it when it would not fit.
 */
export const MAX_CCITT_WIDTH_PX = 200_000;
/** Coefficient memory a progressive JPEG may take on the fast path (2 bytes per pixel and component). */
export const MAX_PROGRESSIVE_COEFFICIENT_BYTES = 256 * 1024 * 1024;

/** Pixels a renderer decodes for one image: itself and its mask, each at the size it allocates for. */
export function imageDecodePixels(image: ImageFacts): number {
  const own = allocatedSize(image);
  const mask = image.mask ? allocatedSize(image.mask) : { widthPx: 0, heightPx: 0 };
  return own.widthPx * own.heightPx + mask.widthPx * mask.heightPx;
}

/** Pixels pdf.js decodes to draw the page: each distinct image once (it keeps them until the page is done). */
export function pageDecodePixels(page: PageFacts): number {
  const seen = new Set<string>();
  let total = 0;
  for (const image of page.images) {
    if (image.ref && !image.inline) {
      if (seen.has(image.ref)) continue;
      seen.add(image.ref);
    }
    total += imageDecodePixels(image);
  }
  return total;
}

/** Whether the fast path can decode this JPEG within its budgets. */
export function fastPathFits(coded: { widthPx: number; heightPx: number; components: number; progressive: boolean }): boolean {
  const pixels = coded.widthPx * coded.heightPx;
  if (pixels > MAX_FAST_PATH_INPUT_PIXELS) return false;
  return !coded.progressive || pixels * Math.max(1, coded.components) * 2 <= MAX_PROGRESSIVE_COEFFICIENT_BYTES;
}

/**
 * A tiling cell smaller than this on the preview (in pixels) keeps the page from every renderer:
 * pdf.js, which draws one cell and repeats it, works on such a cell for ever (measured on a loaded
 * 2-core machine: 0.003 px, 3.5 s of CPU; 0.0003 px, over 40 s), and PDFium draws every cell.
 */
export const MIN_TILING_CELL_PX = 0.02;

/** The smallest tiling cell the page paints, in pixels of a preview `previewPx` on its longest side; null when it paints none. */
export function tilingCellPx(page: Pick<PageFacts, 'tiling' | 'widthMm' | 'heightMm' | 'userUnit'>, previewPx: number): number | null {
  if (!page.tiling) return null;
  // The cell step is in default user space (pt); the page's size in mm includes /UserUnit.
  const longestPt = (Math.max(page.widthMm, page.heightMm) / 25.4) * 72;
  return longestPt > 0 ? (page.tiling.smallestStepPt * page.userUnit * previewPx) / longestPt : null;
}
