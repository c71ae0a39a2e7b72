import { formatMm, formatNumber } from '../pdf/units.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers, targetLabel } from './context.js';
import type { Draft } from './finding.js';

export interface SizeVerdict {
  kind: 'match' | 'orientation' | 'scale' | 'orientation-scale' | 'mismatch';
  /** page / layer linear scale when the proportions agree (1 for a match). */
  scale: number | null;
}

const within = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol + 1e-9;

/**
 * Compares a page size with a layer's page size. Pure geometry, so it has property tests:
 * swapping both sides gives the same verdict, and scaling page, layer and tolerance alike changes
 * nothing.
 */
export function classifySize(
  widthMm: number,
  heightMm: number,
  layerWidthMm: number,
  layerHeightMm: number,
  toleranceMm: number,
  scaleTolerance: number,
): SizeVerdict {
  if (within(widthMm, layerWidthMm, toleranceMm) && within(heightMm, layerHeightMm, toleranceMm)) return { kind: 'match', scale: 1 };
  if (within(widthMm, layerHeightMm, toleranceMm) && within(heightMm, layerWidthMm, toleranceMm)) return { kind: 'orientation', scale: 1 };
  if (widthMm <= 0 || heightMm <= 0) return { kind: 'mismatch', scale: null };
  const ratio = widthMm / heightMm;
  const layerRatio = layerWidthMm / layerHeightMm;
  const same = (r: number) => Math.abs(r / layerRatio - 1) <= scaleTolerance;
  // Square layers: a square page is a scale, never an orientation question.
  if (same(ratio)) return { kind: 'scale', scale: Math.sqrt((widthMm * heightMm) / (layerWidthMm * layerHeightMm)) };
  if (same(1 / ratio)) return { kind: 'orientation-scale', scale: Math.sqrt((widthMm * heightMm) / (layerWidthMm * layerHeightMm)) };
  return { kind: 'mismatch', scale: null };
}

const orientationOf = (w: number, h: number) => (Math.abs(w - h) < 1e-6 ? 'square' : w > h ? 'landscape' : 'portrait');
const pct = (x: number) => `${formatNumber(x * 100, Math.abs(x - 1) < 0.05 ? 1 : 0)} %`;

/** page-size-mismatch, page-scale-mismatch and page-orientation-mismatch, per page against its layer. */
export const checkPageSize: Check = (ctx) => {
  const { limits } = ctx;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    if (!layer) continue;
    const { widthMm: w, heightMm: h } = page;
    const W = layer.pageWidthMm;
    const H = layer.pageHeightMm;
    const v = classifySize(w, h, W, H, limits.toleranceMm, limits.scaleTolerance);
    if (v.kind === 'match') continue;
    const where = pageLabel(page, layer);
    const found = formatMm(w, h);
    const expected = `${formatMm(W, H)} ± ${formatNumber(limits.toleranceMm)} mm`;
    const base = { page: page.index, layer: layer.id, actual: found, expected };
    const details = {
      widthMm: w,
      heightMm: h,
      expectedWidthMm: W,
      expectedHeightMm: H,
      toleranceMm: limits.toleranceMm,
      rotate: page.rotate,
      scale: v.scale,
    };
    const rotated = page.rotate ? ` (after its /Rotate ${page.rotate})` : '';
    if (v.kind === 'orientation' || v.kind === 'orientation-scale') {
      out.push({
        ...base,
        code: 'page-orientation-mismatch',
        message: `${where} is ${found} ${orientationOf(w, h)}${rotated}; ${targetLabel(ctx)} expects ${formatMm(W, H)} ${orientationOf(W, H)}: width and height are swapped. Turn the design by 90° so that its top is at the top of the page, on a ${formatMm(W, H)} page.`,
        details,
      });
    }
    if (v.kind === 'scale' || v.kind === 'orientation-scale') {
      const s = v.scale!;
      out.push({
        ...base,
        code: 'page-scale-mismatch',
        message: `${where} is ${found}${rotated}: the proportions of ${targetLabel(ctx)}'s ${formatMm(W, H)} page at ${pct(s)} of its size. The service will scale it ${s < 1 ? 'up' : 'down'} to ${pct(1 / s)}${s < 1 ? ', which lowers the resolution of every image on it' : ''}. Export the page at ${formatMm(W, H)}.`,
        details,
      });
    }
    if (v.kind === 'mismatch') {
      const isTrim = within(w, layer.trimWidthMm, limits.toleranceMm) && within(h, layer.trimHeightMm, limits.toleranceMm);
      const bleed = ctx.target.limits.bleedMm;
      const advice = isTrim
        ? `The page is the trim size without bleed: export it with ${formatNumber(bleed)} mm bleed on each side.`
        : `Make the page ${formatMm(W, H)}: the trim ${formatMm(layer.trimWidthMm, layer.trimHeightMm)} plus ${formatNumber(bleed)} mm bleed on each side, with the design extending into the bleed.`;
      out.push({
        ...base,
        code: 'page-size-mismatch',
        message: `${where} is ${found}${rotated}; ${targetLabel(ctx)} expects ${expected}. ${advice}`,
        details,
      });
    }
  }
  return out;
};
