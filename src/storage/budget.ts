/**
 * How long a call to object storage keeps trying through an outage. Two budgets, by who waits:
 *
 * - work nobody waits on (a check's run, a batch file, a worker's job): {@link OUTAGE_BUDGET_MS},
 *   long enough to ride out a store that is away for a minute (a restart, a failover) — the
 *   design bound — with margin; past it the caller's own retry takes over (the job is retried by
 *   BullMQ with backoff, a run tries again under its lease);
 * - an HTTP request ({@link REQUEST_BUDGET_MS}): a client that waits is better told at once, with
 *   a 503 `storage-unavailable` and Retry-After, than kept hanging for minutes.
 *
 * The budget travels with the async context (AsyncLocalStorage): the service runs each route
 * handler under the request budget, and a check's run under the outage budget wherever it was
 * started from.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Background work: a store away for up to this long is not noticed beyond the delay. */
export const OUTAGE_BUDGET_MS = 90_000;
/** A request being answered: the SDK's own quick retries, then a 503. */
export const REQUEST_BUDGET_MS = 2_000;

const current = new AsyncLocalStorage<number>();

/**
 * Runs `fn` with calls to object storage retried for at most `ms` through an outage.
 * @example
 * await withStorageBudget(REQUEST_BUDGET_MS, () => store.readRecord(id));
 */
export function withStorageBudget<T>(ms: number, fn: () => T): T {
  return current.run(ms, fn);
}

/** The budget of the calling context, or `fallback` outside any. */
export function storageBudgetMs(fallback: number): number {
  return current.getStore() ?? fallback;
}
