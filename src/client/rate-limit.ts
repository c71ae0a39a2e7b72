/**
 * Keeps requests under the service's limit (30 per application per minute): a sliding window of
 * request times, shared by every client of one application key, which also obeys the server's
 * X-RateLimit-Remaining / X-RateLimit-Limit headers when they say fewer remain.
 * @example
 * import { RateLimiter } from 'print-preflight/order-service';
 * const limiter = new RateLimiter(30, 60_000);
 * await limiter.acquire(); // resolves when a request may go
 */
export class RateLimiter {
  private readonly times: number[] = [];
  private serverRemaining: number | null = null;
  private serverSeenAt = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Resolves when one more request may be sent; requests leave in the order they asked. */
  acquire(): Promise<void> {
    const turn = this.queue.then(() => this.waitForSlot());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      const t = this.now();
      while (this.times.length && this.times[0]! <= t - this.windowMs) this.times.shift();
      const serverSaysWait = this.serverRemaining !== null && this.serverRemaining <= 0 && t - this.serverSeenAt < this.windowMs;
      if (this.times.length < this.limit && !serverSaysWait) {
        this.times.push(t);
        if (this.serverRemaining !== null) this.serverRemaining--;
        return;
      }
      const until = serverSaysWait ? this.serverSeenAt + this.windowMs : this.times[0]! + this.windowMs;
      await this.sleep(Math.max(1, until - t));
      if (serverSaysWait) this.serverRemaining = null;
    }
  }

  /** Learns from a response's X-RateLimit-Remaining header. */
  observe(remaining: number | null): void {
    if (remaining === null || !Number.isFinite(remaining)) return;
    this.serverRemaining = remaining;
    this.serverSeenAt = this.now();
  }

  /** How many requests are in the current window. */
  get inWindow(): number {
    const t = this.now();
    return this.times.filter((x) => x > t - this.windowMs).length;
  }
}

const shared = new Map<string, RateLimiter>();

/** The limiter of one application key (several clients of one application share its limit). */
export function limiterFor(applicationKey: string, limit: number, windowMs: number): RateLimiter {
  const key = `${applicationKey}\u0000${limit}\u0000${windowMs}`;
  let l = shared.get(key);
  if (!l) shared.set(key, (l = new RateLimiter(limit, windowMs)));
  return l;
}
