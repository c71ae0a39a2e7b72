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
 * traces are strongest), nor beyond 8.5×. A smooth picture's coherence is broad (high over many
 * candidates, highest at the low frequencies beyond 5.3×); an enlargement's is a narrow peak, so a
 * candidate must stand out of its neighbours.
 *
 * Everything here is pure arithmetic on a bounded tile of luma (at most 512 × 512 pixels).
 */

import { coherenceScan, J_MAX, J_MIN, N, P } from './coherence.js';
import { crispFor, edgeLattice, pictureKind } from './flat-art.js';
import { nearestAlong, type LumaTile } from './nearest.js';

/** Candidates below this bin are enlargements beyond 5.3×, judged by {@link UPSCALE_EVIDENCE_LARGE}. */
const J_LARGE = P / 5.3;

/** Candidates whose row coherence is below this are not scanned along columns (every threshold and comparison lies above it). */
const ROW_FLOOR = 0.2;
/** Coherence an enlargement must show in both directions. */
export const UPSCALE_EVIDENCE = 0.3;
/** Coherence needed at a cycle frequency of JPEG's block grid (α = m/8). */
export const UPSCALE_EVIDENCE_ON_JPEG_GRID = 0.3;
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
  /**
   * The coherence behind the verdict (0–1; above 0.3 off the JPEG grid, 0.3 on it too (with no JPEG family), 0.75 beyond 5.3×: an enlargement).
   * When no candidate reaches its threshold along rows the columns are not scanned, and this is the rows' value (a bound).
   */
  evidence: number;
  /**
   * The largest factor the estimate allows: a segment of N = 64 samples resolves cycle frequencies
   * to 1/64, two bins of the scan, so a factor found at bin j may be as large as the one at j − 1
   * (an enlargement by 1.5, at bin 85.3, peaks at 86 as often as at 85; a nearest-neighbour factor
   * is exact).
   * Null when no enlargement was found.
   */
  factorHigh?: number | null;
  /** The enlargement repeated pixels (nearest neighbour: blocky) rather than interpolating them (smooth). */
  nearest?: boolean;
  /**
   * How sure the verdict is, when an enlargement was found: `high` for repeats clear in both
   * directions ({@link CLEAR_REPEAT_RATIO}) or a coherence of {@link CLEAR_EVIDENCE} and more in a
   * picture that is not flat art; `medium` otherwise (most 1.5× finds, flat art's soft edges).
   */
  confidence?: 'high' | 'medium';
  /**
   * Why a candidate the scan found is no enlargement (flat-art.ts): the picture is near-uniform (a
   * scan's background layer, a mask), a periodic pattern, smooth (a gradient), or flat art whose edges are crisper than
   * the enlargement would leave them.
   */
  silencedAs?: 'near-uniform' | 'periodic' | 'smooth' | 'crisp-flat-art';
}

export type { LumaTile };

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
  const g = channels >= 3 ? 1 : 0;
  const { x, y, w, h } = busiestAt(width, height, size, (x, y, w, h) => texture(data, width, channels, g, x, y, w, h));
  const out = new Float32Array(w * h);
  for (let r = 0; r < h; r++) lumaRow(data, ((y + r) * width + x) * channels, channels, out, r * w, w);
  return { data: out, width: w, height: h };
}

/**
 * The `size × size` window (at most the picture) of highest `energy`, among candidates every 256
 * pixels at offsets that are multiples of 16 (a JPEG's block grid stays where it was), the last
 * one flush with the end.
 * @example
 * const { x, y, w, h } = busiestAt(4000, 3000, 512, (x, y, w, h) => textureOf(x, y, w, h));
 */
export function busiestAt(width: number, height: number, size: number, energy: (x: number, y: number, w: number, h: number) => number): { x: number; y: number; w: number; h: number } {
  const w = Math.min(size, width);
  const h = Math.min(size, height);
  let best = { x: 0, y: 0, energy: -1 };
  for (const y of positions(height, h)) {
    for (const x of positions(width, w)) {
      const e = energy(x, y, w, h);
      if (e > best.energy) best = { x, y, energy: e };
    }
  }
  return { x: best.x, y: best.y, w, h };
}

/** Sparse texture of a window: capped steps of one channel, every 16th row, every 4th column. */
function texture(data: Uint8Array | Uint8ClampedArray, width: number, channels: number, g: number, x: number, y: number, w: number, h: number): number {
  let e = 0;
  for (let r = y; r < y + h; r += 16) {
    const row = r * width;
    for (let c = x + 1; c < x + w; c += 4) e += Math.min(64, Math.abs(data[(row + c) * channels + g]! - data[(row + c - 1) * channels + g]!));
  }
  return e;
}

/** `w` pixels from `p` converted to luma into `out` at `o`. */
function lumaRow(data: Uint8Array | Uint8ClampedArray, p: number, channels: number, out: Float32Array, o: number, w: number): void {
  if (channels < 3) {
    for (let c = 0; c < w; c++, p += channels) out[o + c] = data[p]!;
    return;
  }
  for (let c = 0; c < w; c++, p += channels) out[o + c] = 0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!;
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
  if (tile.width < N + 1 || tile.height < N + 1) return { factor: null, factorX: null, factorY: null, evidence: 0 };
  const found = decideDetail(candidateScores(tile));
  if (found.factorX === null || found.factorY === null) return found;
  // What the picture is decides what its repeats mean (flat-art.ts): judged only when the scan
  // found something, so that a photo's verdict costs nothing more.
  const picture = pictureKind(tile);
  const silent = (as: Exclude<DetailEstimate['silencedAs'], undefined>): DetailEstimate => ({ factor: null, factorX: null, factorY: null, evidence: found.evidence, silencedAs: as });
  if (picture.kind === 'near-uniform' || picture.kind === 'periodic' || picture.kind === 'smooth') return silent(picture.kind);
  // Repeated pixels say the factor exactly; an interpolated enlargement's is known to a bin either side.
  // Flat steps everywhere (flat art, or repeats): the scan may read a repeat's harmonics as
  // another factor (a 4× repeat saved as JPEG read as 5.8×), so every period is tried, the lattice
  // deciding (nearest.ts).
  const alphas = picture.kind === 'flat' ? EVERY_PERIOD : [1 / found.factorX, 1 / found.factorY];
  const alongRows = nearestAlong(tile, alphas, false);
  const alongColumns = alongRows && nearestAlong(tile, alphas, true);
  if (alongRows && alongColumns) {
    // Enlarged alike both ways (the scan says so) but read differently: the clearer direction says
    // it (JPEG 2000 smooths one way more than the other, and a repeat can look half-stepped).
    let [fx, fy] = [alongRows.factor, alongColumns.factor];
    if (fx !== fy && Math.abs(found.factorX / found.factorY - 1) < 0.1) fx = fy = alongRows.ratio <= alongColumns.ratio ? fx : fy;
    const factor = Math.sqrt(fx * fy);
    const confidence = Math.max(alongRows.ratio, alongColumns.ratio) <= CLEAR_REPEAT_RATIO ? 'high' : 'medium';
    return { ...found, factor, factorX: fx, factorY: fy, factorHigh: factor, nearest: true, confidence };
  }
  const high = (f: number) => P / (P / f - 1);
  const factorHigh = Math.sqrt(high(found.factorX) * high(found.factorY));
  // Flat art whose edges are narrower than an enlargement by the factor found would leave them was
  // drawn at its own size; its repeats are its own — unless they form a lattice one way at least (a
  // photo repeated 2× and saved as JPEG 75 may show it along rows only: its edges are crisp too).
  const oneWay = alongRows ?? nearestAlong(tile, alphas, true);
  const factor = Math.sqrt(found.factorX * found.factorY);
  if (!oneWay && crispFor(picture, factor)) {
    // Crisp edges on the lattice of an integer factor are a repeat of pixels too faint for the
    // repeat scan (a photo repeated 2× and saved as JPEG 75); anywhere else, flat art's own.
    const p = Math.round(factor);
    const lattice = p >= 2 && p <= 7 && Math.abs(factor - p) < 0.05 ? edgeLattice(tile, p) : null;
    if (lattice === null || lattice < EDGE_LATTICE) return silent('crisp-flat-art');
    return { ...found, factor: p, factorX: p, factorY: p, factorHigh: p, nearest: true, confidence: 'medium' };
  }
  const confidence = picture.kind === 'picture' && found.evidence >= CLEAR_EVIDENCE ? 'high' : 'medium';
  return { ...found, factorHigh, nearest: false, confidence };
}

/** Share of crisp edges on one phase of the factor's lattice that makes them a repeat of pixels (flat art's: about 1/p). */
export const EDGE_LATTICE = 0.85;

/** One cycle frequency per period of the repeat scan (nearest.ts: 2–7), so that every period is tried. */
const EVERY_PERIOD = [1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7];

/** Coherence at which an interpolated enlargement of a picture (not flat art) is stated with high confidence: 2× and more reach 0.6–1 (bench:quality), 1.5× mostly 0.3–0.5. */
export const CLEAR_EVIDENCE = 0.5;
/** Repeats this clear (steps at the repeat phases at most this share of the others, both ways) are stated with high confidence: a PNG's are 0, a JPEG's 0.1–0.45. */
export const CLEAR_REPEAT_RATIO = 0.25;

/** What the scan found per candidate bin (see {@link candidateScores}). */
export interface CandidateScores {
  /** The weaker of the row and column coherence. */
  score: Float64Array;
  /** The column bin paired with each row bin (columns are allowed ±1 bin). */
  partner: Int32Array;
  /** 1 where the detail near the candidate's cut-off stands above 8-bit rounding noise. */
  signal: Uint8Array;
  /** The rows' derivative power per frequency bin (the scan's bins below KEEP, of P): how far the detail reaches. */
  spectrum?: Float64Array;
}

/**
 * The verdict from the candidates' scores ({@link candidateScores}): candidates are tried from the
 * strongest down — a JPEG trace that wins (5/8, or a block-grid family) must not hide the
 * enlargement's own peak — and the first (or its sub-harmonic) that passes its threshold, has
 * signal above rounding noise, stands out of its neighbours and is not at 5/8 is the verdict. A
 * candidate on JPEG's block grid whose grid neighbours are as coherent (a JPEG family) is taken
 * only when the picture is band-limited as an enlargement by that factor is ({@link bandLimited}):
 * an enlarged picture saved as JPEG shows JPEG's block trace strongly (its smoothness leaves the
 * blocks' edges bare), a native one rarely.
 * @example
 * const score = new Float64Array(90); score[64] = 0.5; // α = 1/2 in both directions
 * decideDetail({ score, partner: Int32Array.from({ length: 90 }, (_, j) => j), signal: new Uint8Array(90).fill(1) }).factor; // 2
 */
export function decideDetail({ score, partner, signal, spectrum }: CandidateScores): DetailEstimate {
  const none = { factor: null, factorX: null, factorY: null };
  // Candidates beyond 5.3× only when they pass their own (higher) threshold — a smooth picture's
  // low-frequency coherence below it must not hide a real peak elsewhere.
  // Only peaks: a bin on the slope of a stronger one (a JPEG grid peak's skirt) is that peak.
  const peak = (j: number) => [-2, -1, 1, 2].every((d) => j + d < J_MIN || j + d > J_MAX || score[j]! >= score[j + d]!);
  const order: number[] = [];
  for (let j = J_MIN; j <= J_MAX; j++) if ((j >= J_LARGE || score[j]! >= threshold(j)) && peak(j)) order.push(j);
  order.sort((a, b) => score[b]! - score[a]! || a - b);
  let strongest = order.length ? score[order[0]!]! : (score[J_MAX] ?? 0);
  for (const first of order.slice(0, MAX_TRIED)) {
    if (nearFiveEighths(first)) continue;
    let best = first;
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
    if (!signal[best] || evidence < threshold(best) || nearFiveEighths(best) || !standsOut(score, best)) continue;
    if (jpegFamily(score, best) && !(evidence >= JPEG_RESCUE_EVIDENCE && bandLimited(spectrum, P / best))) continue;
    // The peak's place between bins, from its neighbours (a parabola through the three).
    const shift = subBin(score, best);
    const fx = P / (best + shift);
    const fy = P / (partner[best]! + shift);
    return { factor: Math.sqrt(fx * fy), factorX: fx, factorY: fy, evidence };
  }
  // An enlargement by about 1.5 saved as JPEG: quantisation leaves only part of the mirrored detail
  // above the cut-off, and its coherence falls below the threshold — but the picture keeps the band
  // limit of the enlargement, which a native picture, even compressed, does not (bench/quality-jpeg-set.mjs).
  const band = jpegBandPeak(score, spectrum, peak);
  if (band !== null) {
    const shift = subBin(score, band);
    const fx = P / (band + shift);
    const fy = P / (partner[band]! + shift);
    return { factor: Math.sqrt(fx * fy), factorX: fx, factorY: fy, evidence: score[band]! };
  }
  if (order.length === 0) {
    strongest = 0;
    for (let j = J_MIN; j <= J_MAX; j++) strongest = Math.max(strongest, score[j]!);
  }
  return { ...none, evidence: strongest };
}

/** The 1.5× band of candidates (1.45–1.52×), just past JPEG's 5/8 skirt. */
const J_JPEG_BAND = 84;
/** Coherence a peak in the 1.5× band needs when the picture is band-limited as the enlargement leaves it (JPEG 75–92 leaves 0.25–0.3 of it). */
export const UPSCALE_EVIDENCE_JPEG_BAND = 0.25;
/** Most power above the cut-off, as a share of the power below, of a picture enlarged by 1.5 (enlargements saved as JPEG 0.01–0.02; native photos, even compressed, mostly 0.04 and more, a soft one 0.03). */
export const JPEG_BAND_LIMIT = 0.025;

/**
 * The 1.5× band's peak of a picture whose detail stops where an enlargement by that factor stops it:
 * a peak (within the scan) of at least {@link UPSCALE_EVIDENCE_JPEG_BAND} that stands out of its
 * neighbours, in a picture band-limited within {@link JPEG_BAND_LIMIT}; else null.
 */
function jpegBandPeak(score: Float64Array, spectrum: Float64Array | undefined, peak: (j: number) => boolean): number | null {
  let best: number | null = null;
  for (let j = J_JPEG_BAND; j <= J_MAX; j++) if (peak(j) && score[j]! >= UPSCALE_EVIDENCE_JPEG_BAND && (best === null || score[j]! > score[best]!)) best = j;
  if (best === null || !standsOut(score, best, UPSCALE_EVIDENCE_JPEG_BAND) || !bandLimited(spectrum, P / best, JPEG_BAND_LIMIT)) return null;
  return best;
}

/** Where a peak at bin j lies between bins (−½ … ½): the vertex of the parabola through j − 1, j, j + 1. */
function subBin(score: Float64Array, j: number): number {
  const a = score[j - 1] ?? 0;
  const b = score[j]!;
  const c = score[j + 1] ?? 0;
  const curvature = a - 2 * b + c;
  return curvature < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / curvature)) : 0;
}

/** Candidates tried, strongest first. */
const MAX_TRIED = 12;
/** Coherence a candidate on the JPEG grid needs to be taken from a JPEG family by its band limit. */
const JPEG_RESCUE_EVIDENCE = 0.4;
/** Most power above an enlargement's cut-off, as a share of the power below it (bench:quality: 2× enlargements saved as JPEG 0.02–0.25, native photos 0.1–0.5). */
export const BAND_LIMIT = 0.15;

/**
 * Whether the picture's detail stops where an enlargement by `factor` stops it: the derivative's
 * power from just above the cut-off 0.5/f to 0.45 cycles per pixel is at most {@link BAND_LIMIT}
 * of its power below the cut-off.
 */
export function bandLimited(spectrum: Float64Array | undefined, factor: number, share = BAND_LIMIT): boolean {
  if (!spectrum) return false;
  const cut = 0.5 / factor;
  const sum = (lo: number, hi: number) => {
    let s = 0;
    for (let k = Math.ceil(lo * P); k <= Math.floor(hi * P) && k < spectrum.length; k++) s += spectrum[k]!;
    return s;
  };
  const below = sum(0.02, cut - 0.03);
  const above = sum(cut + 0.05, 0.45);
  return below > 0 && above <= share * below;
}

/** Per candidate bin: the weaker of the row and column coherence (columns allowed ±1 bin). */
export function candidateScores(tile: LumaTile): CandidateScores {
  const { out: rows, level: rowLevel, spectrum } = coherenceScan(tile, false, null);
  // Columns only where rows leave the candidate a chance: a score is the weaker of the two, and no
  // decision looks at a score below ROW_FLOOR, so elsewhere the rows' value stands as its bound.
  // When no candidate reaches its threshold along rows, none can reach it in both directions: the
  // columns are not scanned, and each score is the rows' value (a bound, with no signal).
  let possible = false;
  for (let j = J_MIN; j <= J_MAX; j++) if (rows[j]! >= threshold(j) && rowLevel[j]! >= 1) possible = true;
  const wanted = new Uint8Array(J_MAX + 2);
  for (let j = J_MIN; j <= J_MAX; j++) if (possible && rows[j]! >= ROW_FLOOR) wanted[j - 1] = wanted[j] = wanted[j + 1] = 1;
  if (!possible) {
    const partner = new Int32Array(J_MAX + 2);
    for (let j = J_MIN; j <= J_MAX; j++) partner[j] = j;
    return { score: Float64Array.from({ length: J_MAX + 2 }, (_, j) => rows[j] ?? 0), partner, signal: new Uint8Array(J_MAX + 2), spectrum };
  }
  const { out: cols, level: colLevel } = coherenceScan(tile, true, wanted);
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
    score[j] = wanted[j] ? Math.min(rows[j]!, other) : rows[j]!;
    partner[j] = at;
    signal[j] = hasSignal(rowLevel[j]!, colLevel[at]!) ? 1 : 0;
  }
  return { score, partner, signal, spectrum };
}

function nearestPeak(score: Float64Array, at: number): number | null {
  const c = Math.round(at);
  let best: number | null = null;
  for (let j = c - 1; j <= c + 1; j++) if (j >= J_MIN && j <= J_MAX && (best === null || score[j]! > score[best]!)) best = j;
  return best;
}

/**
 * Whether a candidate's coherence stands out of its neighbourhood: an enlargement's cycle frequency
 * is a narrow peak (its scan reaches ±1 bin), while a smooth picture's coherence is broad — as high
 * 4–8 bins away. The floor is the median coherence of those neighbours (both sides); the peak must
 * rise above it by a third of its threshold. Beyond 5.3× the frequency pairs of neighbouring candidates
 * overlap (every candidate there is broad), and its own higher threshold stands instead.
 */
function standsOut(score: Float64Array, j: number, needed = threshold(j)): boolean {
  if (j < J_LARGE) return true;
  // JPEG's 5/8 peak is no part of another candidate's floor: its skirt would bury a 1.5× peak
  // (bin 85, five bins away) whose neighbours above lie past the scan. Those bins are replaced by
  // the next ones out, so that the floor is always a median of at least NEIGHBOURS_MIN bins.
  const skip = (i: number) => !nearFiveEighths(j) && nearFiveEighths(i);
  const around: number[] = [];
  for (let d = NEIGHBOURS_FROM; d <= NEIGHBOURS_TO || (around.length < NEIGHBOURS_MIN && d <= NEIGHBOURS_FURTHEST); d++) {
    if (j - d >= J_MIN && !skip(j - d)) around.push(score[j - d]!);
    if (j + d <= J_MAX && !skip(j + d)) around.push(score[j + d]!);
  }
  around.sort((a, b) => a - b);
  const m = around.length >> 1;
  const floor = around.length % 2 ? around[m]! : (around[m - 1]! + around[m]!) / 2;
  return score[j]! - floor >= needed / 3;
}

/** The neighbours (in bins either side) whose median is a candidate's floor in {@link standsOut}. */
const NEIGHBOURS_FROM = 4;
const NEIGHBOURS_TO = 8;
/** Fewest neighbours in the floor, reaching out as far as NEIGHBOURS_FURTHEST when bins are skipped or past the scan. */
const NEIGHBOURS_MIN = 5;
const NEIGHBOURS_FURTHEST = 16;

/**
 * JPEG's blocks leave coherence at every multiple of 1/8 at once; an enlargement at α = m/8 only
 * at α and its multiples. A candidate on the grid whose other grid points (not its multiples) are
 * at least nine tenths as coherent is the JPEG, not an enlargement. A grid point beyond 5.3×
 * (α = 1/8) counts only when it passes its own threshold there: smooth pictures reach 0.65–0.7 at
 * those low frequencies by themselves (few frequency pairs), which is no block trace, and must not
 * hide a real enlargement's peak at 1/4 or 1/2 (bench:quality: a smooth sky photo enlarged 4×).
 */
function jpegFamily(score: Float64Array, j: number): boolean {
  if (!onGrid(j)) return false;
  const mine = Math.round((8 * j) / P);
  let other = 0;
  for (let m = 1; m < 8; m++) {
    const g = (m * P) / 8;
    if (g < J_MIN || g > J_MAX || m % mine === 0) continue;
    const at = nearestPeak(score, g)!;
    if (at < J_LARGE && score[at]! < threshold(at)) continue;
    other = Math.max(other, score[at]!);
  }
  return other >= 0.9 * score[j]!;
}

/**
 * α = 5/8 (an enlargement by 1.6) and the skirt of its peak (±3 bins: 1.55–1.68×): JPEG leaves its
 * strongest block trace there — in a detailed picture compressed hard, and in any enlarged picture
 * saved as JPEG — so no enlargement is reported there (1.5× and 1.7× are).
 */
function nearFiveEighths(j: number): boolean {
  return Math.abs(j - (5 * P) / 8) <= 3;
}

function onGrid(j: number): boolean {
  for (let m = 1; m < 8; m++) if (Math.abs(j - (m * P) / 8) <= 1) return true;
  return false;
}

function threshold(j: number): number {
  if (j < J_LARGE) return UPSCALE_EVIDENCE_LARGE;
  return onGrid(j) ? UPSCALE_EVIDENCE_ON_JPEG_GRID : UPSCALE_EVIDENCE;
}

/** How far above 8-bit rounding noise the detail near a candidate's cut-off must be (both directions together). */
const MIN_SIGNAL = 3;

/**
 * Whether the detail near a candidate's cut-off, along rows and along columns (in units of 8-bit
 * rounding noise), is real: at least at the noise in each direction, and {@link MIN_SIGNAL} times
 * it together (geometric mean, as the coherence pairs its powers) — a smooth gradient's
 * quantisation staircase is periodic too, and must not pass for an enlargement; a photo with a
 * little less detail one way than the other is still a photo.
 */
export function hasSignal(rowLevel: number, columnLevel: number): boolean {
  return rowLevel >= 1 && columnLevel >= 1 && rowLevel * columnLevel >= MIN_SIGNAL * MIN_SIGNAL;
}
