import { describe, expect, it } from 'vitest';
import { grouped, ordinal } from '../../../src/util/text.js';

describe('grouped', () => {
  it('writes numbers as toLocaleString("en-US") does, without loading ICU', () => {
    // A spread of magnitudes, signs and fractions, made reproducibly (no Math.random).
    const samples: number[] = [0, 1, -1, 999, 1000, -1000, 0.5, 12.3456, 999.9996];
    let x = 7;
    for (let i = 0; i < 500; i++) {
      x = (x * 48271) % 2147483647;
      const magnitude = 10 ** (i % 16);
      // Integers of every size; fractions of the sizes a report writes (below a billion).
      samples.push(Math.round((x / 2147483647) * magnitude) * (i % 3 === 0 ? -1 : 1), (x / 2147483647) * Math.min(magnitude, 1e9));
    }
    for (const n of samples) expect(grouped(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});

describe('ordinal', () => {
  it('orders by code units, whatever the locale', () => {
    expect(['b', 'B', 'a', 'A', 'a-b', 'ab'].sort(ordinal)).toEqual(['A', 'B', 'a', 'a-b', 'ab', 'b']);
  });
});
