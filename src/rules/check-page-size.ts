import { formatMm, formatNumber, round } from '../pdf/units.js';
import type { LayerSpec } from '../profile/registry.js';
import { pagesLabel } from '../util/ranges.js';
import type { Check, CheckContext } from './context.js';
import { pageLabel, pagesWithLayers, targetLabel } from './context.js';
import type { Draft } from '../model/finding.js';
import { isAbove, isOutside } from './threshold.js';

export interface SizeVerdict {
  kind: 'match' | 'orientation' | 'scale' | 'orientation-scale' | 'mismatch';
  /** page / layer linear scale when the proportions agree (1 for a match). */
  scale: number | null;
}

/** Within the tolerance as the messages show sizes (one decimal, formatMm) and past rounding (threshold.ts). */
const within = (a: number, b: number, tol: number) => !isOutside(a, b, tol, 1);

/**
 * Compares a page size with a layer's page size. Pure geometry, so it has property tests:
 * swapping both sides gives the same verdict, and scaling page, layer and tolerance alike changes
 * nothing.
 */
export function classifySize(widthMm: number, heightMm: number, layerWidthMm: number, layerHeightMm: number, toleranceMm: number, scaleTolerance: number): SizeVerdict {
  if (within(widthMm, layerWidthMm, toleranceMm) && within(heightMm, layerHeightMm, toleranceMm)) return { kind: 'match', scale: 1 };
  if (within(widthMm, layerHeightMm, toleranceMm) && within(heightMm, layerWidthMm, toleranceMm)) return { kind: 'orientation', scale: 1 };
  const ratio = widthMm / heightMm;
  const layerRatio = layerWidthMm / layerHeightMm;
  const whole = Math.sqrt((widthMm * heightMm) / (layerWidthMm * layerHeightMm));
  // Factor by factor where the product overflows (a page 1e200 mm on a side).
  const scale = Number.isFinite(whole) && whole > 0 ? whole : Math.sqrt(widthMm / layerWidthMm) * Math.sqrt(heightMm / layerHeightMm);
  // No proportions to compare, or no scale the service could print at (a page of no size, one of
  // 1e-308 mm that would be enlarged Infinity times, one too large to measure): another size.
  if (!(widthMm > 0 && heightMm > 0 && ratio > 0 && scale > 0) || !Number.isFinite(ratio) || !Number.isFinite(scale) || !Number.isFinite(1 / scale)) return { kind: 'mismatch', scale: null };
  // Proportions off by scaleTolerance, within the stated tolerance (threshold.ts): the message shows no ratio.
  const same = (r: number) => !isAbove(Math.abs(r / layerRatio - 1), scaleTolerance);
  if (same(ratio)) return { kind: 'scale', scale };
  // Square layers: a page of other proportions is never "turned": turning it changes nothing.
  if (layerRatio !== 1 && same(1 / ratio)) return { kind: 'orientation-scale', scale };
  return { kind: 'mismatch', scale: null };
}

/**
 * The scale the service applies to a page when it prints it on its layer: a page of the layer's
 * proportions (turned or not) at another size is scaled to the layer (1 / page scale); any other
 * page is taken as it is (1). 2 means the page prints at twice its size.
 */
export function printScaleOf(page: { widthMm: number; heightMm: number }, layer: LayerSpec | null, limits: { toleranceMm: number; scaleTolerance: number }): number {
  if (!layer) return 1;
  const v = classifySize(page.widthMm, page.heightMm, layer.pageWidthMm, layer.pageHeightMm, limits.toleranceMm, limits.scaleTolerance);
  return (v.kind === 'scale' || v.kind === 'orientation-scale') && v.scale ? 1 / v.scale : 1;
}

const orientationOf = (w: number, h: number) => (Math.abs(w - h) < 1e-6 ? 'square' : w > h ? 'landscape' : 'portrait');
/** "50 %", "99.5 %"; a share too small to write in tenths is "less than 0.1 %", never "0 %" (a page 1e200 mm wide). */
const pct = (x: number) => (x * 100 < 0.05 ? 'less than 0.1 %' : `${formatNumber(x * 100, Math.abs(x - 1) < 0.05 ? 1 : 0)} %`);

/** How the pages would match the layers in another order. */
export interface PageOrder {
  /** Per page (index 0 = page 1), the ids of the layers of its size: more than one when layers share a size. */
  candidates: string[][];
  /**
   * The pages in layer order: `order[i]` is the page that belongs at position i + 1. Pages that
   * could be either of several same-size layers keep their relative order (never guessed).
   */
  order: number[];
}

/**
 * Whether the pages are simply in another order than the layers: every page matches (size and
 * orientation, within the tolerance) exactly one group of same-size layers, each group gets as
 * many pages as it has layers, and at least one page is not in its group's positions. Returns
 * null otherwise (right order, or sizes that no order explains). Layers of the same size are never
 * told apart: a swap between them cannot be seen and is not reported.
 */
export function pageOrderOf(pages: readonly { widthMm: number; heightMm: number }[], layers: readonly LayerSpec[], toleranceMm: number): PageOrder | null {
  if (pages.length !== layers.length || pages.length < 2) return null;
  // Groups of layers with the same page size.
  const groups: number[][] = [];
  layers.forEach((layer, i) => {
    const g = groups.find((members) => {
      const first = layers[members[0]!]!;
      return Math.abs(first.pageWidthMm - layer.pageWidthMm) < 0.01 && Math.abs(first.pageHeightMm - layer.pageHeightMm) < 0.01;
    });
    if (g) g.push(i);
    else groups.push([i]);
  });
  const groupOfLayer = (i: number) => groups.findIndex((g) => g.includes(i));
  const pageGroup: number[] = [];
  for (const page of pages) {
    const hits = groups
      .map((g, gi) => ({ gi, layer: layers[g[0]!]! }))
      .filter(({ layer }) => classifySize(page.widthMm, page.heightMm, layer.pageWidthMm, layer.pageHeightMm, toleranceMm, 0).kind === 'match');
    if (hits.length !== 1) return null;
    pageGroup.push(hits[0]!.gi);
  }
  if (groups.some((g, gi) => pageGroup.filter((x) => x === gi).length !== g.length)) return null;
  if (pageGroup.every((gi, i) => gi === groupOfLayer(i))) return null;
  const order = new Array<number>(pages.length);
  groups.forEach((g, gi) => {
    const members = pageGroup.flatMap((x, i) => (x === gi ? [i + 1] : []));
    g.forEach((layerIndex, k) => (order[layerIndex] = members[k]!));
  });
  return { candidates: pageGroup.map((gi) => groups[gi]!.map((i) => layers[i]!.id)), order };
}

const andList = (items: readonly string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/** The page-order-mismatch finding, or null when the pages are in order or no order explains them. */
export function pageOrderFinding(ctx: CheckContext): Draft | null {
  const layers = ctx.target.layers;
  const plan = pageOrderOf(ctx.facts.pages, layers, ctx.limits.toleranceMm);
  if (!plan) return null;
  // "pages 1–2 match left-sleeve and right-sleeve, pages 3–4 front and back"
  const seen = new Map<string, number[]>();
  plan.candidates.forEach((c, i) => {
    const key = c.join('\u0000');
    seen.set(key, [...(seen.get(key) ?? []), i + 1]);
  });
  const parts = [...seen].map(([key, pages], n) => {
    const ids = key.split('\u0000');
    const pl = pagesLabel(pages);
    const what = ids.length === 1 ? ids[0]! : pages.length === 1 ? ids.join(' or ') : andList(ids);
    const verb = n > 0 ? '' : pages.length === 1 ? 'matches ' : 'match ';
    return `${pl} ${verb}${what}`;
  });
  const expectedOrder = layers.map((l) => l.id).join(', ');
  const ambiguous = [...seen.keys()].some((k) => k.includes('\u0000'));
  const order = plan.order.join(',');
  return {
    code: 'page-order-mismatch',
    page: null,
    layer: null,
    message:
      `The pages are in another order than ${targetLabel(ctx)}'s layers: ${parts.join(', ')}; expected ${expectedOrder}. ` +
      `Put the pages in layer order (print-preflight fix --reorder puts them as pages ${plan.order.join(', ')}` +
      `${ambiguous ? '; layers of the same size cannot be told apart, so check which is which' : ''}).`,
    expected: expectedOrder,
    actual: plan.candidates.map((c) => c.join('|')).join(', '),
    details: { order, ambiguous },
  };
}

/**
 * page-order-mismatch once for the file when the pages fit the layers in another order; otherwise
 * page-size-mismatch, page-scale-mismatch and page-orientation-mismatch, per page against its layer.
 */
export const checkPageSize: Check = (ctx) => {
  const order = pageOrderFinding(ctx);
  if (order) return [order];
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
    // A page at the trim size (within 1 mm), or between it and the layer size: the bleed is
    // missing, and adding it (mirroring the design's edges) comes before any scaling.
    const bleed = ctx.target.limits.bleedMm;
    const spans = (p: number, trim: number, full: number) => p >= trim - 1 - 1e-9 && p <= full + 1e-9;
    if (bleed > 0 && spans(w, layer.trimWidthMm, W) && spans(h, layer.trimHeightMm, H)) {
      const missingMm = Math.max((W - w) / 2, (H - h) / 2);
      out.push({
        ...base,
        code: 'page-bleed-missing',
        message: `${where} is ${found}${rotated}: ${targetLabel(ctx)}'s trim ${formatMm(layer.trimWidthMm, layer.trimHeightMm)} without the ${formatNumber(bleed)} mm bleed on each side (${formatNumber(missingMm)} mm missing); the page must be ${formatMm(W, H)}. Export it with the design extending ${formatNumber(bleed)} mm beyond the trim (print-preflight fix adds it by mirroring the design's edges).`,
        details: { ...details, trimWidthMm: layer.trimWidthMm, trimHeightMm: layer.trimHeightMm, bleedMm: bleed, missingMm: round(missingMm, 2) },
        // The service would scale a page of the layer's proportions (a warning); any other is refused.
        ...(v.kind === 'scale' ? { severity: 'warning' as const } : {}),
      });
      continue;
    }
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
