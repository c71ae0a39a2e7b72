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

function isWhite(d: RawPixels['data'], i: number): boolean {
  return d[i]! >= WHITE_LEVEL && d[i + 1]! >= WHITE_LEVEL && d[i + 2]! >= WHITE_LEVEL;
}

export function analysePixels(p: RawPixels): PixelFacts {
  const { data, width, height, channels } = p;
  const stride = width * channels;
  // Per row and per column: does it hold any ink? One pass over the pixels.
  const rowInk = new Uint8Array(height);
  const colInk = new Uint8Array(width);
  let ink = 0;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      if (!isWhite(data, row + x * channels)) {
        ink++;
        rowInk[y] = 1;
        colInk[x] = 1;
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
}

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
  for (let y = 0; y < height; y++) {
    const rowCell = Math.floor(y / cell) * cols;
    for (let x = 0, i = y * width * 4; x < width; x++, i += 4) {
      const a = data[i + 3]!;
      if (a === 255) continue;
      if (a < UNPAINTED_ALPHA) {
        empty[rowCell + Math.floor(x / cell)] = empty[rowCell + Math.floor(x / cell)]! + 1;
        total++;
      }
      const k = 255 - a;
      data[i] = (data[i]! * a + 255 * k + 127) / 255;
      data[i + 1] = (data[i + 1]! * a + 255 * k + 127) / 255;
      data[i + 2] = (data[i + 2]! * a + 255 * k + 127) / 255;
      data[i + 3] = 255;
    }
  }
  const bytes = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    const h = Math.min(cell, height - r * cell);
    for (let c = 0; c < cols; c++) {
      const w = Math.min(cell, width - c * cell);
      bytes[r * cols + c] = Math.round((255 * empty[r * cols + c]!) / (w * h));
    }
  }
  return { share: width * height ? total / (width * height) : 0, cols, rows, cells: Buffer.from(bytes).toString('base64') };
}
