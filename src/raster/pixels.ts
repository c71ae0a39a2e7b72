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
