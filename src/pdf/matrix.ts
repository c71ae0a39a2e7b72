import type { Matrix, Rect } from '../model/geometry.js';
import { finite } from './units.js';

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** m × n in PDF's row-vector convention: apply m first, then n. */
export function multiply(m: Matrix, n: Matrix): Matrix {
  return [m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3], m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3], m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5]];
}

export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** Bounding box of the rectangle [x0, y0, x1, y1] transformed by m (its four corners). */
export function transformedBox(m: Matrix, [x0, y0, x1, y1]: Rect): Rect {
  const [a, b, c, d] = [apply(m, x0, y0), apply(m, x1, y0), apply(m, x0, y1), apply(m, x1, y1)];
  return [Math.min(a[0], b[0], c[0], d[0]), Math.min(a[1], b[1], c[1], d[1]), Math.max(a[0], b[0], c[0], d[0]), Math.max(a[1], b[1], c[1], d[1])];
}

/** Bounding box of the unit square transformed by m. */
export function unitSquareBox(m: Matrix): Rect {
  return transformedBox(m, [0, 0, 1, 1]);
}

export function isFiniteMatrix(m: readonly number[]): m is Matrix {
  return m.length === 6 && m.every((v) => Number.isFinite(v));
}

/**
 * A point of default user space on the page as shown: origin at the top left of the checked box,
 * y down, turned by /Rotate, in `scale` units per point (px or mm).
 */
export function displayPoint(x: number, y: number, box: Rect, rotate: number, scale: number): [number, number] {
  const w = finite((box[2] - box[0]) * scale);
  const h = finite((box[3] - box[1]) * scale);
  const px = finite((x - box[0]) * scale);
  const py = finite((box[3] - y) * scale);
  switch (rotate) {
    case 90:
      return [finite(h - py), px];
    case 180:
      return [finite(w - px), finite(h - py)];
    case 270:
      return [py, finite(w - px)];
    default:
      return [px, py];
  }
}

/**
 * The box [x0, y0, x1, y1] cut to each of `limits` that is given (the clip in force, the visible
 * page); the result may be empty (x1 < x0 or y1 < y0).
 * @example
 * const [x0, y0, x1, y1] = clippedBox(0, 0, 700, 900, clip, mediaBox);
 */
export function clippedBox(x0: number, y0: number, x1: number, y1: number, ...limits: (Rect | null | undefined)[]): Rect {
  for (const r of limits) {
    if (!r) continue;
    if (r[0] > x0) x0 = r[0];
    if (r[1] > y0) y0 = r[1];
    if (r[2] < x1) x1 = r[2];
    if (r[3] < y1) y1 = r[3];
  }
  return [x0, y0, x1, y1];
}
