/**
 * Runs one check job: reads its upload (or downloads its URL with the SSRF-guarded fetcher),
 * preflights it on the pool, writes the report (exactly `check --json`), the HTML report and the
 * previews, and moves the record along. The same function runs in the embedded server and in a
 * fleet worker; results are idempotent by job id, so a job run twice (at-least-once queues, a
 * restart) leaves one result.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { checkAndFix, checkAndFixUrl, type CheckAndFixOptions, type CheckAndFixResult, type CheckAndFixUrlOptions } from '../flow/check-and-fix.js';
import { InputUnreadableError, PreflightError } from '../errors.js';
import type { PreflightOptions } from '../options.js';
import type { PreflightPool } from '../pool/pool.js';
import { preflightWithPreviews, type Preview } from '../flow/preflight.js';
import type { ProfileRegistry } from '../profile/registry.js';
import { renderHtml } from '../report/html.js';
import { registryFrom } from '../profile/load.js';
import { keepRunPages } from './pages.js';
import type { Report } from '../report/schema.js';
import { preflightUrlWithPreviews, type NetworkOptions } from '../flow/preflight-url.js';
import { isSettled, type CheckJob, type CheckRecord } from './schema.js';
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
  if (isSettled(before.status)) return before;
  const running = (await store.updateRecord(job.id, (r) => ({ ...r, status: 'running', startedAt: new Date().toISOString(), attempts: r.attempts + 1 })))!;

  let result: Checked;
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
  const fixedState = result.fixed ? await writeFixed(job, ctx, result) : null;
  const html = await customerPages(job, ctx, result, fixedState);
  await store.writeResult(job.id, { report, html, previews: job.options.previews ? previews : new Map() });
  const done = await store.updateRecord(job.id, (r) => ({
    ...r,
    status: result.status,
    finishedAt: new Date().toISOString(),
    verdict: report.verdict,
    ...(fixedState ?? {}),
  }));
  // The report keeps the file's sha256; the bytes are not needed any more.
  if (job.source.kind === 'upload') await store.removeUpload(job.id);
  return done ?? running;
}

interface Checked {
  status: 'done' | 'needs-approval';
  report: Report;
  previews: Map<number, Preview>;
  fixed?: CheckAndFixResult;
}

/** The token of a check's fixed file and approval page: 192 random bits (kept in the record, so a rerun keeps it). */
const newToken = () => randomBytes(24).toString('hex');

async function writeFixed(job: CheckJob, ctx: RunContext, result: Checked): Promise<Pick<CheckRecord, 'fixed' | 'approval' | 'token'>> {
  const out = result.fixed!;
  const fixed = out.fixed!;
  const { store } = ctx;
  const earlier = await store.readRecord(job.id);
  const token = earlier?.token ?? newToken();
  const state = result.status === 'needs-approval' ? 'pending' : 'auto';
  await store.writeFixed(job.id, token, { bytes: fixed.bytes, sha256: fixed.sha256, state, report: out.report, before: out.before, beforePreviews: job.options.previews ? out.beforePreviews : new Map() });
  return {
    token,
    fixed: { url: `/v1/files/${token}.pdf`, sha256: fixed.sha256, bytes: fixed.bytes.length, changes: fixed.changes, refused: fixed.refused },
    approval: state === 'pending' ? { state } : { state, at: new Date().toISOString() },
  };
}

/**
 * report.html of the run in the check's locale (the customer's report; the original's beside it
 * for a fixed file) and the mockups the pages show. A page that cannot be made leaves the
 * technical report in its place: the check's answer never waits on its pictures.
 */
async function customerPages(job: CheckJob, ctx: RunContext, result: Checked, fixedState: Pick<CheckRecord, 'fixed' | 'approval'> | null): Promise<string> {
  try {
    const resolved = (await registryFrom(ctx.profiles)).resolve(job.target);
    const out = result.fixed;
    const pages = await keepRunPages(ctx.store, job, resolved, { ...fixedState, finishedAt: new Date().toISOString() }, { report: result.report, previews: result.previews }, out ? { report: out.before, previews: out.beforePreviews } : null);
    if (pages.originalHtml !== null) await ctx.store.writeOriginalHtml(job.id, pages.originalHtml);
    return pages.html;
  } catch {
    return renderHtml(result.report, result.previews);
  }
}

async function check(job: CheckJob, ctx: RunContext): Promise<Checked> {
  const options = {
    ...(ctx.profiles !== undefined ? { profiles: ctx.profiles } : {}),
    ...(ctx.pool ? { pool: ctx.pool } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    severities: job.options.severities ?? {},
    limits: job.options.limits ?? {},
    policy: job.options.policy ?? {},
    ...(job.options.locale ? { locale: job.options.locale } : {}),
    raster: job.options.raster,
    previewDir: null,
    // The HTML report shows previews whether or not they are kept as files.
    keepPreviews: job.options.raster,
  } as PreflightOptions;
  if (job.source.kind === 'url') {
    const network = ctx.network ? { network: ctx.network } : {};
    if (job.options.fix) {
      const out = await checkAndFixUrl(job.source.url, job.target, { ...options, ...network, fix: job.options.fix } as CheckAndFixUrlOptions);
      return { status: out.status, report: out.report, previews: out.previews, ...(out.fixed ? { fixed: out } : {}) };
    }
    return { status: 'done', ...(await preflightUrlWithPreviews(job.source.url, job.target, { ...options, ...network })) };
  }
  let buf: Buffer;
  try {
    buf = await readFile(ctx.store.resolve(job.source.file));
  } catch (cause) {
    throw new InputUnreadableError(`The upload of check ${job.id} cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (job.options.fix) {
    const out = await checkAndFix(bytes, job.target, { ...options, path: job.source.name, fix: job.options.fix } as CheckAndFixOptions);
    return { status: out.status, report: out.report, previews: out.previews, ...(out.fixed ? { fixed: out } : {}) };
  }
  return { status: 'done', ...(await preflightWithPreviews(bytes, job.target, { ...options, path: job.source.name } as PreflightOptions)) };
}

function withoutRun(record: CheckRecord): CheckRecord {
  const { startedAt: _s, ...rest } = record;
  return rest;
}
