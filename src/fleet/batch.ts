/**
 * A batch run judged by the fleet: each PDF of the folder becomes a job that names its path; any
 * worker takes it and judges it with the local batch's own code (same reports, same reuse of
 * unchanged reports), and this process collects the results into the same summary and index.
 *
 * Jobs carry references, never file contents: with folders, their paths (the batch folder and the
 * output folder visible to every worker at the same absolute path: a shared mount); over object
 * storage (`batch s3://bucket/incoming --out s3://bucket/checked`), the objects' URLs, and no
 * folder is shared at all.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { tmpdir } from 'node:os';
import { PreflightError, StorageUnavailableError } from '../errors.js';
import { findPdfs, resolveTarget, type BatchFile } from '../batch/discover.js';
import { errorBase, judge, openBatch, summarise, writeError, writeOut, type BatchOut, type FolderOptions } from '../batch/run.js';
import { findStoredPdfs, judgeStored, type StoredInput } from '../batch/stored.js';
import { openStorage, parseStorageUrl } from '../storage/open.js';
import type { ObjectStorage } from '../storage/storage.js';
import { renderIndexHtml, BatchResultSchema, type BatchResult, type BatchSummary } from '../batch/summary.js';
import { registryFrom } from '../profile/load.js';
import { connectRedis, resolveConnection, type FleetConnection } from './connection.js';
import { BatchFileJobSchema, JOB_BATCH_FILE, jobOptions, RetryPolicySchema, TransientJobError, type BatchFileJob, type RetryPolicy } from './jobs.js';
import type { JobHandler } from './worker.js';

/** What a worker knows to reach object storage (its `--storage`, `--s3-endpoint`). */
export interface BatchWorkerOptions {
  /** The worker's scratch folder (its `--data`): stored files are downloaded there while judged. */
  scratch?: string;
  /** The worker runs with `--storage`: it may read and write the store a job names. */
  storage?: boolean;
  /** Its `--s3-endpoint`, for stores a job names. */
  s3Endpoint?: string;
}

/** The worker's side: judges one file of a batch (a path in a shared folder, or an object a batch over a prefix names). */
export function batchFileHandler(options: BatchWorkerOptions = {}): JobHandler<BatchResult> {
  const stores = new Map<string, Promise<ObjectStorage>>();
  // One client per bucket and prefix named by jobs; read without a probe (the input may be read-only),
  // the output probed once by the run that named it.
  const store = (url: string) => {
    if (!options.storage)
      throw new PreflightError(
        'ERR_INVALID_ARGUMENT',
        `This job's files are in object storage (${url}) but this worker was started without --storage: start the workers with --storage s3://BUCKET/PREFIX (and --s3-endpoint for a non-AWS store)`,
      );
    let opened = stores.get(url);
    if (!opened) {
      opened = openStorage({ url, verify: false, ...(options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}) }, 'print-preflight worker --storage');
      opened.catch(() => stores.delete(url));
      stores.set(url, opened);
    }
    return opened;
  };
  const outOf = async (job: BatchFileJob): Promise<BatchOut> => (isStored(job.out) ? store(job.out) : job.out);
  return {
    async run(raw, ctx) {
      const job = BatchFileJobSchema.parse(raw);
      const registry = await registryFrom(job.profiles);
      const rules = {
        ...(job.severities ? { severities: job.severities } : {}),
        ...(job.limits ? { limits: job.limits } : {}),
        ...(job.policy ? { policy: job.policy } : {}),
        ...(job.locale ? { locale: job.locale } : {}),
        ...(job.fileBudgetMs ? { fileBudgetMs: job.fileBudgetMs } : {}),
      };
      const out = await outOf(job);
      const judgeHere = (file: { path: string; rel: string }) =>
        judge(file, out, new Map([[job.rel, job.target]]), registry, {
          html: job.html,
          hardSignal: ctx.signal,
          ...(job.fix ? { fix: job.fix } : {}),
          preflight: { profiles: registry, raster: job.raster, pool: ctx.pool, ...rules, ...(job.timeoutMs ? { timeoutMs: job.timeoutMs } : {}) },
        });
      let result: Awaited<ReturnType<typeof judgeHere>>;
      try {
        if (isStored(job.path)) {
          const { bucket, prefix: key } = parseStorageUrl(job.path);
          result = await judgeStored(await store(`s3://${bucket}`), key, job.rel, options.scratch ?? tmpdir(), judgeHere);
        } else result = await judgeHere({ path: job.path, rel: job.rel });
      } catch (error) {
        // The store away past its budget: the job is tried again later (BullMQ's backoff), never lost.
        if (error instanceof StorageUnavailableError) throw new TransientJobError(error.message, 'storage-unavailable');
        throw error;
      }
      if (result === 'aborted') throw new PreflightError('ERR_ABORTED', 'aborted: the worker is shutting down');
      // Judged but not stored: tried again rather than a result whose report is missing.
      if (result.outputError && typeof out !== 'string') throw new TransientJobError(result.outputError, 'storage-unavailable');
      return { ...result, via: job.via };
    },
    async poison(raw, reason) {
      const job = BatchFileJobSchema.parse(raw);
      let sku: string | null = null;
      try {
        sku = (await registryFrom(job.profiles)).resolve(job.target).sku;
      } catch {
        // The reason already says what happened; an unknown target would have been an error anyway.
      }
      return writeError(await outOf(job), errorBase(job.rel), sku, job.via, reason);
    },
    outcome: (r) => r.verdict,
  };
}

/** A job's path or output in object storage. */
const isStored = (path: string) => path.startsWith('s3://');

export interface FleetFolderOptions extends FolderOptions {
  connection: FleetConnection;
  /** Retries and poison-file limit of each job. */
  policy?: RetryPolicy;
  /** Time limit per task (structure, each page) on the workers, in ms. Default: the workers'. */
  timeoutMs?: number;
  /** Most jobs of this run on the queue at once. Default 1,000. */
  window?: number;
  /** How often outstanding jobs are looked up directly (missed events, a Redis that lost them), in ms. Default 5,000. */
  reconcileMs?: number;
}

/**
 * Preflights every PDF under `dir` on the fleet's workers; same outputs as `preflightFolder` (print-preflight).
 * `dir` may be a prefix of object storage and `out` a store opened on the output prefix: the jobs
 * then name objects (`s3://…` URLs), and the workers (started with `--storage`) download each file
 * to their scratch folder and write the outputs under the output prefix — no shared folder.
 * @returns the summary (also written to `<out>/summary.json`, with `<out>/index.html`)
 * @example
 * const summary = await preflightFolderOnFleet('/mnt/shared/incoming', {
 *   out: '/mnt/shared/checked',
 *   connection: { url: 'redis://queue.internal:6379/0' },
 * });
 */
export async function preflightFolderOnFleet(dir: string | StoredInput, options: FleetFolderOptions): Promise<BatchSummary> {
  const conn = resolveConnection(options.connection);
  const policy = RetryPolicySchema.parse(options.policy ?? {});
  const { out, registry, manifest } = await openBatch(options);
  const files = typeof dir === 'string' ? await findPdfs(dir, typeof out === 'string' ? [out] : []) : await findStoredPdfs(dir, out);
  // Jobs name objects by URL; a worker opens the store with its own endpoint and credentials.
  const where = (file: BatchFile) => (typeof dir === 'string' ? file.path : `${dir.storage.description}${file.path}`);
  const outRef = typeof out === 'string' ? out : out.description;
  const html = options.html ?? true;
  const raster = options.preflight?.raster ?? true;
  const profiles = typeof options.preflight?.profiles === 'string' ? resolve(options.preflight.profiles) : undefined;
  const run = randomBytes(6).toString('hex');
  // The run's rules and fix mode travel with each job: a worker judges and fixes as a local batch would.
  const { severities, limits, policy: rulesPolicy, locale, fileBudgetMs } = options.preflight ?? {};
  const rules: Partial<BatchFileJob> = {
    ...(severities && Object.keys(severities).length ? { severities } : {}),
    ...(limits && Object.keys(limits).length ? { limits } : {}),
    ...(rulesPolicy && Object.keys(rulesPolicy).length ? { policy: rulesPolicy } : {}),
    ...(locale ? { locale } : {}),
    ...(fileBudgetMs ? { fileBudgetMs } : {}),
    ...(options.fix ? { fix: options.fix } : {}),
  };

  const results: BatchResult[] = [];
  const pending: string[] = [];
  let done = 0;
  const record = (result: BatchResult) => {
    results.push(result);
    done++;
    options.onProgress?.({ done, total: files.length, result });
  };

  // Files whose product cannot be found never reach the queue: the local code writes their error.
  const toQueue: Array<{ id: string; file: BatchFile; data: BatchFileJob }> = [];
  for (const [i, file] of files.entries()) {
    const resolution = resolveTarget(file.rel, manifest, registry);
    if ('error' in resolution) {
      const r = await judge(file, out, manifest, registry, { html, preflight: { profiles: registry, pool: false } });
      if (r !== 'aborted') record(r);
      continue;
    }
    toQueue.push({
      id: `batch-${run}-${i}`,
      file,
      data: {
        path: where(file),
        rel: file.rel,
        out: outRef,
        target: resolution.target,
        via: resolution.via,
        html,
        raster,
        ...(profiles ? { profiles } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...rules,
      },
    });
  }

  const queueRedis = connectRedis(conn.url, `batch-${run}`);
  const eventsRedis = connectRedis(conn.url, `batch-${run}-events`);
  const queue = new Queue(conn.queue, { connection: queueRedis, prefix: conn.prefix });
  const events = new QueueEvents(conn.queue, { connection: eventsRedis, prefix: conn.prefix });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  const outstanding = new Map<string, (typeof toQueue)[number]>();
  const window = Math.max(1, options.window ?? 1_000);
  let next = 0;
  let wake: () => void = () => undefined;

  const collect = async (id: string) => {
    const item = outstanding.get(id);
    if (!item) return;
    const job = await queue.getJob(id);
    if (!job) return;
    const state = await job.getState();
    if (state === 'completed') {
      const parsed = BatchResultSchema.safeParse(job.returnvalue);
      if (!outstanding.delete(id)) return;
      // The worker's object as is (not the parsed copy): key order, hence summary bytes, as in a local batch.
      record(parsed.success ? (job.returnvalue as BatchResult) : await failed(item, `a worker returned a malformed result: ${parsed.error.issues[0]?.message}`));
    } else if (state === 'failed') {
      if (!outstanding.delete(id)) return;
      record(await failed(item, job.failedReason || 'the job failed'));
    } else return;
    await job.remove().catch(() => undefined);
    wake();
  };
  const failed = (item: (typeof toQueue)[number], reason: string) => {
    const sku = registry.resolve(item.data.target).sku;
    return writeError(out, errorBase(item.file.rel), sku, item.data.via, reason);
  };
  /** Jobs of this run Redis no longer knows (a restart without persistence) are added again. */
  const reconcile = async () => {
    for (const id of [...outstanding.keys()]) {
      const state = await queue.getJobState(id);
      if (state === 'completed' || state === 'failed') await collect(id);
      else if (state === 'unknown') {
        const item = outstanding.get(id);
        if (item) await queue.add(JOB_BATCH_FILE, item.data, jobOptions(policy, id));
      }
    }
  };
  events.on('completed', ({ jobId }) => void collect(jobId).catch(() => undefined));
  events.on('failed', ({ jobId }) => void collect(jobId).catch(() => undefined));

  const kick = () => wake();
  options.signal?.addEventListener('abort', kick, { once: true });
  options.hardSignal?.addEventListener('abort', kick, { once: true });
  const stopped = () => options.signal?.aborted || options.hardSignal?.aborted;
  try {
    await events.waitUntilReady();
    const timer = setInterval(() => void reconcile().then(wake, () => undefined), options.reconcileMs ?? 5_000);
    try {
      for (;;) {
        if (stopped()) {
          await withdrawWaiting(queue, outstanding, pending);
          pending.push(...toQueue.slice(next).map((t) => t.file.rel));
          next = toQueue.length;
          if (options.hardSignal?.aborted) {
            pending.push(...[...outstanding.values()].map((t) => t.file.rel));
            outstanding.clear();
          }
        }
        if (next < toQueue.length && outstanding.size < window) {
          const batch = toQueue.slice(next, next + Math.min(100, window - outstanding.size));
          next += batch.length;
          for (const item of batch) outstanding.set(item.id, item);
          await queue.addBulk(batch.map((item) => ({ name: JOB_BATCH_FILE, data: item.data, opts: jobOptions(policy, item.id) })));
          continue;
        }
        if (outstanding.size === 0 && next >= toQueue.length) break;
        await new Promise<void>((r) => {
          wake = r;
          const t = setTimeout(r, 1_000);
          t.unref();
        });
      }
    } finally {
      clearInterval(timer);
    }
  } finally {
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    queueRedis.disconnect();
    eventsRedis.disconnect();
  }
  const summary = summarise(results, pending.sort(), stopped() ?? false);
  await writeOut(out, 'summary.json', `${JSON.stringify(summary, null, 2)}\n`);
  await writeOut(out, 'index.html', renderIndexHtml(summary, `Preflight of ${typeof dir === 'string' ? dir : dir.url}`));
  return summary;
}

/** After a stop: jobs no worker has taken yet are taken off the queue and reported as pending. */
async function withdrawWaiting(queue: Queue, outstanding: Map<string, { file: BatchFile }>, pending: string[]): Promise<void> {
  for (const [id, item] of [...outstanding]) {
    const state = await queue.getJobState(id);
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'unknown') {
      if (state !== 'unknown') {
        const removed = await queue.remove(id).catch(() => 0);
        if (!removed) continue;
      }
      outstanding.delete(id);
      pending.push(item.file.rel);
    }
  }
}
