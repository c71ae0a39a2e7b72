import type { Matrix, Rect } from './facts.js';

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** m × n in PDF's row-vector convention: apply m first, then n. */
export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** Bounding box of the unit square transformed by m. */
export function unitSquareBox(m: Matrix): Rect {
  const pts = [apply(m, 0, 0), apply(m, 1, 0), apply(m, 0, 1), apply(m, 1, 1)];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export function isFiniteMatrix(m: readonly number[]): m is Matrix {
  return m.length === 6 && m.every((v) => Number.isFinite(v));
}

/**
 * A point of default user space on the page as shown: origin at the top left of the checked box,
 * y down, turned by /Rotate, in `scale` units per point (px or mm).
 */
export function displayPoint(x: number, y: number, box: Rect, rotate: number, scale: number): [number, number] {
  const w = (box[2] - box[0]) * scale;
  const h = (box[3] - box[1]) * scale;
  const px = (x - box[0]) * scale;
  const py = (box[3] - y) * scale;
  switch (rotate) {
    case 90:
      return [h - py, px];
    case 180:
      return [w - px, h - py];
    case 270:
      return [py, w - px];
    default:
      return [px, py];
  }
}
