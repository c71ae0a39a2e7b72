/**
 * The record lock and run lease of a fleet, in Redis: `SET key token NX PX ttl` to take, a script
 * that deletes (or extends) the key only while it still holds this holder's token. A holder that
 * dies lets its key expire; the lock is short (a record write), the lease is renewed while a check
 * runs.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RecordLockUnavailableError, type RecordLock, type RunLease } from '../jobs/record-lock.js';

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/** How long a record lock is held at most (a holder that dies frees it after this). */
const LOCK_TTL_MS = 30_000;
/** How long a taker waits for a record lock held by another process before it gives up. */
const LOCK_WAIT_MS = 15_000;
/** How long one command to Redis may take before Redis counts as unreachable. */
const COMMAND_MS = 2_000;

/**
 * @example
 * const lock = new RedisRecordLock(redis, 'bull:print-preflight');
 * await lock.run(checkId, () => store.writeRecord(next));
 */
export class RedisRecordLock implements RecordLock {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async run<T>(id: string, fn: () => Promise<T>, options: { required?: boolean } = {}): Promise<T> {
    const key = `${this.prefix}:record-lock:${id}`;
    const token = randomBytes(12).toString('hex');
    const deadline = Date.now() + LOCK_WAIT_MS;
    let wait = 5;
    for (;;) {
      let taken: string | null;
      try {
        taken = await withTimeout(this.redis.set(key, token, 'PX', LOCK_TTL_MS, 'NX'), COMMAND_MS);
      } catch (error) {
        // Redis away: a decision waits for it (503); what a run finished is written all the same.
        if (options.required) throw new RecordLockUnavailableError(`the record of check ${id} cannot be locked: Redis does not answer (${(error as Error).message})`);
        return fn();
      }
      if (taken === 'OK') break;
      if (Date.now() >= deadline) throw new RecordLockUnavailableError(`the record of check ${id} stayed locked by another process for ${LOCK_WAIT_MS / 1000} s`);
      await sleep(wait * (0.5 + Math.random()));
      wait = Math.min(100, wait * 2);
    }
    try {
      return await fn();
    } finally {
      await withTimeout(this.redis.eval(RELEASE, 1, key, token), COMMAND_MS).catch(() => undefined);
    }
  }

  async lease(id: string, ttlMs: number): Promise<RunLease | null> {
    const key = `${this.prefix}:run-lease:${id}`;
    const token = randomBytes(12).toString('hex');
    let taken: string | null;
    try {
      taken = await withTimeout(this.redis.set(key, token, 'PX', ttlMs, 'NX'), COMMAND_MS);
    } catch {
      // Redis away: the run goes on (BullMQ gave it this job); its result is written only while the record is its own.
      return { renew: async () => true, release: async () => undefined };
    }
    if (taken !== 'OK') return null;
    return {
      renew: async () => Number(await withTimeout(this.redis.eval(EXTEND, 1, key, token, String(ttlMs)), COMMAND_MS).catch(() => 0)) === 1,
      release: async () => {
        await withTimeout(this.redis.eval(RELEASE, 1, key, token), COMMAND_MS).catch(() => undefined);
      },
    };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
