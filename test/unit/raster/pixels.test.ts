/**
 * Pixel measurements: the word-at-a-time reading of RGBA pixels gives exactly what a plain reading
 * of each channel gives (ink count, edge gaps), for RGB and RGBA, on every value around the white
 * level.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNPAINTED_GRID, WHITE_LEVEL, analysePixels, flattenOnWhite, type RawPixels } from '../../../src/raster/pixels.js';

/** The measurement by its definition: a pixel is ink when any of R, G, B is below the white level. */
function reference({ data, width, height, channels }: RawPixels) {
  let ink = 0;
  const rows: boolean[] = [];
  const cols: boolean[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      if (data[i]! < WHITE_LEVEL || data[i + 1]! < WHITE_LEVEL || data[i + 2]! < WHITE_LEVEL) {
        ink++;
        rows[y] = true;
        cols[x] = true;
      }
    }
  }
  const lead = (a: boolean[], n: number) => {
    let k = 0;
    while (k < n && !a[k]) k++;
    return k;
  };
  const trail = (a: boolean[], n: number) => {
    let k = 0;
    while (k < n && !a[n - 1 - k]) k++;
    return k;
  };
  return { inkCoverage: width * height ? ink / (width * height) : 0, edgeGapPx: { top: lead(rows, height), bottom: trail(rows, height), left: lead(cols, width), right: trail(cols, width) } };
}

describe('analysePixels', () => {
  it('agrees with the per-channel definition on RGB and RGBA pixels near and far from white', () => {
    // Values around the white level weigh more: 245–255 half of the time.
    const value = fc.oneof(fc.integer({ min: 245, max: 255 }), fc.integer({ min: 0, max: 255 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 13 }),
        fc.constantFrom(3, 4),
        fc.array(value, { minLength: 17 * 13 * 4, maxLength: 17 * 13 * 4 }),
        (width, height, channels, values) => {
          const data = Uint8Array.from(values.slice(0, width * height * channels));
          const px = { data, width, height, channels };
          expect(analysePixels(px)).toEqual(reference(px));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('measures a white page with an ink block: coverage and the four gaps', () => {
    const width = 40;
    const height = 30;
    const data = new Uint8ClampedArray(width * height * 4).fill(255);
    for (let y = 5; y < 20; y++) for (let x = 10; x < 32; x++) data[(y * width + x) * 4 + 1] = 249; // one channel just below white
    expect(analysePixels({ data, width, height, channels: 4 })).toEqual({ inkCoverage: (15 * 22) / (width * height), edgeGapPx: { top: 5, bottom: 10, left: 10, right: 8 } });
  });

  it('reads RGBA bytes that do not start on a 4-byte boundary the plain way, with the same result', () => {
    const width = 9;
    const height = 7;
    const backing = new Uint8Array(width * height * 4 + 1);
    const data = backing.subarray(1);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 256;
    const px = { data, width, height, channels: 4 };
    expect(analysePixels(px)).toEqual(reference(px));
  });
});

/**
 * Compositing on white by its definition, a channel at a time: c·a + 255·(255 − a), divided by 255
 * with 127 added, stored as the array stores a number (a clamped array rounds to the nearest, a
 * plain one drops the fraction); unpainted (alpha below 8) counted per cell and as runs along rows.
 */
function flattenReference(p: RawPixels) {
  const { data, width, height } = p;
  const cell = Math.max(1, Math.ceil(Math.max(width, height) / UNPAINTED_GRID));
  const cols = Math.ceil(width / cell);
  const empty = new Array<number>(cols * Math.ceil(height / cell)).fill(0);
  const runs: number[] = [];
  let total = 0;
  for (let y = 0; y < height; y++) {
    let start = -1;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const a = data[i + 3]!;
      if (a < 8) {
        total++;
        empty[Math.floor(y / cell) * cols + Math.floor(x / cell)]!++;
        if (start < 0) start = x;
      } else if (start >= 0) {
        runs.push(y, start, x);
        start = -1;
      }
      for (let c = 0; c < 3; c++) data[i + c] = (data[i + c]! * a + 255 * (255 - a) + 127) / 255;
      data[i + 3] = 255;
    }
    if (start >= 0) runs.push(y, start, width);
  }
  return { total, empty, runs };
}

describe('flattenOnWhite', () => {
  const rgba = (values: number[], clamped: boolean, offset: number) => {
    const buffer = new ArrayBuffer(values.length + offset);
    const data = clamped ? new Uint8ClampedArray(buffer, offset, values.length) : new Uint8Array(buffer, offset, values.length);
    data.set(values);
    return data;
  };
  it('word at a time gives the bytes, cells and runs of the per-channel definition, for clamped and plain arrays, aligned or not', () => {
    // Alphas from the edges of the cases: opaque, transparent, just under and at the unpainted level, partial.
    const alpha = fc.oneof(fc.constantFrom(0, 7, 8, 254, 255), fc.integer({ min: 0, max: 255 }));
    const pixel = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), alpha);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(pixel, { minLength: 1, maxLength: 1200 }), fc.boolean(), fc.constantFrom(0, 4, 1), (width, pixels, clamped, offset) => {
        const height = Math.max(1, Math.floor(pixels.length / width));
        const values = pixels.slice(0, width * height).flat();
        if (values.length < width * height * 4) return;
        const ours = { data: rgba(values, clamped, offset), width, height, channels: 4 };
        const theirs = { data: rgba(values, clamped, offset), width, height, channels: 4 };
        const grid = flattenOnWhite(ours)!;
        const want = flattenReference(theirs);
        expect([...ours.data]).toEqual([...theirs.data]);
        expect(grid.share).toBeCloseTo(want.total / (width * height), 12);
        const cells = [...Buffer.from(grid.cells, 'base64')];
        const cell = Math.max(1, Math.ceil(Math.max(width, height) / UNPAINTED_GRID));
        const expectedCells = want.empty.map((n, k) => {
          const r = Math.floor(k / grid.cols);
          const c = k % grid.cols;
          return Math.round((255 * n) / (Math.min(cell, width - c * cell) * Math.min(cell, height - r * cell)));
        });
        expect(cells).toEqual(expectedCells);
        const runs = grid.runs ? [...new Uint16Array(new Uint8Array(Buffer.from(grid.runs, 'base64')).buffer)] : [];
        expect(runs).toEqual(want.total > 0 ? want.runs : []);
      }),
      { numRuns: 300 },
    );
  });
});
