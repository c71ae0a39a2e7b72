/**
 * Threshold comparisons with a stated tolerance. Measures come through matrices and rounding — a
 * 1-pt form-field border drawn through a 0.9999987 form matrix measures 0.9999987 pt, 6-pt text
 * 5.9999 pt — and a finding must never contradict its own message ("the thinnest is 1 pt" about a
 * 1-pt limit). So a measure is below its limit only when it is below it by more than
 * {@link THRESHOLD_TOLERANCE} (relative) *and* still below it as the message shows it (rounded to the
 * decimals the message writes).
 */
import { round } from '../pdf/units.js';

/** Relative tolerance of every threshold: a measure within 1e-4 of its limit is at the limit. */
export const THRESHOLD_TOLERANCE = 1e-4;

/**
 * Whether `value` is below `limit`, beyond the tolerance and as shown with `decimals` decimals.
 * @example
 * isBelow(0.9999987, 1, 2); // false: "1 pt" is not thinner than 1 pt
 * isBelow(0.994, 1, 2); // true: 0.99 pt
 */
export function isBelow(value: number, limit: number, decimals: number): boolean {
  return value < limit - Math.abs(limit) * THRESHOLD_TOLERANCE && round(value, decimals) < limit;
}
