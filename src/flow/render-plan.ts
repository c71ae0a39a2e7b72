/**
 * The render plan: for each page of a check, whether it is drawn, by what (raster/renderer.ts
 * decides the engines, raster/fast-path.ts, flate-path.ts and ccitt-path.ts the one-image pages), within which
 * memory budget, and what the drawing must also measure (the detail of images worth measuring for
 * image-upscaled). Decided here once, from the structure facts, before any decoder runs: the check
 * only carries the plan out.
 */
import type { PageFacts } from '../pdf/facts.js';
import { MAX_FAST_PATH_INPUT_PIXELS, MIN_TILING_CELL_PX, pageDecodePixels, tilingCellPx } from '../raster/budget.js';
import type { RasterFailure } from '../raster/facts.js';
import { ccittPlan, flatePlan, imagePlan, type ImagePlan } from '../raster/image-plan.js';
import { detailRequests, worthMeasuring } from '../raster/image-detail.js';
import { systemCjkFace } from '../raster/cjk-face.js';
import { drawsDeviceCmyk, fallbackRenderer, pageRenderer, pdfiumDrawsAnnotations } from '../raster/renderer.js';
import type { RenderTask } from '../pool/tasks.js';
import type { LayerSpec } from '../profile/registry.js';
import type { Limits } from '../profile/schema.js';
import { printScaleOf } from '../rules/check-page-size.js';
import { blankCeiling } from '../rules/check-page-pixels.js';
import { grouped } from '../util/text.js';

/** What a check's settings say about drawing. */
export interface RenderSettings {
  /** Pixels on the longest side of the drawing. */
  previewSize: number;
  /** Pixels of images a page may make a renderer decode whole (pages drawn from their one image aside). */
  maxRenderImagePixels: number;
  limits: Limits;
}

/** A page to draw: the task (without the file's bytes and the call's settings), and what the plan needs afterwards. */
export interface PageDraw {
  /** The page drawn from its one image (JPEG or Flate), when the structure allows. */
  plan: ImagePlan | null;
  /** The reference of that image when it is a JPEG (where the structure read found its bytes). */
  jpegRef: string | null;
  /** Pixels of the images the page makes a renderer decode. */
  decodePixels: number;
  task: Omit<RenderTask, 'kind' | 'taskId' | 'docId' | 'bytes' | 'format' | 'jpeg' | 'limits'>;
}

/**
 * The plan of one page: a drawing, or why it is not drawn (a failure the report says).
 * @example
 * const p = planPage(facts.pages[0], resolved.layers[0], { previewSize: 1200, maxRenderImagePixels: 48e6, limits });
 * if ('failure' in p) console.log(p.failure.detail);
 */
export function planPage(page: PageFacts, layer: LayerSpec | null, settings: RenderSettings): PageDraw | { failure: RasterFailure } {
  const jpegPlan = imagePlan(page);
  const plan = jpegPlan ?? flatePlan(page) ?? ccittPlan(page);
  const decodePixels = pageDecodePixels(page);
  const cellPx = tilingCellPx(page, settings.previewSize);
  if (cellPx !== null && cellPx < MIN_TILING_CELL_PX) return { failure: { index: page.index, reason: 'over-budget', detail: tinyTiles(cellPx, page.tiling!.cells) } };
  // The memory budget is decided here, before any decoder runs: a page whose images would not fit
  // is never handed to a worker. A page drawn from its one image (JPEG shrunk on load, Flate or
  // CCITT streamed) needs no more than the preview's memory, whatever the image's size.
  if (!plan && decodePixels > settings.maxRenderImagePixels) return { failure: overBudget(page, decodePixels, settings.maxRenderImagePixels) };
  const { limits } = settings;
  const scale = printScaleOf(page, layer, limits);
  const detail = detailRequests(
    page.images.filter((i) => worthMeasuring(i.ppiX === null || i.ppiY === null ? null : Math.min(i.ppiX, i.ppiY) / scale, limits)),
    page,
  );
  const renderer = pageRenderer(page, { cjkFace: systemCjkFace() !== null });
  return {
    plan,
    jpegRef: jpegPlan?.ref ?? null,
    decodePixels,
    task: {
      page: page.index,
      maxPx: settings.previewSize,
      plan,
      renderer,
      fallback: fallbackRenderer(page, renderer),
      pageRef: page.ref,
      // What the page's content should leave on paper: an empty drawing of a page that paints asks for a second look.
      // blankInk: the most a drawing may ink and still be blank as page-blank judges it (the stated tolerance).
      expect: { ink: page.marks?.ink ?? 0, images: page.marks?.images ?? 0, blankInk: blankCeiling(limits.blankInkCoverage) },
      ...(pdfiumDrawsAnnotations(page) ? { annotations: true } : {}),
      ...(renderer === 'pdfium' && drawsDeviceCmyk(page) ? { cmykChain: true } : {}),
      maxInputPixels: MAX_FAST_PATH_INPUT_PIXELS,
      maxPdfjsImagePixels: settings.maxRenderImagePixels,
      largestImagePixels: decodePixels,
      ...(detail.length ? { detail } : {}),
    },
  };
}

/** A page planned from its one image but over the pdf.js budget, once the worker found it cannot stream that image. */
export function overBudget(page: Pick<PageFacts, 'index'>, pixels: number, max: number): RasterFailure {
  return {
    index: page.index,
    reason: 'over-budget',
    detail: `draws images of ${grouped(pixels)} pixels in all (soft masks included, at the size their data declares); a renderer decodes them whole, and pages over ${grouped(max)} pixels are not rendered, to stay within the memory limit`,
  };
}

function tinyTiles(cellPx: number, cells: number): string {
  const count = cells >= 1e15 ? 'more than 10^15' : grouped(Math.round(cells));
  return `paints a tiling pattern whose cells are ${cellPx < 0.0001 ? cellPx.toExponential(1) : cellPx.toFixed(4)} px at the preview size (${count} cells over the page); a renderer would work on it for minutes, so it is not rendered`;
}
