/**
 * A fleet worker: takes jobs from the BullMQ queue and runs them on this machine's piscina pool.
 *
 * Delivery is at least once. What makes that safe:
 * - results are written atomically and keyed by job id, so a job run twice (a worker that lost its
 *   lock, or one killed after writing) writes the same bytes to the same place;
 * - a worker killed mid-job stops renewing its lock; BullMQ's stalled-job check hands the job to
 *   another worker (counting it in the job's `stalledCounter`);
 * - a job that has already taken `crashLimit` workers down is a poison file: the next worker writes
 *   an `error` result for it without opening the file;
 * - a transient failure ({@link TransientJobError}) is retried with exponential backoff, up to the
 *   job's attempts;
 * - on close, in-flight jobs finish within a grace period; those still running after it are
 *   aborted and put back on the queue (no attempt counted) for another worker.
 */
import { hostname } from 'node:os';
import { DelayedError, Worker, WaitingError, type Job } from 'bullmq';
import { z } from 'zod';
import type { Redis } from 'ioredis';
import { PreflightError } from '../errors.js';
import type { PreflightPool } from '../pool/pool.js';
import { connectRedis, reachable, resolveConnection, settledWithin, type FleetConnection } from './connection.js';
import type { RecordLock } from '../jobs/record-lock.js';
import { RedisRecordLock } from './record-lock.js';
import { RetryPolicySchema, TransientJobError } from './jobs.js';
import { silentLogger, type Logger } from './log.js';
import { RedisLedger } from './tenants.js';
import type { TenantLedger } from '../jobs/tenants.js';

/** What a job handler gets besides the job's data. */
export interface JobContext {
  jobId: string;
  pool: PreflightPool;
  /** Aborted when the worker's grace period ends: stop, the job goes back on the queue. */
  signal: AbortSignal;
  /** 1 for the first run. */
  attempt: number;
  /** True when a transient failure now would be final. */
  lastAttempt: boolean;
  log: Logger;
  /** The fleet's tenants' ledger: a check takes a running place of its owner from it. */
  tenants?: TenantLedger;
  /** The fleet's record lock and run lease (Redis): what a check's record says is decided in one place at a time. */
  recordLock?: RecordLock;
}

/** Runs one kind of job. Results must be written idempotently (keyed by job id, atomically). */
export interface JobHandler<R = unknown> {
  /** Runs the job; throws {@link TransientJobError} for a failure worth retrying. */
  run(data: unknown, ctx: JobContext): Promise<R>;
  /**
   * The result when the job's result is already written (a job delivered again after its worker
   * lost its lock, or after a Redis restart); null when it still has to run.
   */
  finished?(data: unknown, ctx?: JobContext): Promise<R | null>;
  /**
   * Whether the job may run now: 0, or the milliseconds to put it back for (its tenant runs as many
   * checks as it may). A job put back is not an attempt.
   */
  admit?(data: unknown, ctx: JobContext): Promise<number>;
  /** Writes the final `error` result of a job that took too many workers down; must not open its file. */
  poison(data: unknown, reason: string, ctx: JobContext): Promise<R>;
  /** Writes the final `error` result of a job whose transient failures used up its attempts. */
  exhausted?(data: unknown, error: TransientJobError, ctx: JobContext): Promise<R>;
  /** A short word for the log line of a finished job (verdict or status). */
  outcome?(result: R): string | undefined;
}

export const FleetWorkerOptionsSchema = z
  .object({
    /** Jobs run at once. Default: the pool's thread count. */
    concurrency: z.number().int().min(1).max(256).optional(),
    /** Name in logs and metrics. Default `host:pid`. */
    name: z.string().min(1).max(200).optional(),
    /** A job's lock lasts this long and is renewed at half of it, in ms. Default 30,000. */
    lockDurationMs: z.number().int().min(500).default(30_000),
    /** How often this worker looks for stalled jobs (of dead workers), in ms. Default 15,000. */
    stalledIntervalMs: z.number().int().min(100).default(15_000),
    /** Seconds between heartbeats written for /metrics. Default 5,000 ms. */
    heartbeatMs: z.number().int().min(100).default(5_000),
    policy: RetryPolicySchema.default({ attempts: 4, backoffMs: 2_000, crashLimit: 2 }),
  })
  .strict();
export type FleetWorkerOptions = z.input<typeof FleetWorkerOptionsSchema>;

/** The heartbeat a worker writes to Redis; the server reads them for /metrics. */
export const WorkerHeartbeatSchema = z.object({
  name: z.string(),
  host: z.string(),
  pid: z.number(),
  threads: z.number(),
  concurrency: z.number(),
  startedAt: z.string(),
  seenAt: z.string(),
  active: z.number(),
  done: z.number(),
  failed: z.number(),
  poison: z.number(),
  /** Milliseconds spent running jobs (sum over concurrent jobs). */
  busyMs: z.number(),
});
export type WorkerHeartbeat = z.infer<typeof WorkerHeartbeatSchema>;

/** The Redis key of a worker's heartbeat; it expires three heartbeats after the last one, so a dead worker drops out. */
export const heartbeatKey = (prefix: string, queue: string, worker: string) => `${prefix}:${queue}:fleet-worker:${worker}`;

export class FleetWorker {
  readonly name: string;
  private readonly worker: Worker;
  private readonly redis: Redis;
  /** BullMQ does not close a connection it was given: this worker does. */
  private readonly workerRedis: Redis;
  private readonly hard = new AbortController();
  private readonly stats = { active: 0, done: 0, failed: 0, poison: 0, busyMs: 0 };
  private readonly startedAt = new Date().toISOString();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly tenants: RedisLedger;
  private readonly recordLock: RecordLock;
  private closing: Promise<{ graceful: boolean }> | null = null;

  /**
   * Starts taking jobs.
   * @example
   * const pool = new PreflightPool({ maxThreads: 2 });
   * const worker = new FleetWorker({ url: 'redis://127.0.0.1:6379/0' }, pool, { 'batch-file': batchFileHandler() });
   * process.once('SIGTERM', () => void worker.close(60_000).then(() => pool.destroy()));
   */
  constructor(
    connection: FleetConnection,
    private readonly pool: PreflightPool,
    private readonly handlers: Record<string, JobHandler>,
    options: FleetWorkerOptions = {},
    private readonly log: Logger = silentLogger,
  ) {
    const conn = resolveConnection(connection);
    const opts = FleetWorkerOptionsSchema.parse(options);
    const policy = RetryPolicySchema.parse(opts.policy);
    this.name = opts.name ?? `${hostname()}:${process.pid}`;
    const concurrency = opts.concurrency ?? pool.threads;
    const onRedisError = (error: Error) => log('warn', 'redis-unreachable', { error: error.message });
    this.redis = connectRedis(conn.url, `${this.name}:stats`, onRedisError);
    this.redis.on('ready', () => log('info', 'redis-ready', {}));
    this.workerRedis = connectRedis(conn.url, `${this.name}:worker`, onRedisError);
    this.tenants = new RedisLedger(this.redis, `${conn.prefix}:${conn.queue}`);
    this.recordLock = new RedisRecordLock(this.redis, `${conn.prefix}:${conn.queue}`);
    this.worker = new Worker(conn.queue, (job, token) => this.process(job, token, policy.crashLimit), {
      connection: this.workerRedis,
      prefix: conn.prefix,
      name: this.name,
      concurrency,
      lockDuration: opts.lockDurationMs,
      stalledInterval: opts.stalledIntervalMs,
      // The worker itself judges poison files at `crashLimit`; BullMQ's own limit is one above, as a backstop.
      maxStalledCount: policy.crashLimit + 1,
      autorun: true,
    });
    this.worker.on('error', (error) => log('warn', 'worker-error', { error: error.message }));
    this.worker.on('stalled', (jobId) => log('warn', 'job-stalled', { jobId }));
    const key = heartbeatKey(conn.prefix, conn.queue, this.name);
    this.heartbeatKey = key;
    const beat = () => {
      const hb: WorkerHeartbeat = {
        name: this.name,
        host: hostname(),
        pid: process.pid,
        threads: pool.threads,
        concurrency,
        startedAt: this.startedAt,
        seenAt: new Date().toISOString(),
        ...this.stats,
      };
      // Best effort: while Redis is away the heartbeat waits, it never blocks jobs.
      this.redis.set(key, JSON.stringify(hb), 'PX', opts.heartbeatMs * 3).catch(() => undefined);
    };
    this.beat = beat;
    beat();
    this.heartbeat = setInterval(beat, opts.heartbeatMs);
    this.heartbeat.unref();
    log('info', 'worker-started', { queue: conn.queue, threads: pool.threads, concurrency });
  }

  private readonly beat: () => void;
  private readonly heartbeatKey: string;

  /** Resolves once the worker is connected and waiting for jobs. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  private async process(job: Job, token: string | undefined, crashLimit: number): Promise<unknown> {
    const jobId = job.id!;
    const handler = this.handlers[job.name];
    const attempts = job.opts.attempts ?? 1;
    const ctx: JobContext = {
      jobId,
      pool: this.pool,
      signal: this.hard.signal,
      attempt: job.attemptsMade + 1,
      lastAttempt: job.attemptsMade + 1 >= attempts,
      log: this.log,
      tenants: this.tenants,
      recordLock: this.recordLock,
    };
    if (!handler) {
      this.log('error', 'job-unknown', { jobId, name: job.name });
      throw new Error(`this worker does not know jobs named "${job.name}"`);
    }
    const started = Date.now();
    this.stats.active++;
    this.beat();
    try {
      const earlier = await handler.finished?.(job.data, ctx);
      if (earlier) {
        this.log('info', 'job-already-done', { jobId, name: job.name, outcome: handler.outcome?.(earlier as never) });
        return earlier;
      }
      if (job.stalledCounter >= crashLimit) {
        const reason = `This file stopped ${job.stalledCounter} worker processes (crashed, killed or out of memory while checking it); it was not tried again.`;
        this.log('error', 'job-poison', { jobId, name: job.name, stalls: job.stalledCounter });
        const result = await handler.poison(job.data, reason, ctx);
        this.stats.poison++;
        return result;
      }
      const delayMs = (await handler.admit?.(job.data, ctx)) ?? 0;
      if (delayMs > 0 && token) {
        await job.moveToDelayed(Date.now() + delayMs, token);
        throw new DelayedError();
      }
      this.log('info', 'job-start', { jobId, name: job.name, attempt: ctx.attempt, stalls: job.stalledCounter });
      let result: unknown;
      try {
        result = await handler.run(job.data, ctx);
      } catch (error) {
        if (error instanceof TransientJobError) {
          if (!ctx.lastAttempt) {
            this.log('warn', 'job-retry', { jobId, attempt: ctx.attempt, code: error.code, error: error.message });
            throw error;
          }
          if (handler.exhausted) result = await handler.exhausted(job.data, error, ctx);
          else throw error;
        } else throw error;
      }
      this.stats.done++;
      this.log('info', 'job-done', { jobId, name: job.name, ms: Date.now() - started, outcome: handler.outcome?.(result as never) });
      return result;
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      if (this.hard.signal.aborted && (error instanceof PreflightError ? error.code === 'ERR_ABORTED' : true)) {
        // Shutting down past the grace period: back on the queue for another worker, no attempt counted.
        this.log('warn', 'job-requeued', { jobId, reason: 'worker shutting down' });
        if (token) await job.moveToWait(token);
        throw new WaitingError();
      }
      if (!(error instanceof TransientJobError)) this.log('error', 'job-failed', { jobId, name: job.name, error: (error as Error).message });
      this.stats.failed++;
      throw error;
    } finally {
      this.stats.active--;
      this.stats.busyMs += Date.now() - started;
      this.beat();
    }
  }

  /** Aborts the jobs in flight now (a second SIGTERM); they go back on the queue. */
  abortInFlight(): void {
    this.hard.abort();
  }

  /** Counters of this worker since it started. */
  counts() {
    return { ...this.stats };
  }

  /**
   * Stops taking jobs and lets the jobs in flight finish. Jobs still running after `graceMs` are
   * aborted and put back on the queue. Resolves to `{ graceful: false }` when some were.
   *
   * Never waits longer than `graceMs` (and a moment to hand jobs back) for Redis: when it cannot be
   * reached, the worker stops as soon as no job runs (or the grace is over) without waiting for it.
   * Jobs it could not hand back are not lost: their lock expires and BullMQ's stalled-job check
   * gives them to another worker, which finds any result already written in the data folder.
   */
  close(graceMs = 60_000): Promise<{ graceful: boolean }> {
    this.closing ??= (async () => {
      this.log('info', 'worker-closing', { active: this.stats.active, graceMs });
      let graceful = true;
      const closed = this.worker.close();
      closed.catch(() => undefined);
      // Jobs in flight finish within the grace; with Redis away there is nothing else to wait for.
      const idle = this.idleWhileRedisAway();
      const done = await settledWithin(Promise.race([closed, idle.promise]), graceMs);
      idle.stop();
      if (!done) {
        graceful = false;
        this.log('warn', 'worker-grace-over', { active: this.stats.active });
      }
      if (this.stats.active > 0 || !done) this.hard.abort();
      // A reachable Redis takes the aborted jobs back at once.
      const handedBack = reachable(this.workerRedis) && (await settledWithin(closed, HAND_BACK_MS));
      clearInterval(this.heartbeat);
      if (!handedBack) {
        const left = this.stats.active;
        this.log('warn', 'worker-closed-without-redis', {
          active: left,
          detail:
            left > 0
              ? `Redis cannot be reached: ${left} job(s) in flight were not handed back; when their lock expires, the stalled-job check gives them to another worker, which finds any result already written in the data folder`
              : 'Redis cannot be reached: stopped without waiting for it',
        });
        // Pending commands fail at once, and BullMQ's own connections (its blocking one is a copy
        // of ours) are told to stop. BullMQ's close may still wait for a Redis that never answers
        // (its loops retry for ever): this close does not; a process that must end exits.
        this.workerRedis.disconnect();
        this.redis.disconnect();
        await settledWithin(this.worker.disconnect(), 1_000);
      } else if (reachable(this.redis)) {
        await settledWithin(this.redis.del(this.heartbeatKey), HAND_BACK_MS);
      }
      this.redis.disconnect();
      this.workerRedis.disconnect();
      this.log('info', 'worker-closed', { graceful, ...this.stats });
      return { graceful };
    })();
    return this.closing;
  }

  /** Resolves once no job runs while Redis cannot be reached (then a graceful close cannot finish). */
  private idleWhileRedisAway(): { promise: Promise<void>; stop: () => void } {
    let poll: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => {
      poll = setInterval(() => {
        if (this.stats.active === 0 && !reachable(this.workerRedis)) {
          clearInterval(poll);
          resolve();
        }
      }, 100);
      poll.unref();
    });
    return { promise, stop: () => clearInterval(poll) };
  }
}

/** How long a close waits for a reachable Redis to take aborted jobs back. */
const HAND_BACK_MS = 5_000;
