/**
 * An image made at the trim size: the layer less its bleed on each side. Such an image is the
 * design up to the cut line, not the whole page — scaling it by `cover` to the layer would push
 * 10 mm of it into the bleed on every side and cut it off. Found from the size the image states
 * (PNG pHYs, JPEG density, TIFF resolution) or, when it states none that fits, from its
 * proportions; the `bleed` fill then places it on the trim at its own size and mirrors its edges
 * into the bleed. Pure geometry, no pixels.
 */

/** Within this (mm) a size or a proportion counts as the trim's, as page-bleed-missing judges pages. */
export const TRIM_TOLERANCE_MM = 1;

/** The sizes of a layer: its page and its trim (page less bleed), in mm. */
export interface LayerBox {
  pageWidthMm: number;
  pageHeightMm: number;
  trimWidthMm?: number | undefined;
  trimHeightMm?: number | undefined;
}

/** Where the design goes for the `bleed` fill: its size (centred on the page), and why. */
export interface TrimDesign {
  widthMm: number;
  heightMm: number;
  chosen: 'asked' | 'trim-proportions' | 'stated-size';
}

/** The shortfall (mm) of the other side when `w × h` is fitted whole into `W × H`. */
export function proportionOff(w: number, h: number, W: number, H: number): number {
  const s = Math.min(W / w, H / h);
  return Math.max(W - w * s, H - h * s);
}

/**
 * The design's place for an image of `widthPx × heightPx` (upright) stating `ppi` (or null), when
 * it is made at the trim size of `layer` — else null (it is the page's size, or neither: the fill
 * asked for, or `cover`, applies).
 *
 * - A stated size within 1 mm of the trim is the trim; one between the trim and the page (the
 *   bleed partly there) is kept as it is; one within 1 mm of the page is the page.
 * - Otherwise proportions within 1 mm of the trim's (fitted whole into the trim, the other side
 *   short by 1 mm at most) mean the trim — unless they are the page's as well (a square product
 *   with a square trim): then nothing tells them apart, and the image stays the page's.
 * @example
 * trimDesign(5400, 7300, null, { pageWidthMm: 560, pageHeightMm: 750, trimWidthMm: 540, trimHeightMm: 730 });
 * // { widthMm: 540, heightMm: 730, chosen: 'trim-proportions' }
 */
export function trimDesign(widthPx: number, heightPx: number, ppi: number | null, layer: LayerBox): TrimDesign | null {
  const { pageWidthMm: W, pageHeightMm: H } = layer;
  const tw = layer.trimWidthMm ?? W;
  const th = layer.trimHeightMm ?? H;
  if (!(widthPx > 0 && heightPx > 0) || !(W - tw > TRIM_TOLERANCE_MM || H - th > TRIM_TOLERANCE_MM)) return null;
  const near = (a: number, b: number) => Math.abs(a - b) <= TRIM_TOLERANCE_MM;
  if (ppi !== null && ppi > 0) {
    const w = (widthPx / ppi) * 25.4;
    const h = (heightPx / ppi) * 25.4;
    if (near(w, W) && near(h, H)) return null;
    if (near(w, tw) && near(h, th)) return { widthMm: tw, heightMm: th, chosen: 'stated-size' };
    if (w >= tw - TRIM_TOLERANCE_MM && w <= W && h >= th - TRIM_TOLERANCE_MM && h <= H) return { widthMm: Math.max(w, tw), heightMm: Math.max(h, th), chosen: 'stated-size' };
  }
  if (proportionOff(widthPx, heightPx, tw, th) <= TRIM_TOLERANCE_MM && proportionOff(widthPx, heightPx, W, H) > TRIM_TOLERANCE_MM) {
    return { widthMm: tw, heightMm: th, chosen: 'trim-proportions' };
  }
  return null;
}
