/**
 * Before and after by design: each page of a fixed file paired with the ORIGINAL page that became
 * it — through the reorder (the page-order-mismatch finding's `details.order`), and whatever the
 * fix turned or scaled — and, for each change, where on the page it happened: the converted image
 * (the change names its object and page; the reports place it) or, for changes that name no object
 * (vector colours), the area where the two pictures differ once brought to one geometry. Close-ups
 * are cut with sharp from the previews.
 */
import type { ChangeCode } from '../model/codes.js';
import type { Rect } from '../model/geometry.js';
import type { Report, ReportPage } from './schema.js';

/** A change as the fix records it (page numbers of the fixed file). */
export interface PairChange {
  code: ChangeCode;
  page: number | null;
  action: string;
}

/** A box on a page as fractions of its width and height: [left, top, right, bottom]. */
export type UnitBox = Rect;

/** Where a change happened, on the page before and the page after. */
export interface ChangeSpot {
  code: ChangeCode;
  /** `image`: the reports place the image the change names; `area`: found where the pictures differ. */
  kind: 'image' | 'area';
  before: UnitBox;
  after: UnitBox;
}

/** One page of the fixed file and the original page that became it. */
export interface LayerPair {
  /** Page of the fixed file (its layer's position). */
  afterPage: number;
  layer: string | null;
  /** The original page that became it; null when the original has no such page. */
  beforePage: number | null;
  /** Quarter turns clockwise the fix turned the content (a sideways page turned upright). */
  turn: 0 | 90 | 180 | 270;
  /** The fix scaled or fitted the page to its layer. */
  resized: boolean;
  /** The changes made on this page. */
  changes: PairChange[];
  /** Where they happened, when the reports say (images); vector changes are found by `findChangedArea`. */
  spots: ChangeSpot[];
}

/** The original page order the fix put the pages in (`[3, 4, 1, 2]`: page 3 became page 1), or null when it kept the order. */
export function appliedOrder(before: Pick<Report, 'findings' | 'pages'>, changes: readonly PairChange[]): number[] | null {
  if (!changes.some((c) => c.code === 'page-order-mismatch')) return null;
  const order = before.findings.find((f) => f.code === 'page-order-mismatch')?.details?.order;
  if (typeof order !== 'string') return null;
  const pages = order.split(',').map(Number);
  const valid = pages.length === before.pages.length && pages.every((p) => Number.isInteger(p) && p >= 1 && p <= pages.length) && new Set(pages).size === pages.length;
  return valid ? pages : null;
}

const IMAGE_REF = /^image (\d+ \d+ R):/;

/**
 * Pairs each page of the fixed file with the original page that became it, with the changes made
 * on it and where the reports place them.
 * @example
 * const pairs = pairLayers(before, after, record.fixed.changes);
 * pairs[0]; // { afterPage: 1, layer: 'front', beforePage: 3, … }
 */
export function pairLayers(before: Pick<Report, 'findings' | 'pages'>, after: Pick<Report, 'pages'>, changes: readonly PairChange[]): LayerPair[] {
  const order = appliedOrder(before, changes);
  return after.pages.map((page) => {
    const n = page.index;
    const from = order ? (order[n - 1] ?? null) : before.pages.some((p) => p.index === n) ? n : null;
    const own = changes.filter((c) => c.page === n);
    const turned = own.find((c) => c.code === 'page-orientation-mismatch');
    const turn = turned ? (/counter-clockwise/.test(turned.action) ? 270 : 90) : 0;
    const resized = own.some((c) => c.code === 'page-scale-mismatch' || c.code === 'page-size-mismatch' || c.code === 'page-orientation-mismatch');
    const beforePage = from === null ? undefined : before.pages.find((p) => p.index === from);
    const spots: ChangeSpot[] = [];
    for (const c of own) {
      const ref = IMAGE_REF.exec(c.action)?.[1];
      if (!ref) continue;
      const spot = imageSpot(c.code, ref, page, beforePage);
      if (spot) spots.push(spot);
    }
    return { afterPage: n, layer: page.layer, beforePage: from, turn, resized, changes: own, spots };
  });
}

const unit = (page: ReportPage, box: readonly number[]): UnitBox => {
  const [x0, y0, x1, y1] = box as [number, number, number, number];
  const c = (v: number) => Math.min(1, Math.max(0, v));
  return [c(x0 / page.widthMm), c(y0 / page.heightMm), c(x1 / page.widthMm), c(y1 / page.heightMm)];
};

/**
 * The image a change names, on the page after (by its object reference) and on the original page
 * (the image drawn at the same place in the page's list, else one of the same pixel size).
 */
function imageSpot(code: ChangeCode, ref: string, after: ReportPage, before: ReportPage | undefined): ChangeSpot | null {
  const index = after.images.findIndex((i) => i.ref === ref);
  const image = after.images[index];
  if (!image || !before) return null;
  const same = before.images[index];
  const original =
    same && same.widthPx === image.widthPx && same.heightPx === image.heightPx ? same : (before.images.find((i) => i.widthPx === image.widthPx && i.heightPx === image.heightPx) ?? same);
  if (!original) return null;
  return { code, kind: 'image', before: unit(before, original.bboxMm), after: unit(after, image.bboxMm) };
}

/** Pixels of the two pictures compared, per side (small: the area is a place, not a measure). */
const DIFF_SIDE = 160;

/**
 * Where two pictures of one page differ, as a box of the AFTER page: the original's preview is
 * turned as the fix turned the content and brought to the same size, and the box bounds the largest
 * group of places where they differ clearly (8 levels, or three times the page's mean difference).
 * Null when they do not differ, or differ nearly everywhere (the page itself changed: the two
 * pictures show it).
 */
export async function findChangedArea(beforeImage: Uint8Array, afterImage: Uint8Array, turn: LayerPair['turn']): Promise<UnitBox | null> {
  const sharp = (await import('sharp')).default;
  const meta = await sharp(afterImage).metadata();
  const aspect = (meta.width ?? 1) / (meta.height ?? 1);
  const w = aspect >= 1 ? DIFF_SIDE : Math.max(8, Math.round(DIFF_SIDE * aspect));
  const h = aspect >= 1 ? Math.max(8, Math.round(DIFF_SIDE / aspect)) : DIFF_SIDE;
  const raw = (img: Uint8Array, rotate: number) => sharp(img).rotate(rotate).resize(w, h, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
  const [a, b] = await Promise.all([raw(beforeImage, turn), raw(afterImage, 0)]);
  const diff = new Float64Array(w * h);
  let sum = 0;
  for (let i = 0; i < w * h; i++) {
    const d = Math.max(Math.abs(a[3 * i]! - b[3 * i]!), Math.abs(a[3 * i + 1]! - b[3 * i + 1]!), Math.abs(a[3 * i + 2]! - b[3 * i + 2]!));
    diff[i] = d;
    sum += d;
  }
  // Clearly different: above the coding noise of the previews (a few levels), and above the page's own level.
  const threshold = Math.max(8, 3 * (sum / (w * h)));
  // Cells of 8 × 8 pixels where a quarter of the pixels differ; the change is the largest group of touching cells
  // (anti-aliased edges differ here and there, a changed object everywhere on it).
  const cell = 8;
  const cw = Math.ceil(w / cell);
  const ch = Math.ceil(h / cell);
  const marked = new Uint8Array(cw * ch);
  for (let cy = 0; cy < ch; cy++) {
    for (let cx = 0; cx < cw; cx++) {
      let n = 0;
      let over = 0;
      for (let y = cy * cell; y < Math.min(h, (cy + 1) * cell); y++) {
        for (let x = cx * cell; x < Math.min(w, (cx + 1) * cell); x++) {
          n++;
          if (diff[y * w + x]! > threshold) over++;
        }
      }
      if (over >= n / 4) marked[cy * cw + cx] = 1;
    }
  }
  let best: { size: number; box: [number, number, number, number] } | null = null;
  const seen = new Uint8Array(cw * ch);
  for (let start = 0; start < cw * ch; start++) {
    if (!marked[start] || seen[start]) continue;
    const stack = [start];
    seen[start] = 1;
    let size = 0;
    let [x0, y0, x1, y1] = [cw, ch, -1, -1];
    while (stack.length) {
      const c = stack.pop()!;
      const cx = c % cw;
      const cy = (c - cx) / cw;
      size++;
      x0 = Math.min(x0, cx);
      y0 = Math.min(y0, cy);
      x1 = Math.max(x1, cx);
      y1 = Math.max(y1, cy);
      for (const [nx, ny] of [
        [cx - 1, cy],
        [cx + 1, cy],
        [cx, cy - 1],
        [cx, cy + 1],
      ] as const) {
        if (nx < 0 || ny < 0 || nx >= cw || ny >= ch) continue;
        const k = ny * cw + nx;
        if (marked[k] && !seen[k]) {
          seen[k] = 1;
          stack.push(k);
        }
      }
    }
    if (!best || size > best.size) best = { size, box: [x0, y0, x1, y1] };
  }
  if (!best) return null;
  const [x0, y0, x1, y1] = best.box;
  const box: UnitBox = [(x0 * cell) / w, (y0 * cell) / h, Math.min(1, ((x1 + 1) * cell) / w), Math.min(1, ((y1 + 1) * cell) / h)];
  if ((box[2] - box[0]) * (box[3] - box[1]) > 0.85) return null;
  return box;
}

/** The box of the original page that corresponds to a box of the page after, through the turn the fix made. */
export function beforeBox(after: UnitBox, turn: LayerPair['turn']): UnitBox {
  const [x0, y0, x1, y1] = after;
  // The after page is the original turned clockwise by `turn`; undo it.
  switch (turn) {
    case 90:
      return [y0, 1 - x1, y1, 1 - x0];
    case 180:
      return [1 - x1, 1 - y1, 1 - x0, 1 - y0];
    case 270:
      return [1 - y1, x0, 1 - y0, x1];
    default:
      return after;
  }
}

/** A box grown by a margin around it (a close-up shows what surrounds the change), at least `min` of each side. */
export function padded(box: UnitBox, margin = 0.25, min = 0.2): UnitBox {
  const [x0, y0, x1, y1] = box;
  const grow = (a: number, b: number) => {
    const size = Math.max(b - a, 1e-6);
    const want = Math.min(1, Math.max(size * (1 + 2 * margin), min));
    let lo = (a + b) / 2 - want / 2;
    lo = Math.min(Math.max(0, lo), 1 - want);
    return [lo, lo + want] as const;
  };
  const [nx0, nx1] = grow(x0, x1);
  const [ny0, ny1] = grow(y0, y1);
  return [nx0, ny0, nx1, ny1];
}

/**
 * A close-up: the box of a picture, cut out, turned by `turn` (clockwise) and scaled to fit `maxPx`, as WebP.
 * @example
 * const detail = await crop(preview.bytes, [0.3, 0.2, 0.7, 0.6]);
 */
export async function crop(image: Uint8Array, box: UnitBox, maxPx = 360, turn: LayerPair['turn'] = 0): Promise<{ bytes: Uint8Array; widthPx: number; heightPx: number }> {
  const sharp = (await import('sharp')).default;
  const meta = await sharp(image).metadata();
  const W = meta.width ?? 1;
  const H = meta.height ?? 1;
  const left = Math.min(W - 1, Math.max(0, Math.floor(box[0] * W)));
  const top = Math.min(H - 1, Math.max(0, Math.floor(box[1] * H)));
  const width = Math.max(1, Math.min(W - left, Math.ceil((box[2] - box[0]) * W)));
  const height = Math.max(1, Math.min(H - top, Math.ceil((box[3] - box[1]) * H)));
  // Turned as the fix turned the page, so that it reads the same way as the page after.
  const cut = await sharp(image).extract({ left, top, width, height }).toBuffer();
  const { data, info } = await sharp(cut).rotate(turn).resize(maxPx, maxPx, { fit: 'inside', withoutEnlargement: false }).webp({ quality: 88 }).toBuffer({ resolveWithObject: true });
  return { bytes: new Uint8Array(data), widthPx: info.width, heightPx: info.height };
}
