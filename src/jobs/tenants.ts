/**
 * Per-tenant accounting: what each tenant has queued and running, and how many submissions it may
 * still make this minute. The server admits work against it (429 past a tenant's bounds), and
 * whatever runs checks (the embedded queue, a fleet worker) takes a running place from it, so one
 * tenant cannot fill the queue or hold every worker.
 *
 * Members are check ids, or tokens: a submission still being read (`r:…`), a source of an order
 * draft (`d:…`). In-process here ({@link MemoryLedger}); the fleet keeps the same ledger in Redis,
 * shared by every server and worker.
 */
import { EventEmitter } from 'node:events';

export interface TenantLoad {
  /** Accepted and waiting for a run (checks, draft sources, submissions being read). */
  queued: number;
  /** Running now. */
  running: number;
}

export type TenantAdmission = { ok: true } | { ok: false; queued: number };

export interface TenantLedger {
  /**
   * Adds `members` to the tenant's queued ones if its queued count stays within `maxQueued`
   * (0: no bound); all or none.
   */
  admit(tenant: string, members: readonly string[], maxQueued: number): Promise<TenantAdmission>;
  /** A queued member under another name (a submission's reservation becoming its check). */
  rename(tenant: string, from: string, to: string): Promise<void>;
  /** Queued again, whatever the bound (a run put back, a restart that found it queued). */
  requeue(tenant: string, member: string): Promise<void>;
  /**
   * Moves a member from queued to running when the tenant runs fewer than `maxRunning` (0: no
   * bound) and, first come first run, no older member of the tenant waits for the free places
   * (submissions still being read do not count). The place lasts `leaseMs` unless renewed, so a
   * process that dies does not keep it. Resolves true when the member runs (also when it already did).
   */
  startRun(tenant: string, member: string, maxRunning: number, leaseMs: number): Promise<boolean>;
  /** How many of the tenant's queued members are older than `member` (0 when it is not queued). */
  ahead(tenant: string, member: string): Promise<number>;
  renew(tenant: string, member: string, leaseMs: number): Promise<void>;
  /** Removes members wherever they are (finished, refused, deleted). */
  remove(tenant: string, members: readonly string[]): Promise<void>;
  /**
   * Takes `cost` submissions from the tenant's allowance of `perMinute` (a bucket refilled
   * continuously; 0: no bound). Resolves to 0 when taken, else the milliseconds until it could be.
   */
  take(tenant: string, perMinute: number, cost: number): Promise<number>;
  load(tenant: string): Promise<TenantLoad>;
  /** Every tenant with something queued or running. */
  loads(): Promise<Map<string, TenantLoad>>;
  /** Called when this process frees a running place (a waiting draft source may take it). */
  onFreed(listener: () => void): () => void;
}

interface Book {
  queued: Map<string, number>;
  /** member → lease end (ms). */
  running: Map<string, number>;
  bucket: { tokens: number; at: number } | null;
}

/**
 * The ledger of one process (the embedded queue).
 * @example
 * const ledger = new MemoryLedger();
 * if ((await ledger.admit('acme', [checkId], 200)).ok) queue.enqueue(job);
 */
export class MemoryLedger implements TenantLedger {
  private readonly books = new Map<string, Book>();
  private readonly events = new EventEmitter<{ freed: [] }>();

  constructor(private readonly now: () => number = Date.now) {
    this.events.setMaxListeners(0);
  }

  async admit(tenant: string, members: readonly string[], maxQueued: number): Promise<TenantAdmission> {
    const book = this.book(tenant);
    const fresh = members.filter((m) => !book.queued.has(m));
    if (maxQueued > 0 && book.queued.size + fresh.length > maxQueued) return { ok: false, queued: book.queued.size };
    for (const m of fresh) book.queued.set(m, this.now());
    return { ok: true };
  }

  async rename(tenant: string, from: string, to: string): Promise<void> {
    const book = this.book(tenant);
    if (!book.queued.delete(from)) return;
    book.queued.set(to, this.now());
  }

  async requeue(tenant: string, member: string): Promise<void> {
    const book = this.book(tenant);
    if (book.running.delete(member)) this.events.emit('freed');
    book.queued.set(member, this.now());
  }

  /** {@link startRun} without waiting: the embedded queue decides within one turn of the event loop. */
  startRunNow(tenant: string, member: string, maxRunning: number, leaseMs: number): boolean {
    const book = this.book(tenant);
    const now = this.now();
    for (const [m, until] of book.running) if (until <= now) book.running.delete(m);
    if (maxRunning > 0 && !book.running.has(member)) {
      const free = maxRunning - book.running.size;
      if (free <= 0 || !this.amongOldest(book, member, free)) return false;
    }
    book.running.set(member, now + leaseMs);
    book.queued.delete(member);
    return true;
  }

  async startRun(tenant: string, member: string, maxRunning: number, leaseMs: number): Promise<boolean> {
    return this.startRunNow(tenant, member, maxRunning, leaseMs);
  }

  async ahead(tenant: string, member: string): Promise<number> {
    let n = 0;
    for (const m of this.books.get(tenant)?.queued.keys() ?? []) {
      if (m === member) return n;
      n++;
    }
    return 0;
  }

  /** Whether `member` is among the `free` oldest queued members that wait for a place (or not queued at all). */
  private amongOldest(book: Book, member: string, free: number): boolean {
    if (!book.queued.has(member)) return true;
    let ahead = 0;
    // Map order is the order members were queued in.
    for (const m of book.queued.keys()) {
      if (m === member) return true;
      if (!m.startsWith('r:') && ++ahead >= free) return false;
    }
    return true;
  }

  async renew(tenant: string, member: string, leaseMs: number): Promise<void> {
    const book = this.books.get(tenant);
    if (book?.running.has(member)) book.running.set(member, this.now() + leaseMs);
  }

  async remove(tenant: string, members: readonly string[]): Promise<void> {
    this.removeNow(tenant, members);
  }

  removeNow(tenant: string, members: readonly string[]): void {
    const book = this.books.get(tenant);
    if (!book) return;
    let freed = false;
    for (const m of members) {
      book.queued.delete(m);
      if (book.running.delete(m)) freed = true;
    }
    if (!book.queued.size && !book.running.size && !book.bucket) this.books.delete(tenant);
    if (freed) this.events.emit('freed');
  }

  async take(tenant: string, perMinute: number, cost: number): Promise<number> {
    if (perMinute <= 0) return 0;
    const book = this.book(tenant);
    const now = this.now();
    const rate = perMinute / 60_000;
    const last = book.bucket ?? { tokens: perMinute, at: now };
    const tokens = Math.min(perMinute, last.tokens + (now - last.at) * rate);
    const need = Math.min(cost, perMinute);
    if (tokens < need) {
      book.bucket = { tokens, at: now };
      return Math.ceil((need - tokens) / rate);
    }
    book.bucket = { tokens: tokens - need, at: now };
    return 0;
  }

  async load(tenant: string): Promise<TenantLoad> {
    return this.loadNow(tenant);
  }

  loadNow(tenant: string): TenantLoad {
    const book = this.books.get(tenant);
    if (!book) return { queued: 0, running: 0 };
    const now = this.now();
    let running = 0;
    for (const until of book.running.values()) if (until > now) running++;
    return { queued: book.queued.size, running };
  }

  async loads(): Promise<Map<string, TenantLoad>> {
    const out = new Map<string, TenantLoad>();
    for (const tenant of this.books.keys()) {
      const load = this.loadNow(tenant);
      if (load.queued || load.running) out.set(tenant, load);
    }
    return out;
  }

  onFreed(listener: () => void): () => void {
    this.events.on('freed', listener);
    return () => this.events.off('freed', listener);
  }

  private book(tenant: string): Book {
    let book = this.books.get(tenant);
    if (!book) this.books.set(tenant, (book = { queued: new Map(), running: new Map(), bucket: null }));
    return book;
  }
}

/** How long a running place lasts without renewal: a process that died frees it after this. */
export const RUN_LEASE_MS = 60_000;

/**
 * Waits for a running place of `tenant` (checked when this process frees one, and every
 * `pollMs`), runs `task`, keeps the place renewed, and frees it. Rejects with `signal`'s reason.
 */
export async function withRunningPlace<T>(
  ledger: TenantLedger,
  place: { tenant: string; member: string; maxRunning: number },
  task: () => Promise<T>,
  { signal, pollMs = 500, leaseMs = RUN_LEASE_MS }: { signal?: AbortSignal; pollMs?: number; leaseMs?: number } = {},
): Promise<T> {
  const { tenant, member, maxRunning } = place;
  while (!(await ledger.startRun(tenant, member, maxRunning, leaseMs))) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      const off = ledger.onFreed(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  const renewal = setInterval(() => void ledger.renew(tenant, member, leaseMs).catch(() => undefined), leaseMs / 3);
  renewal.unref();
  try {
    return await task();
  } finally {
    clearInterval(renewal);
    await ledger.remove(tenant, [member]).catch(() => undefined);
  }
}
