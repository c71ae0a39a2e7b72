/**
 * CIEDE2000 against the published test data (Sharma, Wu and Dalal 2005, "The CIEDE2000
 * color-difference formula: implementation notes, supplementary test data"), and the bounds.
 */
import { describe, expect, it } from 'vitest';
import { compareDrawings, DIFFERENCE_BOUNDS, deltaE00, srgbToLab, withinBound } from '../../../src/model/difference.js';

describe('deltaE00', () => {
  it.each([
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 3.1571, -77.2803], [50, 0, -82.7485], 2.8615],
    [[50, 2.8361, -74.02], [50, 0, -82.7485], 3.4412],
    [[50, -1.3802, -84.2814], [50, 0, -82.7485], 1.0],
    [[50, -1.1848, -84.8006], [50, 0, -82.7485], 1.0],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, 2.49, -0.001], [50, -2.49, 0.0009], 7.1792],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[50, 2.5, 0], [61, -5, 29], 22.8977],
    [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
    [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
    [[90.9257, -0.5406, -0.9208], [88.6381, -0.8985, -0.7239], 1.5381],
  ])('%j vs %j is %f', (a, b, want) => {
    expect(deltaE00(a, b)).toBeCloseTo(want, 4);
    expect(deltaE00(b, a)).toBeCloseTo(want, 4);
  });

  it('is 0 for one colour, whatever it is', () => {
    for (const rgb of [
      [0, 0, 0],
      [255, 255, 255],
      [237, 28, 36],
    ])
      expect(deltaE00(srgbToLab(rgb[0]!, rgb[1]!, rgb[2]!), srgbToLab(rgb[0]!, rgb[1]!, rgb[2]!))).toBe(0);
  });
});

describe('compareDrawings', () => {
  it('gives the mean, the 95th percentile and the share past 1 of a page', () => {
    // 100 pixels: 90 alike, 10 moved from red to a darker red.
    const a = new Uint8Array(300);
    const b = new Uint8Array(300);
    for (let i = 0; i < 100; i++) {
      a.set([237, 28, 36], i * 3);
      b.set(i < 10 ? [200, 20, 30] : [237, 28, 36], i * 3);
    }
    const moved = deltaE00(srgbToLab(237, 28, 36), srgbToLab(200, 20, 30));
    const d = compareDrawings({ data: a, channels: 3 }, { data: b, channels: 3 }, 100);
    expect(d.meanDeltaE00).toBeCloseTo(moved / 10, 2);
    expect(d.p95DeltaE00).toBeCloseTo(moved, 0);
    expect(d.changedShare).toBe(0.1);
  });
});

describe('bounds', () => {
  it.each([
    ['colour', { meanDeltaE00: 1.8, p95DeltaE00: 1.8, changedShare: 1 }, true],
    ['colour', { meanDeltaE00: DIFFERENCE_BOUNDS.colour.meanDeltaE00 + 0.01, p95DeltaE00: 2, changedShare: 1 }, false],
    ['colour', { meanDeltaE00: 1, p95DeltaE00: DIFFERENCE_BOUNDS.colour.p95DeltaE00 + 0.1, changedShare: 0.2 }, false],
    ['geometry', { meanDeltaE00: 0.01, p95DeltaE00: 0, changedShare: 0.002 }, true],
    ['geometry', { meanDeltaE00: 0.5, p95DeltaE00: 0, changedShare: 0.03 }, false],
  ] as const)('%s %j within: %s', (kind, d, within) => {
    expect(withinBound(kind, d)).toBe(within);
  });
});
