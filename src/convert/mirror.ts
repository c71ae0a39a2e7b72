/**
 * Mirror fill, as geometry: a design placed in a rectangle of a page is repeated around it, each
 * neighbour reflected across the shared edge, so the page beyond the design continues its edges
 * (as a print tool's "add bleed by mirroring" does) instead of a flat colour. Used for the bleed a
 * fix adds to a page made at the trim size and for the `mirror` fill of a PDF layer; the content is
 * drawn again as the same Form XObject (vector stays vector), never rasterised.
 */
import type { Matrix } from '../model/geometry.js';

/**
 * How far mirrored copies reach under the design they continue: 2 mm, a pixel of a 12.7 ppi
 * preview. Renderers anti-alias each copy's edge on its own, so copies that only abut leave a
 * hairline of paper in every on-screen drawing; under the design (drawn last) the overlap is unseen,
 * except where the design itself is transparent within 2 mm of its edge.
 */
export const MIRROR_OVERLAP_PT = (2 / 25.4) * 72;

/** A rectangle: lower-left corner and size, in points. */
export interface Placed {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The matrices that draw a design of `width` × `height` (drawn in [0, w] × [0, h], e.g. a form's
 * BBox) at `placed` and its mirrored neighbours, enough of them to cover a page of `W` × `H`: the
 * design itself first, then each neighbour (column `i`, row `j`) reflected when `i` or `j` is odd.
 * @example
 * mirrorTiles({ x: 10, y: 10, width: 100, height: 50 }, 120, 70).length; // 9: the design and 8 around it
 */
export function mirrorTiles(placed: Placed, W: number, H: number, overlap = 0, limit = 4096): Matrix[] {
  const { x, y, width: w, height: h } = placed;
  if (!(w > 0 && h > 0)) return [];
  // Neighbours step by the design's size less `overlap`: each reaches under the anti-aliased edge
  // of the next (abutting edges let the paper show through as a hairline).
  const sx = w - Math.min(overlap, w / 4);
  const sy = h - Math.min(overlap, h / 4);
  const eps = 1e-6;
  const i0 = Math.floor((0 - x) / sx + eps);
  const i1 = Math.ceil((W - x - (w - sx)) / sx - eps) - 1;
  const j0 = Math.floor((0 - y) / sy + eps);
  const j1 = Math.ceil((H - y - (h - sy)) / sy - eps) - 1;
  if ((i1 - i0 + 1) * (j1 - j0 + 1) > limit) throw new RangeError(`mirroring a ${w} × ${h} pt design over ${W} × ${H} pt needs more than ${limit} copies`);
  const out: Matrix[] = [[1, 0, 0, 1, x, y]];
  for (let j = Math.min(j0, 0); j <= Math.max(j1, 0); j++) {
    for (let i = Math.min(i0, 0); i <= Math.max(i1, 0); i++) {
      if (i === 0 && j === 0) continue;
      const flipX = Math.abs(i) % 2 === 1;
      const flipY = Math.abs(j) % 2 === 1;
      out.push([flipX ? -1 : 1, 0, 0, flipY ? -1 : 1, x + i * sx + (flipX ? w : 0), y + j * sy + (flipY ? h : 0)]);
    }
  }
  return out;
}

const num = (n: number) => (Math.abs(n) < 1e-9 ? '0' : String(Math.round(n * 10000) / 10000));

/**
 * Content that draws the XObject `name` (a form whose BBox is [0 0 w h]) at each tile, scaled by
 * `scale` to its placed size, all clipped to the page `W` × `H`.
 */
export function mirrorContent(name: string, tiles: readonly Matrix[], scale: { x: number; y: number }, W: number, H: number): string {
  const parts = [`q 0 0 ${num(W)} ${num(H)} re W n`];
  // The copies first, the design last (over their anti-aliased edges).
  for (const m of [...tiles.slice(1), ...tiles.slice(0, 1)]) parts.push(`q ${[m[0] * scale.x, m[1], m[2], m[3] * scale.y, m[4], m[5]].map(num).join(' ')} cm /${name} Do Q`);
  parts.push('Q');
  return parts.join('\n');
}
