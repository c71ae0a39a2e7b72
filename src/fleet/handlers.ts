/**
 * What a fleet worker does with each kind of job. A service check runs through the service's own
 * `runCheckJob` against the shared data folder, so a check gives the same record and report
 * whether the server ran it in-process or a worker on another machine did.
 */
import { PreflightError } from '../errors.js';
import { runCheckJob } from '../jobs/run.js';
import { CheckJobSchema, type CheckRecord } from '../jobs/schema.js';
import { JobStore } from '../jobs/store.js';
import type { Report } from '../report/schema.js';
import type { NetworkOptions } from '../source/preflight-url.js';
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
  profiles?: string;
  network?: NetworkOptions;
}

/** Runs the service's check jobs (`serve --redis` puts them on the queue). */
export function checkJobHandler(options: CheckHandlerOptions): JobHandler<CheckRecord> {
  return {
    async run(raw, ctx) {
      const job = CheckJobSchema.parse(raw);
      const store = await options.store;
      let transient: Report | null = null;
      const record = await runCheckJob(job, {
        store,
        pool: ctx.pool,
        signal: ctx.signal,
        ...(options.profiles ? { profiles: options.profiles } : {}),
        ...(options.network ? { network: options.network } : {}),
        // A download that may work later is not written as the answer: the job goes back to
        // queued and BullMQ retries it with backoff (the last attempt's report is kept).
        retryLater: (report) => {
          if (ctx.lastAttempt || job.source.kind !== 'url' || !transientDownloadFailure(report)) return false;
          transient = report;
          return true;
        },
      });
      if (transient) {
        const finding = (transient as Report).findings.find((f) => f.code === 'source-unreachable');
        throw new TransientJobError(finding?.message ?? 'the download failed', 'source-unreachable');
      }
      if (record.status === 'queued') throw new PreflightError('ERR_ABORTED', 'aborted: the worker is shutting down');
      return record;
    },
    async finished(raw) {
      const job = CheckJobSchema.parse(raw);
      const record = await (await options.store).readRecord(job.id);
      return record && (record.status === 'done' || record.status === 'error') ? record : null;
    },
    async poison(raw, reason) {
      const job = CheckJobSchema.parse(raw);
      const store = await options.store;
      const record = await store.updateRecord(job.id, (r) =>
        r.status === 'done' || r.status === 'error' ? r : { ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code: 'ERR_WORKER_CRASHED', message: reason } },
      );
      if (!record) throw new PreflightError('ERR_INVALID_ARGUMENT', `Check ${job.id} has no record in ${store.dir}`);
      return record;
    },
    outcome: (r) => r.verdict ?? r.status,
  };
}

/** Every handler a `print-preflight worker` runs. */
export function fleetHandlers(options: { data: string; profiles?: string; network?: NetworkOptions }): Record<string, JobHandler> {
  let store: Promise<JobStore> | undefined;
  const check = checkJobHandler({
    get store() {
      store ??= JobStore.open(options.data);
      return store;
    },
    ...(options.profiles ? { profiles: options.profiles } : {}),
    ...(options.network ? { network: options.network } : {}),
  });
  return { [JOB_CHECK]: check as JobHandler, [JOB_BATCH_FILE]: batchFileHandler() as JobHandler };
}
