import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mmToPt, ptToMm, mmToPx, ppiOf } from '../../src/pdf/units.js';
import { multiply, apply, IDENTITY } from '../../src/pdf/matrix.js';
import { classifySize } from '../../src/rules/check-page-size.js';

const mm = fc.double({ min: 10, max: 10_000, noNaN: true });
const tol = fc.double({ min: 0, max: 20, noNaN: true });

describe('page size classification (properties)', () => {
  it('turning the page by 90° and swapping the layer gives the same verdict', () => {
    fc.assert(
      fc.property(mm, mm, mm, mm, tol, (w, h, W, H, t) => {
        const a = classifySize(w, h, W, H, t, 0.01);
        const b = classifySize(h, w, H, W, t, 0.01);
        expect(b.kind).toBe(a.kind);
      }),
    );
  });

  it('scaling page, layer and tolerance alike changes nothing', () => {
    fc.assert(
      fc.property(mm, mm, mm, mm, tol, fc.double({ min: 0.1, max: 10, noNaN: true }), (w, h, W, H, t, k) => {
        const a = classifySize(w, h, W, H, t, 0.01);
        const b = classifySize(w * k, h * k, W * k, H * k, t * k, 0.01);
        // Away from the exact boundaries, where rounding may tip either way: sizes are judged as the
        // messages show them (tenths of a mm, rules/threshold.ts), at either scale.
        fc.pre(![w - W, h - H, w - H, h - W].some((d) => Math.abs(Math.abs(d) - t) < Math.max(1e-6 * Math.max(w, h), 0.1 * Math.max(1, 1 / k))));
        fc.pre(Math.abs(Math.abs(w / h / (W / H) - 1) - 0.01) > 1e-9 && Math.abs(Math.abs(h / w / (W / H) - 1) - 0.01) > 1e-9);
        expect(b.kind).toBe(a.kind);
      }),
    );
  });

  it('a page within tolerance of its layer always matches; swapped always is an orientation verdict', () => {
    fc.assert(
      fc.property(mm, mm, tol, fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), (W, H, t, dx, dy) => {
        expect(classifySize(W + dx * t, H + dy * t, W, H, t, 0.01).kind).toBe('match');
        // Sides told apart as the messages show sizes (tenths of a mm, rules/threshold.ts): 10 × 10.000001 mm is 10 × 10 mm.
        fc.pre(Math.abs(W - H) > 2 * t + 0.1);
        expect(classifySize(H + dy * t, W + dx * t, W, H, t, 0.01).kind).toBe('orientation');
      }),
    );
  });

  it('any uniform scale of the layer beyond tolerance is a scale verdict with that factor', () => {
    fc.assert(
      fc.property(mm, mm, fc.double({ min: 0.1, max: 0.9, noNaN: true }), (W, H, k) => {
        const v = classifySize(W * k, H * k, W, H, 2, 0.01);
        // Beyond the tolerance as sizes are shown (tenths of a mm): 7.95 mm is "8 mm", within 2 mm of 10.
        fc.pre(Math.abs(W * k - W) > 2.1 || Math.abs(H * k - H) > 2.1);
        expect(v.kind === 'scale' || (Math.abs(W - H) < 0.02 * Math.max(W, H) && v.kind === 'orientation-scale')).toBe(true);
        if (v.kind === 'scale') expect(v.scale).toBeCloseTo(k, 9);
      }),
    );
  });
});

describe('units (properties)', () => {
  it('mm → pt → mm round-trips', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (x) => {
        expect(ptToMm(mmToPt(x))).toBeCloseTo(x, 6);
      }),
    );
  });
  it('pixels for a size at a resolution give that resolution back', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 10_000, noNaN: true }), fc.double({ min: 1, max: 2400, noNaN: true }), (sizeMm, ppi) => {
        expect(ppiOf(mmToPx(sizeMm, ppi), mmToPt(sizeMm))).toBeCloseTo(ppi, 6);
      }),
    );
  });
  it('matrix product applies the first matrix first', () => {
    const m = fc.tuple(...Array.from({ length: 6 }, () => fc.double({ min: -100, max: 100, noNaN: true }))) as fc.Arbitrary<[number, number, number, number, number, number]>;
    fc.assert(
      fc.property(m, m, fc.double({ min: -100, max: 100, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true }), (a, b, x, y) => {
        const [x1, y1] = apply(b, ...apply(a, x, y));
        const [x2, y2] = apply(multiply(a, b), x, y);
        expect(x2).toBeCloseTo(x1, 3);
        expect(y2).toBeCloseTo(y1, 3);
        multiply(a, IDENTITY).forEach((v, i) => expect(v).toBeCloseTo(a[i]!, 9));
      }),
    );
  });
});
