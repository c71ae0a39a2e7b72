/**
 * The service's queue in fleet mode (`serve --redis`): checks go on a BullMQ queue and
 * `print-preflight worker` processes, on this machine or others, run them against the shared data
 * folder. The server keeps reading records and reports from that folder, so its answers are the
 * same as with the embedded queue.
 *
 * The data folder stays the source of truth: on start, and again after each Redis reconnection,
 * every record still queued or running whose job Redis does not hold (a Redis that lost its data)
 * is put back on the queue; a job BullMQ gave up on becomes an `error` record.
 */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import { deliverCallback, type CallbackOptions } from '../jobs/callback.js';
import type { CheckQueue, QueueCounts } from '../jobs/queue.js';
import type { CheckJob, CheckRecord } from '../jobs/schema.js';
import type { JobStore } from '../jobs/store.js';
import { connectRedis, reachable, redactRedisUrl, resolveConnection, settledWithin, type FleetConnection, type ResolvedFleetConnection } from './connection.js';
import { JOB_CHECK, jobOptions, RetryPolicySchema, type RetryPolicy } from './jobs.js';
import { silentLogger, type Logger } from './log.js';
import { heartbeatKey, WorkerHeartbeatSchema, type WorkerHeartbeat } from './worker.js';
import { ordinal } from '../util/text.js';

export interface RedisQueueOptions {
  store: JobStore;
  policy?: RetryPolicy;
  /** Signing and retries of callbacks; the server delivers them when a worker finishes a check. */
  callback?: CallbackOptions;
  /** Called with each record a worker finishes (done, error). */
  onFinished?: (record: CheckRecord) => void;
  /** Longest wait for Redis when a check is submitted, in ms; past it the submission fails (503). Default 5,000. */
  enqueueTimeoutMs?: number;
  log?: Logger;
}

/** Thrown when Redis does not take a job in time; the service answers 503. */
export class QueueUnavailableError extends Error {
  readonly statusCode = 503;
  readonly code = 'queue-unavailable';
}

/** How long a close waits for a reachable Redis to close each BullMQ object. */
const CLOSE_MS = 5_000;

/**
 * A {@link CheckQueue} on Redis (BullMQ).
 * @example
 * const store = await JobStore.open('/mnt/shared/data');
 * const queue = new RedisQueue({ url: 'redis://queue.internal:6379/0' }, { store });
 * await queue.start();
 */
export class RedisQueue implements CheckQueue {
  private readonly conn: ResolvedFleetConnection;
  private readonly policy;
  private readonly log: Logger;
  private queue: Queue | null = null;
  private events: QueueEvents | null = null;
  private redis: Redis | null = null;
  /** Connections given to BullMQ, which does not close them. */
  private readonly connections: Redis[] = [];
  private readonly deliveries = new Set<Promise<unknown>>();
  private readonly stop = new AbortController();
  private closed = false;
  private lastError: string | null = null;

  constructor(
    connection: FleetConnection,
    private readonly options: RedisQueueOptions,
  ) {
    this.conn = resolveConnection(connection);
    this.policy = RetryPolicySchema.parse(options.policy ?? {});
    this.log = options.log ?? silentLogger;
  }

  /**
   * Puts a check on the queue. Its record is already on disk, so a Redis that is away does not lose
   * it: past `enqueueTimeoutMs` this returns anyway (the check stays `queued`), and the job reaches
   * Redis when it is back (the pending command, and the recovery after each reconnection).
   */
  async enqueue(job: CheckJob): Promise<void> {
    if (this.closed || !this.queue) throw new Error('the queue is closed');
    const added = this.queue.add(JOB_CHECK, job, jobOptions(this.policy, job.id));
    try {
      await this.withTimeout(added, 'take the check');
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      added.catch(() => undefined);
      this.log('warn', 'enqueue-delayed', { checkId: job.id, error: error.message });
    }
  }

  async start(): Promise<void> {
    if (this.queue) return;
    const { url, queue: name, prefix } = this.conn;
    const onError = (error: Error) => {
      this.lastError = error.message;
      this.log('warn', 'redis-unreachable', { error: error.message });
    };
    this.redis = connectRedis(url, 'server', onError);
    const queueRedis = connectRedis(url, 'server-queue', onError);
    const eventsRedis = connectRedis(url, 'server-events', onError);
    this.connections.push(this.redis, queueRedis, eventsRedis);
    this.queue = new Queue(name, { connection: queueRedis, prefix });
    this.events = new QueueEvents(name, { connection: eventsRedis, prefix });
    this.queue.on('error', () => undefined);
    this.events.on('error', () => undefined);
    this.events.on('completed', ({ jobId }) => void this.finished(jobId));
    this.events.on('failed', ({ jobId, failedReason }) => void this.failed(jobId, failedReason));
    // After an outage Redis may have restarted empty: put unfinished checks back.
    this.redis.on('ready', () => {
      this.lastError = null;
      void this.recover();
    });
    await this.recover();
    // Callbacks still owed for checks that finished while no server listened.
    if (this.options.callback) {
      for (const id of await this.options.store.ids()) {
        const record = await this.options.store.readRecord(id).catch(() => null);
        if (record?.callbackState === 'pending' && (record.status === 'done' || record.status === 'error')) this.deliver(id);
      }
    }
  }

  private recovering: Promise<void> = Promise.resolve();

  /** One recovery at a time; a failed one (Redis away again) is logged and retried at the next reconnection. */
  private recover(): Promise<void> {
    this.recovering = this.recovering.then(() =>
      this.recoverOnce().catch((e: Error) => this.log('warn', 'recovery-failed', { error: e.message })),
    );
    return this.recovering;
  }

  /** Re-adds unfinished checks Redis does not know; turns checks BullMQ gave up on into errors. */
  private async recoverOnce(): Promise<void> {
    const { store } = this.options;
    const queue = this.queue!;
    let requeued = 0;
    for (const record of await store.unfinished()) {
      const state = await this.withTimeout(queue.getJobState(record.id), 'answer');
      if (state === 'unknown' || state === 'completed') {
        // `completed` with an unfinished record: a run that ended without a result (put back by a shutdown).
        const job = await store.readJob(record.id).catch(() => null);
        if (!job) continue;
        if (state === 'completed') await queue.remove(record.id).catch(() => undefined);
        await queue.add(JOB_CHECK, job, jobOptions(this.policy, job.id));
        requeued++;
      } else if (state === 'failed') await this.failed(record.id, (await queue.getJob(record.id))?.failedReason ?? 'the job failed');
    }
    if (requeued) this.log('info', 'checks-requeued', { count: requeued });
  }

  private async finished(id: string): Promise<void> {
    const record = await this.options.store.readRecord(id).catch(() => null);
    if (!record || (record.status !== 'done' && record.status !== 'error')) return;
    this.options.onFinished?.(record);
    if (record.callbackState === 'pending') this.deliver(id);
  }

  /** A job BullMQ gave up on (its processor threw on its last attempt, or it stalled past the backstop). */
  private async failed(id: string, reason: string): Promise<void> {
    const job = await this.queue?.getJob(id).catch(() => undefined);
    if (!job || (await job.getState()) !== 'failed') return; // a failed attempt that will be retried
    const record = await this.options.store.updateRecord(id, (r) =>
      r.status === 'done' || r.status === 'error' ? r : { ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code: 'ERR_WORKER_CRASHED', message: `The check could not be run: ${reason}` } },
    ).catch(() => null);
    if (record) await this.finished(id);
  }

  private deliver(id: string): void {
    if (!this.options.callback) return;
    const delivery = deliverCallback(id, this.options.store, this.options.callback, this.stop.signal)
      .catch(() => undefined)
      .finally(() => this.deliveries.delete(delivery));
    this.deliveries.add(delivery);
  }

  /**
   * Stops listening; running checks belong to the workers and go on there. Waits at most `graceMs`
   * for callbacks in flight, and for Redis only while it answers: an unreachable Redis never does.
   */
  async close(graceMs = 30_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    await settledWithin(Promise.allSettled([...this.deliveries]), graceMs);
    if (reachable(this.redis)) {
      await settledWithin(this.events?.close() ?? Promise.resolve(), CLOSE_MS);
      await settledWithin(this.queue?.close() ?? Promise.resolve(), CLOSE_MS);
    } else this.log('warn', 'queue-closed-without-redis', { detail: 'Redis cannot be reached: stopped without waiting for it; queued checks stay in Redis and the data folder' });
    for (const c of this.connections) c.disconnect();
    // BullMQ's own copies of the connections (QueueEvents blocks on one) stop reconnecting too.
    await settledWithin(Promise.allSettled([this.events?.disconnect(), this.queue?.disconnect()]), CLOSE_MS);
  }

  async counts(): Promise<QueueCounts> {
    if (!this.queue) return { waiting: 0, active: 0, failed: 0, completed: 0 };
    const c = await this.withTimeout(this.queue.getJobCounts('wait', 'delayed', 'prioritized', 'active', 'failed', 'completed'), 'answer');
    return { waiting: (c.wait ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 };
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    if (this.closed) return { ok: false, detail: 'the queue is shutting down' };
    if (!this.redis) return { ok: false, detail: 'the queue has not started' };
    const where = redactRedisUrl(this.conn.url);
    try {
      const pong = await this.withTimeout(this.redis.ping(), 'answer PING', 2_000);
      return pong === 'PONG' ? { ok: true, detail: `Redis at ${where}` } : { ok: false, detail: `Redis at ${where} answered ${pong}` };
    } catch {
      return { ok: false, detail: `Redis at ${where} does not answer${this.lastError ? ` (${this.lastError})` : ''}` };
    }
  }

  /** The workers alive now: each one's last heartbeat (a heartbeat expires three intervals after it was sent). */
  async workers(): Promise<WorkerHeartbeat[]> {
    const redis = this.redis;
    if (!redis) return [];
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.withTimeout(redis.scan(cursor, 'MATCH', heartbeatKey(this.conn.prefix, this.conn.queue, '*'), 'COUNT', 1000), 'answer');
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    const values = keys.length ? await this.withTimeout(redis.mget(...keys), 'answer') : [];
    const out: WorkerHeartbeat[] = [];
    for (const text of values) {
      const hb = text === null ? null : WorkerHeartbeatSchema.safeParse(safeJson(text));
      if (hb?.success) out.push(hb.data);
    }
    return out.sort((a, b) => ordinal(a.name, b.name));
  }

  /** Adds the fleet's gauges (failed jobs, live workers, per-worker jobs and busy time) to a registry. */
  registerMetrics(registry: Registry): void {
    const registers = [registry];
    const counts = () => this.counts().catch(() => null);
    const workers = () => this.workers().catch(() => [] as WorkerHeartbeat[]);
    new Gauge({
      name: 'print_preflight_queue_failed',
      help: 'Jobs BullMQ gave up on, still kept in Redis',
      registers,
      async collect() {
        const c = await counts();
        if (c) this.set(c.failed);
      },
    });
    new Gauge({
      name: 'print_preflight_fleet_workers',
      help: 'Fleet workers alive (their heartbeat has not expired)',
      registers,
      async collect() {
        this.set((await workers()).length);
      },
    });
    new Gauge({
      name: 'print_preflight_fleet_worker_jobs',
      help: 'Jobs each worker finished since it started, by outcome (done, failed, poison); rate() gives its throughput',
      labelNames: ['worker', 'outcome'],
      registers,
      async collect() {
        this.reset();
        for (const w of await workers()) for (const outcome of ['done', 'failed', 'poison'] as const) this.set({ worker: w.name, outcome }, w[outcome]);
      },
    });
    new Gauge({
      name: 'print_preflight_fleet_worker_busy_seconds',
      help: 'Seconds each worker spent running jobs since it started (summed over its concurrent jobs)',
      labelNames: ['worker'],
      registers,
      async collect() {
        this.reset();
        for (const w of await workers()) this.set({ worker: w.name }, w.busyMs / 1000);
      },
    });
    new Gauge({
      name: 'print_preflight_fleet_worker_active',
      help: 'Jobs each worker runs now',
      labelNames: ['worker'],
      registers,
      async collect() {
        this.reset();
        for (const w of await workers()) this.set({ worker: w.name }, w.active);
      },
    });
  }

  private async withTimeout<T>(promise: Promise<T>, what: string, ms = this.options.enqueueTimeoutMs ?? 5_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableError(`Redis did not ${what} within ${ms / 1000} s; try again shortly`)), ms);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The `queue` option of `startService` for fleet mode: a {@link RedisQueue} on the server's store.
 * @example
 * const service = await startService({ dataDir: '/mnt/shared/data', queue: redisQueueFactory({ url: 'redis://queue.internal:6379/0' }) });
 */
export function redisQueueFactory(connection: FleetConnection, options: Omit<RedisQueueOptions, 'store' | 'onFinished'> = {}) {
  return (ctx: { store: JobStore; onFinished: (record: CheckRecord) => void }): CheckQueue =>
    new RedisQueue(connection, { ...options, store: ctx.store, onFinished: ctx.onFinished });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
