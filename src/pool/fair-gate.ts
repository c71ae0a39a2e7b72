/**
 * Which task goes to a worker next. Tasks wait here, not in piscina's first-come queue, and go on
 * three rules:
 * - **fair by lane**: a lane is whoever the work is for (a tenant of the service; one lane for a
 *   library caller). When a worker is free, the next task comes from the lane with the fewest tasks
 *   running, among equals the one served longest ago (round robin), its oldest task first: a lane's
 *   running tasks are bounded by its share of the workers while another lane waits, and it takes
 *   every worker when it is alone;
 * - **a spare worker for a lane with nothing running**: when every worker is busy with other lanes'
 *   tasks (a tenant's long fixes), a lane that has none running starts on one more worker at once
 *   instead of waiting for another's task to end. The machine is oversubscribed by one thread while
 *   that lasts, and a new tenant's check runs beside the others, not after them;
 * - **within the memory budget**: a task goes only when the memory every running task declared
 *   (its estimate from the file's structure) and its own stay within the budget, or when nothing
 *   runs (a task larger than the whole budget runs alone). Two wide pages are not decoded at once
 *   past the bound; the memory watchdog stays behind it for what no estimate foresaw.
 * The order is never skipped for a smaller task that would fit: a large task waits for room, it is
 * not starved by small ones.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const lanes = new AsyncLocalStorage<string>();

/**
 * Runs `fn` with every pool task it starts (directly or through the calls it makes) in `lane`.
 * @example
 * await inPoolLane(caller.tenant, () => preflight(bytes, target, { pool }));
 */
export function inPoolLane<T>(lane: string, fn: () => T): T {
  return lanes.run(lane, fn);
}

/** The lane of the calling context ('' outside any). */
export function currentPoolLane(): string {
  return lanes.getStore() ?? '';
}

interface Waiter {
  lane: string;
  estimate: number;
  seq: number;
  go: () => void;
}

/** Thrown to a task whose signal aborted while it waited. */
export class GateAborted extends Error {
  override readonly name = 'GateAborted';
}

export class FairGate {
  private readonly waiting: Waiter[] = [];
  /** Workers beyond `slots` that only a lane with nothing running may take. */
  private readonly spare: number;
  private readonly runningIn = new Map<string, number>();
  /** When each lane with work was last given a worker (a dispatch count); forgotten when it has none. */
  private readonly lastServed = new Map<string, number>();
  private dispatched = 0;
  private running = 0;
  private runningBytes = 0;
  private seq = 0;

  constructor(
    /** Tasks that run at once (the pool's workers). */
    private readonly slots: number,
    /** Memory the running tasks' estimates may add up to, in bytes (Infinity: no bound). */
    private readonly memoryBytes: number,
    options: { spare?: number } = {},
  ) {
    this.spare = Math.max(0, options.spare ?? 0);
  }

  /** Tasks waiting for a worker. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Waits for the task's turn; resolves with the function that gives its place back (call it
   * once, when the task has ended). Rejects with {@link GateAborted} if `signal` aborts first.
   */
  enter(lane: string, estimate: number, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        lane,
        estimate: Math.max(0, estimate),
        seq: this.seq++,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.running--;
            this.runningBytes -= waiter.estimate;
            const n = (this.runningIn.get(lane) ?? 1) - 1;
            if (n) this.runningIn.set(lane, n);
            else {
              this.runningIn.delete(lane);
              if (!this.waiting.some((w) => w.lane === lane)) this.lastServed.delete(lane);
            }
            this.pump();
          });
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new GateAborted('aborted while waiting for a worker'));
        this.pump();
      };
      if (signal?.aborted) return reject(new GateAborted('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.slots + this.spare && this.waiting.length) {
      const next = this.next();
      // The spare worker is for a lane with nothing running.
      if (this.running >= this.slots && this.runningIn.has(next.lane)) return;
      if (this.running > 0 && this.runningBytes + next.estimate > this.memoryBytes) return;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.running++;
      this.runningBytes += next.estimate;
      this.runningIn.set(next.lane, (this.runningIn.get(next.lane) ?? 0) + 1);
      this.lastServed.set(next.lane, this.dispatched++);
      next.go();
    }
  }

  /** The oldest task of the lane with the fewest tasks running, among equals the one served longest ago. */
  private next(): Waiter {
    let best: Waiter | undefined;
    let bestRunning = 0;
    let bestServed = 0;
    // `waiting` is in arrival order: the first task seen of a lane is its oldest.
    for (const w of this.waiting) {
      const r = this.runningIn.get(w.lane) ?? 0;
      const served = this.lastServed.get(w.lane) ?? -1;
      if (!best || r < bestRunning || (r === bestRunning && served < bestServed)) {
        best = w;
        bestRunning = r;
        bestServed = served;
      }
    }
    return best!;
  }
}
