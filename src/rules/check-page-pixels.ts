import { maxOf } from '../util/array.js';
import { formatNumber, round } from '../pdf/units.js';
import { EDGES, type Edge, type RasterFacts } from '../raster/facts.js';
import type { PageFacts } from '../pdf/facts.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { isAbove, isBelow, THRESHOLD_TOLERANCE } from './threshold.js';

/**
 * Whether a raster's ink coverage is above the blank threshold ("at or below this is blank"), within
 * the stated tolerance and as the share is shown (page-blank writes it in thousandths of a per cent).
 */
export const inks = (coverage: number, blankInkCoverage: number): boolean => isAbove(coverage, blankInkCoverage, 5);

/**
 * The largest coverage {@link inks} still calls blank, as one number: the render worker compares
 * drawings with it (`coverage <= blankInk`: which engine's drawing to keep, whether to ask the other
 * engine for a second look), so it judges "empty" as page-blank does.
 * @example
 * blankCeiling(0.0001); // ≈ 0.000105: 0.0001049 shows as 0.01 % and is blank
 */
export function blankCeiling(blankInkCoverage: number): number {
  const shown = (Math.round(blankInkCoverage * 1e5) + 0.5) / 1e5; // the first coverage that shows above it
  return Math.min(1, Math.max(blankInkCoverage * (1 + THRESHOLD_TOLERANCE), shown * (1 - 1e-12)));
}

/**
 * Whether a white band along a sewn edge is reported: at least minEdgeGapMm ("the narrowest band
 * reported"), within the stated tolerance and as the report shows bands (tenths of a millimetre).
 */
export const reportedGap = (mm: number, minEdgeGapMm: number): boolean => !isBelow(mm, minEdgeGapMm, 1);

/**
 * The white band along an edge of the page as shown, in mm: its pixels (never more than the raster
 * is across: a band wider than the page is the whole page) at the raster's scale, so it stays within
 * the page's size whatever the numbers (a page 1e307 mm wide drawn 1 px across).
 */
export function edgeGapMm(raster: Pick<RasterFacts, 'edgeGapPx' | 'widthPx' | 'heightPx'>, page: { widthMm: number; heightMm: number }, edge: Edge): number {
  const across = edge === 'top' || edge === 'bottom' ? raster.heightPx : raster.widthPx;
  const px = Math.min(raster.edgeGapPx[edge], across);
  return px === across ? (edge === 'top' || edge === 'bottom' ? page.heightMm : page.widthMm) : px * ((edge === 'top' || edge === 'bottom' ? page.heightMm : page.widthMm) / across);
}

/**
 * Content this much above the blank threshold (as a share of the page, pdf/marks.ts) is more than
 * a renderer can leave out by rounding: an empty raster of such a page is a rendering failure.
 */
const EXPECTED_INK_FACTOR = 4;

/**
 * Why an empty raster of this page is not a blank page, or null when it is one (or is not empty):
 * the page's content paints ink in the visible area (both renderers were asked and drew nothing),
 * an image could not be decoded, or it has printing form fields that neither renderer draws.
 * @example
 * emptyButPaints({ inkCoverage: 0 }, { marks: { ink: 0.2 } }, 0.0001);
 * // "rendering drew nothing, but its content paints about 20 % of the page …"
 */
export function emptyButPaints(
  raster: Pick<RasterFacts, 'inkCoverage' | 'approximate'>,
  page: { marks?: Pick<NonNullable<PageFacts['marks']>, 'ink' | 'texts'>; undrawnFields?: number; fonts?: PageFacts['fonts'] },
  blankInkCoverage: number,
): string | null {
  if (inks(raster.inkCoverage, blankInkCoverage)) return null;
  if (raster.approximate?.startsWith('an image could not be decoded')) return raster.approximate;
  const fields = page.undrawnFields ?? 0;
  if (fields > 0) {
    return `${fields === 1 ? 'a form field' : `${fields} form fields`} without an appearance stream ${fields === 1 ? 'prints' : 'print'} (Ghostscript, MuPDF and poppler draw ${fields === 1 ? 'its' : 'their'} background or border from the field's entries), but the renderers draw nothing for ${fields === 1 ? 'it' : 'them'}`;
  }
  // Text in CJK fonts that are not embedded prints (production substitutes a face); a preview draws it only with a system CJK face (cjk-face.ts), and only the characters that face has.
  const cjk = (page.fonts ?? []).filter((f) => !f.embedded && f.cjk);
  if (cjk.length && (page.marks?.texts.length ?? 1) > 0) {
    return `its text is set in ${cjk.length === 1 ? 'a CJK font' : 'CJK fonts'} that ${cjk.length === 1 ? 'is' : 'are'} not embedded (${[...new Set(cjk.map((f) => f.baseFont ?? f.name))].slice(0, 3).join(', ')}), which the previewers cannot draw`;
  }
  const ink = page.marks?.ink ?? 0;
  if (ink > EXPECTED_INK_FACTOR * blankInkCoverage) {
    return `rendering drew nothing, but its content paints about ${formatNumber(ink * 100, ink < 0.01 ? 2 : 0)} % of the page in colours that print`;
  }
  return null;
}

/** page-blank: a layer page with no visible content. */
export const checkPageBlank: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const raster = ctx.raster?.get(page.index);
    if (!raster || !layer || inks(raster.inkCoverage, ctx.limits.blankInkCoverage)) continue;
    if (emptyButPaints(raster, page, ctx.limits.blankInkCoverage)) continue;
    out.push({
      code: 'page-blank',
      page: page.index,
      layer: layer.id,
      message: `${pageLabel(page, layer)} is blank: nothing visible is printed on it, so the ${layer.name.toLowerCase()} panel comes out empty. Put the ${layer.id} design on page ${page.index}, or check that the layers are in the order ${ctx.target.layers.map((l) => l.id).join(', ')}.`,
      expected: 'a design on the page',
      actual: `${formatNumber(raster.inkCoverage * 100, 3)} % of the page carries ink`,
      details: { inkCoverage: raster.inkCoverage },
    });
  }
  return out;
};

const EDGE_WORD: Record<Edge, string> = { top: 'top', right: 'right', bottom: 'bottom', left: 'left' };

/** page-edge-gap: the design stops short of a sewn edge, leaving a white band inside the bleed. */
export const checkPageEdgeGap: Check = (ctx) => {
  const out: Draft[] = [];
  const bleed = ctx.target.limits.bleedMm;
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const raster = ctx.raster?.get(page.index);
    if (!raster || !layer || !inks(raster.inkCoverage, ctx.limits.blankInkCoverage)) continue;
    const gaps = EDGES.filter((e) => layer.sewnEdges.includes(e))
      .map((edge) => ({ edge, px: raster.edgeGapPx[edge], mm: edgeGapMm(raster, page, edge) }))
      .filter((g) => g.px >= 1 && reportedGap(g.mm, ctx.limits.minEdgeGapMm));
    if (gaps.length === 0) continue;
    const list = gaps.map((g) => `${EDGE_WORD[g.edge]} (${formatNumber(g.mm, 0)} mm)`);
    const sides = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0];
    const widest = maxOf(gaps.map((g) => g.mm));
    // "Wider than the bleed" past the stated tolerance and as the message shows the band (whole
    // millimetres) and the bleed (tenths): never "20 mm, wider than the 20 mm bleed".
    const beyond = isAbove(widest, bleed) && round(widest, 0) > round(bleed, 1);
    out.push({
      code: 'page-edge-gap',
      page: page.index,
      layer: layer.id,
      message: `${pageLabel(page, layer)}: the design does not reach the ${sides} edge${gaps.length > 1 ? 's' : ''}: a white band${beyond ? `, wider than the ${formatNumber(bleed)} mm bleed,` : ` inside the ${formatNumber(bleed)} mm bleed`} shows as a white seam once the panels are sewn. Extend the background to the edges of the page.`,
      expected: 'design up to every sewn edge',
      actual: `white band: ${list.join(', ')}`,
      details: Object.fromEntries(gaps.map((g) => [`${g.edge}Mm`, round(g.mm, 1)])),
    });
  }
  return out;
};

/**
 * page-damaged: a page whose object cannot be read. It keeps its place (as in the readers that
 * number pages by the page tree), so every later page keeps its number and its own findings.
 */
export const checkPageDamaged: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    if (!page.unreadable) continue;
    out.push({
      code: 'page-damaged',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)} cannot be read: ${page.unreadable}. Viewers show an empty page there or leave it out (and then number every later page one lower), and production cannot print it. Export the file again from the design tool.`,
      expected: 'a readable page object',
      actual: page.unreadable,
    });
  }
  return out;
};

/**
 * Pages that could not be rasterised: pdf-timeout when rendering hung, pdf-too-complex when it
 * crashed the worker or ran it out of memory, page-render-failed when pdf.js refused the page.
 */
export const checkPageRender: Check = (ctx) => [
  ...emptyRenders(ctx),
  ...(ctx.rasterFailures ?? []).map((f): Draft => {
    const layer = ctx.target.layers[f.index - 1] ?? null;
    const where = pageLabel(f.index, layer);
    if (f.reason === 'crashed' || f.reason === 'over-budget') {
      return {
        code: 'pdf-too-complex',
        page: f.index,
        layer: layer?.id ?? null,
        message: `${where} is too complex to render: it ${f.detail}. Production is likely to fail on it too: flatten or simplify the page.`,
        expected: 'a page that renders within the memory limit',
        actual: f.detail,
      };
    }
    return f.reason === 'timeout'
      ? {
          code: 'pdf-timeout' as const,
          page: f.index,
          layer: layer?.id ?? null,
          message: `${where} could not be rendered within the time limit (${f.detail}): a page this slow is likely to stall production too. Simplify or flatten it.`,
          expected: 'rendering within the time limit',
          actual: f.detail,
        }
      : {
          code: 'page-render-failed' as const,
          page: f.index,
          layer: layer?.id ?? null,
          message: `${where} could not be rendered (${f.detail}); the blank-page and edge checks did not run on it. Open it in a viewer to make sure it shows what you expect.`,
          expected: 'a page that renders',
          actual: f.detail,
        };
  }),
];

/** Pages the renderers left empty although their content paints (see {@link emptyButPaints}). */
function emptyRenders(ctx: Parameters<Check>[0]): Draft[] {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const raster = ctx.raster?.get(page.index);
    const why = raster && emptyButPaints(raster, page, ctx.limits.blankInkCoverage);
    if (!why) continue;
    out.push({
      code: 'page-render-failed',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)} could not be rendered faithfully: ${why}, so it is not judged blank and the edge check did not run on it. Open it in a viewer to make sure it shows what you expect.`,
      expected: 'a page that renders',
      actual: why,
    });
  }
  return out;
}
