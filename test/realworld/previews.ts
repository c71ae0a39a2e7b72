/**
 * Our previews against Ghostscript's print rendering, page by page: the pixel and blank-page
 * aspects of the real-world comparison. Each file is checked once through the library (the pool,
 * PNG previews at the preview size), each previewed page drawn by Ghostscript at the same pixel
 * size (pixels.ts), and the two compared.
 */
import { preflightWithPreviews } from '../../src/preflight.js';
import type { PreflightPool } from '../../src/pool/pool.js';
import type { Report } from '../../src/report/schema.js';
import { comparePixels, ghostscriptPage, previewPixels, type PixelAgreement } from './pixels.js';

export interface PagePixels extends PixelAgreement {
  page: number;
  method: string;
  /** Our blank verdict (the page-blank rule's test) and Ghostscript's, by the same threshold. */
  blankOurs: boolean;
  blankOracle: boolean;
  /** The report says on the page that its preview is approximate. */
  approximate: boolean;
}

export interface FilePreviews {
  pages: PagePixels[];
  /** Pages we could not render (page-render-failed, pdf-too-complex, pdf-timeout), with why. */
  failed: { page: number; code: string; detail: string }[];
  /** Pages Ghostscript could not draw: not compared. */
  oracleFailed: number[];
}

/** Preview size of the comparison: the library's default. */
export const PREVIEW_PX = 1200;
/** Pages compared per file at most. */
export const MAX_PREVIEW_PAGES = 12;

/** The profiles' default blank-page threshold (blankInkCoverage). */
const BLANK_INK_COVERAGE = 0.0001;

/** Any SKU will do: the pixels and the blank test do not depend on the product. */
const TARGET = { sku: 'T-SHIRT-M' };

export async function comparePreviews(path: string, bytes: Uint8Array, pool: PreflightPool, previewPx = PREVIEW_PX): Promise<FilePreviews> {
  const { report, previews } = await preflightWithPreviews(bytes, TARGET, { pool, previewFormat: 'png', previewSize: previewPx, maxRasterPages: MAX_PREVIEW_PAGES, path: displayPath(path) });
  const out: FilePreviews = { pages: [], failed: [], oracleFailed: [] };
  for (const f of report.findings) {
    if (f.page !== null && (f.code === 'page-render-failed' || f.code === 'pdf-too-complex' || f.code === 'pdf-timeout')) out.failed.push({ page: f.page, code: f.code, detail: f.actual ?? f.message });
  }
  const blankLimit = BLANK_INK_COVERAGE;
  for (const page of report.pages.slice(0, MAX_PREVIEW_PAGES)) {
    const preview = previews.get(page.index);
    if (!preview || !page.raster) continue;
    const ours = await previewPixels(preview.bytes);
    const [wPt, hPt] = displayedSizePt(page);
    const oracle = await ghostscriptPage(path, page.index, ours.width, ours.height, wPt, hPt);
    if (!oracle) {
      out.oracleFailed.push(page.index);
      continue;
    }
    const agreement = comparePixels(ours, oracle);
    out.pages.push({
      page: page.index,
      method: page.raster.method,
      ...agreement,
      blankOurs: page.raster.inkCoverage <= blankLimit && !out.failed.some((f) => f.page === page.index),
      blankOracle: agreement.inkOracle <= blankLimit,
      approximate: !!page.raster.approximate,
    });
  }
  return out;
}

/** The page as displayed (CropBox clipped to the MediaBox, turned by /Rotate), in points. */
function displayedSizePt(page: Report['pages'][number]): [number, number] {
  const box = page.boxes.crop ?? page.boxes.media;
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  return page.rotate === 90 || page.rotate === 270 ? [h, w] : [w, h];
}

function displayPath(path: string): string {
  return path.split('/').pop() ?? path;
}
