/**
 * The library's shortest entrances: {@link check} without a fix, answering the report (and the
 * previews).
 */
import type { PreflightOptions, Target } from './options.js';
import type { Report } from '../report/schema.js';
import { check } from './check.js';
import type { Preview } from './check-file.js';

export type { Preview };
export { callLimits, decodeLimitsOf } from './run.js';

/**
 * Preflights a print file against a product profile: reads the PDF's structure (pages, boxes,
 * /Rotate, images, colour spaces), rasterises its pages in the worker pool, and runs every check
 * of the service's source-file rules.
 *
 * Problems in the file are findings in the report, never exceptions. It throws a
 * {@link PreflightError} only for misuse: an unknown product, variant or SKU
 * (`ERR_UNKNOWN_*`), an unreadable path (`ERR_INPUT_UNREADABLE`), a broken profile folder
 * (`ERR_PROFILE_INVALID`), bad options (`ERR_INVALID_ARGUMENT`) or an abort (`ERR_ABORTED`).
 * A file that makes a worker time out, crash or run out of memory gets a finding
 * (`pdf-timeout`, `pdf-too-complex`); the pool and other files are unaffected.
 *
 * @param input a file path, or the file's bytes
 * @param target `{ product, variant }` (e.g. `{ product: 'duvet-cover', variant: '200x200' }`) or `{ sku }`
 * @param options profiles, per-call severities and limits, raster and preview settings, pool
 * @returns the report; `report.verdict` is `pass`, `warn` or `fail`
 * @throws {PreflightError} for misuse, never for a bad file
 * @example
 * import { preflight } from 'print-preflight';
 * const report = await preflight('order-1234.pdf', { sku: 'DUVET-COVER-200X200' });
 * if (report.verdict === 'fail') console.log(report.findings.map((f) => f.message).join('\n'));
 */
export async function preflight(input: string | Uint8Array, target: Target, options: PreflightOptions = {}): Promise<Report> {
  return (await check(input, target, { ...options, keepPreviews: false })).report;
}

/**
 * Like {@link preflight}, and also returns each rasterised page's preview image (for the HTML
 * report, or to show in an application).
 * @example
 * const { report, previews } = await preflightWithPreviews('a.pdf', { sku: 'T-SHIRT-M' });
 * await writeFile('report.html', renderHtml(report, previews));
 */
export async function preflightWithPreviews(input: string | Uint8Array, target: Target, options: PreflightOptions = {}): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const { report, previews } = await check(input, target, options);
  return { report, previews };
}
