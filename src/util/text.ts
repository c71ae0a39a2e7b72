/**
 * Locale-free formatting and ordering. `toLocaleString` and `localeCompare` load ICU's number
 * formatter or collator on their first call in a process (~20 ms each, on every CLI run and in
 * every worker), and their output follows the machine's locale; these are neither.
 */

/**
 * An integer with thousands separated by commas, as `toLocaleString('en-US')` writes it:
 * `grouped(1234567)` → `"1,234,567"`. Integers are exact to 2^53; a fraction (below a billion) keeps at
 * most three decimals.
 */
export function grouped(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const [whole = '0', fraction] = Math.abs(n).toFixed(3).replace(/\.?0+$/, '').split('.');
  // Beyond 1e21 String() switches to exponent notation: leave such a number as it is.
  if (!/^\d+$/.test(whole)) return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
  let out = '';
  for (let i = whole.length; i > 0; i -= 3) out = `${whole.slice(Math.max(0, i - 3), i)}${out ? `,${out}` : ''}`;
  return `${sign}${out}${fraction ? `.${fraction}` : ''}`;
}

/** Code-unit order: the same on every machine, and no collator to load. */
export function ordinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
