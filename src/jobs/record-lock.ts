/**
 * Serialising what is decided about one check across every process that shares a data folder: a
 * record's read-change-write, an approval and the fixed file's state together, and who runs a check.
 * The embedded server is one process: a lock and a lease in memory do. A fleet (`serve --redis` and
 * workers on one folder) takes them in Redis (fleet/record-lock.ts), so two servers deciding the
 * same check at the same moment are one after the other, and a check runs in one place at a time.
 */

/** A claim on running a check, held while it runs and renewed; gone when its holder dies. */
export interface RunLease {
  /** Keeps the lease for another `ttlMs`; false when it was lost (expired and taken by another). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export interface RecordLock {
  /**
   * Runs `fn` while holding the lock of record `id` (no other holder, in any process). When the
   * lock's store cannot be reached, `required` (a decision) throws {@link RecordLockUnavailableError};
   * otherwise (a run's own result, a callback's record) `fn` runs under this process's lock alone:
   * a fleet whose Redis restarts still records what its workers finish.
   */
  run<T>(id: string, fn: () => Promise<T>, options?: { required?: boolean }): Promise<T>;
  /** Takes the run lease of check `id` for `ttlMs`, or null when another live run holds it. */
  lease(id: string, ttlMs: number): Promise<RunLease | null>;
}

/** Thrown when the lock cannot be had in time (Redis away): the service answers 503. */
export class RecordLockUnavailableError extends Error {
  readonly statusCode = 503;
  readonly code = 'queue-unavailable';
}

/**
 * The lock of one process: records changed one after another per id, and a lease per running check.
 * @example
 * const lock = new ProcessRecordLock();
 * await lock.run(id, async () => write(id));
 */
export class ProcessRecordLock implements RecordLock {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly leases = new Set<string>();

  run<T>(id: string, fn: () => Promise<T>, _options?: { required?: boolean }): Promise<T> {
    const before = this.chains.get(id) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.chains.set(id, tail);
    void tail.then(() => {
      if (this.chains.get(id) === tail) this.chains.delete(id);
    });
    return run;
  }

  async lease(id: string): Promise<RunLease | null> {
    if (this.leases.has(id)) return null;
    this.leases.add(id);
    let held = true;
    return {
      renew: async () => held,
      release: async () => {
        if (held) this.leases.delete(id);
        held = false;
      },
    };
  }
}
