/**
 * page-unpainted-area: part of the panel inside the trim left transparent — nothing drawn there —
 * prints as the bare fabric colour. White bands along sewn edges are page-edge-gap's finding and
 * are left out here. Measured from the page rendered on a transparent background
 * (raster facts: a grid of cells with their unpainted share); painted white is not unpainted.
 */
import { finite, formatNumber, round } from '../pdf/units.js';
import type { PageFacts } from '../pdf/facts.js';
import type { LayerSpec } from '../profile/registry.js';
import type { Limits } from '../profile/schema.js';
import type { RasterFacts } from '../raster/facts.js';
import { layerLines, type BoxMm } from './check-marks.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { edgeGapMm, inks, reportedGap } from './check-page-pixels.js';
import { isAbove } from './threshold.js';

/**
 * Whether an unpainted share is over maxUnpaintedShare, within the stated tolerance and as the
 * message shows the share (a tenth of a per cent below 10 %, whole per cents above).
 */
export const overUnpainted = (share: number, maxUnpaintedShare: number): boolean => isAbove(share, maxUnpaintedShare, share < 0.1 ? 3 : 2);

/** Most rectangles listed for the report's overlay. */
const MAX_AREAS = 200;

/**
 * The unpainted share of the trim area (of the whole page when the page does not fit its layer)
 * and the mostly unpainted regions inside it, as rectangles in mm on the page as shown.
 */
export function unpaintedArea(page: PageFacts, layer: LayerSpec | null, limits: Limits, raster: RasterFacts | undefined): { share: number; areas: BoxMm[] } | null {
  const grid = raster?.unpainted;
  if (!grid || grid.share === 0) return grid ? { share: 0, areas: [] } : null;
  const cells = Buffer.from(grid.cells, 'base64');
  if (cells.length !== grid.cols * grid.rows) return null;
  const lines = layer ? layerLines(page, layer, limits) : null;
  const mmX = page.widthMm / raster!.widthPx;
  const mmY = page.heightMm / raster!.heightPx;
  // The white bands page-edge-gap reports along sewn edges are its finding, not this one's.
  const gap = (edge: 'top' | 'right' | 'bottom' | 'left') => {
    const mm = edgeGapMm(raster!, page, edge);
    return layer?.sewnEdges.includes(edge) && raster!.edgeGapPx[edge] >= 1 && reportedGap(mm, limits.minEdgeGapMm) ? mm : 0;
  };
  const trim = lines?.trim ?? [0, 0, page.widthMm, page.heightMm];
  const tx0 = Math.max(trim[0], gap('left'));
  const ty0 = Math.max(trim[1], gap('top'));
  const tx1 = Math.min(trim[2], page.widthMm - gap('right'));
  const ty1 = Math.min(trim[3], page.heightMm - gap('bottom'));
  // Cell size (the last row and column may be cut short by the raster's edge).
  const cellPx = Math.ceil(Math.max(raster!.widthPx, raster!.heightPx) / Math.max(grid.cols, grid.rows));
  let empty = 0;
  let area = 0;
  const areas: BoxMm[] = [];
  for (let r = 0; r < grid.rows; r++) {
    let run: BoxMm | null = null;
    for (let c = 0; c < grid.cols; c++) {
      const x0 = c * cellPx * mmX;
      const y0 = r * cellPx * mmY;
      const x1 = Math.min(page.widthMm, (c + 1) * cellPx * mmX);
      const y1 = Math.min(page.heightMm, (r + 1) * cellPx * mmY);
      // The part of the cell inside the trim.
      const w = Math.max(0, Math.min(x1, tx1) - Math.max(x0, tx0));
      const h = Math.max(0, Math.min(y1, ty1) - Math.max(y0, ty0));
      const share = cells[r * grid.cols + c]! / 255;
      area += w * h;
      empty += w * h * share;
      if (w * h > 0 && share >= 0.5) {
        const box: BoxMm = [Math.max(x0, tx0), Math.max(y0, ty0), Math.min(x1, tx1), Math.min(y1, ty1)];
        if (run && Math.abs(run[2] - box[0]) < 1e-6) run[2] = box[2];
        else {
          run = box;
          if (areas.length < MAX_AREAS) areas.push(run);
        }
      } else run = null;
    }
  }
  // A share of the whole trim area: the bands left out still count in the denominator.
  const trimArea = (trim[2] - trim[0]) * (trim[3] - trim[1]);
  // The pixels themselves when the worker sent them: a cell straddling the trim line carries the
  // unpainted bleed outside it into the panel (1–3 % on pages that leave their bleed bare).
  const exact = grid.runs ? unpaintedInside(grid.runs, [tx0 / mmX, ty0 / mmY, tx1 / mmX, ty1 / mmY]) * mmX * mmY : null;
  const total = exact ?? empty;
  const inTrim = total / trimArea;
  // A page too large (or too small) to measure in mm — Infinity / Infinity, 0 / 0 — keeps the share the raster measured.
  const share = !(area > 0 && trimArea > 0) ? 0 : Number.isFinite(inTrim) ? Math.min(1, Math.max(0, inTrim)) : grid.share;
  return { share, areas: areas.map((a) => a.map((v) => round(finite(v), 1)) as BoxMm) };
}

/**
 * Unpainted pixel area (in pixels) inside a rectangle of the raster given in fractional pixels
 * [x0, y0, x1, y1], from the runs of unpainted pixels (raster/pixels.ts); edge pixels count in part.
 */
export function unpaintedInside(runsBase64: string, [x0, y0, x1, y1]: [number, number, number, number]): number {
  const bytes = Uint8Array.from(Buffer.from(runsBase64, 'base64')); // a copy: aligned for 16-bit reads
  const runs = new Uint16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
  let sum = 0;
  for (let i = 0; i + 2 < runs.length; i += 3) {
    const y = runs[i]!;
    const h = Math.min(y + 1, y1) - Math.max(y, y0);
    if (h <= 0) continue;
    const w = Math.min(runs[i + 2]!, x1) - Math.max(runs[i + 1]!, x0);
    if (w > 0) sum += w * h;
  }
  return sum;
}

export const checkUnpainted: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const raster = ctx.raster?.get(page.index);
    if (!raster || !layer || !inks(raster.inkCoverage, ctx.limits.blankInkCoverage)) continue; // a blank page is page-blank
    const found = unpaintedArea(page, layer, ctx.limits, raster);
    if (!found || !overUnpainted(found.share, ctx.limits.maxUnpaintedShare)) continue;
    const pct = formatNumber(found.share * 100, found.share < 0.1 ? 1 : 0);
    out.push({
      code: 'page-unpainted-area',
      page: page.index,
      layer: layer.id,
      message: `${pageLabel(page, layer)}: ${pct} % of the panel inside the trim is left unpainted (transparent: nothing is drawn there), so it prints as the bare fabric colour. If the design needs a background there, paint one that runs to the edges of the page (white included: painted white is fine where the fabric is white).`,
      expected: `at most ${formatNumber(ctx.limits.maxUnpaintedShare * 100, 1)} % unpainted`,
      actual: `${pct} % unpainted`,
      details: { share: round(found.share, 4), regions: found.areas.length, maxUnpaintedShare: ctx.limits.maxUnpaintedShare },
    });
  }
  return out;
};
