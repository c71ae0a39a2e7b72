/**
 * Nearest-neighbour enlargement, told apart from a smooth one. Enlarging by f = p/q with nearest
 * neighbour repeats pixels: in every p output pixels along a line, only q steps go to a new source
 * pixel and the other p − q are repeats — steps of zero (near zero once saved as JPEG). Its trace
 * is cyclostationary with period p, at cycle frequencies m/p: the same ones a smooth enlargement by
 * p (or p/m) leaves, so the coherence scan (detail.ts) finds the enlargement but cannot say by how
 * much (an enlargement by 1.5 with nearest neighbour repeats every 3 pixels and reads as 3×). The
 * steps say it: per segment of 64 pixels along every line (an inexact ratio such as 1,534/1,023
 * lets the pattern slip by a pixel now and then, never within a segment), the mean step at each
 * phase of the period; the phases whose steps are a small fraction of the others are the repeats.
 */
/** A window of luma samples, row by row (the coherence scan's and the repeat scan's input). */
export interface LumaTile {
  data: Float32Array;
  width: number;
  height: number;
}

/** Segment length along a line within which the repeat pattern keeps its phase. */
const SEGMENT = 64;
/** Periods looked at: nearest-neighbour factors p/q with p up to 7 (8 is JPEG's block grid). */
const MAX_PERIOD = 7;
/** A repeat phase steps at most this share of the weakest other phase (median over segments): 0 in a PNG, 0.1–0.45 after JPEG at quality 70–95 (bench:quality). */
export const MAX_REPEAT_RATIO = 0.5;

/** Share of a segment's new-pixel places that must step (summed over its lines) for its repeats to count. */
export const LATTICE_COVERAGE = 0.6;
/**
 * A new pixel's place steps when its summed steps exceed the repeats' mean by this much (a repeat's
 * steps are 0 in a PNG, up to 0.45 of a new pixel's after JPEG at quality 75: bench:quality's camera
 * set), plus {@link NOISE_PER_LINE}; flat art's places without an edge sit at the repeats' level.
 */
const REPEAT_MARGIN = 1.25;
/** Summed steps at a place below this many levels per line are no step (rounding, JPEG noise). */
const NOISE_PER_LINE = 0.5;

export interface NearestNeighbour {
  /** The enlargement along the direction: p / (p − repeats). */
  factor: number;
  period: number;
  repeats: number;
  /** Median over segments of the steps at the repeat phases over the weakest other phase. */
  ratio: number;
}

/**
 * The nearest-neighbour enlargement along rows (`columns` false: horizontal steps) or columns of a
 * tile whose coherence scan found cycle frequency `alpha` (or any of several: rows' and columns'); null when its steps
 * show no repeats with a period that frequency belongs to.
 * @example
 * nearestAlong(tileOfA15xNearestEnlargement, 1 / 3, false); // { factor: 1.5, period: 3, repeats: 1, ratio: 0 }
 */
export function nearestAlong(tile: LumaTile, alpha: number | readonly number[], columns: boolean): NearestNeighbour | null {
  let best: NearestNeighbour | null = null;
  const alphas = typeof alpha === 'number' ? [alpha] : alpha;
  for (let p = 2; p <= MAX_PERIOD; p++) {
    // The period must carry a frequency found (rows' or columns'): alpha = m / p for some m (within a bin of the scan).
    let fits = false;
    for (const a of alphas) for (let m = 1; m < p; m++) if (Math.abs(a - m / p) <= 1.5 / 128) fits = true;
    if (!fits) continue;
    const found = repeatsWithPeriod(tile, p, columns);
    if (!found || found.ratio > MAX_REPEAT_RATIO) continue;
    // Divisors of the true period show fewer repeats (a 4× enlargement at period 2 shows one repeat
    // in two, at 4 three in four; 2× at 4 two in four, still 2×): of the clear patterns, the one
    // with the largest factor is the true one.
    if (!best || found.factor > best.factor + 1e-9 || (Math.abs(found.factor - best.factor) < 1e-9 && found.ratio < best.ratio)) best = found;
  }
  return best;
}

/** The repeat pattern with period `p` (median over segments), or null when no phase stands apart. */
function repeatsWithPeriod(tile: LumaTile, p: number, columns: boolean): NearestNeighbour | null {
  const { data, width, height } = tile;
  const length = columns ? height : width;
  const lines = columns ? width : height;
  const along = columns ? width : 1;
  const across = columns ? 1 : width;
  const steps = new Float64Array(p);
  const ratios: number[] = [];
  const repeats: number[] = [];
  const at64 = new Float64Array(SEGMENT);
  for (let s = 0; s + SEGMENT < length; s += SEGMENT) {
    steps.fill(0);
    at64.fill(0);
    for (let line = 0; line < lines; line++) {
      let at = line * across + s * along;
      for (let i = 0; i < SEGMENT; i++, at += along) at64[i] = at64[i]! + Math.abs(data[at + along]! - data[at]!);
    }
    for (let i = 0; i < SEGMENT; i++) steps[i % p] = steps[i % p]! + at64[i]!;
    const sorted = Array.from(steps).sort((a, b) => a - b);
    // Repeats and new pixels split at the largest jump (as a ratio) between sorted phases.
    let cut = 0;
    let jump = 0;
    for (let i = 0; i + 1 < p; i++) {
      const r = sorted[i + 1]! / Math.max(1e-9, sorted[i]!);
      if (r > jump) {
        jump = r;
        cut = i;
      }
    }
    // A flat segment says nothing (plain sky, paper: no place steps by 2 levels a line on average).
    let most = 0;
    for (let i = 0; i < SEGMENT; i++) most = Math.max(most, at64[i]!);
    if (sorted[p - 1]! <= 0 || most <= 4 * NOISE_PER_LINE * lines) continue;
    // The lattice must be there, not just the repeats: the new source pixels step at nearly every
    // one of their places (over all the lines), as an enlarged picture's do; flat art whose few
    // edges happen to share a phase (a 37-px checkerboard's, every seventh pixel) shows repeats
    // everywhere else and no lattice.
    const repeatLevel = sorted[cut]!;
    let places = 0;
    let stepping = 0;
    let repeatSum = 0;
    let repeatPlaces = 0;
    for (let i = 0; i < SEGMENT; i++) {
      if (steps[i % p]! <= repeatLevel) {
        repeatSum += at64[i]!;
        repeatPlaces++;
      }
    }
    const floor = REPEAT_MARGIN * (repeatSum / Math.max(1, repeatPlaces)) + NOISE_PER_LINE * lines;
    for (let i = 0; i < SEGMENT; i++) {
      if (steps[i % p]! <= repeatLevel) continue;
      places++;
      if (at64[i]! > floor) stepping++;
    }
    ratios.push(stepping >= LATTICE_COVERAGE * places ? sorted[cut]! / sorted[cut + 1]! : 1);
    repeats.push(cut + 1);
  }
  if (ratios.length === 0) return null;
  ratios.sort((a, b) => a - b);
  repeats.sort((a, b) => a - b);
  const ratio = ratios[ratios.length >> 1]!;
  const r = repeats[repeats.length >> 1]!;
  return { factor: p / (p - r), period: p, repeats: r, ratio };
}
