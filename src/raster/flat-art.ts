/**
 * What kind of picture a tile is, for the enlargement estimate (detail.ts): the coherence scan and
 * the repeat scan read an interpolation grid into any picture whose pixels repeat, and three kinds of
 * picture repeat by themselves, whatever their history:
 * - **near-uniform** pictures (a scan's MRC background layer, a mask: one level nearly everywhere,
 *   a few specks; 97 % of the pixels within 12 levels of one): too little detail to tell anything from — an isolated speck's spectrum is flat,
 *   and coherent at every candidate;
 * - **periodic patterns** (checkerboards, stripes, dot fields, tiled patterns): their spectrum is
 *   a set of lines, coherent at every multiple of the pattern's frequency, and their edges sit on
 *   a lattice — exactly what an enlargement leaves;
 * - **smooth** pictures (gradients: 98 % of steps flat, hardly a strong edge): no detail for an
 *   enlargement to have lost — what the scan finds there is JPEG's block grid or 8-bit rounding;
 * - **crisp flat art** (logos, text, shapes, screenshots): large uniform regions whose edges step
 *   from one level to the next in fewer pixels than an enlargement by the factor found would leave
 *   ({@link crispFor}: an interpolating kernel reaches a source pixel either side), so it was drawn
 *   at its own size; only a repeat of pixels (nearest neighbour) keeps edges that crisp, and that
 *   is judged by its own lattice (nearest.ts).
 * Pure arithmetic on the bounded luma tile (at most 512 × 512).
 */
import type { LumaTile } from './nearest.js';

/**
 * A picture is near-uniform when this share of its pixels lies within {@link UNIFORM_LEVELS} of its
 * commonest level (a scan background with 0.3 % of its pixels 1-px specks: 99.7 % as PNG, 98.4 %
 * once JPEG at quality 75 has smeared every speck over its block).
 */
export const NEAR_UNIFORM_SHARE = 0.97;
/** Levels either side of the commonest one that count as it (5 % of the range: paper's grain, JPEG's ringing). */
const UNIFORM_LEVELS = 12;
/** A step of at most this many levels is no edge (flat regions after JPEG at quality 90 and more wobble by one or two). */
const FLAT_STEP = 2;
/** An edge rises (or falls) by at least this many levels in all. */
const STRONG_EDGE = 48;
/** Flat art: at least this share of the steps between neighbours are flat. */
export const FLAT_SHARE = 0.7;
/** Flat art contradicts an enlargement when at least this share of its strong edges are narrower than the enlargement would leave them ({@link crispFor}). */
export const CRISP_SHARE = 0.5;
/** Edge widths counted, in steps (wider ones are counted as this). */
const MAX_WIDTH = 8;
/** Fewest strong edges to judge crispness on. */
const MIN_EDGES = 40;
/** A picture is smooth when this share of its steps is flat and it has fewer than {@link MIN_EDGES} strong edges (a gradient). */
export const SMOOTH_SHARE = 0.98;
/** A pattern repeats with period T when the mean difference at lag T is at most this share of the difference at lag T/2. */
export const PERIODIC_RATIO = 0.2;
/** Longest period looked for (the tile must hold four of them). */
const MAX_PATTERN_PERIOD = 128;

/** What the tile is, and the measures behind it. */
export interface PictureKind {
  /** `flat`: flat art (large uniform regions), whose edges are judged against a factor by {@link crispFor}. */
  kind: 'near-uniform' | 'periodic' | 'smooth' | 'flat' | 'picture';
  /** Share of pixels at the commonest level (±12). */
  uniformShare: number;
  /** Share of flat steps between neighbours (both directions). */
  flatShare: number;
  /**
   * Share of strong edges taking at most w steps, for w = 1 … 8 (index w − 1); null when fewer than
   * 40 strong edges.
   */
  widths: number[] | null;
  /** The pattern's period in pixels and the direction it repeats along, when periodic. */
  period: { pixels: number; along: 'rows' | 'columns' } | null;
}

/**
 * Tells near-uniform pictures, periodic patterns and crisp flat art from other pictures.
 * @example
 * pictureKind(tileOfACheckerboard).kind; // 'periodic'
 */
export function pictureKind(tile: LumaTile): PictureKind {
  const uniformShare = commonestShare(tile);
  const { flatShare, widths } = edges(tile);
  const base = { uniformShare, flatShare, widths, period: null };
  if (uniformShare >= NEAR_UNIFORM_SHARE) return { ...base, kind: 'near-uniform' };
  const period = periodOf(tile, false) ?? periodOf(tile, true);
  if (period) return { ...base, period, kind: 'periodic' };
  if (flatShare >= SMOOTH_SHARE && !widths) return { ...base, kind: 'smooth' };
  return { ...base, kind: flatShare >= FLAT_SHARE ? 'flat' : 'picture' };
}

/**
 * Whether flat art's edges deny an enlargement by `factor`: an interpolating kernel reaches at
 * least a source pixel either side, so an enlargement by f spreads an edge over at least about
 * f + 1 steps (bicubic 2×: 3–4; Lanczos 4×: 5–6), and one by less than 3× over at least 3 — when
 * {@link CRISP_SHARE} of the strong edges take at most max(2, ⌈f⌉ − 1) steps, the picture was not
 * enlarged by f with any such kernel. (Repeated pixels keep edges at one step: nearest.ts judges
 * those by their lattice.)
 * @example
 * crispFor(pictureKind(tileOfALogo), 4); // true: its anti-aliased edges take one or two steps
 */
export function crispFor(kind: PictureKind, factor: number): boolean {
  if (kind.kind !== 'flat' || !kind.widths) return false;
  const w = Math.min(MAX_WIDTH, Math.max(2, Math.ceil(factor) - 1));
  return kind.widths[w - 1]! >= CRISP_SHARE;
}

/** Share of pixels within ±12 levels of the commonest level. */
function commonestShare(tile: LumaTile): number {
  const hist = new Float64Array(256);
  const { data } = tile;
  for (let i = 0; i < data.length; i++) hist[Math.max(0, Math.min(255, Math.round(data[i]!)))]!++;
  let best = 0;
  for (let v = 0; v < 256; v++) {
    let s = 0;
    for (let d = -UNIFORM_LEVELS; d <= UNIFORM_LEVELS; d++) s += hist[v + d] ?? 0;
    best = Math.max(best, s);
  }
  return best / Math.max(1, data.length);
}

/**
 * The share of flat steps, and how wide strong edges are: along every row and every column, an
 * edge is a run of same-signed steps of more than two levels; it is strong when it rises by 48
 * levels or more, and as wide as its steps.
 */
function edges(tile: LumaTile): { flatShare: number; widths: number[] | null } {
  let flat = 0;
  let steps = 0;
  let strong = 0;
  const byWidth = new Float64Array(MAX_WIDTH + 1);
  const { data, width, height } = tile;
  const scan = (start: number, stride: number, length: number) => {
    let run = 0;
    let rise = 0;
    let sign = 0;
    const close = () => {
      if (run > 0 && Math.abs(rise) >= STRONG_EDGE) {
        strong++;
        byWidth[Math.min(MAX_WIDTH, run)]!++;
      }
      run = 0;
      rise = 0;
      sign = 0;
    };
    for (let i = 1, at = start + stride; i < length; i++, at += stride) {
      const d = data[at]! - data[at - stride]!;
      steps++;
      if (Math.abs(d) <= FLAT_STEP) {
        flat++;
        close();
        continue;
      }
      const s = d > 0 ? 1 : -1;
      if (s !== sign) close();
      sign = s;
      run++;
      rise += d;
    }
    close();
  };
  for (let y = 0; y < height; y++) scan(y * width, 1, width);
  for (let x = 0; x < width; x++) scan(x, width, height);
  const widths: number[] = [];
  for (let w = 1, upTo = 0; w <= MAX_WIDTH; w++) widths.push((upTo += byWidth[w]!) / Math.max(1, strong));
  return { flatShare: steps ? flat / steps : 0, widths: strong >= MIN_EDGES ? widths : null };
}

/**
 * The shortest period T (2–128 pixels, the tile holding four) along rows (or columns) at which the
 * tile repeats: the mean difference between pixels T apart is at most {@link PERIODIC_RATIO} of
 * that between pixels T/2 apart, which must be more than rounding (a picture differs more the
 * further apart its pixels are; a pattern least at its period). Every fourth line is compared.
 */
function periodOf(tile: LumaTile, columns: boolean): PictureKind['period'] {
  const { data, width, height } = tile;
  const length = columns ? height : width;
  const lines = columns ? width : height;
  const along = columns ? width : 1;
  const across = columns ? 1 : width;
  const maxT = Math.min(MAX_PATTERN_PERIOD, Math.floor(length / 4));
  const diff = new Float64Array(maxT + 1);
  const count = length - maxT;
  for (let t = 1; t <= maxT; t++) {
    let s = 0;
    for (let line = 0; line < lines; line += 4) {
      let at = line * across;
      for (let i = 0; i < count; i++, at += along) s += Math.abs(data[at + t * along]! - data[at]!);
    }
    diff[t] = s / (Math.ceil(lines / 4) * count);
  }
  for (let t = 2; t <= maxT; t++) {
    const half = diff[Math.round(t / 2)]!;
    if (half > 1 && diff[t]! <= PERIODIC_RATIO * half) return { pixels: t, along: columns ? 'columns' : 'rows' };
  }
  return null;
}

/**
 * How strongly the crisp edges of a tile keep to a lattice of period `p` (2–7): along rows and
 * along columns, the share of strong one- or two-step edges whose main step falls on the commonest
 * phase of x (or y) mod p — the weaker direction's. A picture enlarged by p with repeated pixels
 * steps only where a new source pixel starts (one phase: share 1, however hard JPEG compressed it,
 * since strong edges stand far above its noise); flat art drawn at its own size steps anywhere
 * (about 1/p). Null when either direction has fewer than 40 such edges.
 * @example
 * edgeLattice(tileOfPixelArtRepeated2x, 2); // 1
 */
export function edgeLattice(tile: LumaTile, p: number): number | null {
  const { data, width, height } = tile;
  const share = (columns: boolean): number | null => {
    const length = columns ? height : width;
    const lines = columns ? width : height;
    const along = columns ? width : 1;
    const across = columns ? 1 : width;
    const phases = new Float64Array(p);
    let total = 0;
    for (let line = 0; line < lines; line++) {
      let run = 0;
      let rise = 0;
      let sign = 0;
      let biggest = 0;
      let at = 0;
      const close = () => {
        if (run > 0 && run <= 2 && Math.abs(rise) >= STRONG_EDGE) {
          phases[at % p]!++;
          total++;
        }
        run = 0;
        rise = 0;
        sign = 0;
        biggest = 0;
      };
      for (let i = 1, k = line * across + along; i < length; i++, k += along) {
        const d = data[k]! - data[k - along]!;
        if (Math.abs(d) <= FLAT_STEP) {
          close();
          continue;
        }
        const s = d > 0 ? 1 : -1;
        if (s !== sign) close();
        sign = s;
        run++;
        rise += d;
        if (Math.abs(d) > biggest) {
          biggest = Math.abs(d);
          at = i;
        }
      }
      close();
    }
    let most = 0;
    for (const n of phases) if (n > most) most = n;
    return total >= MIN_EDGES ? most / total : null;
  };
  const rows = share(false);
  const columns = share(true);
  return rows === null || columns === null ? null : Math.min(rows, columns);
}
