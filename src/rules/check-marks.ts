/**
 * Checks on where and how finely a page paints (its marks, pdf/marks.ts), judged at the size the
 * service prints it:
 * - content-in-seam-zone: text and objects that cross from the safe area into the margin without
 *   running on past the trim (those are meant to be cut), except rows of text that run across the
 *   whole panel (a background pattern);
 * - line-too-thin: stroked lines inside the trim thinner than minLineWidthPt;
 * - text-too-small: text inside the trim smaller than minTextSizePt.
 * Positions are in millimetres from the top-left corner of the page as shown (after /Rotate).
 */
import type { PageFacts } from '../pdf/facts.js';
import type { Rect } from '../model/geometry.js';
import { displayPoint } from '../pdf/matrix.js';
import { finite, formatNumber, ptToMm, round } from '../pdf/units.js';
import type { LayerSpec } from '../profile/registry.js';
import type { Limits } from '../profile/schema.js';
import { grouped } from '../util/text.js';
import { classifySize, printScaleOf } from './check-page-size.js';
import type { Check } from './context.js';
import { isBelow } from './threshold.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';

/** A box on the page as shown, in mm from its top-left corner: [left, top, right, bottom]. */
export type BoxMm = Rect;

/** An object a finding points at, for the report's overlay. */
export interface MarkedObject {
  code: 'content-in-seam-zone' | 'line-too-thin' | 'text-too-small';
  kind: 'text' | 'line' | 'path' | 'image' | 'shading';
  bboxMm: BoxMm;
  /** The text of a text run (when its font's codes read as ASCII). */
  text: string;
  /** Line width or text size at the printed size, in points; null for the seam zone. */
  printedPt: number | null;
}

/** Objects shown per finding and overlay (the finding counts them all). */
const MAX_LISTED = 50;
/** Tolerance of the geometry, in mm: rounding in producers must not make a finding. */
const TOLERANCE_MM = 0.5;

/** A box in default user space → mm on the page as shown. */
export function boxMm(r: Rect, page: Pick<PageFacts, 'checkedBox' | 'rotate' | 'userUnit'>): BoxMm {
  const k = ptToMm(page.userUnit);
  const a = displayPoint(r[0], r[1], page.checkedBox, page.rotate, k);
  const b = displayPoint(r[2], r[3], page.checkedBox, page.rotate, k);
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
}

/** The layer's trim and safe rectangles on the page as shown (mm), scaled as production scales the page. */
export function layerLines(page: PageFacts, layer: LayerSpec, limits: Pick<Limits, 'bleedMm' | 'toleranceMm' | 'scaleTolerance'>): { trim: BoxMm; safe: BoxMm | null } | null {
  const fit = classifySize(page.widthMm, page.heightMm, layer.pageWidthMm, layer.pageHeightMm, limits.toleranceMm, limits.scaleTolerance);
  if (fit.kind !== 'match' && fit.kind !== 'scale') return null;
  const kx = page.widthMm / layer.pageWidthMm;
  const ky = page.heightMm / layer.pageHeightMm;
  const W = page.widthMm;
  const H = page.heightMm;
  const inset = (mm: number): BoxMm => [mm * kx, mm * ky, W - mm * kx, H - mm * ky];
  const safe = layer.safeMarginMm;
  return { trim: inset(limits.bleedMm), safe: safe === null || safe === undefined ? null : inset(limits.bleedMm + safe) };
}

const overlaps = (a: BoxMm, b: BoxMm) => a[0] < b[2] && a[2] > b[0] && a[1] < b[3] && a[3] > b[1];

/** What of the page crosses into its layer's seam zone (bounded list, and the full count). */
export function seamCrossings(page: PageFacts, layer: LayerSpec | null, limits: Limits): { objects: MarkedObject[]; count: number; safeMarginMm: number } | null {
  if (!layer || !page.marks) return null;
  const lines = layerLines(page, layer, limits);
  if (!lines?.safe) return null;
  const { trim, safe } = lines;
  const t = TOLERANCE_MM;
  const objects: MarkedObject[] = [];
  let count = 0;
  const add = (o: MarkedObject) => {
    count++;
    if (objects.length < MAX_LISTED) objects.push(o);
  };
  const texts = page.marks.texts.map((m) => ({ mark: m, box: boxMm(m.box, page) }));
  const background = backgroundText(
    texts.map((x) => x.box),
    trim,
    t,
  );
  for (const [i, { mark: m, box: b }] of texts.entries()) {
    if (!overlaps(b, trim)) continue; // wholly in the bleed: cut away, as slug text is
    if (background.has(i)) continue; // a row (or column) of text across the whole panel: a pattern, meant to run off
    // Per side: beyond the safe line and ending inside the zone; text that runs on past the trim is cut by design.
    const left = b[0] < safe[0] - t && b[0] > trim[0] + t;
    const top = b[1] < safe[1] - t && b[1] > trim[1] + t;
    const right = b[2] > safe[2] + t && b[2] < trim[2] - t;
    const bottom = b[3] > safe[3] + t && b[3] < trim[3] - t;
    if (left || top || right || bottom) add({ code: 'content-in-seam-zone', kind: 'text', bboxMm: roundBox(b), text: m.text, printedPt: null });
  }
  const shapes = [...page.marks.shapes.map((m) => ({ box: m.box, kind: m.kind })), ...page.marks.strokes.map((m) => ({ box: m.box, kind: 'line' as const }))];
  for (const m of shapes) {
    const b = boxMm(m.box, page);
    if (!overlaps(b, trim)) continue;
    // Per side: beyond the safe line, and stopping short of the trim (what runs past the trim is cut by design).
    // A shape or image spanning the whole safe area along that edge is a background or band: where
    // it stops short of the trim, page-edge-gap reports the white band. Lines are never exempt.
    const band = m.kind !== 'line';
    const spansV = band && b[1] <= safe[1] + t && b[3] >= safe[3] - t;
    const spansH = band && b[0] <= safe[0] + t && b[2] >= safe[2] - t;
    const left = b[0] < safe[0] - t && b[0] > trim[0] + t && !spansV;
    const top = b[1] < safe[1] - t && b[1] > trim[1] + t && !spansH;
    const right = b[2] > safe[2] + t && b[2] < trim[2] - t && !spansV;
    const bottom = b[3] > safe[3] + t && b[3] < trim[3] - t && !spansH;
    if (left || top || right || bottom) add({ code: 'content-in-seam-zone', kind: m.kind, bboxMm: roundBox(b), text: '', printedPt: null });
  }
  return { objects, count, safeMarginMm: layer.safeMarginMm! };
}

/**
 * The text runs (by index) that belong to a row running across the whole panel — its runs on one
 * line together reach past the trim on both sides — or to a column running from top to bottom:
 * background text repeated as a pattern (cairosvg, rsvg-convert, Inkscape, LibreOffice,
 * Ghostscript and pikepdf all write such rows), not content that ends in the seam.
 */
export function backgroundText(boxes: readonly BoxMm[], trim: BoxMm, t: number): Set<number> {
  const out = new Set<number>();
  for (const vertical of [false, true]) {
    // Runs on the same line: the same extent across the line, within a fifth of its height.
    const [lo, hi, from, to] = vertical ? [0, 2, 1, 3] : [1, 3, 0, 2];
    const order = boxes.map((_, i) => i).sort((a, b) => boxes[a]![lo]! - boxes[b]![lo]! || boxes[a]![hi]! - boxes[b]![hi]!);
    for (let start = 0; start < order.length; ) {
      const first = boxes[order[start]!]!;
      const size = Math.max(1e-6, first[hi]! - first[lo]!);
      let end = start + 1;
      while (end < order.length) {
        const b = boxes[order[end]!]!;
        if (Math.abs(b[lo]! - first[lo]!) > 0.2 * size || Math.abs(b[hi]! - first[hi]!) > 0.2 * size) break;
        end++;
      }
      let min = Infinity;
      let max = -Infinity;
      for (let k = start; k < end; k++) {
        min = Math.min(min, boxes[order[k]!]![from]!);
        max = Math.max(max, boxes[order[k]!]![to]!);
      }
      if (min <= trim[from]! + t && max >= trim[to]! - t) for (let k = start; k < end; k++) out.add(order[k]!);
      start = end;
    }
  }
  return out;
}

/** Lines and text inside the trim that are too fine at the printed size. */
export function fineDetail(page: PageFacts, layer: LayerSpec | null, limits: Limits): { lines: MarkedObject[]; lineCount: number; texts: MarkedObject[]; textCount: number } {
  const out = { lines: [] as MarkedObject[], lineCount: 0, texts: [] as MarkedObject[], textCount: 0 };
  if (!page.marks) return out;
  const scale = printScaleOf(page, layer, limits);
  const lines = layer ? layerLines(page, layer, limits) : null;
  const area: BoxMm = lines?.trim ?? [0, 0, page.widthMm, page.heightMm];
  for (const m of page.marks.strokes) {
    const printed = finite(m.widthPt * scale); // held within the doubles: a width of 1e308 printed at 2,040 %
    // As the message shows widths (2 decimals), within the stated tolerance (threshold.ts).
    if (!isBelow(printed, limits.minLineWidthPt, 2)) continue;
    const b = boxMm(m.box, page);
    if (!overlaps(b, area)) continue; // crop marks and anything else outside the trim are cut away
    out.lineCount++;
    if (out.lines.length < MAX_LISTED) out.lines.push({ code: 'line-too-thin', kind: 'line', bboxMm: roundBox(b), text: '', printedPt: round(printed, 3) });
  }
  for (const m of page.marks.texts) {
    const printed = finite(m.sizePt * scale);
    // As the message shows sizes (1 decimal), within the stated tolerance (threshold.ts).
    if (!isBelow(printed, limits.minTextSizePt, 1)) continue;
    const b = boxMm(m.box, page);
    if (!overlaps(b, area)) continue;
    out.textCount++;
    if (out.texts.length < MAX_LISTED) out.texts.push({ code: 'text-too-small', kind: 'text', bboxMm: roundBox(b), text: m.text, printedPt: round(printed, 2) });
  }
  return out;
}

function roundBox(b: BoxMm): BoxMm {
  return [round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1)];
}

/** "text “Happy birthday” at 12–80 mm across, 5–14 mm down" */
function describe(o: MarkedObject): string {
  const what =
    o.kind === 'text'
      ? o.text
        ? `text “${o.text.length > 30 ? `${o.text.slice(0, 29)}…` : o.text}”`
        : 'text'
      : o.kind === 'line'
        ? 'a line'
        : o.kind === 'image'
          ? 'an image'
          : o.kind === 'shading'
            ? 'a shading'
            : 'a shape';
  const [x0, y0, x1, y1] = o.bboxMm;
  return `${what} at ${formatNumber(x0, 0)}–${formatNumber(x1, 0)} mm across, ${formatNumber(y0, 0)}–${formatNumber(y1, 0)} mm down`;
}

function listOf(objects: MarkedObject[], count: number, shown = 3): string {
  const list = objects.slice(0, shown).map(describe);
  return `${list.join('; ')}${count > list.length ? `; and ${grouped(count - list.length)} more` : ''}`;
}

/** How many marks were left out (a page that paints a very large number of objects). */
function droppedNote(page: PageFacts): string {
  const d = page.marks?.dropped ?? 0;
  return d ? ` (The page paints more objects than are inspected one by one: ${grouped(d)} were not looked at.)` : '';
}

/** content-in-seam-zone */
export const checkSeamZone: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const found = seamCrossings(page, layer, ctx.limits);
    if (!found || found.count === 0 || !layer) continue;
    const texts = found.objects.filter((o) => o.kind === 'text').length;
    out.push({
      code: 'content-in-seam-zone',
      page: page.index,
      layer: layer.id,
      message: `${pageLabel(page, layer)}: ${grouped(found.count)} object${found.count === 1 ? '' : 's'} reach${found.count === 1 ? 'es' : ''} into the ${formatNumber(found.safeMarginMm)} mm safe margin inside the trim, where the panel is sewn into the seam or cut: ${listOf(found.objects, found.count)}. Move ${texts ? 'text and ' : ''}important content inside the safe line, or extend backgrounds past the trim.${droppedNote(page)}`,
      expected: `text and important content at least ${formatNumber(found.safeMarginMm)} mm inside the trim`,
      actual: `${grouped(found.count)} in the margin`,
      details: { count: found.count, texts, safeMarginMm: found.safeMarginMm },
    });
  }
  return out;
};

/** line-too-thin */
export const checkLineWidth: Check = (ctx) => {
  const out: Draft[] = [];
  const min = ctx.limits.minLineWidthPt;
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const { lines, lineCount } = fineDetail(page, layer, ctx.limits);
    if (!lineCount) continue;
    const thinnest = lines.reduce((m, o) => Math.min(m, o.printedPt ?? Infinity), Infinity);
    const scale = printScaleOf(page, layer, ctx.limits);
    out.push({
      code: 'line-too-thin',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)}: ${grouped(lineCount)} line${lineCount === 1 ? ' is' : 's are'} thinner than ${formatNumber(min, 2)} pt at the printed size${scale !== 1 ? ` (the page prints at ${formatNumber(scale * 100, 0)} %)` : ''}; the thinnest ${thinnest === 0 ? 'is a hairline (width 0: as thin as the printer can draw)' : `is ${formatNumber(thinnest, 2)} pt`}. Ink spreads on fabric: such lines break up or vanish (${listOf(lines, lineCount)}). Make lines at least ${formatNumber(min, 2)} pt wide.${droppedNote(page)}`,
      expected: `lines ≥ ${formatNumber(min, 2)} pt`,
      actual: thinnest === 0 ? 'hairline (0 pt)' : `${formatNumber(thinnest, 2)} pt`,
      details: { count: lineCount, thinnestPt: thinnest, minLineWidthPt: min },
    });
  }
  return out;
};

/** text-too-small */
export const checkTextSize: Check = (ctx) => {
  const out: Draft[] = [];
  const min = ctx.limits.minTextSizePt;
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const { texts, textCount } = fineDetail(page, layer, ctx.limits);
    if (!textCount) continue;
    const smallest = texts.reduce((m, o) => Math.min(m, o.printedPt ?? Infinity), Infinity);
    const scale = printScaleOf(page, layer, ctx.limits);
    out.push({
      code: 'text-too-small',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)}: ${grouped(textCount)} text run${textCount === 1 ? ' is' : 's are'} smaller than ${formatNumber(min, 1)} pt at the printed size${scale !== 1 ? ` (the page prints at ${formatNumber(scale * 100, 0)} %)` : ''}; the smallest is ${formatNumber(smallest, 1)} pt. On fabric such text fills in and cannot be read (${listOf(texts, textCount)}). Set text at ${formatNumber(min, 1)} pt or more.${droppedNote(page)}`,
      expected: `text ≥ ${formatNumber(min, 1)} pt`,
      actual: `${formatNumber(smallest, 1)} pt`,
      details: { count: textCount, smallestPt: smallest, minTextSizePt: min },
    });
  }
  return out;
};
