/**
 * Array helpers that hold for any length. `Math.min(...a)` and `a.push(...b)` pass every element
 * as an argument: past about 100,000 elements they throw "Maximum call stack size exceeded", and
 * a hostile file decides how long these arrays are.
 */

/** The smallest value, or `empty` for an empty list. */
export function minOf(values: Iterable<number>, empty = Infinity): number {
  let out = Infinity;
  let any = false;
  for (const v of values) {
    any = true;
    if (v < out) out = v;
  }
  return any ? out : empty;
}

/** The largest value, or `empty` for an empty list. */
export function maxOf(values: Iterable<number>, empty = -Infinity): number {
  let out = -Infinity;
  let any = false;
  for (const v of values) {
    any = true;
    if (v > out) out = v;
  }
  return any ? out : empty;
}

/** Appends every item of `items` to `target` (in place), one by one. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The byte arrays one after another, in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
