/**
 * Backpressure: whether the server takes more work from a tenant, decided before an upload is read
 * (so a refused client does not upload first). In order: the data folder has room (else 503), the
 * tenant is within its submissions per minute (else 429), and its queued checks stay within its
 * bound (else 429 with `Retry-After` estimated from the queue). A place taken is a reservation:
 * bound to the check it became, or released when the submission fails.
 */
import { randomUUID } from 'node:crypto';
import type { CheckQueue } from '../jobs/queue.js';
import type { JobStore } from '../jobs/store.js';
import type { TenantLedger } from '../jobs/tenants.js';
import type { ServiceMetrics } from './metrics.js';
import { Problem } from './problem.js';
import type { Caller } from './tenants.js';
import { grouped } from '../util/text.js';

/** How long a free-space reading is reused. */
const FREE_SPACE_TTL_MS = 2_000;
const QUEUE_ANSWER_MS = 500;
const MAX_RETRY_AFTER_S = 3_600;

export interface AdmissionOptions {
  store: JobStore;
  queue: CheckQueue;
  tenants: TenantLedger;
  metrics: ServiceMetrics;
  minFreeBytes: number;
}

/** Places a submission holds among its tenant's queued checks until it is bound or released. */
export class Reservation {
  private readonly open: Set<string>;

  constructor(
    private readonly ledger: TenantLedger,
    readonly tenant: string,
    readonly members: readonly string[],
  ) {
    this.open = new Set(members);
  }

  /** The place `member` held now belongs to the check `id`. */
  async bind(member: string, id: string): Promise<void> {
    if (!this.open.delete(member)) return;
    await this.ledger.rename(this.tenant, member, id);
  }

  /** Frees the places not bound (a submission refused or failed after it was admitted). */
  async release(): Promise<void> {
    const rest = [...this.open];
    this.open.clear();
    await this.ledger.remove(this.tenant, rest).catch(() => undefined);
  }
}

export class Admission {
  private free: { at: number; bytes: Promise<number | null> } | null = null;

  constructor(private readonly options: AdmissionOptions) {}

  /**
   * Admits `n` submissions of `caller` (a check: 1; an order draft: its sources), or throws the
   * problem to answer: 503 `storage-full` / `queue-unavailable`, 429 `too-many-submissions` /
   * `too-many-queued`.
   */
  async admit(caller: Caller, n: number, prefix: 'r' | 'd'): Promise<Reservation> {
    const { tenants, metrics } = this.options;
    await this.checkStorage(caller);
    const members = Array.from({ length: n }, () => `${prefix}:${randomUUID()}`);
    try {
      const waitMs = await tenants.take(caller.tenant, caller.limits.uploadsPerMinute, n);
      if (waitMs > 0) {
        metrics.rejectedSubmission('too-fast', caller.tenant);
        throw new Problem(
          'too-many-submissions',
          `This tenant may submit ${grouped(caller.limits.uploadsPerMinute)} checks (or order sources) a minute, and has; ${n === 1 ? 'the next one' : `these ${n}`} can go in ${Math.ceil(waitMs / 1000)} s.`,
          { headers: { 'Retry-After': String(Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(waitMs / 1000)))) }, limit: caller.limits.uploadsPerMinute },
        );
      }
      const admitted = await tenants.admit(caller.tenant, members, caller.limits.maxQueued);
      if (!admitted.ok) {
        metrics.rejectedSubmission('too-many', caller.tenant);
        const retry = await this.retryAfterSeconds();
        throw new Problem(
          'too-many-queued',
          `This tenant has ${grouped(admitted.queued)} checks waiting to run, and may have ${grouped(caller.limits.maxQueued)}${n > 1 ? `; this draft needs ${n} more` : ''}. At the current pace one starts in about ${retry} s.`,
          { headers: { 'Retry-After': String(retry) }, limit: caller.limits.maxQueued, queued: admitted.queued },
        );
      }
    } catch (error) {
      if (error instanceof Problem) throw error;
      metrics.rejectedSubmission('unavailable', caller.tenant);
      throw new Problem('queue-unavailable', `The queue cannot take checks now (${(error as Error).message}); retry in a moment.`, { headers: { 'Retry-After': '5' } });
    }
    return new Reservation(tenants, caller.tenant, members);
  }

  /**
   * Seconds until a place frees, estimated from the queue: the checks waiting ahead, divided by the
   * checks run at once (the pool's threads, or the fleet's workers), times the recent mean check time.
   */
  async retryAfterSeconds(): Promise<number> {
    const { queue, metrics } = this.options;
    const [counts, capacity] = await Promise.all([
      within(queue.recentCounts ? queue.recentCounts() : queue.counts(), QUEUE_ANSWER_MS),
      within(queue.capacity ? queue.capacity() : Promise.resolve(null), QUEUE_ANSWER_MS),
    ]);
    const waiting = counts?.waiting ?? 0;
    const seconds = metrics.meanCheckSeconds() * (1 + waiting / Math.max(1, capacity ?? 1));
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
  }

  /** 503 when the data folder has less room than the operator keeps free. */
  private async checkStorage(caller: Caller): Promise<void> {
    const { store, minFreeBytes, metrics } = this.options;
    if (minFreeBytes <= 0) return;
    if (!this.free || Date.now() - this.free.at > FREE_SPACE_TTL_MS) this.free = { at: Date.now(), bytes: store.freeBytes() };
    const bytes = await this.free.bytes;
    if (bytes !== null && bytes < minFreeBytes) {
      metrics.rejectedSubmission('unavailable', caller.tenant);
      throw new Problem('storage-full', `The data folder has ${grouped(bytes)} bytes free, less than the ${grouped(minFreeBytes)} this server keeps free; retry later.`, {
        headers: { 'Retry-After': '60' },
      });
    }
  }
}

/** The value, or null when it takes longer than `ms` or fails. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise.catch(() => null), new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]).finally(() => clearTimeout(timer));
}
