/**
 * A file's time budget: the worker time its tasks may use together, measured from the moment a
 * worker takes each task (never while it waits in the queue). One heavy file spends its own
 * budget and then stops; the files queued behind it are not charged for the wait.
 */
/** The worker time a file may use when the call does not say (flow/options.ts's `fileBudgetMs`): 5 min. */
export const DEFAULT_FILE_BUDGET_MS = 300_000;

export class TimeBudget {
  private spentMs = 0;
  private readonly running = new Map<number, number>();
  private nextId = 0;

  /**
   * @param totalMs worker time the file's tasks may use together, in ms
   * @param now the clock (injectable for tests)
   */
  constructor(
    readonly totalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Worker time left, counting the tasks running now; ≤ 0 when spent. */
  remainingMs(): number {
    const t = this.now();
    let spent = this.spentMs;
    for (const started of this.running.values()) spent += t - started;
    return this.totalMs - spent;
  }

  /** True when nothing is left: no further task of the file should start. */
  get spent(): boolean {
    return this.remainingMs() <= 0;
  }

  /** A task started on a worker; call the returned function when it ends (once). */
  start(): () => void {
    const id = this.nextId++;
    this.running.set(id, this.now());
    return () => {
      const started = this.running.get(id);
      if (started === undefined) return;
      this.running.delete(id);
      this.spentMs += this.now() - started;
    };
  }
}
