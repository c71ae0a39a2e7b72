/**
 * Threshold comparisons with a stated tolerance. Measures come through matrices and rounding — a
 * 1-pt form-field border drawn through a 0.9999987 form matrix measures 0.9999987 pt, 6-pt text
 * 5.9999 pt — and a finding must never contradict its own message ("the thinnest is 1 pt" about a
 * 1-pt limit). So a measure is past its limit only when it is past it by more than
 * {@link THRESHOLD_TOLERANCE} (relative) *and* still past it as the message shows both (rounded to
 * the decimals the message writes). Every threshold of the profile schema is compared through these
 * (test/unit/rules/every-threshold.test.ts holds a case per limit); whole measures against their
 * limits — pixels, bytes, JPEG quality steps — have no rounding to tolerate and compare exactly.
 */
import { round } from '../pdf/units.js';

/** Relative tolerance of every threshold: a measure within 1e-4 of its limit is at the limit. */
export const THRESHOLD_TOLERANCE = 1e-4;

/** Value and limit rounded as shown (`decimals` undefined: the message does not show the measure, so no rounding). */
function shown(value: number, limit: number, decimals: number | undefined): [number, number] {
  if (decimals === undefined) return [value, limit];
  // Compared in whole units of the last decimal, so that 2041.9 − 2039.9 is not 2.0000000000000004.
  const f = 10 ** decimals;
  return [Math.round(round(value, decimals) * f), Math.round(round(limit, decimals) * f)];
}

/**
 * Whether `value` is below `limit`, beyond the tolerance and as shown with `decimals` decimals.
 * @example
 * isBelow(0.9999987, 1, 2); // false: "1 pt" is not thinner than 1 pt
 * isBelow(0.994, 1, 2); // true: 0.99 pt
 */
export function isBelow(value: number, limit: number, decimals?: number): boolean {
  const [v, l] = shown(value, limit, decimals);
  return value < limit - Math.abs(limit) * THRESHOLD_TOLERANCE && v < l;
}

/**
 * Whether `value` is above `limit`, beyond the tolerance and as shown with `decimals` decimals.
 * @example
 * isAbove(0.01004, 0.01, 3); // false: "1 %" unpainted is not more than 1 %
 * isAbove(0.0112, 0.01, 3); // true: 1.1 %
 */
export function isAbove(value: number, limit: number, decimals?: number): boolean {
  const [v, l] = shown(value, limit, decimals);
  return value > limit + Math.abs(limit) * THRESHOLD_TOLERANCE && v > l;
}

/**
 * Whether `value` lies further than `tolerance` from `expected`: beyond the tolerance's own 1e-4,
 * and as the message shows value and expected (`decimals` decimals, e.g. "2042 × 2040 mm" against
 * "2040 × 2040 mm ± 2 mm" is within).
 * @example
 * isOutside(2042.04, 2040, 2, 1); // false: shown as 2042, 2 mm off
 * isOutside(2042.2, 2040, 2, 1); // true
 */
export function isOutside(value: number, expected: number, tolerance: number, decimals?: number): boolean {
  const [v, e] = shown(value, expected, decimals);
  const t = decimals === undefined ? tolerance : Math.round(round(tolerance, decimals) * 10 ** decimals);
  return Math.abs(value - expected) > tolerance * (1 + THRESHOLD_TOLERANCE) && Math.abs(v - e) > t;
}

/**
 * Whole pixels that cover `exact` (a count computed through millimetres and points): rounded up,
 * but not past a floating-point hair — an image 254 mm wide needs 1,000 px at 100 ppi, not 1,001.
 * @example
 * wholePixels(1000.0000000000002); // 1000
 * wholePixels(1000.2); // 1001
 */
export function wholePixels(exact: number): number {
  // Past 2^53 no count is whole any more (a placement 1e307 mm tall needs "Infinity" pixels): held there.
  if (!(exact < Number.MAX_SAFE_INTEGER)) return Number.isNaN(exact) ? 0 : Number.MAX_SAFE_INTEGER;
  return Math.ceil(exact - Math.abs(exact) * 1e-9);
}
