import { performance } from 'node:perf_hooks';
import { PreflightError, InvalidArgumentError } from './errors.js';
import { PreflightOptionsSchema, TargetSchema, type PreflightOptions, type Target } from './options.js';
import { inspectPdf } from './pdf/inspect.js';
import { loadProfilesCached } from './profile/load.js';
import { formatPath } from './profile/load.js';
import type { ProfileRegistry } from './profile/registry.js';
import { buildReport } from './report/build.js';
import type { Report } from './report/schema.js';
import { runChecks } from './rules/index.js';
import { readSource } from './source/read.js';

/**
 * Preflights a print file against a product profile: reads the PDF's structure (pages, boxes,
 * /Rotate, images, colour spaces) and runs every check of the service's source-file rules.
 *
 * Problems in the file are findings in the report, never exceptions. It throws a
 * {@link PreflightError} only for misuse: an unknown product, variant or SKU
 * (`ERR_UNKNOWN_*`), an unreadable path (`ERR_INPUT_UNREADABLE`), a broken profile folder
 * (`ERR_PROFILE_INVALID`), bad options (`ERR_INVALID_ARGUMENT`) or an abort (`ERR_ABORTED`).
 *
 * @param input a file path, or the file's bytes
 * @param target `{ product, variant }` (e.g. `{ product: 'duvet-cover', variant: '200x200' }`) or `{ sku }`
 * @param options profiles folder, per-call severities and limits
 * @returns the report; `report.verdict` is `pass`, `warn` or `fail`
 * @example
 * import { preflight } from 'print-preflight';
 * const report = await preflight('order-1234.pdf', { sku: 'DUVET-COVER-200X200' });
 * if (report.verdict === 'fail') console.log(report.findings.map((f) => f.message).join('\n'));
 */
export async function preflight(input: string | Uint8Array, target: Target, options: PreflightOptions = {}): Promise<Report> {
  const started = performance.now();
  const opts = parseOptions(options);
  const t = TargetSchema.safeParse(target);
  if (!t.success) {
    throw new InvalidArgumentError(
      `Expected { product, variant } or { sku } for target: ${t.error.issues.map((i) => `${formatPath(i.path) || 'target'}: ${i.message}`).join('; ')}`,
    );
  }
  const registry: ProfileRegistry =
    typeof opts.profiles === 'object' ? opts.profiles : await loadProfilesCached(opts.profiles);
  const resolved = registry.resolve(t.data);
  throwIfAborted(opts.signal);
  const source = await readSource(input, opts.path);
  throwIfAborted(opts.signal);
  const facts = await inspectPdf(source.bytes);
  throwIfAborted(opts.signal);
  const limits = { ...resolved.limits, ...opts.limits };
  const findings = runChecks({ facts, target: resolved, limits }, opts.severities);
  return buildReport({
    file: { path: source.path, bytes: source.bytes.length, sha256: source.sha256 },
    facts,
    target: resolved,
    findings,
    totalMs: performance.now() - started,
  });
}

function parseOptions(options: PreflightOptions) {
  const parsed = PreflightOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    throw new InvalidArgumentError(
      `Invalid preflight options: ${parsed.error.issues.map((i) => `${formatPath(i.path) || 'options'}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw new PreflightError('ERR_ABORTED', 'The preflight was aborted', { cause: signal.reason });
}
