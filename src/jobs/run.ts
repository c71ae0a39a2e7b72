/**
 * Runs one check job: reads its upload (or downloads its URL with the SSRF-guarded fetcher),
 * preflights it on the pool, writes the report (exactly `check --json`), the HTML report and the
 * previews, and moves the record along. The same function runs in the embedded server and in a
 * fleet worker; results are idempotent by job id, so a job run twice (at-least-once queues, a
 * restart) leaves one result.
 */
import { inPoolLane } from '../pool/fair-gate.js';
import { createHash, randomBytes } from 'node:crypto';
import { newToken } from '../model/token.js';
import { checkRun, type CheckOptions, type CheckResult, type CheckSource } from '../flow/check.js';
import { InputUnreadableError, LayerImageError, PreflightError, StorageUnavailableError } from '../errors.js';
import type { PreflightPool } from '../pool/pool.js';
import type { Preview } from '../flow/preflight.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import { renderHtml } from '../report/html.js';
import { resolveRun, type ResolvedRun } from '../flow/run.js';
import { OUTAGE_BUDGET_MS, withStorageBudget } from '../storage/budget.js';
import type { LayersSource } from '../flow/assembly.js';
import { keepRunPages } from './pages.js';
import { copyResult, findReusable, givesResult, rememberResult, reusable, reuseKey } from './reuse.js';
import type { Report } from '../report/schema.js';
import type { NetworkOptions } from '../source/network.js';
import { isSettled, type CheckJob, type CheckRecord } from './schema.js';
import type { JobStore } from './store.js';
import type { FixedState } from './fixed-files.js';

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
  /**
   * Take the result of an earlier finished check of the same bytes, target, profile, options and
   * tool version (jobs/reuse.ts) instead of running again. Default true.
   */
  reuse?: boolean;
}

/**
 * Runs a check job to its end and resolves with the final record (`done` or `error`), or the
 * record put back to `queued` when `ctx.signal` aborted it.
 * @example
 * const record = await runCheckJob(job, { store, pool });
 * if (record.status === 'done') console.log(record.verdict);
 */
export function runCheckJob(job: CheckJob, ctx: RunContext): Promise<CheckRecord> {
  // A run rides out a store's outage wherever it was started from (an upload's request included).
  return withStorageBudget(OUTAGE_BUDGET_MS, () => runCheck(job, ctx));
}

async function runCheck(job: CheckJob, ctx: RunContext): Promise<CheckRecord> {
  const { store } = ctx;
  const before = await store.readRecord(job.id);
  if (!before) throw new PreflightError('ERR_INVALID_ARGUMENT', `Check ${job.id} has no record in ${store.dir}`);
  if (isSettled(before.status)) return before;
  // One run at a time, wherever it runs: a second (a job the queue thinks stalled) waits for the
  // first to end instead of running beside it, then finds the check settled.
  const lease = await leaseRun(job.id, ctx);
  if (!lease) return (await store.readRecord(job.id)) ?? before;
  const renewal = setInterval(() => void lease.renew().catch(() => undefined), RUN_LEASE_MS / 3);
  renewal.unref();
  const run = randomBytes(8).toString('hex');
  try {
    // Object storage away past each call's own budget (storage/budget.ts): the same run tries
    // again while it holds the lease, so an accepted check still ends, once; its record is not
    // counted as a crash. Bounded: past RUN_STORAGE_RETRY_MS the error goes to the queue (the
    // fleet retries the job with backoff; the embedded queue runs it again at its next start).
    const started = Date.now();
    for (let wait = 1_000; ; wait = Math.min(30_000, wait * 2)) {
      try {
        // The pool gives each tenant's tasks their share of the workers (pool/fair-gate.ts).
        return await inPoolLane(job.owner?.tenant ?? '', () => runLeased(job, ctx, run));
      } catch (error) {
        if (!(error instanceof StorageUnavailableError) || ctx.signal?.aborted || Date.now() - started + wait > RUN_STORAGE_RETRY_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  } finally {
    clearInterval(renewal);
    await lease.release();
  }
}

/**
 * How long a run lease lasts without renewal (a run renews it every third of this): a run whose
 * process died frees its check this long after, for the run the queue gives it to next.
 */
const RUN_LEASE_MS = 10_000;
/** How long one run keeps trying through a store's outage (each call rides out OUTAGE_BUDGET_MS first). */
const RUN_STORAGE_RETRY_MS = 5 * 60_000;
/** A check whose run ended with its process this many times is not run again. */
const MAX_CRASHES = 2;

/** Waits for the run lease of a check; null when the check was settled meanwhile (or the run was aborted). */
async function leaseRun(id: string, ctx: RunContext) {
  for (let wait = 250; ; wait = Math.min(5_000, wait * 2)) {
    const lease = await ctx.store.leaseRun(id, RUN_LEASE_MS);
    if (lease) return lease;
    const record = await ctx.store.readRecord(id);
    if (!record || isSettled(record.status) || ctx.signal?.aborted) return null;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function runLeased(job: CheckJob, ctx: RunContext, run: string): Promise<CheckRecord> {
  const { store } = ctx;
  // A record still `running` when a run starts belongs to a run whose process died with it (the lease
  // says no other run is alive): counted, and after MAX_CRASHES the check is an error, never resumed.
  const claimed = (await store.updateRecord(job.id, (r) => {
    if (isSettled(r.status)) return r;
    // Running under this very run: a try again after object storage failed, not a crash.
    const again = r.status === 'running' && r.run === run;
    const crashes = (r.crashes ?? 0) + (r.status === 'running' && !again ? 1 : 0);
    if (crashes >= MAX_CRASHES) {
      return released({
        ...r,
        status: 'error',
        crashes,
        finishedAt: new Date().toISOString(),
        error: { code: 'ERR_WORKER_CRASHED', message: `Checking this file stopped the process ${crashes} times (crashed, killed or out of memory); it was not tried again.` },
      });
    }
    return again ? r : { ...r, status: 'running', run, crashes, startedAt: new Date().toISOString(), attempts: r.attempts + 1 };
  }))!;
  if (claimed.status !== 'running' || claimed.run !== run) return claimed;
  /** A change of this run's record, made only while the record is still this run's (compare-and-set). */
  const ours = (change: (r: CheckRecord) => CheckRecord) => async () => (await store.updateRecord(job.id, (r) => (r.status === 'running' && r.run === run ? change(r) : r))) ?? claimed;

  // The check's run, resolved once (its target and options) for the reuse key and the check.
  let resolved: ResolvedRun | undefined;
  const runOf = async () => (resolved ??= await resolveRun(job.target, checkOptions(job, ctx)));

  // The same bytes and settings checked before: their report, at once, no pool task.
  let bytes: Uint8Array | undefined;
  let key: string | null = null;
  if (ctx.reuse !== false && reusable(job)) {
    bytes = await uploadBytes(job, ctx).catch((error: unknown) => {
      if (error instanceof StorageUnavailableError) throw error;
      return undefined; // check() says why it cannot be read
    });
    if (bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      key = await runOf()
        .then((r) => reuseKey(sha256, job, { ...ctx, resolved: r.target }))
        .catch(() => null);
      const earlier = key ? await findReusable(store, key, sha256, job.id) : null;
      const fields = earlier
        ? await copyResult(store, earlier.record, job.id, earlier.report, job.source.kind === 'upload' ? job.source.name : null, newToken, earlier.before).catch((error: unknown) => {
            if (error instanceof StorageUnavailableError) throw error;
            return null; // the earlier result went away meanwhile (deleted, swept): this check runs
          })
        : null;
      if (earlier && fields) {
        const done = await ours((r) => released({ ...r, ...fields, finishedAt: new Date().toISOString(), reusedFrom: earlier.record.id }))();
        if (isSettled(done.status)) await store.removeUpload(job.id);
        return done;
      }
    }
  }

  let result: Checked;
  try {
    result = await check(job, ctx, await runOf(), bytes);
  } catch (error) {
    if (ctx.signal?.aborted) return ours((r) => withoutRun({ ...r, status: 'queued' }))();
    if (error instanceof StorageUnavailableError) throw error;
    const code = error instanceof PreflightError ? error.code : 'ERR_INTERNAL';
    const message = error instanceof PreflightError ? error.message : `The check failed unexpectedly: ${(error as Error).message ?? String(error)}`;
    // A layer's image refused after its download says which, and its size against the limit, as the 422 of an upload does.
    const layer = error instanceof LayerImageError ? layerFacts(error) : {};
    return ours((r) => released({ ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code, message, ...layer } }))();
  }
  const { report, previews } = result;
  if (ctx.retryLater?.(report)) return ours((r) => withoutRun({ ...r, status: 'queued' }))();
  const current = await store.readRecord(job.id);
  if (current?.status !== 'running' || current.run !== run) return current ?? claimed;
  const fixedState = result.fixed ? await writeFixed(job, ctx, result) : null;
  const html = await customerPages(job, ctx, result, fixedState);
  await store.writeResult(job.id, { report, html, previews: job.options.previews ? previews : new Map() });
  const done = await ours((r) =>
    released({
      ...r,
      status: fixedState?.approval.state === 'pending' ? 'needs-approval' : 'done',
      finishedAt: new Date().toISOString(),
      verdict: report.verdict,
      ...(fixedState ?? {}),
      ...(!fixedState && result.refused?.length ? { fixRefused: result.refused } : {}),
    }),
  )();
  if (key && givesResult(done)) await rememberResult(store, key, job.id);
  // The report keeps the file's sha256; the bytes are not needed any more.
  if (job.source.kind === 'upload' && isSettled(done.status)) await store.removeUpload(job.id);
  if (job.source.kind === 'layers' && isSettled(done.status)) await store.removeLayerUploads(job);
  return done;
}

interface Checked {
  status: 'done' | 'needs-approval';
  report: Report;
  previews: Map<number, Preview>;
  /** The product variant as the check resolved it (the call's safe margin on its layers). */
  target: ResolvedTarget;
  fixed?: CheckResult;
  /** With no fixed file: the fixes that could not be made, and why. */
  refused?: CheckResult['refused'];
}

/** The token of a check's fixed file and approval page: 192 random bits (kept in the record, so a rerun keeps it). */

async function writeFixed(job: CheckJob, ctx: RunContext, result: Checked): Promise<Pick<CheckRecord, 'fixed' | 'token'> & { approval: NonNullable<CheckRecord['approval']> }> {
  const out = result.fixed!;
  const fixed = out.fixed!;
  const { store } = ctx;
  const earlier = await store.readRecord(job.id);
  const token = earlier?.token ?? newToken();
  // A fixed file that still fails is never served, whatever the mode: nothing to approve, no order
  // can use it. It is kept for the record as rejected, with the reason.
  const failing = out.report.verdict === 'fail';
  const state: FixedState = failing ? 'rejected' : result.status === 'needs-approval' ? 'pending' : 'auto';
  await store.writeFixed(job.id, token, {
    bytes: fixed.bytes,
    sha256: fixed.sha256,
    state,
    report: out.report,
    before: out.before,
    beforePreviews: job.options.previews ? out.beforePreviews : new Map(),
  });
  if (failing) await store.files.remove(token);
  const at = new Date().toISOString();
  return {
    token,
    fixed: { url: `/v1/files/${token}.pdf`, sha256: fixed.sha256, bytes: fixed.bytes.length, changes: fixed.changes, refused: fixed.refused },
    approval:
      state === 'pending' ? { state } : failing ? { state, at, by: 'policy', reason: 'The fixed file still fails its checks, so it is not used: upload a new file.' } : { state, at, by: 'policy' },
  };
}

/**
 * report.html of the run in the check's locale (the customer's report; the original's beside it
 * for a fixed file) and the mockups the pages show. A page that cannot be made leaves the
 * technical report in its place: the check's answer never waits on its pictures.
 */
async function customerPages(job: CheckJob, ctx: RunContext, result: Checked, fixedState: Pick<CheckRecord, 'fixed' | 'approval'> | null): Promise<string> {
  try {
    const resolved = result.target;
    const out = result.fixed;
    const pages = await keepRunPages(
      ctx.store,
      job,
      resolved,
      { ...fixedState, finishedAt: new Date().toISOString() },
      { report: result.report, previews: result.previews },
      out ? { report: out.before, previews: out.beforePreviews } : null,
    );
    if (pages.originalHtml !== null) await ctx.store.writeOriginalHtml(job.id, pages.originalHtml);
    return pages.html;
  } catch {
    return renderHtml(result.report, result.previews);
  }
}

/** The bytes of an upload job. */
async function uploadBytes(job: CheckJob, ctx: RunContext): Promise<Uint8Array> {
  if (job.source.kind !== 'upload') throw new PreflightError('ERR_INVALID_ARGUMENT', 'not an upload');
  let buf: Buffer | null;
  try {
    buf = await ctx.store.readUpload(job.source.file);
  } catch (cause) {
    if (cause instanceof StorageUnavailableError) throw cause;
    throw new InputUnreadableError(`The upload of check ${job.id} cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  if (!buf) throw new InputUnreadableError(`The upload of check ${job.id} cannot be read (ENOENT)`);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** A job's source per layer as `check` takes it: each uploaded layer's bytes read, each URL left to the check's download. */
async function layerSources(job: CheckJob, layers: Extract<CheckJob['source'], { kind: 'layers' }>['layers'], ctx: RunContext): Promise<LayersSource> {
  const out: LayersSource['layers'] = {};
  for (const [id, layer] of Object.entries(layers)) {
    if ('url' in layer) {
      out[id] = { url: layer.url, ...(layer.fit ? { fit: layer.fit } : {}) };
      continue;
    }
    let buf: Buffer | null;
    try {
      buf = await ctx.store.readUpload(layer.file);
    } catch (cause) {
      if (cause instanceof StorageUnavailableError) throw cause;
      throw new InputUnreadableError(`The upload of layer ${id} of check ${job.id} cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
    }
    if (!buf) throw new InputUnreadableError(`The upload of layer ${id} of check ${job.id} cannot be read (ENOENT)`);
    out[id] = { input: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), ...(layer.fit ? { fit: layer.fit } : {}) };
  }
  return { layers: out };
}

/** The options of a job's check, as the service gives them (a client may only tighten the operator's rules). */
function checkOptions(job: CheckJob, ctx: RunContext): CheckOptions {
  const options: CheckOptions = {
    ...(ctx.profiles !== undefined ? { profiles: ctx.profiles } : {}),
    ...(ctx.pool ? { pool: ctx.pool } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    severities: job.options.severities ?? {},
    limits: job.options.limits ?? {},
    policy: job.options.policy ?? {},
    // A service's client may only tighten the operator's rules, finding by finding.
    tightenOnly: true,
    ...(job.options.locale ? { locale: job.options.locale } : {}),
    raster: job.options.raster,
    previewDir: null,
    // The HTML report shows previews whether or not they are kept as files.
    keepPreviews: job.options.raster,
    ...(job.options.fix ? { fix: job.options.fix } : {}),
    ...(job.options.rotate ? { rotate: job.options.rotate } : {}),
    ...(job.options.fit ? { fit: job.options.fit } : {}),
    // A refused fix names the HTTP fields that would let it be made, never a command-line flag.
    instructions: 'http',
  };
  if (job.source.kind === 'upload') options.path = job.source.name;
  else if (ctx.network) options.network = ctx.network;
  return options;
}

async function check(job: CheckJob, ctx: RunContext, run: ResolvedRun, bytes?: Uint8Array): Promise<Checked> {
  const source: CheckSource =
    job.source.kind === 'url' ? { url: job.source.url } : job.source.kind === 'layers' ? await layerSources(job, job.source.layers, ctx) : (bytes ?? (await uploadBytes(job, ctx)));
  const out = await checkRun(source, run);
  return { status: out.status, report: out.report, previews: out.previews, target: run.target, ...(out.fixed ? { fixed: out } : {}), ...(out.refused ? { refused: out.refused } : {}) };
}

/** What a record's error says of a refused layer image: the layer, and for one too large its size and the limit. */
function layerFacts(error: LayerImageError): Pick<NonNullable<CheckRecord['error']>, 'layer' | 'widthPx' | 'heightPx' | 'limitPx'> {
  return {
    layer: error.layer,
    ...(error.widthPx !== null && error.heightPx !== null && error.limitPx !== null ? { widthPx: error.widthPx, heightPx: error.heightPx, limitPx: error.limitPx } : {}),
  };
}

/** The record back in the queue: no run holds it, and it has not started. */
function withoutRun(record: CheckRecord): CheckRecord {
  const { startedAt: _s, run: _r, ...rest } = record;
  return rest;
}

/** The record of a finished run: no run holds it any more. */
function released(record: CheckRecord): CheckRecord {
  const { run: _r, ...rest } = record;
  return rest;
}
