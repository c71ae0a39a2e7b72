/**
 * What a fix did to what prints, measured: the fixed page drawn beside the page it came from, at
 * one size, and their colours compared pixel by pixel in CIEDE2000 (ΔE00, CIE Lab under D65 from
 * sRGB). Each change of a fix carries its page's difference, and a change past its kind's bound is
 * refused, not served.
 */
import { z } from 'zod';

/** A page's measured difference, before → after. */
export const PageDifferenceSchema = z.strictObject({
  /** Mean ΔE00 over the page's pixels. */
  meanDeltaE00: z.number().min(0),
  /** 95th percentile of ΔE00: what most of the page stays within. */
  p95DeltaE00: z.number().min(0),
  /** Share of pixels (0–1) changed by more than a just-noticeable difference (ΔE00 > 1). */
  changedShare: z.number().min(0).max(1),
});
export type PageDifference = z.infer<typeof PageDifferenceSchema>;

/**
 * The bounds a measured change must stay within, by kind. A colour conversion keeps in-gamut
 * colours within ΔE00 1–2 (the chain's profile against the renderer's own CMYK conversion) and moves
 * out-of-gamut ones to the nearest sRGB colour; past a mean of 3 or a p95 of 10, the page would print
 * visibly otherwise. A geometric change (order, /Rotate baked, uniform scaling to the layer) must
 * leave the page as it showed: at most 1 % of pixels changed (edge antialiasing, rounding).
 */
export const DIFFERENCE_BOUNDS = {
  colour: { meanDeltaE00: 3, p95DeltaE00: 10 },
  geometry: { changedShare: 0.01 },
} as const;

/** Whether a difference is within the bound of its kind. */
export function withinBound(kind: keyof typeof DIFFERENCE_BOUNDS, d: PageDifference): boolean {
  if (kind === 'colour') return d.meanDeltaE00 <= DIFFERENCE_BOUNDS.colour.meanDeltaE00 && d.p95DeltaE00 <= DIFFERENCE_BOUNDS.colour.p95DeltaE00;
  return d.changedShare <= DIFFERENCE_BOUNDS.geometry.changedShare;
}

/** sRGB 8-bit → CIE Lab (D65), as ΔE00 takes it. */
export function srgbToLab(r: number, g: number, b: number): [number, number, number] {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

const DEG = Math.PI / 180;

/**
 * CIEDE2000 colour difference of two Lab colours (Sharma, Wu and Dalal's formulation, kL = kC = kH = 1).
 * @example
 * deltaE00([50, 2.6772, -79.7751], [50, 0, -82.7485]); // 2.0425
 */
export function deltaE00(a: readonly number[], b: readonly number[]): number {
  const [L1, a1, b1] = a as [number, number, number];
  const [L2, a2, b2] = b as [number, number, number];
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cm = (C1 + C2) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const hue = (bb: number, ap: number) => (bb === 0 && ap === 0 ? 0 : (Math.atan2(bb, ap) / DEG + 360) % 360);
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);
  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * DEG);
  const Lmp = (L1 + L2) / 2;
  const Cmp = (C1p + C2p) / 2;
  let hmp = h1p + h2p;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1p - h2p) > 180) hmp = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
    else hmp = (h1p + h2p) / 2;
  }
  const T = 1 - 0.17 * Math.cos((hmp - 30) * DEG) + 0.24 * Math.cos(2 * hmp * DEG) + 0.32 * Math.cos((3 * hmp + 6) * DEG) - 0.2 * Math.cos((4 * hmp - 63) * DEG);
  const dTheta = 30 * Math.exp(-(((hmp - 275) / 25) ** 2));
  const Rc = 2 * Math.sqrt(Cmp ** 7 / (Cmp ** 7 + 25 ** 7));
  const Sl = 1 + (0.015 * (Lmp - 50) ** 2) / Math.sqrt(20 + (Lmp - 50) ** 2);
  const Sc = 1 + 0.045 * Cmp;
  const Sh = 1 + 0.015 * Cmp * T;
  const Rt = -Math.sin(2 * dTheta * DEG) * Rc;
  return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
}

/**
 * The difference of two drawings of one page (RGB or RGBA, same size): ΔE00 per pixel, its mean,
 * 95th percentile and the share past 1.
 * @example
 * const d = compareDrawings(before, after); // { meanDeltaE00: 0.8, p95DeltaE00: 1.9, changedShare: 0.12 }
 */
export function compareDrawings(a: { data: ArrayLike<number>; channels: number }, b: { data: ArrayLike<number>; channels: number }, pixels: number): PageDifference {
  // ΔE00 in tenths, counted: the percentile without sorting every pixel.
  const histogram = new Uint32Array(1001);
  const labs = new Map<number, [number, number, number]>();
  const labOf = (d: ArrayLike<number>, i: number) => {
    const key = (d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!;
    let v = labs.get(key);
    if (!v) {
      v = srgbToLab(d[i]!, d[i + 1]!, d[i + 2]!);
      if (labs.size < 1 << 16) labs.set(key, v);
    }
    return v;
  };
  let sum = 0;
  let changed = 0;
  for (let p = 0; p < pixels; p++) {
    const e = deltaE00(labOf(a.data, p * a.channels), labOf(b.data, p * b.channels));
    sum += e;
    if (e > 1) changed++;
    histogram[Math.min(1000, Math.round(e * 10))]!++;
  }
  let seen = 0;
  let p95 = 0;
  for (let i = 0; i <= 1000; i++) {
    seen += histogram[i]!;
    if (seen >= pixels * 0.95) {
      p95 = i / 10;
      break;
    }
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return { meanDeltaE00: round(pixels ? sum / pixels : 0), p95DeltaE00: p95, changedShare: pixels ? Math.round((changed / pixels) * 10_000) / 10_000 : 0 };
}
