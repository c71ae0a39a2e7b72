import { describe, expect, it } from 'vitest';
import { isBelow, THRESHOLD_TOLERANCE } from '../../../src/rules/threshold.js';

describe('thresholds with a stated tolerance', () => {
  it.each([
    // [value, limit, decimals shown, below?]
    [0.9999987, 1, 2, false], // a 1-pt border through a 0.9999987 form matrix
    [5.9999, 6, 1, false], // 6-pt text measured 5.9999 pt
    [0.994, 1, 2, true], // shows as 0.99 pt
    [0.996, 1, 2, false], // shows as 1 pt: never "thinnest is 1 pt" about a 1-pt limit
    [99.96, 100, 1, false], // 100.0 ppi
    [99.9, 100, 1, true],
    [0, 1, 2, true], // a hairline
    [1 - THRESHOLD_TOLERANCE * 2, 1, 6, true], // past the tolerance and shown below
  ])('%f against %f (%i decimals): below %s', (value, limit, decimals, below) => {
    expect(isBelow(value, limit, decimals)).toBe(below);
  });
});
