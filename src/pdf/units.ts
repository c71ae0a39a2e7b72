/** Units: PDF points (1/72 in), millimetres and pixels; and how numbers and file sizes are written. */

export const MM_PER_INCH = 25.4;
export const PT_PER_INCH = 72;
export const MM_PER_PT = MM_PER_INCH / PT_PER_INCH;

export const ptToMm = (pt: number): number => pt * MM_PER_PT;
export const mmToPt = (mm: number): number => mm / MM_PER_PT;
export const mmToInch = (mm: number): number => mm / MM_PER_INCH;

/** Pixels needed to cover `mm` at `ppi` pixels per inch. */
export const mmToPx = (mm: number, ppi: number): number => (mm / MM_PER_INCH) * ppi;

/** Effective resolution of `px` pixels shown over `pt` points. */
export const ppiOf = (px: number, pt: number): number => (pt === 0 ? Number.POSITIVE_INFINITY : (px * PT_PER_INCH) / pt);

/**
 * A measure held within the doubles: products of finite facts (a placement 1e308 pt tall printed at
 * 2,040 %, 8 px over 1e-300 ppi) overflow to ±Infinity, and Infinity − Infinity is NaN — neither can
 * be written in a report (JSON writes null) nor read in a message. Past ±MAX_VALUE is held there; NaN is 0.
 * @example
 * finite(1e308 * 10); // 1.7976931348623157e+308
 */
export function finite(value: number): number {
  if (Number.isNaN(value)) return 0;
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, value));
}

/** Rounds to `digits` decimals; for reports, so that the same input gives the same bytes. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  const scaled = value * f;
  // A value past 2^53 / 10^digits has no such decimals to round away, and scaling one near 1e308
  // overflows to Infinity (a page 1e308 pt wide measured Infinity mm, and its report failed its schema).
  if (!Number.isFinite(scaled) || Math.abs(scaled) >= 2 ** 53) return value;
  return Math.round(scaled) / f;
}

/** "2040 × 2040 mm", with at most one decimal. */
export function formatMm(widthMm: number, heightMm: number): string {
  return `${formatNumber(widthMm)} × ${formatNumber(heightMm)} mm`;
}

export function formatNumber(n: number, digits = 1): string {
  const r = round(n, digits);
  return Number.isInteger(r) ? String(r) : r.toFixed(digits);
}

/**
 * The one way a file size is written, in the terminal and in HTML: "812 bytes", "3.1 kB",
 * "48.2 MB" (decimal units, as the service's 50 MB limit is 50,000,000 bytes).
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 999_950) return `${formatNumber(bytes / 1000, 1)} kB`;
  if (bytes < 999_950_000) return `${formatNumber(bytes / 1_000_000, 1)} MB`;
  return `${formatNumber(bytes / 1_000_000_000, 1)} GB`;
}
