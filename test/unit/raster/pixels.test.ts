/**
 * Pixel measurements: the word-at-a-time reading of RGBA pixels gives exactly what a plain reading
 * of each channel gives (ink count, edge gaps), for RGB and RGBA, on every value around the white
 * level.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WHITE_LEVEL, analysePixels, type RawPixels } from '../../../src/raster/pixels.js';

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
