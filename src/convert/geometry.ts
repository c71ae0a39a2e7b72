/**
 * The geometry of page fixes, as pure functions: a matrix that maps the old page's content into a
 * new page of a given size. Matrices are PDF's [a b c d e f] (x' = a·x + c·y + e, y' = b·x + d·y + f).
 */
import type { Matrix, Rect } from '../model/geometry.js';
import { multiply } from '../pdf/matrix.js';

import type { Fit } from '../model/instructions.js';

export type { Fit };

/** Moves the box's lower-left corner to the origin. */
export const toOrigin = (box: Rect): Matrix => [1, 0, 0, 1, -box[0], -box[1]];

/**
 * Turns content clockwise by `degrees` (a multiple of 90) inside a box of `w` × `h` at the origin,
 * landing in a box at the origin (w × h for 180, h × w for 90 and 270).
 */
export function turnClockwise(degrees: number, w: number, h: number): Matrix {
  switch (((degrees % 360) + 360) % 360) {
    case 90:
      return [0, -1, 1, 0, 0, w];
    case 180:
      return [-1, 0, 0, -1, w, h];
    case 270:
      return [0, 1, -1, 0, h, 0];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

/** Scales content of `w` × `h` (at the origin) into `W` × `H` by `fit`, centred. */
export function fitInto(w: number, h: number, W: number, H: number, fit: Fit): Matrix {
  if (fit === 'stretch') return [W / w, 0, 0, H / h, 0, 0];
  const s = fit === 'contain' ? Math.min(W / w, H / h) : Math.max(W / w, H / h);
  return [s, 0, 0, s, (W - w * s) / 2, (H - h * s) / 2];
}

/** The matrix of a whole page fix: box to origin, then turn, then fit into the target. */
export function pageMatrix(box: Rect, turn: number, target: { width: number; height: number } | null, fit: Fit): Matrix {
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  let m = multiply(toOrigin(box), turnClockwise(turn, w, h));
  const turned = turn % 180 !== 0;
  const tw = turned ? h : w;
  const th = turned ? w : h;
  if (target) m = multiply(m, fitInto(tw, th, target.width, target.height, fit));
  return m;
}
