/**
 * How much real detail an image carries: whether it was enlarged from a smaller picture, and by
 * how much, from its pixels alone.
 *
 * Enlarging by a factor f interpolates every output pixel from the same few input pixels, on a
 * grid that repeats every f pixels. That leaves a trace no camera and no blur leaves: the image
 * becomes cyclostationary with cycle frequency α = 1/f — its spectrum at frequency k is coherent
 * with its spectrum at α − k (the band just below the new cut-off 0.5/f is mirrored into the band
 * just above it by the interpolation kernel). A native photo, a blurred photo or smooth artwork has
 * no such coherence: different frequencies of a stationary picture are uncorrelated. So for each
 * candidate α the coherence of the pairs (k, α − k) near the cut-off (0.36 α ≤ k ≤ α / 2) is
 * measured over rows and, separately, over columns; an enlargement shows the same α both ways.
 * (Cf. Gallagher 2005, Kirchner 2008, Suwendi & Allebach 2008 on resampling detection.)
 *
 * JPEG's 8 × 8 blocks are cyclostationary too, at α = m/8; those candidates need stronger
 * evidence, no coherence of the same strength at the grid's other points (JPEG's traces come as a
 * family), and 5/8 is never taken. Enlargements below 1.45× are not looked for (α above 0.69, where JPEG's own 5/8–7/8
 * traces are strongest), nor beyond 8.5×.
 *
 * Everything here is pure arithmetic on a bounded tile of luma (at most 512 × 512 pixels).
 */

/** Segment length along a row or column, and the zero-padded FFT size. */
const N = 64;
const P = 128;
/** Candidate cycle frequencies, in FFT bins (α = j / P): enlargements of 8.5× down to 1.45×. */
const J_MIN = Math.floor(P / 8.5);
const J_MAX = Math.floor(P / 1.45);
/** Bins kept per segment: every k and α − k of the scan lies below this. */
const KEEP = 64;
/** Every LINE_STEP-th row (column) is analysed (every fourth let JPEG noise through: measured on bench:quality). */
const LINE_STEP = 2;

/** Coherence an enlargement must show in both directions. */
export const UPSCALE_EVIDENCE = 0.3;
/** Coherence needed at a cycle frequency of JPEG's block grid (α = m/8). */
export const UPSCALE_EVIDENCE_ON_JPEG_GRID = 0.4;
/** Coherence needed beyond 5.3×: few frequency pairs there, and smooth vector art reaches 0.65 (bench:quality); true enlargements of 6–8× show 0.95 and more. */
export const UPSCALE_EVIDENCE_LARGE = 0.75;
/** The largest tile analysed, per side. */
export const DETAIL_TILE = 512;

export interface DetailEstimate {
  /** Enlargement factor when the image was upscaled, else null. */
  factor: number | null;
  /** Factor seen along rows (x) and columns (y) at the best candidate, or null. */
  factorX: number | null;
  factorY: number | null;
  /** The coherence behind the verdict (0–1; above 0.3 off the JPEG grid, 0.4 on it, 0.75 beyond 5.3×: an enlargement). */
  evidence: number;
}

/** A grey tile: `width × height` luma values, row-major. */
export interface LumaTile {
  data: Float32Array;
  width: number;
  height: number;
}

/** BT.601 luma of interleaved 8-bit pixels (chroma subsampling cancels out of it). */
export function lumaOf(data: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: number): LumaTile {
  const out = new Float32Array(width * height);
  for (let i = 0, p = 0; i < out.length; i++, p += channels) {
    out[i] = channels >= 3 ? 0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]! : data[p]!;
  }
  return { data: out, width, height };
}

/**
 * The luma of the most textured `size × size` window of interleaved 8-bit pixels (candidates every
 * 256 pixels, offsets multiples of 16 so that a JPEG's block grid stays where it was; texture
 * sampled sparsely on the green channel): where an enlargement shows best. Only the window is
 * converted.
 */
export function busiestWindow(data: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: number, size = DETAIL_TILE): LumaTile {
  const w = Math.min(size, width);
  const h = Math.min(size, height);
  const g = channels >= 3 ? 1 : 0;
  let best = { x: 0, y: 0, energy: -1 };
  const xs = positions(width, w);
  const ys = positions(height, h);
  for (const y of ys) {
    for (const x of xs) {
      let e = 0;
      for (let r = y; r < y + h; r += 16) {
        const row = r * width;
        for (let c = x + 1; c < x + w; c += 4) e += Math.min(64, Math.abs(data[(row + c) * channels + g]! - data[(row + c - 1) * channels + g]!));
      }
      if (e > best.energy) best = { x, y, energy: e };
    }
  }
  const out = new Float32Array(w * h);
  for (let r = 0; r < h; r++) {
    for (let c = 0, p = ((best.y + r) * width + best.x) * channels; c < w; c++, p += channels) {
      out[r * w + c] = channels >= 3 ? 0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]! : data[p]!;
    }
  }
  return { data: out, width: w, height: h };
}

/** Window offsets along a side: every 256 pixels, rounded to 16, the last one flush with the end. */
function positions(length: number, window: number): number[] {
  const out: number[] = [];
  for (let p = 0; p + window <= length; p += 256) out.push(p);
  const last = Math.floor((length - window) / 16) * 16;
  if (out[out.length - 1] !== last) out.push(last);
  return out;
}

/**
 * Estimates whether a tile was enlarged, and by how much.
 * @example
 * const tile = lumaOf(rgb, 512, 512, 3);
 * estimateDetail(tile); // { factor: 4, factorX: 4, factorY: 4, evidence: 0.9 } for a 4× bicubic enlargement
 */
export function estimateDetail(tile: LumaTile): DetailEstimate {
  const none = { factor: null, factorX: null, factorY: null };
  if (tile.width < N + 1 || tile.height < N + 1) return { ...none, evidence: 0 };
  const { score, partner, signal } = candidateScores(tile);
  let best = J_MIN;
  for (let j = J_MIN; j <= J_MAX; j++) if (score[j]! > score[best]!) best = j;
  // The fundamental: an enlargement by 4 shows at α = 1/4 and at its harmonic 1/2; prefer the
  // sub-harmonic when it is nearly as strong.
  for (const m of [4, 3, 2]) {
    const sub = nearestPeak(score, best / m);
    if (sub !== null && score[sub]! >= Math.max(threshold(sub), 0.6 * score[best]!)) {
      best = sub;
      break;
    }
  }
  const evidence = score[best]!;
  if (!signal[best] || evidence < threshold(best) || jpegFamily(score, best) || nearFiveEighths(best)) return { ...none, evidence };
  const fx = P / best;
  const fy = P / partner[best]!;
  return { factor: Math.sqrt(fx * fy), factorX: fx, factorY: fy, evidence };
}

/** Per candidate bin: the weaker of the row and column coherence (columns allowed ±1 bin). */
export function candidateScores(tile: LumaTile): { score: Float64Array; partner: Int32Array; signal: Uint8Array } {
  const { out: rows, signal: rowSignal } = coherenceScan(tile, false);
  const { out: cols, signal: colSignal } = coherenceScan(tile, true);
  const signal = new Uint8Array(J_MAX + 2);
  const score = new Float64Array(J_MAX + 2);
  const partner = new Int32Array(J_MAX + 2);
  for (let j = J_MIN; j <= J_MAX; j++) {
    let other = 0;
    let at = j;
    for (let d = -1; d <= 1; d++) {
      const v = cols[j + d] ?? 0;
      if (j + d >= J_MIN && j + d <= J_MAX && v > other) {
        other = v;
        at = j + d;
      }
    }
    score[j] = Math.min(rows[j]!, other);
    partner[j] = at;
    signal[j] = rowSignal[j]! && colSignal[at]! ? 1 : 0;
  }
  return { score, partner, signal };
}

function nearestPeak(score: Float64Array, at: number): number | null {
  const c = Math.round(at);
  let best: number | null = null;
  for (let j = c - 1; j <= c + 1; j++) if (j >= J_MIN && j <= J_MAX && (best === null || score[j]! > score[best]!)) best = j;
  return best;
}

/**
 * JPEG's blocks leave coherence at every multiple of 1/8 at once; an enlargement at α = m/8 only
 * at α and its multiples. A candidate on the grid whose other grid points (not its multiples) are
 * at least three quarters as coherent is the JPEG, not an enlargement.
 */
function jpegFamily(score: Float64Array, j: number): boolean {
  if (!onGrid(j)) return false;
  const mine = Math.round((8 * j) / P);
  let other = 0;
  for (let m = 1; m < 8; m++) {
    const g = (m * P) / 8;
    if (g < J_MIN || g > J_MAX || m % mine === 0) continue;
    other = Math.max(other, score[nearestPeak(score, g)!]!);
  }
  return other >= 0.75 * score[j]!;
}

/**
 * α = 5/8 (an enlargement by 1.6): hard JPEG compression of a detailed picture leaves its
 * strongest block trace there, alone, so no enlargement is reported at 1.6× (1.5× and 1.7× are).
 */
function nearFiveEighths(j: number): boolean {
  return Math.abs(j - (5 * P) / 8) <= 1;
}

function onGrid(j: number): boolean {
  for (let m = 1; m < 8; m++) if (Math.abs(j - (m * P) / 8) <= 1) return true;
  return false;
}

function threshold(j: number): number {
  if (j < P / 5.3) return UPSCALE_EVIDENCE_LARGE;
  return onGrid(j) ? UPSCALE_EVIDENCE_ON_JPEG_GRID : UPSCALE_EVIDENCE;
}

/**
 * Cyclic coherence per candidate α along rows (or columns). Segments at the same position along
 * the line share the interpolation grid's phase, so products Y(k) Y(α−k) are summed over lines
 * (every other one) per segment position, and the magnitudes of those sums added up:
 * Σ_g Σ_k |Σ_lines Y(k) Y(α−k)| over Σ_g Σ_k √(Σ|Y(k)|² Σ|Y(α−k)|²). No phase between segment
 * positions is assumed, so any factor, not only those whose period divides the segment, shows.
 */
function coherenceScan(tile: LumaTile, columns: boolean): { out: Float64Array; signal: Uint8Array } {
  const { data, width, height } = tile;
  const length = columns ? height : width;
  const lines = columns ? width : height;
  const segs = Math.floor((length - 1) / N);
  const count = Math.ceil(lines / LINE_STEP) * segs;
  const re = new Float64Array(count * KEEP);
  const im = new Float64Array(count * KEEP);
  const power = new Float64Array(segs * KEEP);
  const bufRe = new Float64Array(P);
  const bufIm = new Float64Array(P);
  let s = 0;
  for (let line = 0; line < lines; line += LINE_STEP) {
    for (let g = 0; g < segs; g++, s++) {
      bufRe.fill(0);
      bufIm.fill(0);
      for (let n = 0; n < N; n++) {
        const x = g * N + n;
        const a = columns ? data[x * width + line]! : data[line * width + x]!;
        const b = columns ? data[(x + 1) * width + line]! : data[line * width + x + 1]!;
        bufRe[n] = (b - a) * HANN[n]!;
      }
      fft(bufRe, bufIm);
      const o = s * KEEP;
      const po = g * KEEP;
      for (let k = 0; k < KEEP; k++) {
        re[o + k] = bufRe[k]!;
        im[o + k] = bufIm[k]!;
        power[po + k] = power[po + k]! + bufRe[k]! * bufRe[k]! + bufIm[k]! * bufIm[k]!;
      }
    }
  }
  const out = new Float64Array(J_MAX + 1);
  const signal = new Uint8Array(J_MAX + 1);
  const numRe = new Float64Array(segs * KEEP);
  const numIm = new Float64Array(segs * KEEP);
  for (let j = J_MIN; j <= J_MAX; j++) {
    const k0 = Math.ceil(0.36 * j);
    const k1 = Math.floor(j / 2);
    if (k1 < k0) continue;
    numRe.fill(0);
    numIm.fill(0);
    for (let i = 0; i < count; i++) {
      const o = i * KEEP;
      const no = (i % segs) * KEEP;
      for (let k = k0; k <= k1; k++) {
        const ar = re[o + k]!;
        const ai = im[o + k]!;
        const br = re[o + j - k]!;
        const bi = im[o + j - k]!;
        numRe[no + k] = numRe[no + k]! + ar * br - ai * bi;
        numIm[no + k] = numIm[no + k]! + ar * bi + ai * br;
      }
    }
    let num = 0;
    let den = 0;
    let band = 0;
    for (let g = 0; g < segs; g++) {
      const no = g * KEEP;
      for (let k = k0; k <= k1; k++) {
        num += Math.hypot(numRe[no + k]!, numIm[no + k]!);
        den += Math.sqrt(power[no + k]! * power[no + j - k]!);
        band += power[no + k]!;
      }
    }
    out[j] = den > 0 ? num / den : 0;
    // Detail near the candidate's cut-off well above 8-bit rounding: a smooth gradient's
    // quantisation staircase is periodic too, and must not pass for an enlargement.
    const perBin = band / ((k1 - k0 + 1) * segs * Math.ceil(lines / LINE_STEP));
    signal[j] = perBin >= MIN_SIGNAL * QUANTISATION_POWER ? 1 : 0;
  }
  return { out, signal };
}

/** Power per FFT bin of the derivative of 8-bit rounding noise (variance 2/12) through the Hann window. */
const QUANTISATION_POWER = (2 / 12) * ((3 * N) / 8);
/** How far above it the detail near a candidate's cut-off must be. */
const MIN_SIGNAL = 3;

const HANN = Float64Array.from({ length: N }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (N - 1)));
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
