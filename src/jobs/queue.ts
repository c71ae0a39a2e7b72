/**
 * The one small interface between the HTTP server and whatever runs checks. The embedded queue
 * runs them in this process on the local pool; a Redis queue (the fleet) runs them in workers.
 * The server only enqueues jobs whose record and upload are already on disk, and reads results
 * from the {@link JobStore}, so its answers are the same in both modes.
 */
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import { deliverCallback, DeliveryChain, owedCallbacks, type CallbackOptions } from './callback.js';
import { runCheckJob, type RunContext } from './run.js';
import type { CheckJob, CheckRecord } from './schema.js';
import type { JobStore } from './store.js';
import type { ProfileRegistry } from '../profile/registry.js';
import { MemoryLedger, RUN_LEASE_MS, type TenantLedger } from './tenants.js';

/** What a custom queue (the fleet's Redis queue) is built from. */
export interface QueueContext {
  store: JobStore;
  registry: ProfileRegistry;
  profilesDir: string | undefined;
  /** To be called with each record the queue sees finished (metrics and logs). */
  onFinished: (record: CheckRecord) => void;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  failed: number;
  completed: number;
}

export interface CheckQueue {
  /** Queues a job; its record and upload are on disk before this is called. */
  enqueue(job: CheckJob): Promise<void>;
  /** Starts taking jobs; the embedded queue also re-enqueues queued/running records (restart recovery). */
  start(): Promise<void>;
  /** Stops taking jobs; finishes in-flight ones within `graceMs`, puts the rest back to queued. */
  close(graceMs?: number): Promise<void>;
  counts(): Promise<QueueCounts>;
  /** Counts at most a second old, answered at once (for /metrics); null while unknown. Default: {@link counts}. */
  recentCounts?(): Promise<QueueCounts | null>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  /** Adds the queue's own metrics (the fleet's: failed jobs, workers, throughput) to the server's registry. */
  registerMetrics?(registry: Registry): void;
  /**
   * What each tenant has queued and running, shared with whatever runs the checks (a fleet keeps
   * it in Redis). Without one the server keeps its own in memory.
   */
  readonly tenants?: TenantLedger;
  /** Checks run at once by everything that takes from this queue (the fleet's workers together); null when unknown. */
  capacity?(): Promise<number | null>;
  /**
   * Delivers the callback a settled check owes now (after an approval or a rejection made through
   * this server: its `check.finished`), with this queue's signing and retries. Does nothing
   * without callback options or when nothing is owed.
   */
  deliverCallback?(id: string): void;
}

export interface EmbeddedQueueOptions extends Omit<RunContext, 'signal'> {
  /**
   * Checks run at once. Default: twice the pool's threads (or os.availableParallelism()), so a
   * tenant's check starts while another tenant's slow ones hold their share.
   */
  concurrency?: number;
  /**
   * Checks one tenant (or the requests without a key) runs at once, whatever its own `maxRunning`.
   * Default: the pool's threads — one tenant alone runs as many checks as there are workers, and
   * the other places are left for other tenants; the pool shares the workers between their tasks.
   */
  perTenant?: number;
  /** The tenants' ledger (the server's order drafts take running places from the same one). Default: a new one. */
  tenants?: MemoryLedger;
  /** Signing and retries of callbacks; without it, jobs with a callbackUrl get no delivery. */
  callback?: CallbackOptions;
  /** Called with each record a run finishes (done, error). */
  onFinished?: (record: CheckRecord) => void;
}

/**
 * Runs checks in this process, at most `concurrency` at once, on the local pool; first come, first
 * run, except that a check whose tenant already runs its `maxRunning` (or the per-tenant share)
 * waits and the next one goes.
 * @example
 * const queue = new EmbeddedQueue({ store, pool });
 * await queue.start();
 * await store.create(job, newRecord(job));
 * await queue.enqueue(job);
 */
export class EmbeddedQueue implements CheckQueue {
  private readonly waiting: CheckJob[] = [];
  private readonly active = new Map<string, Promise<void>>();
  private readonly deliveries = new DeliveryChain();
  private readonly stop = new AbortController();
  private readonly concurrency: number;
  private readonly perTenant: number;
  private readonly threads: number;
  /** Checks running per tenant ('' for requests without a key). */
  private readonly activeIn = new Map<string, number>();
  private started = false;
  private closed = false;
  private completed = 0;
  private failed = 0;
  readonly tenants: MemoryLedger;

  constructor(private readonly options: EmbeddedQueueOptions) {
    const threads = options.pool?.threads ?? availableParallelism();
    this.threads = threads;
    this.concurrency = Math.max(1, options.concurrency ?? 2 * threads);
    this.perTenant = Math.max(1, Math.min(this.concurrency, options.perTenant ?? threads));
    this.tenants = options.tenants ?? new MemoryLedger();
    // A draft source that finished may leave room for a check of its tenant.
    this.tenants.onFreed(() => queueMicrotask(() => this.pump()));
  }

  async enqueue(job: CheckJob): Promise<void> {
    if (this.closed) throw new Error('the queue is closed');
    if (this.active.has(job.id) || this.waiting.some((j) => j.id === job.id)) return;
    if (job.owner) await this.tenants.requeue(job.owner.tenant, job.id);
    this.waiting.push(job);
    this.pump();
  }

  /** Checks that progress at once: the pool's workers (more may be started, sharing them). */
  async capacity(): Promise<number> {
    return this.threads;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const { store } = this.options;
    for (const record of await store.unfinished()) {
      const job = await store.readJob(record.id).catch(() => null);
      if (job) {
        if (job.owner) await this.tenants.requeue(job.owner.tenant, job.id);
        this.waiting.push(job);
      } else
        await store.updateRecord(record.id, (r) => ({
          ...r,
          status: 'error',
          finishedAt: new Date().toISOString(),
          error: { code: 'ERR_INPUT_UNREADABLE', message: 'The job file of this check is missing or unreadable.' },
        }));
    }
    // Callbacks still owed for checks that finished before a restart.
    for (const id of await owedCallbacks(store)) this.deliver(id);
    this.pump();
  }

  async close(graceMs = 30_000): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    const all = Promise.allSettled([...this.active.values()]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    // What did not finish in time goes back to queued (runCheckJob does that on abort).
    this.stop.abort();
    await all;
    await this.deliveries.drained();
  }

  async counts(): Promise<QueueCounts> {
    return { waiting: this.waiting.length, active: this.active.size, failed: this.failed, completed: this.completed };
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    if (this.closed) return { ok: false, detail: 'the queue is shutting down' };
    if (!this.started) return { ok: false, detail: 'the queue has not started' };
    return { ok: true };
  }

  private pump(): void {
    if (!this.started || this.closed) return;
    let i = 0;
    while (this.active.size < this.concurrency && i < this.waiting.length) {
      const job = this.waiting[i]!;
      const tenant = job.owner?.tenant ?? '';
      if ((this.activeIn.get(tenant) ?? 0) >= this.perTenant) {
        i++;
        continue;
      }
      if (job.owner && !this.tenants.startRunNow(job.owner.tenant, job.id, job.owner.maxRunning, RUN_LEASE_MS)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.activeIn.set(tenant, (this.activeIn.get(tenant) ?? 0) + 1);
      const renewal = job.owner ? setInterval(() => void this.tenants.renew(job.owner!.tenant, job.id, RUN_LEASE_MS), RUN_LEASE_MS / 3) : null;
      renewal?.unref();
      const run = this.run(job).finally(() => {
        if (renewal) clearInterval(renewal);
        this.active.delete(job.id);
        const left = (this.activeIn.get(tenant) ?? 1) - 1;
        if (left) this.activeIn.set(tenant, left);
        else this.activeIn.delete(tenant);
        if (job.owner) this.tenants.removeNow(job.owner.tenant, [job.id]);
        this.pump();
      });
      this.active.set(job.id, run);
    }
  }

  private async run(job: CheckJob): Promise<void> {
    const { concurrency: _c, perTenant: _p, callback: _cb, onFinished, ...ctx } = this.options;
    let record: CheckRecord;
    try {
      record = await runCheckJob(job, { ...ctx, signal: this.stop.signal });
    } catch {
      // The data folder failed under us; the record stays as it was and the next start retries.
      this.failed++;
      return;
    }
    if (record.status === 'queued') return;
    if (record.status === 'error') this.failed++;
    else this.completed++;
    onFinished?.(record);
    if (job.callbackUrl) this.deliver(job.id);
  }

  deliverCallback(id: string): void {
    if (!this.closed) this.deliver(id);
  }

  private deliver(id: string): void {
    const callback = this.options.callback;
    if (!callback) return;
    this.deliveries.add(id, () => deliverCallback(id, this.options.store, callback, this.stop.signal));
  }
}
