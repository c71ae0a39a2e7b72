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
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import { OptionalGauge } from '../jobs/optional-gauge.js';
import { deliverCallback, DeliveryChain, owedCallbacks, type CallbackOptions } from '../jobs/callback.js';
import type { CheckQueue, QueueCounts } from '../jobs/queue.js';
import type { CheckJob, CheckRecord } from '../jobs/schema.js';
import type { JobStore } from '../jobs/store.js';
import { connectRedis, reachable, redactRedisUrl, resolveConnection, settledWithin, type FleetConnection, type ResolvedFleetConnection } from './connection.js';
import { RedisRecordLock } from './record-lock.js';
import { JOB_CHECK, jobOptions, RetryPolicySchema, type RetryPolicy } from './jobs.js';
import { silentLogger, type Logger } from './log.js';
import { heartbeatKey, WorkerHeartbeatSchema, type WorkerHeartbeat } from './worker.js';
import { RedisLedger } from './tenants.js';
import { CheckIdSchema, isSettled } from '../jobs/schema.js';
import { ordinal } from '../util/text.js';

/** Redis commands of answers that must not hang (admission, /metrics) fail after this long. */
const FAIL_FAST_MS = 1_000;
/** The longest /metrics waits for Redis before it answers with what it has. */
const METRICS_WAIT_MS = 400;
/** A view of Redis older than this is not shown as current: its gauges are left out (default of `metricsStaleMs`). */
const VIEW_STALE_MS = 60_000;
/** Queued members that are not checks (a submission being read, an order draft's source) are dropped after this long. */
const TOKEN_STALE_MS = 30 * 60_000;
const RECONCILE_EVERY_MS = 60_000;
/** How long one server's claim on a check's callback lasts at most (ten attempts with backoff fit in it). */
const CALLBACK_CLAIM_MS = 3 * 3600_000;
/** Times a claim is asked of a Redis that does not answer before the callback goes out unclaimed. */
const CLAIM_TRIES = 30;
/** Lets a claim go only when it is still ours. */
const RELEASE_CLAIM = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

interface FleetView {
  at: number;
  counts: QueueCounts;
  workers: WorkerHeartbeat[];
}

export interface RedisQueueOptions {
  store: JobStore;
  policy?: RetryPolicy;
  /** Signing and retries of callbacks; the server delivers them when a worker finishes a check. */
  callback?: CallbackOptions;
  /** Called with each record a worker finishes (done, error). */
  onFinished?: (record: CheckRecord) => void;
  /** Longest wait for Redis when a check is submitted, in ms; past it the submission fails (503). Default 5,000. */
  enqueueTimeoutMs?: number;
  /** While Redis does not answer, /metrics shows the fleet's last view this long (marked by its age), then leaves those gauges out. Default 60,000 ms. */
  metricsStaleMs?: number;
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
  /** The same queue on the fail-fast connection: counts for /metrics. */
  private statsQueue: Queue | null = null;
  private events: QueueEvents | null = null;
  private redis: Redis | null = null;
  /** Connections given to BullMQ, which does not close them. */
  private readonly connections: Redis[] = [];
  private readonly deliveries = new DeliveryChain();
  private readonly stop = new AbortController();
  private closed = false;
  private lastError: string | null = null;
  /** Fails fast while Redis is away: the ledger and the metrics' view. */
  private readonly fast: Redis;
  readonly tenants: RedisLedger;
  private view: FleetView | null = null;
  private refreshing: Promise<void> | null = null;
  private reconciler: NodeJS.Timeout | null = null;

  constructor(
    connection: FleetConnection,
    private readonly options: RedisQueueOptions,
  ) {
    this.conn = resolveConnection(connection);
    this.policy = RetryPolicySchema.parse(options.policy ?? {});
    this.log = options.log ?? silentLogger;
    this.fast = connectRedis(this.conn.url, 'server-ledger', (error) => (this.lastError = error.message), { failFastMs: FAIL_FAST_MS });
    this.connections.push(this.fast);
    this.tenants = new RedisLedger(this.fast, `${this.conn.prefix}:${this.conn.queue}`);
    // Every server and worker on this queue decides on the same records: one at a time, in Redis.
    options.store.useRecordLock(new RedisRecordLock(this.fast, `${this.conn.prefix}:${this.conn.queue}`));
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
    this.statsQueue = new Queue(name, { connection: this.fast, prefix });
    this.events = new QueueEvents(name, { connection: eventsRedis, prefix });
    this.queue.on('error', () => undefined);
    this.statsQueue.on('error', () => undefined);
    this.events.on('error', () => undefined);
    this.events.on('completed', ({ jobId }) => void this.finished(jobId));
    this.events.on('failed', ({ jobId, failedReason }) => void this.failed(jobId, failedReason));
    // After an outage Redis may have restarted empty: put unfinished checks back.
    this.redis.on('ready', () => {
      this.lastError = null;
      void this.recover();
    });
    // The fail-fast connection refuses commands until it is connected: give it the time a submission would.
    if (this.fast.status !== 'ready') await this.withTimeout(once(this.fast, 'ready'), 'connect').catch(() => undefined);
    await this.recover();
    this.reconciler = setInterval(() => void this.reconcile(), RECONCILE_EVERY_MS);
    this.reconciler.unref();
    // Callbacks still owed for checks that finished while no server listened.
    if (this.options.callback) for (const id of await owedCallbacks(this.options.store)) this.deliver(id);
  }

  private recovering: Promise<void> = Promise.resolve();

  /** One recovery at a time; a failed one (Redis away again) is logged and retried at the next reconnection. */
  private recover(): Promise<void> {
    this.recovering = this.recovering.then(() => this.recoverOnce().catch((e: Error) => this.log('warn', 'recovery-failed', { error: e.message })));
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
      // A Redis that lost its data lost the tenants' ledger too: a waiting check counts again.
      if (record.owner && record.status === 'queued' && state !== 'failed') await this.tenants.requeue(record.owner, record.id).catch(() => undefined);
    }
    if (requeued) this.log('info', 'checks-requeued', { count: requeued });
    await this.reconcile();
  }

  /** Drops ledger entries nothing waits for any more (see {@link RedisLedger.reconcile}). */
  private async reconcile(): Promise<void> {
    const { store } = this.options;
    try {
      const dropped = await this.tenants.reconcile(async (_tenant, member, queuedAt) => {
        if (!CheckIdSchema.safeParse(member).success) return Date.now() - queuedAt > TOKEN_STALE_MS;
        const record = await store.readRecord(member).catch(() => undefined);
        if (record === undefined) return false;
        return record === null || isSettled(record.status);
      });
      if (dropped) this.log('info', 'tenant-ledger-reconciled', { dropped });
    } catch (error) {
      this.log('warn', 'tenant-ledger-reconcile-failed', { error: (error as Error).message });
    }
  }

  private async finished(id: string): Promise<void> {
    const record = await this.options.store.readRecord(id).catch(() => null);
    // needs-approval too: its callback (check.needs-approval) goes out when the worker finishes.
    if (!record || !isSettled(record.status)) return;
    if (record.owner) await this.tenants.remove(record.owner, [id]).catch(() => undefined);
    this.options.onFinished?.(record);
    if (record.callbackState === 'pending') this.deliver(id);
  }

  /** A job BullMQ gave up on (its processor threw on its last attempt, or it stalled past the backstop). */
  private async failed(id: string, reason: string): Promise<void> {
    const job = await this.queue?.getJob(id).catch(() => undefined);
    if (!job || (await job.getState()) !== 'failed') return; // a failed attempt that will be retried
    const record = await this.options.store
      .updateRecord(id, (r) =>
        isSettled(r.status) ? r : { ...r, status: 'error', finishedAt: new Date().toISOString(), error: { code: 'ERR_WORKER_CRASHED', message: `The check could not be run: ${reason}` } },
      )
      .catch(() => null);
    if (record) await this.finished(id);
  }

  deliverCallback(id: string): void {
    this.deliver(id);
  }

  private deliver(id: string): void {
    const callback = this.options.callback;
    if (!callback) return;
    this.deliveries.add(id, () => this.deliverClaimed(id, callback));
  }

  /**
   * Several servers hear of the same finished check (each listens to the queue's events): the one
   * that claims the check's callback in Redis delivers it, the others leave it. A callback owed
   * again when the claim is let go (a decision made on another server meanwhile) is claimed again.
   * A server that dies holding a claim leaves it to expire (CALLBACK_CLAIM_MS); a server that
   * starts delivers what is still owed. Without Redis, the callback goes out unclaimed: twice is
   * better than never.
   */
  private async deliverClaimed(id: string, callback: CallbackOptions): Promise<void> {
    const key = `${this.conn.prefix}:${this.conn.queue}:callback-claim:${id}`;
    for (;;) {
      const token = randomBytes(12).toString('hex');
      const claimed = await this.claim(key, token);
      if (claimed === 'aborted') return;
      if (!claimed) return;
      try {
        await deliverCallback(id, this.options.store, callback, this.stop.signal);
      } finally {
        await (this.redis ?? this.fast).eval(RELEASE_CLAIM, 1, key, token).catch(() => undefined);
      }
      if (this.stop.signal.aborted) return;
      const record = await this.options.store.readRecord(id).catch(() => null);
      if (record?.callbackState !== 'pending' || !isSettled(record.status)) return;
    }
  }

  /**
   * Claims a check's callback: true when this server got it, false when another holds it. A Redis
   * that does not answer (a slow moment, an outage) is asked again, every second for up to
   * CLAIM_TRIES seconds — answering "claimed" at once would let two servers deliver — and only
   * then is the callback delivered unclaimed (twice is better than never).
   */
  private async claim(key: string, token: string): Promise<boolean | 'aborted'> {
    const redis = this.redis ?? this.fast;
    for (let attempt = 1; ; attempt++) {
      try {
        if ((await this.withTimeout(redis.set(key, token, 'PX', CALLBACK_CLAIM_MS, 'NX'), 'answer')) === 'OK') return true;
        // An earlier try that timed out here may have set it all the same.
        return (await this.withTimeout(redis.get(key), 'answer')) === token;
      } catch (error) {
        if (attempt >= CLAIM_TRIES) {
          this.log('warn', 'callback-unclaimed', { key, error: (error as Error).message });
          return true;
        }
        if (this.stop.signal.aborted) return 'aborted';
        await new Promise((r) => setTimeout(r, 1_000).unref());
      }
    }
  }

  /**
   * Stops listening; running checks belong to the workers and go on there. Waits at most `graceMs`
   * for callbacks in flight, and for Redis only while it answers: an unreachable Redis never does.
   */
  async close(graceMs = 30_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    if (this.reconciler) clearInterval(this.reconciler);
    await settledWithin(this.deliveries.drained(), graceMs);
    if (reachable(this.redis)) {
      await settledWithin(this.events?.close() ?? Promise.resolve(), CLOSE_MS);
      await settledWithin(this.queue?.close() ?? Promise.resolve(), CLOSE_MS);
      await settledWithin(this.statsQueue?.close() ?? Promise.resolve(), CLOSE_MS);
    } else this.log('warn', 'queue-closed-without-redis', { detail: 'Redis cannot be reached: stopped without waiting for it; queued checks stay in Redis and the data folder' });
    for (const c of this.connections) c.disconnect();
    // BullMQ's own copies of the connections (QueueEvents blocks on one) stop reconnecting too.
    await settledWithin(Promise.allSettled([this.events?.disconnect(), this.queue?.disconnect(), this.statsQueue?.disconnect()]), CLOSE_MS);
  }

  async counts(): Promise<QueueCounts> {
    return this.countsOf(this.queue);
  }

  private async countsOf(queue: Queue | null): Promise<QueueCounts> {
    if (!queue) return { waiting: 0, active: 0, failed: 0, completed: 0 };
    const c = await this.withTimeout(queue.getJobCounts('wait', 'delayed', 'prioritized', 'active', 'failed', 'completed'), 'answer');
    return { waiting: (c.wait ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 };
  }

  /**
   * The latest view of the fleet (queue counts, live workers), at most a second old: a refresh is
   * started when it is older, and waited for at most `waitMs`. Null before the first one arrived.
   * Never waits longer, whatever Redis does: /metrics and admission answer on time.
   */
  private async latest(waitMs = METRICS_WAIT_MS): Promise<FleetView | null> {
    if (!this.refreshing && (!this.view || Date.now() - this.view.at > 1_000)) {
      // One refresh at a time: while Redis is away it stays pending, and nothing piles up behind it.
      this.refreshing = Promise.all([this.countsOf(this.statsQueue), this.workersOn(this.fast)])
        .then(([counts, workers]) => {
          this.view = { at: Date.now(), counts, workers };
        })
        .catch(() => undefined)
        .finally(() => (this.refreshing = null));
    }
    if (this.refreshing) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.refreshing, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
      clearTimeout(timer);
    }
    return this.view;
  }

  /** A view shown as current: null when there is none or it is older than a minute. */
  private async current(): Promise<FleetView | null> {
    const view = await this.latest();
    return view && Date.now() - view.at <= (this.options.metricsStaleMs ?? VIEW_STALE_MS) ? view : null;
  }

  /** Queue counts for /metrics: at most a second old, answered within 0.4 s; null while Redis does not answer. */
  async recentCounts(): Promise<QueueCounts | null> {
    return (await this.current())?.counts ?? null;
  }

  /** Checks the live workers run at once, together; null when no view of them is current. */
  async capacity(): Promise<number | null> {
    const view = await this.current();
    return view ? view.workers.reduce((n, w) => n + w.concurrency, 0) : null;
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
    return this.workersOn(this.redis);
  }

  private async workersOn(redis: Redis | null): Promise<WorkerHeartbeat[]> {
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

  /**
   * Adds the fleet's gauges (failed jobs, live workers, per-worker jobs and busy time) to a
   * registry. They come from a view of Redis at most a second old; while Redis does not answer,
   * `print_preflight_redis_up` is 0, `print_preflight_redis_view_age_seconds` says how old the view
   * is, and after a minute the fleet's gauges are left out rather than shown stale.
   */
  registerMetrics(registry: Registry): void {
    const registers = [registry];
    const queue = this;
    new Gauge({
      name: 'print_preflight_redis_up',
      help: 'Whether Redis answers (1) or not (0); while 0 the fleet gauges are from print_preflight_redis_view_age_seconds ago, or absent',
      registers,
      async collect() {
        await queue.latest();
        this.set(queue.fast.status === 'ready' && queue.view !== null && Date.now() - queue.view.at <= 5_000 ? 1 : 0);
      },
    });
    new OptionalGauge({
      name: 'print_preflight_redis_view_age_seconds',
      help: 'Age of the view of Redis the fleet gauges show (refreshed at most every second while Redis answers)',
      registers,
      read: async () => {
        const view = await queue.latest();
        return view ? (Date.now() - view.at) / 1000 : null;
      },
    });
    new OptionalGauge({ name: 'print_preflight_queue_failed', help: 'Jobs BullMQ gave up on, still kept in Redis', registers, read: async () => (await queue.current())?.counts.failed ?? null });
    new OptionalGauge({
      name: 'print_preflight_fleet_workers',
      help: 'Fleet workers alive (their heartbeat has not expired)',
      registers,
      read: async () => (await queue.current())?.workers.length ?? null,
    });
    const perWorker = (name: string, help: string, labelNames: string[], fill: (g: Gauge, w: WorkerHeartbeat) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const view = await queue.current();
          this.reset();
          for (const w of view?.workers ?? []) fill(this, w);
        },
      });
    perWorker('print_preflight_fleet_worker_jobs', 'Jobs each worker finished since it started, by outcome (done, failed, poison); rate() gives its throughput', ['worker', 'outcome'], (g, w) => {
      for (const outcome of ['done', 'failed', 'poison'] as const) g.set({ worker: w.name, outcome }, w[outcome]);
    });
    perWorker('print_preflight_fleet_worker_busy_seconds', 'Seconds each worker spent running jobs since it started (summed over its concurrent jobs)', ['worker'], (g, w) =>
      g.set({ worker: w.name }, w.busyMs / 1000),
    );
    perWorker('print_preflight_fleet_worker_active', 'Jobs each worker runs now', ['worker'], (g, w) => g.set({ worker: w.name }, w.active));
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
  return (ctx: { store: JobStore; onFinished: (record: CheckRecord) => void }): CheckQueue => new RedisQueue(connection, { ...options, store: ctx.store, onFinished: ctx.onFinished });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
