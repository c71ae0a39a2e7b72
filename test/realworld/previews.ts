/**
 * Our previews against Ghostscript's print rendering, page by page: the pixel and blank-page
 * aspects of the real-world comparison. Each file is checked once through the library (the pool,
 * PNG previews at the preview size), each previewed page drawn by Ghostscript at the same pixel
 * size (pixels.ts), and the two compared. Where they differ, poppler and MuPDF are asked too.
 */
import { preflightWithPreviews } from '../../src/flow/preflight.js';
import type { PreflightPool } from '../../src/pool/pool.js';
import type { Report } from '../../src/report/schema.js';
import type { RawPixels } from '../../src/raster/pixels.js';
import { comparePixels, ghostscriptPage, isClose, mupdfPage, popplerPage, previewPixels, type PixelAgreement } from './pixels.js';

export const ORACLES = ['ghostscript', 'poppler', 'mupdf'] as const;
export type Oracle = (typeof ORACLES)[number];

/**
 * - `agree`: close to Ghostscript's print rendering;
 * - `agree-other`: not to Ghostscript's, but to poppler's or MuPDF's (a reader's own misreading);
 * - `approximate`: close to none, and the report says on the page that its preview is approximate;
 * - `differ`: close to none, and nothing says so.
 */
export type PixelVerdict = 'agree' | 'agree-other' | 'approximate' | 'differ';

export interface PagePixels {
  page: number;
  method: string;
  /** Against Ghostscript, and against poppler and MuPDF when Ghostscript and we are not close. */
  against: Partial<Record<Oracle, PixelAgreement>>;
  verdict: PixelVerdict;
  /** Our blank verdict (an empty raster that is not page-render-failed) and the oracles' majority. */
  blankOurs: boolean;
  blankOracle: boolean;
  /** Why the report calls the preview approximate, if it does. */
  approximate: string | null;
}

export interface FilePreviews {
  pages: PagePixels[];
  /** Pages we could not render (page-render-failed, pdf-too-complex, pdf-timeout), with why. */
  failed: { page: number; code: string; detail: string }[];
  /** Pages no oracle could draw: not compared. */
  oracleFailed: number[];
}

/** Preview size of the comparison: the library's default. */
export const PREVIEW_PX = 1200;
/** Pages compared per file at most: the library's default `maxRasterPages`, so every previewed page. */
export const MAX_PREVIEW_PAGES = 64;
/** The profiles' default blank-page threshold (blankInkCoverage). */
const BLANK_INK_COVERAGE = 0.0001;
/** Any SKU will do: the pixels and the blank test do not depend on the product. */
const TARGET = { sku: 'T-SHIRT-M' };

export async function comparePreviews(path: string, bytes: Uint8Array, pool: PreflightPool, previewPx = PREVIEW_PX): Promise<FilePreviews> {
  const { report, previews } = await preflightWithPreviews(bytes, TARGET, {
    pool,
    previewFormat: 'png',
    previewSize: previewPx,
    maxRasterPages: MAX_PREVIEW_PAGES,
    path: path.split('/').pop() ?? path,
  });
  const out: FilePreviews = { pages: [], failed: [], oracleFailed: [] };
  for (const f of report.findings) {
    if (f.page !== null && (f.code === 'page-render-failed' || f.code === 'pdf-too-complex' || f.code === 'pdf-timeout'))
      out.failed.push({ page: f.page, code: f.code, detail: f.actual ?? f.message });
  }
  for (const page of report.pages.slice(0, MAX_PREVIEW_PAGES)) {
    const preview = previews.get(page.index);
    if (!preview || !page.raster) continue;
    const ours = await previewPixels(preview.bytes);
    const [wPt, hPt] = displayedSizePt(page);
    const draw: Record<Oracle, () => Promise<RawPixels | null>> = {
      ghostscript: () => ghostscriptPage(path, page.index, ours.width, ours.height, wPt, hPt),
      poppler: () => popplerPage(path, page.index, ours.width, ours.height),
      mupdf: () => mupdfPage(path, page.index, ours.width, ours.height),
    };
    // A page with a layer is blank when the report says page-blank (its rule reads the unrounded ink
    // coverage: the report's 0.0001 may stand for 0.00012, pdf.js issue17929.pdf); a page beyond the
    // product's layers has no such finding, and is judged from the report's figure.
    const blankOurs =
      page.layer !== null
        ? report.findings.some((f) => f.code === 'page-blank' && f.page === page.index)
        : page.raster.inkCoverage <= BLANK_INK_COVERAGE && !out.failed.some((f) => f.page === page.index);
    const against: Partial<Record<Oracle, PixelAgreement>> = {};
    for (const oracle of ORACLES) {
      const pixels = await draw[oracle]();
      if (pixels) against[oracle] = comparePixels(ours, pixels);
      // The other readers are asked only when Ghostscript and we are not close, or disagree on
      // whether the page is blank (Ghostscript draws nothing of pdf.js issue18548_reduced.pdf,
      // where poppler and MuPDF ink 2.8 % of the page as we do).
      const gs = against.ghostscript;
      if (gs && isClose(gs) && gs.inkOracle <= BLANK_INK_COVERAGE === blankOurs) break;
    }
    const drawn = ORACLES.filter((o) => against[o]);
    if (!drawn.length) {
      out.oracleFailed.push(page.index);
      continue;
    }
    const blanks = drawn.map((o) => against[o]!.inkOracle <= BLANK_INK_COVERAGE);
    // Ghostscript decides; when the others were asked, the majority of those that drew the page.
    const blankOracle = blanks.length === 1 ? blanks[0]! : blanks.filter(Boolean).length * 2 > blanks.length;
    const approximate = page.raster.approximate ?? null;
    out.pages.push({ page: page.index, method: page.raster.method, against, verdict: verdictOf(against, approximate), blankOurs, blankOracle, approximate });
  }
  return out;
}

function verdictOf(against: Partial<Record<Oracle, PixelAgreement>>, approximate: string | null): PixelVerdict {
  if (against.ghostscript && isClose(against.ghostscript)) return 'agree';
  if ((against.poppler && isClose(against.poppler)) || (against.mupdf && isClose(against.mupdf))) return 'agree-other';
  return approximate ? 'approximate' : 'differ';
}

/** The page as displayed (CropBox clipped to the MediaBox, turned by /Rotate), in points. */
function displayedSizePt(page: Report['pages'][number]): [number, number] {
  const box = page.boxes.crop ?? page.boxes.media;
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  return page.rotate === 90 || page.rotate === 270 ? [h, w] : [w, h];
}
