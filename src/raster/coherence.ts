/**
 * The cyclic-coherence scan behind detail.ts's enlargement estimate: per candidate cycle frequency
 * α, how coherent a tile's spectrum at k is with its spectrum at α − k, along rows or columns, from
 * windowed segments and one complex FFT per two lines. Pure arithmetic on a bounded luma tile.
 */
import type { LumaTile } from './nearest.js';

/** Segment length along a row or column, and the zero-padded FFT size. */
export const N = 64;
export const P = 128;
/** Candidate cycle frequencies, in FFT bins (α = j / P): enlargements of 8.5× down to 1.45×. */
export const J_MIN = Math.floor(P / 8.5);
export const J_MAX = Math.floor(P / 1.45);
/** Bins kept per segment: every k and α − k of the scan lies below this. */
export const KEEP = 64;
/** Every LINE_STEP-th row (column) is analysed (every fourth let JPEG noise through: measured on bench:quality). */
const LINE_STEP = 2;

/**
 * The frequency pairs of the scan, fixed for every tile: for candidate j, the pairs (k, j − k) with
 * 0.36 j ≤ k ≤ j / 2, laid out one after another (PAIR_FIRST[j] … PAIR_FIRST[j + 1] − 1), so that
 * one flat loop per segment accumulates them all.
 */
const PAIR_FIRST = new Int32Array(J_MAX + 2);
const PAIR_K = (() => {
  const ks: number[] = [];
  for (let j = 0; j <= J_MAX; j++) {
    PAIR_FIRST[j] = ks.length;
    if (j < J_MIN) continue;
    for (let k = Math.ceil(0.36 * j); k <= Math.floor(j / 2); k++) ks.push(k);
  }
  PAIR_FIRST[J_MAX + 1] = ks.length;
  return Int32Array.from(ks);
})();
const PAIR_L = (() => {
  const ls = new Int32Array(PAIR_K.length);
  for (let j = J_MIN; j <= J_MAX; j++) for (let p = PAIR_FIRST[j]!; p < PAIR_FIRST[j + 1]!; p++) ls[p] = j - PAIR_K[p]!;
  return ls;
})();
const PAIRS = PAIR_K.length;

/**
 * Cyclic coherence per candidate α along rows (or columns). Segments at the same position along
 * the line share the interpolation grid's phase, so products Y(k) Y(α−k) are summed over lines
 * (every other one) per segment position, and the magnitudes of those sums added up:
 * Σ_g Σ_k |Σ_lines Y(k) Y(α−k)| over Σ_g Σ_k √(Σ|Y(k)|² Σ|Y(α−k)|²). No phase between segment
 * positions is assumed, so any factor, not only those whose period does not divide the segment, shows.
 *
 * Cost: the work is split into small loops (one FFT per two lines, one flat pass over the pair
 * table per segment) that V8 optimises once and early — a process measures one or two images, so
 * the first run's cost is the cost.
 */
export function coherenceScan(tile: LumaTile, columns: boolean, wanted: Uint8Array | null): { out: Float64Array; level: Float64Array; spectrum: Float64Array } {
  const { data, width, height } = tile;
  const spans = pairSpans(wanted);
  const length = columns ? height : width;
  const lines = columns ? width : height;
  const segs = Math.floor((length - 1) / N);
  const stride = columns ? width : 1;
  const across = columns ? 1 : width;
  const power = new Float64Array(segs * KEEP);
  const numRe = new Float64Array(segs * PAIRS);
  const numIm = new Float64Array(segs * PAIRS);
  const re = new Float64Array(P);
  const im = new Float64Array(P);
  const aRe = new Float64Array(KEEP);
  const aIm = new Float64Array(KEEP);
  const bRe = new Float64Array(KEEP);
  const bIm = new Float64Array(KEEP);
  let analysed = 0;
  for (let line = 0; line < lines; line += 2 * LINE_STEP) {
    const second = line + LINE_STEP < lines;
    analysed += second ? 2 : 1;
    for (let g = 0; g < segs; g++) {
      // Two real lines in one complex FFT: the first as the real part, the second as the imaginary.
      const start = g * N * stride;
      windowed(data, line * across + start, stride, re);
      if (second) windowed(data, (line + LINE_STEP) * across + start, stride, im);
      else im.fill(0, 0, N);
      re.fill(0, N);
      im.fill(0, N);
      fft(re, im);
      split(re, im, aRe, aIm, bRe, bIm);
      accumulate(aRe, aIm, numRe, numIm, power, g, spans);
      if (second) accumulate(bRe, bIm, numRe, numIm, power, g, spans);
    }
  }
  const out = new Float64Array(J_MAX + 1);
  const level = new Float64Array(J_MAX + 1);
  for (let j = J_MIN; j <= J_MAX; j++) {
    const first = PAIR_FIRST[j]!;
    const end = PAIR_FIRST[j + 1]!;
    if (end === first || (wanted && !wanted[j])) continue;
    let num = 0;
    let den = 0;
    let band = 0;
    for (let g = 0; g < segs; g++) {
      num += magnitudes(numRe, numIm, g * PAIRS + first, g * PAIRS + end);
      den += geometric(power, g * KEEP, first, end);
      band += lower(power, g * KEEP, first, end);
    }
    out[j] = den > 0 ? num / den : 0;
    // Detail near the candidate's cut-off, in units of 8-bit rounding noise (see hasSignal).
    level[j] = band / ((end - first) * segs * analysed) / QUANTISATION_POWER[j]!;
  }
  // The derivative's power per bin over every segment and line (how far the detail reaches).
  const spectrum = new Float64Array(KEEP);
  for (let g = 0; g < segs; g++) for (let k = 0; k < KEEP; k++) spectrum[k] = spectrum[k]! + power[g * KEEP + k]!;
  return { out, level, spectrum };
}

/** N samples of the line's derivative from `at` (step `stride`), through the Hann window. */
function windowed(data: Float32Array, at: number, stride: number, into: Float64Array): void {
  for (let n = 0, x = at; n < N; n++, x += stride) into[n] = (data[x + stride]! - data[x]!) * HANN[n]!;
}

/** The spectra (bins below KEEP) of the two real lines packed into one complex FFT. */
function split(re: Float64Array, im: Float64Array, aRe: Float64Array, aIm: Float64Array, bRe: Float64Array, bIm: Float64Array): void {
  for (let k = 0; k < KEEP; k++) {
    const m = (P - k) & (P - 1);
    const xr = re[k]!;
    const xi = im[k]!;
    const yr = re[m]!;
    const yi = im[m]!;
    aRe[k] = 0.5 * (xr + yr);
    aIm[k] = 0.5 * (xi - yi);
    bRe[k] = 0.5 * (xi + yi);
    bIm[k] = 0.5 * (yr - xr);
  }
}

/** The runs of the pair table that belong to the wanted candidates (all when null): [from, to, from, to, …]. */
function pairSpans(wanted: Uint8Array | null): Int32Array {
  const spans: number[] = [];
  for (let j = J_MIN; j <= J_MAX; j++) {
    if (wanted && !wanted[j]) continue;
    const from = PAIR_FIRST[j]!;
    const to = PAIR_FIRST[j + 1]!;
    if (spans.length && spans[spans.length - 1] === from) spans[spans.length - 1] = to;
    else spans.push(from, to);
  }
  return Int32Array.from(spans);
}

/** Adds one segment's products Y(k) Y(j − k) for the pairs in `spans`, and its power per bin. */
function accumulate(yRe: Float64Array, yIm: Float64Array, numRe: Float64Array, numIm: Float64Array, power: Float64Array, g: number, spans: Int32Array): void {
  const o = g * PAIRS;
  for (let s = 0; s < spans.length; s += 2) products(yRe, yIm, numRe, numIm, o, spans[s]!, spans[s + 1]!);
  const po = g * KEEP;
  for (let k = 0; k < KEEP; k++) power[po + k] = power[po + k]! + yRe[k]! * yRe[k]! + yIm[k]! * yIm[k]!;
}

function products(yRe: Float64Array, yIm: Float64Array, numRe: Float64Array, numIm: Float64Array, o: number, from: number, to: number): void {
  for (let p = from; p < to; p++) {
    const k = PAIR_K[p]!;
    const l = PAIR_L[p]!;
    const ar = yRe[k]!;
    const ai = yIm[k]!;
    const br = yRe[l]!;
    const bi = yIm[l]!;
    numRe[o + p] = numRe[o + p]! + ar * br - ai * bi;
    numIm[o + p] = numIm[o + p]! + ar * bi + ai * br;
  }
}

function magnitudes(re: Float64Array, im: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += Math.sqrt(re[i]! * re[i]! + im[i]! * im[i]!);
  return s;
}

function geometric(power: Float64Array, o: number, from: number, to: number): number {
  let s = 0;
  for (let p = from; p < to; p++) s += Math.sqrt(power[o + PAIR_K[p]!]! * power[o + PAIR_L[p]!]!);
  return s;
}

function lower(power: Float64Array, o: number, from: number, to: number): number {
  let s = 0;
  for (let p = from; p < to; p++) s += power[o + PAIR_K[p]!]!;
  return s;
}

const HANN = Float64Array.from({ length: N }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (N - 1)));
/**
 * Per candidate: the power per FFT bin that 8-bit rounding noise (variance 1/12, white) leaves in
 * the derivative through the Hann window, averaged over the candidate's lower bins k — the
 * derivative's gain is 4 sin²(π f), so at a 4× enlargement's cut-off (f ≈ 0.1) rounding leaves a
 * fifth of its average power, at 2× (f ≈ 0.2) two thirds.
 */
const QUANTISATION_POWER = (() => {
  let windowPower = 0;
  for (let n = 0; n < N; n++) windowPower += HANN[n]! * HANN[n]!;
  const out = new Float64Array(J_MAX + 2);
  for (let j = J_MIN; j <= J_MAX; j++) {
    let sum = 0;
    for (let p = PAIR_FIRST[j]!; p < PAIR_FIRST[j + 1]!; p++) sum += 4 * Math.sin((Math.PI * PAIR_K[p]!) / P) ** 2;
    out[j] = (1 / 12) * windowPower * (sum / Math.max(1, PAIR_FIRST[j + 1]! - PAIR_FIRST[j]!));
  }
  return out;
})();

const COS = Float64Array.from({ length: P / 2 }, (_, i) => Math.cos((-2 * Math.PI * i) / P));
const SIN = Float64Array.from({ length: P / 2 }, (_, i) => Math.sin((-2 * Math.PI * i) / P));
const REV = (() => {
  const bits = Math.log2(P);
  return Uint16Array.from({ length: P }, (_, i) => {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
  });
})();

/** In-place radix-2 FFT of size P. */
function fft(re: Float64Array, im: Float64Array): void {
  for (let i = 0; i < P; i++) {
    const r = REV[i]!;
    if (r > i) {
      let t = re[i]!;
      re[i] = re[r]!;
      re[r] = t;
      t = im[i]!;
      im[i] = im[r]!;
      im[r] = t;
    }
  }
  for (let size = 2; size <= P; size <<= 1) {
    const half = size >> 1;
    const step = P / size;
    for (let start = 0; start < P; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = COS[k * step]!;
        const wi = SIN[k * step]!;
        const a = start + k;
        const b = a + half;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}
