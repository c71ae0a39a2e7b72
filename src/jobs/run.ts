/**
 * Runs one check job: reads its upload (or downloads its URL with the SSRF-guarded fetcher),
 * preflights it on the pool, writes the report (exactly `check --json`), the HTML report and the
 * previews, and moves the record along. The same function runs in the embedded server and in a
 * fleet worker; results are idempotent by job id, so a job run twice (at-least-once queues, a
 * restart) leaves one result.
 */
import { readFile } from 'node:fs/promises';
import { InputUnreadableError, PreflightError } from '../errors.js';
import type { PreflightOptions } from '../options.js';
import type { PreflightPool } from '../pool/pool.js';
import { preflightWithPreviews, type Preview } from '../flow/preflight.js';
import type { ProfileRegistry } from '../profile/registry.js';
import { renderHtml } from '../report/html.js';
import type { Report } from '../report/schema.js';
import { preflightUrlWithPreviews, type NetworkOptions } from '../flow/preflight-url.js';
import type { CheckJob, CheckRecord } from './schema.js';
import type { JobStore } from './store.js';

export interface RunContext {
  store: JobStore;
  /** The worker pool (default: the process-wide one). */
  pool?: PreflightPool;
  /** A profiles folder or a loaded registry (default: the built-in profiles). */
  profiles?: string | ProfileRegistry;
  /** How source URLs are downloaded (SSRF allow list, timeouts). */
  network?: NetworkOptions;
  /** Aborting puts the job back to `queued` (shutdown): it is run again on the next start. */
  signal?: AbortSignal;
  /**
   * Asked with each finished report before it is written: true puts the job back to `queued`
   * without writing it (a download that may work later — the fleet retries it with backoff), so
   * the API never shows that attempt as the answer.
   */
  retryLater?: (report: Report) => boolean;
}

/**
 * Runs a check job to its end and resolves with the final record (`done` or `error`), or the
 * record put back to `queued` when `ctx.signal` aborted it.
 * @example
 * const record = await runCheckJob(job, { store, pool });
 * if (record.status === 'done') console.log(record.verdict);
 */
export async function runCheckJob(job: CheckJob, ctx: RunContext): Promise<CheckRecord> {
  const { store } = ctx;
  const before = await store.readRecord(job.id);
  if (!before) throw new PreflightError('ERR_INVALID_ARGUMENT', `Check ${job.id} has no record in ${store.dir}`);
  if (before.status === 'done' || before.status === 'error') return before;
  const running = (await store.updateRecord(job.id, (r) => ({ ...r, status: 'running', startedAt: new Date().toISOString(), attempts: r.attempts + 1 })))!;

  let result: { report: Report; previews: Map<number, Preview> };
  try {
    result = await check(job, ctx);
  } catch (error) {
    if (ctx.signal?.aborted) {
      return (await store.updateRecord(job.id, (r) => withoutRun({ ...r, status: 'queued' })))!;
    }
    const code = error instanceof PreflightError ? error.code : 'ERR_INTERNAL';
    const message = error instanceof PreflightError ? error.message : `The check failed unexpectedly: ${(error as Error).message ?? String(error)}`;
    return (await store.updateRecord(job.id, (r) => ({ ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code, message } }))) ?? running;
  }
  const { report, previews } = result;
  if (ctx.retryLater?.(report)) return (await store.updateRecord(job.id, (r) => withoutRun({ ...r, status: 'queued' })))!;
  await store.writeResult(job.id, { report, html: renderHtml(report, previews), previews: job.options.previews ? previews : new Map() });
  const done = await store.updateRecord(job.id, (r) => ({ ...r, status: 'done', finishedAt: new Date().toISOString(), verdict: report.verdict }));
  // The report keeps the file's sha256; the bytes are not needed any more.
  if (job.source.kind === 'upload') await store.removeUpload(job.id);
  return done ?? running;
}

async function check(job: CheckJob, ctx: RunContext): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const options = {
    ...(ctx.profiles !== undefined ? { profiles: ctx.profiles } : {}),
    ...(ctx.pool ? { pool: ctx.pool } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    severities: job.options.severities ?? {},
    limits: job.options.limits ?? {},
    raster: job.options.raster,
    previewDir: null,
    // The HTML report shows previews whether or not they are kept as files.
    keepPreviews: job.options.raster,
  } as PreflightOptions;
  if (job.source.kind === 'url') {
    return preflightUrlWithPreviews(job.source.url, job.target, { ...options, ...(ctx.network ? { network: ctx.network } : {}) });
  }
  let buf: Buffer;
  try {
    buf = await readFile(ctx.store.resolve(job.source.file));
  } catch (cause) {
    throw new InputUnreadableError(`The upload of check ${job.id} cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  return preflightWithPreviews(bytes, job.target, { ...options, path: job.source.name } as PreflightOptions);
}

function withoutRun(record: CheckRecord): CheckRecord {
  const { startedAt: _s, ...rest } = record;
  return rest;
}
