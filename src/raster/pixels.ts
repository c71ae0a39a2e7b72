/**
 * Pixel measurements on a rendered page: how much of it carries ink, and how wide the empty
 * (near-white) band along each edge is. Pure functions over raw interleaved pixels.
 */
import type { PixelFacts } from './facts.js';

/** A channel value at or above this counts as white (paper). */
export const WHITE_LEVEL = 250;

export interface RawPixels {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA, alpha ignored: the page was rendered on white). */
  channels: number;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
/** Where an RGBA pixel's alpha byte sits in its 32-bit word. */
const ALPHA_SHIFT = LITTLE_ENDIAN ? 24 : 0;

/**
 * Ink coverage and edge gaps in one pass. RGBA pixels (PDFium, pdf.js) are read a 32-bit word at a
 * time: a channel is white when it is at least 250 (0b11111010), that is its top five bits are set
 * and one of the next two is — two masks per pixel instead of three compares of three bytes.
 */
export function analysePixels(p: RawPixels): PixelFacts {
  const { data, width, height, channels } = p;
  // Per row and per column: does it hold any ink?
  const rowInk = new Uint8Array(height);
  const colInk = new Uint8Array(width);
  let ink = 0;
  if (channels === 4 && LITTLE_ENDIAN && data.byteOffset % 4 === 0 && WHITE_LEVEL === 250) {
    const words = new Uint32Array(data.buffer, data.byteOffset, width * height);
    for (let y = 0, i = 0; y < height; y++) {
      let inRow = 0;
      for (let x = 0; x < width; x++, i++) {
        const v = words[i]!;
        if ((v & 0xf8f8f8) === 0xf8f8f8 && v & 0x06 && v & 0x0600 && v & 0x060000) continue;
        inRow++;
        colInk[x] = 1;
      }
      if (inRow) {
        ink += inRow;
        rowInk[y] = 1;
      }
    }
  } else {
    for (let y = 0, i = 0; y < height; y++) {
      let inRow = 0;
      for (let x = 0; x < width; x++, i += channels) {
        if (data[i]! >= WHITE_LEVEL && data[i + 1]! >= WHITE_LEVEL && data[i + 2]! >= WHITE_LEVEL) continue;
        inRow++;
        colInk[x] = 1;
      }
      if (inRow) {
        ink += inRow;
        rowInk[y] = 1;
      }
    }
  }
  const lead = (a: Uint8Array) => {
    let n = 0;
    while (n < a.length && !a[n]) n++;
    return n;
  };
  const trail = (a: Uint8Array) => {
    let n = 0;
    while (n < a.length && !a[a.length - 1 - n]) n++;
    return n;
  };
  return {
    inkCoverage: width * height ? ink / (width * height) : 0,
    edgeGapPx: { top: lead(rowInk), bottom: trail(rowInk), left: lead(colInk), right: trail(colInk) },
  };
}

/** Cells of the unpainted-area grid along the page's longest side. */
export const UNPAINTED_GRID = 48;
/** Alpha below this counts as unpainted (nothing drawn there). */
const UNPAINTED_ALPHA = 8;

/**
 * Where a page rendered on a transparent background was left unpainted: a grid of cells
 * ({@link UNPAINTED_GRID} along the longest side), each with its unpainted share (0–255), as
 * base64; the whole page's share.
 */
export interface UnpaintedGrid {
  share: number;
  cols: number;
  rows: number;
  cells: string;
  /**
   * The unpainted pixels themselves, as runs along rows: base64 of 16-bit little-endian triples
   * (row, first column, column after the last). The share inside the trim is counted on them, to
   * the pixel; absent when the page leaves more than {@link MAX_UNPAINTED_RUNS} runs (the grid
   * stands in then).
   */
  runs?: string;
}

/** Most runs of unpainted pixels kept (6 bytes each): a halftone of transparency would give millions. */
export const MAX_UNPAINTED_RUNS = 100_000;

/**
 * One pixel at `i` with alpha `a` put on white, each channel rounded by `round`: to the nearest for
 * a clamped array (it stores numbers so), down for a plain one.
 */
function blend(data: Uint8Array | Uint8ClampedArray, i: number, a: number, round: (v: number) => number): void {
  const k = 255 * (255 - a) + 127;
  data[i] = round((data[i]! * a + k) / 255);
  data[i + 1] = round((data[i + 1]! * a + k) / 255);
  data[i + 2] = round((data[i + 2]! * a + k) / 255);
  data[i + 3] = 255;
}

/**
 * Measures the unpainted (transparent) part of an RGBA render and composites it onto white in
 * place, so that everything after it (ink coverage, edge gaps, the preview) sees the page on
 * paper as before. Straight (not premultiplied) alpha, as pdf.js's getImageData and PDFium give.
 * Pixels are read a 32-bit word at a time: an opaque one costs one shift and one compare; a run of
 * unpainted ones is counted into its cells at once, each becoming white in one store; only partly
 * covered pixels (the edges of shapes) are blended channel by channel.
 */
export function flattenOnWhite(p: RawPixels): UnpaintedGrid | null {
  if (p.channels !== 4) return null;
  const { data, width, height } = p;
  const cell = Math.max(1, Math.ceil(Math.max(width, height) / UNPAINTED_GRID));
  const cols = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const empty = new Float64Array(cols * rows);
  let total = 0;
  const wide = width <= 65535 && height <= 65535;
  let runs: number[] | null = wide ? [] : null;
  // The blend rounds as the array stores: a clamped array (pdf.js's ImageData) to the nearest, a
  // plain one (PDFium) down — the same bytes the per-channel arithmetic always gave.
  const round = data instanceof Uint8ClampedArray ? Math.round : Math.floor;
  // Words need a 4-byte boundary: pixels that do not start on one are worked on in a copy.
  const aligned = data.byteOffset % 4 === 0;
  const bytes4 = aligned ? data : data.slice();
  const words = new Uint32Array(bytes4.buffer, bytes4.byteOffset, width * height);
  for (let y = 0; y < height; y++) {
    const rowCell = Math.floor(y / cell) * cols;
    let x = 0;
    let j = y * width;
    while (x < width) {
      const a = (words[j]! >>> ALPHA_SHIFT) & 0xff;
      if (a === 255) {
        x++;
        j++;
        continue;
      }
      if (a >= UNPAINTED_ALPHA) {
        blend(bytes4, j * 4, a, round);
        x++;
        j++;
        continue;
      }
      // A run of unpainted pixels: white where nothing at all is drawn, blended where a trace is.
      const x0 = x;
      do {
        const b = (words[j]! >>> ALPHA_SHIFT) & 0xff;
        if (b >= UNPAINTED_ALPHA) break;
        if (b === 0) words[j] = 0xffffffff;
        else blend(bytes4, j * 4, b, round);
        x++;
        j++;
      } while (x < width);
      total += x - x0;
      for (let c = Math.floor(x0 / cell); c * cell < x; c++) empty[rowCell + c] = empty[rowCell + c]! + Math.min(x, (c + 1) * cell) - Math.max(x0, c * cell);
      if (runs) {
        runs.push(y, x0, x);
        if (runs.length > 3 * MAX_UNPAINTED_RUNS) runs = null;
      }
    }
  }
  if (!aligned) data.set(bytes4);
  const bytes = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    const h = Math.min(cell, height - r * cell);
    for (let c = 0; c < cols; c++) {
      const w = Math.min(cell, width - c * cell);
      bytes[r * cols + c] = Math.round((255 * empty[r * cols + c]!) / (w * h));
    }
  }
  const packed = runs && total > 0 ? Buffer.from(Uint16Array.from(runs).buffer).toString('base64') : undefined;
  return { share: width * height ? total / (width * height) : 0, cols, rows, cells: Buffer.from(bytes).toString('base64'), ...(packed ? { runs: packed } : {}) };
}
