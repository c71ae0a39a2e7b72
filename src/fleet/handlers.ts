/**
 * What a fleet worker does with each kind of job. A service check runs through the service's own
 * `runCheckJob` against the shared data folder, so a check gives the same record and report
 * whether the server ran it in-process or a worker on another machine did.
 */
import { PreflightError, StorageUnavailableError } from '../errors.js';
import { runCheckJob } from '../jobs/run.js';
import { CheckJobSchema, isSettled, type CheckRecord } from '../jobs/schema.js';
import { JobStore } from '../jobs/store.js';
import { RUN_LEASE_MS } from '../jobs/tenants.js';
import type { Report } from '../report/schema.js';
import type { NetworkOptions } from '../source/network.js';
import type { ObjectStorage } from '../storage/storage.js';
import { batchFileHandler } from './batch.js';
import { JOB_BATCH_FILE, JOB_CHECK, TransientJobError } from './jobs.js';
import type { JobHandler } from './worker.js';

/** HTTP answers worth asking again later. */
const TRANSIENT_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * True when a report's only reason to exist is a download that may work later: no connection, a
 * timeout, or a 5xx/429 answer (not a 404, a login page or a blocked address).
 */
export function transientDownloadFailure(report: Report): boolean {
  if (!report.source || !report.rules['source-unreachable']) return false;
  const status = report.source.status;
  return status === null || TRANSIENT_STATUS.has(status);
}

export interface CheckHandlerOptions {
  store: JobStore | Promise<JobStore>;
  /** Take the report of an earlier check of the same bytes and settings (default true). */
  reuse?: boolean;
  profiles?: string;
  network?: NetworkOptions;
}

/** Runs the service's check jobs (`serve --redis` puts them on the queue). */
export function checkJobHandler(options: CheckHandlerOptions): JobHandler<CheckRecord> {
  return {
    // A tenant with a bound on running checks gets no more than that, fleet-wide: past it, the
    // check waits (delayed in BullMQ) and other tenants' checks go first.
    async admit(raw, ctx) {
      const job = CheckJobSchema.parse(raw);
      if (!job.owner || !ctx.tenants) return 0;
      const { tenant, maxRunning } = job.owner;
      if (await ctx.tenants.startRun(tenant, job.id, maxRunning, RUN_LEASE_MS)) return 0;
      // Its turn comes after the checks queued before it: the further back, the later it looks
      // again (1 s for the next in line, at most 30 s; with jitter so the fleet does not ask at once).
      const ahead = await ctx.tenants.ahead(tenant, job.id).catch(() => 0);
      const base = Math.min(30_000, 1_000 * (1 + Math.floor(ahead / Math.max(1, maxRunning))));
      return Math.round(base * (0.9 + Math.random() * 0.2));
    },
    async run(raw, ctx) {
      const job = CheckJobSchema.parse(raw);
      const store = await options.store;
      // Records are changed under the fleet's lock, runs under its lease: the servers decide on the same records.
      if (ctx.recordLock) store.useRecordLock(ctx.recordLock);
      const owner = job.owner && ctx.tenants ? { ledger: ctx.tenants, tenant: job.owner.tenant } : null;
      const renewal = owner ? setInterval(() => void owner.ledger.renew(owner.tenant, job.id, RUN_LEASE_MS).catch(() => undefined), RUN_LEASE_MS / 3) : null;
      renewal?.unref();
      let transient: Report | null = null;
      let record: CheckRecord;
      try {
        record = await runCheckJob(job, {
          store,
          pool: ctx.pool,
          signal: ctx.signal,
          reuse: options.reuse ?? true,
          ...(options.profiles ? { profiles: options.profiles } : {}),
          ...(options.network ? { network: options.network } : {}),
          // A download that may work later is not written as the answer: the job goes back to
          // queued and BullMQ retries it with backoff (the last attempt's report is kept).
          retryLater: (report) => {
            if (ctx.lastAttempt || job.source.kind === 'upload' || !transientDownloadFailure(report)) return false;
            transient = report;
            return true;
          },
        });
      } catch (error) {
        // The store away past the run's own retries: BullMQ tries the job again with backoff.
        if (error instanceof StorageUnavailableError) throw new TransientJobError(error.message, 'storage-unavailable');
        throw error;
      } finally {
        if (renewal) clearInterval(renewal);
      }
      if (owner) {
        // Back in the queue (a retry, a shutdown) it waits again; finished, it leaves the ledger.
        const back = transient !== null || record.status === 'queued';
        await (back ? owner.ledger.requeue(owner.tenant, job.id) : owner.ledger.remove(owner.tenant, [job.id])).catch(() => undefined);
      }
      if (transient) {
        const finding = (transient as Report).findings.find((f) => f.code === 'source-unreachable');
        throw new TransientJobError(finding?.message ?? 'the download failed', 'source-unreachable');
      }
      if (record.status === 'queued') throw new PreflightError('ERR_ABORTED', 'aborted: the worker is shutting down');
      return record;
    },
    async finished(raw, ctx) {
      const job = CheckJobSchema.parse(raw);
      const record = await (await options.store).readRecord(job.id);
      const done = record && isSettled(record.status) ? record : null;
      if (done && job.owner) await ctx?.tenants?.remove(job.owner.tenant, [job.id]).catch(() => undefined);
      return done;
    },
    async poison(raw, reason, ctx) {
      const job = CheckJobSchema.parse(raw);
      const store = await options.store;
      if (ctx.recordLock) store.useRecordLock(ctx.recordLock);
      const record = await store.updateRecord(job.id, (r) =>
        isSettled(r.status) ? r : { ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code: 'ERR_WORKER_CRASHED', message: reason } },
      );
      if (job.owner) await ctx.tenants?.remove(job.owner.tenant, [job.id]).catch(() => undefined);
      if (!record) throw new PreflightError('ERR_INVALID_ARGUMENT', `Check ${job.id} has no record in ${store.dir}`);
      return record;
    },
    outcome: (r) => r.verdict ?? r.status,
  };
}

/** Every handler a `print-preflight worker` runs. */
export function fleetHandlers(options: { data: string; storage?: ObjectStorage; s3Endpoint?: string; reuse?: boolean; profiles?: string; network?: NetworkOptions }): Record<string, JobHandler> {
  let store: Promise<JobStore> | undefined;
  const check = checkJobHandler({
    get store() {
      store ??= JobStore.open(options.data, options.storage ? { storage: options.storage } : {});
      return store;
    },
    reuse: options.reuse ?? true,
    ...(options.profiles ? { profiles: options.profiles } : {}),
    ...(options.network ? { network: options.network } : {}),
  });
  return {
    [JOB_CHECK]: check as JobHandler,
    [JOB_BATCH_FILE]: batchFileHandler({ scratch: options.data, storage: !!options.storage, ...(options.s3Endpoint ? { s3Endpoint: options.s3Endpoint } : {}) }) as JobHandler,
  };
}
