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
 * Measures the unpainted (transparent) part of an RGBA render and composites it onto white in
 * place, so that everything after it (ink coverage, edge gaps, the preview) sees the page on
 * paper as before. Straight (not premultiplied) alpha, as pdf.js's getImageData and PDFium give.
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
  for (let y = 0; y < height; y++) {
    const rowCell = Math.floor(y / cell) * cols;
    let runStart = -1;
    for (let x = 0, i = y * width * 4; x < width; x++, i += 4) {
      const a = data[i + 3]!;
      const unpainted = a < UNPAINTED_ALPHA;
      if (runs && unpainted !== runStart >= 0) {
        if (unpainted) runStart = x;
        else {
          runs.push(y, runStart, x);
          runStart = -1;
          if (runs.length > 3 * MAX_UNPAINTED_RUNS) runs = null;
        }
      }
      if (a === 255) continue;
      if (unpainted) {
        empty[rowCell + Math.floor(x / cell)] = empty[rowCell + Math.floor(x / cell)]! + 1;
        total++;
      }
      const k = 255 - a;
      data[i] = (data[i]! * a + 255 * k + 127) / 255;
      data[i + 1] = (data[i + 1]! * a + 255 * k + 127) / 255;
      data[i + 2] = (data[i + 2]! * a + 255 * k + 127) / 255;
      data[i + 3] = 255;
    }
    if (runs && runStart >= 0) runs.push(y, runStart, width);
    if (runs && runs.length > 3 * MAX_UNPAINTED_RUNS) runs = null;
  }
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
