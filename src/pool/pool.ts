/**
 * The piscina pool that inspects and rasterises PDFs. Tasks are per file (structure) and per page
 * (rendering), so one large file keeps every worker busy. Each task has a time limit and each
 * worker a heap cap; a task that times out, or a worker that crashes or runs out of memory, fails
 * only that task — the pool replaces the worker and goes on.
 *
 * A task's clock starts when a worker takes it (the worker says so first thing), not when it is
 * queued: a page that waits behind others is never charged for the wait. A file's tasks may also
 * share a {@link TimeBudget}, which caps the worker time the whole file uses.
 *
 * Tasks wait for a worker in the pool's own queue (fair-gate.ts): fair between lanes (the
 * service's tenants, {@link inPoolLane}) and within the memory the running tasks declared.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import type { Piscina } from 'piscina';
import { z } from 'zod';
import { parseOrThrow } from '../util/parse.js';
import type { TimeBudget } from './budget.js';
import { DEFAULT_DECODE_LIMITS } from '../pdf/decode-budget.js';
import { DecodeLimitsOverrideSchema, type DecodeLimits } from '../pdf/decode-limits.js';
import {
  ImageProbeSchema,
  InspectResultSchema,
  RenderAnswerSchema,
  TaskFailedSchema,
  TaskStartedSchema,
  type RenderAnswer,
  type RenderDecline,
  type InspectResult,
  type InspectTaskOptions,
  type RenderResult,
  type RenderTask,
  type TransformTask,
} from './tasks.js';
import { TransformAnswerSchema } from '../convert/plan.js';
import type { TransformAnswer } from '../convert/transform.js';
import type { ImageProbe } from '../raster/image-probe.js';
import { FairGate, GateAborted, currentPoolLane } from './fair-gate.js';
import { adoptEarlyThreads, startThreads, THREAD_DEFAULTS, warmThreads, type ThreadSettings } from './threads.js';

/**
 * Options of a {@link PreflightPool}: its threads, their memory cap, time limits and the decode limits
 * of every file it reads.
 * @example
 * import { PoolOptionsSchema } from 'print-preflight/schemas';
 * const options = PoolOptionsSchema.parse({ maxThreads: 2 });
 */
export const PoolOptionsSchema = z
  .object({
    /** Worker threads. Default: os.availableParallelism(). */
    maxThreads: z.number().int().min(1).max(256).optional(),
    /** Time limit of one task (a file's structure, or one page's raster), in ms. Default 60,000. */
    taskTimeoutMs: z.number().int().min(1).default(60_000),
    /** V8 heap cap of each worker, in MB. Default 1024 (a 500-page vector file renders within 256). */
    maxWorkerMemoryMb: z.number().int().min(64).default(THREAD_DEFAULTS.maxWorkerMemoryMb),
    /**
     * V8 young generation of each worker, in MB. A worker's garbage is mostly short-lived (one
     * page's operator list, one image's rows), and V8 sizes the young generation for a large heap by
     * default: 174 MB of heap held per worker on the real-world folder, against 53–62 MB at 8–16 MB
     * here, for the same CPU. Default 16.
     */
    maxWorkerYoungGenerationMb: z.number().int().min(1).max(1024).default(THREAD_DEFAULTS.maxWorkerYoungGenerationMb),
    /** Idle workers exit after this many ms. Default 5,000. */
    idleTimeoutMs: z.number().int().min(0).default(THREAD_DEFAULTS.idleTimeoutMs),
    /**
     * The decode budget of every file read in this pool (decode-budget.ts): the operator's limits.
     * A call may lower them (`decodeLimits` of preflight), never raise them. Default: the safe defaults.
     */
    decodeLimits: DecodeLimitsOverrideSchema.optional(),
    /**
     * Memory watchdog: when the process's resident memory passes this many MB, the running task
     * most likely to blame (the page whose images take most memory, else the newest task) is
     * stopped and its file gets a finding; the other tasks go on. A worker's heap cap does not see
     * native memory (images, canvases, WebAssembly), this does. 0 turns it off. Default: 85 % of
     * the machine's memory, or of the container's (cgroup) limit when it has one.
     */
    maxRssMb: z.number().int().min(0).optional(),
  })
  .strict();
export type PoolOptions = z.input<typeof PoolOptionsSchema>;

/** 85 % of the memory this process may use: its cgroup's limit when it has one, else the machine's. */
export function defaultMaxRssMb(): number {
  let limit = totalmem();
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const n = Number(readFileSync(file, 'utf8').trim());
      if (Number.isFinite(n) && n > 0 && n < limit) limit = n;
    } catch {
      // no such cgroup file
    }
  }
  return Math.floor((limit * 0.85) / (1024 * 1024));
}

/** How often the memory watchdog looks, and how long it waits after stopping a task for its memory to go. */
const WATCHDOG_MS = 200;
const WATCHDOG_SETTLE_MS = 1_000;

/** A task running on a worker, as the memory watchdog sees it. */
interface Running {
  /** Memory it may take, estimated from the file's structure (bytes). */
  estimate: number;
  startedAt: number;
  stop: AbortController;
}

/** Why a task did not produce a result. */
export class TaskFailure extends Error {
  constructor(
    /** `closed`: the pool was destroyed (before or while the task ran) — no fault of the task's input. */
    readonly reason: 'timeout' | 'crashed' | 'failed' | 'aborted' | 'closed',
    message: string,
    /** For a render that drew nothing by design: why (tasks.ts), for the caller to act on. */
    readonly declined: RenderDecline | null = null,
  ) {
    super(message);
  }
}

/** A task's answer, or the {@link TaskFailure} of a task that failed in the worker. */
export function failedOrAnswer(answer: unknown): unknown {
  const failed = TaskFailedSchema.safeParse(answer);
  if (failed.success) throw new TaskFailure('failed', failed.data.taskFailed);
  return answer;
}

/** A render task's answer as its raster, or the {@link TaskFailure} of its decline. */
export function renderResultOf(answer: RenderAnswer): RenderResult {
  if ('declined' in answer) throw new TaskFailure('failed', answer.detail, answer.declined);
  return answer;
}

/**
 * A pool of preflight workers.
 * @example
 * const pool = new PreflightPool({ maxThreads: 4 });
 * const report = await preflight('a.pdf', { sku: 'T-SHIRT-M' }, { pool });
 * await pool.destroy();
 */
export class PreflightPool {
  readonly options: z.output<typeof PoolOptionsSchema> & { maxThreads: number; maxRssMb: number };
  /** The decode budget of files read in this pool (the operator's limits). */
  readonly decodeLimits: DecodeLimits;
  private readonly piscina: Piscina;
  private readonly running = new Map<number, Running>();
  private watchdog: NodeJS.Timeout | undefined;
  private settleUntil = 0;
  /** The resident memory (MB) when the watchdog last stopped a task, for its message. */
  private stoppedAtMb = 0;
  /** Tasks submitted and not yet taken by a worker: their id → what to do when one takes them. */
  private readonly waiting = new Map<number, () => void>();
  private nextTaskId = 1;
  /** Workers being started by {@link warm}: tasks wait for them rather than start more. */
  private warming: Promise<unknown> | null = null;
  /** Which waiting task goes to a worker next: fair between lanes, within the memory budget. */
  private readonly gate: FairGate;
  /** Set by {@link destroy}: a task then fails `closed`, never starting workers again. */
  private closed = false;

  constructor(options: PoolOptions = {}) {
    const parsed = parseOrThrow(PoolOptionsSchema, options, 'Invalid pool options');
    this.options = { ...parsed, maxThreads: parsed.maxThreads ?? availableParallelism(), maxRssMb: parsed.maxRssMb ?? defaultMaxRssMb() };
    this.decodeLimits = { ...DEFAULT_DECODE_LIMITS, ...parsed.decodeLimits };
    // One spare worker, for a tenant with nothing running while others hold every worker.
    this.gate = new FairGate(this.options.maxThreads, this.options.maxRssMb ? this.options.maxRssMb * 1024 * 1024 : Number.POSITIVE_INFINITY, { spare: 1 });
    const threads: ThreadSettings = {
      maxThreads: this.options.maxThreads,
      idleTimeoutMs: this.options.idleTimeoutMs,
      maxWorkerMemoryMb: this.options.maxWorkerMemoryMb,
      maxWorkerYoungGenerationMb: this.options.maxWorkerYoungGenerationMb,
    };
    // The CLI may have started the first worker before this module loaded (threads.ts).
    const early = adoptEarlyThreads(threads);
    this.piscina = early?.piscina ?? startThreads(threads);
    if (early) this.trackWarming(early.warming);
    this.piscina.on('message', (message: unknown) => {
      const started = TaskStartedSchema.safeParse(message);
      if (started.success) this.waiting.get(started.data.taskStarted)?.();
    });
  }

  get threads(): number {
    return this.options.maxThreads;
  }

  /** Tasks a worker is running now (each within its time limit), and tasks waiting for a worker. */
  get runningTasks(): number {
    return this.running.size + this.waiting.size + this.gate.queued;
  }

  /**
   * Structural facts of a whole file, and the SHA-256 of its bytes.
   * @param timeoutMs this task's time limit, from the moment a worker takes it (default: the pool's)
   * @param budget the file's time budget, shared by all its tasks
   * @internal the library's flows call it; a user hands the pool to them (`{ pool }`)
   */
  async inspect(bytes: SharedArrayBuffer, docId: string, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget, options?: InspectTaskOptions): Promise<InspectResult> {
    // Parsing takes some multiple of the file's size; the watchdog's estimate.
    const result = await this.run({ kind: 'inspect', docId, bytes, ...(options ? { options } : {}) }, signal, timeoutMs, budget, bytes.byteLength * 8);
    const parsed = InspectResultSchema.safeParse(result);
    if (!parsed.success) throw new TaskFailure('failed', `a worker returned malformed facts: ${parsed.error.issues[0]?.message}`);
    return parsed.data as InspectResult;
  }

  /**
   * One page's raster facts and, when asked, its preview.
   * @internal the library's flows call it; a user hands the pool to them (`{ pool }`)
   */
  async render(task: Omit<RenderTask, 'kind'>, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget): Promise<RenderResult> {
    // pdf.js holds about 11 bytes per decoded image pixel at its peak, and the page's canvas.
    const estimate = task.largestImagePixels * 11 + task.maxPx * task.maxPx * 8;
    const result = await this.run({ kind: 'render', ...task }, signal, timeoutMs, budget, estimate);
    const parsed = RenderAnswerSchema.safeParse(result);
    if (!parsed.success) throw new TaskFailure('failed', `a worker returned a malformed raster: ${parsed.error.issues[0]?.message}`);
    return renderResultOf(parsed.data);
  }

  /**
   * A transform of a file (fix, reorder, assemble) in a worker, under the task's time limit, the
   * worker's heap cap and the memory watchdog. A timeout or crash rejects with a `TaskFailure`.
   * @internal the library's flows call it; a user hands the pool to them (`{ pool }`)
   */
  async transform(task: Omit<TransformTask, 'kind'>, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget): Promise<TransformAnswer> {
    // A transform holds the parsed file and what it writes: some multiple of the file's size.
    const result = await this.run({ kind: 'transform', ...task }, signal, timeoutMs, budget, task.bytes.byteLength * 12 + 64 * 1024 * 1024);
    const parsed = TransformAnswerSchema.safeParse(result);
    if (!parsed.success) throw new TaskFailure('failed', `a worker returned a malformed transform: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /**
   * An untrusted image's header size and, when neither side is over `maxSidePx`, whether it decodes
   * (to a thumbnail): the service's look at a layer image before it accepts it. A bad image is an
   * answer (`unreadable`), not a failure; a timeout or crash rejects with a `TaskFailure`.
   * @param bytes the image file, shared with the worker
   * @param maxSidePx the longest side decoded; a larger image is only measured from its header
   * @internal the service calls it
   */
  async probeImage(bytes: SharedArrayBuffer, maxSidePx: number, signal?: AbortSignal, timeoutMs?: number): Promise<ImageProbe> {
    // The file, and a thumbnail: a PNG or TIFF is decoded row by row (sequentialRead).
    const result = await this.run({ kind: 'probe-image', bytes, maxSidePx }, signal, timeoutMs, undefined, bytes.byteLength + 32 * 1024 * 1024);
    const parsed = ImageProbeSchema.safeParse(result);
    if (!parsed.success) throw new TaskFailure('failed', `a worker returned a malformed image probe: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  private async run(task: object, signal?: AbortSignal, timeoutMs = this.options.taskTimeoutMs, budget?: TimeBudget, estimate = 0): Promise<unknown> {
    if (this.closed) throw poolClosed();
    if (signal?.aborted) throw new TaskFailure('aborted', 'aborted');
    if (budget?.spent) throw budgetSpent(budget);
    // A task submitted while warm-up tasks still occupy starting workers would make piscina start
    // yet another worker, which then loads everything again for nothing.
    if (this.warming) await this.warming;
    let release: () => void;
    try {
      release = await this.gate.enter(currentPoolLane(), estimate, signal);
    } catch (error) {
      if (error instanceof GateAborted) throw new TaskFailure('aborted', 'aborted');
      throw error;
    }
    if (budget?.spent) {
      release();
      throw budgetSpent(budget);
    }
    const taskId = this.nextTaskId++;
    const timeout = new AbortController();
    const memory = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let stopBudget: (() => void) | undefined;
    let limitedByBudget = false;
    // The clock starts when a worker takes the task, never while it waits in the queue.
    this.waiting.set(taskId, () => {
      this.waiting.delete(taskId);
      let limit = timeoutMs;
      if (budget) {
        const left = budget.remainingMs();
        stopBudget = budget.start();
        if (left < limit) {
          limit = Math.max(0, left);
          limitedByBudget = true;
        }
      }
      timer = setTimeout(() => timeout.abort(), limit);
      this.running.set(taskId, { estimate, startedAt: performance.now(), stop: memory });
      this.watch();
    });
    const signals = [timeout.signal, memory.signal, ...(signal ? [signal] : [])];
    const combined = AbortSignal.any(signals);
    try {
      return failedOrAnswer(await this.piscina.run({ ...task, taskId }, { signal: combined }));
    } catch (error) {
      if (error instanceof TaskFailure) throw error;
      if (memory.signal.aborted) {
        throw new TaskFailure('crashed', `was stopped by the memory watchdog: the process used ${this.stoppedAtMb} MB, more than its ${this.options.maxRssMb} MB (maxRssMb)`);
      }
      if (timeout.signal.aborted) throw limitedByBudget && budget ? budgetSpent(budget) : new TaskFailure('timeout', `took longer than ${timeoutMs / 1000} s`);
      if (signal?.aborted) throw new TaskFailure('aborted', 'aborted');
      // Ended by destroy(), not by what it was given.
      if (this.closed) throw poolClosed();
      const e = error as NodeJS.ErrnoException;
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') throw new TaskFailure('crashed', `ran out of memory (worker heap cap ${this.options.maxWorkerMemoryMb} MB)`);
      // A task's own failure is answered (worker-main.ts); a throw is the worker stopping (it exited,
      // or was terminated) — or a task or answer that cannot be cloned across.
      if (e instanceof Error && e.name === 'DataCloneError') throw new TaskFailure('failed', e.message.split('\n')[0]!);
      throw new TaskFailure('crashed', `the worker stopped: ${e.message ?? String(error)}`);
    } finally {
      release();
      clearTimeout(timer);
      this.waiting.delete(taskId);
      this.running.delete(taskId);
      stopBudget?.();
    }
  }

  /**
   * The memory watchdog: while tasks run, the process's resident memory is sampled — when a task
   * starts and every WATCHDOG_MS after; past `maxRssMb`, the task with the largest estimate (the
   * newest among equals) is stopped — piscina ends its worker, which frees what the worker held —
   * and the watchdog waits a moment for the memory to go before it judges again. The look at the
   * start means no task, however short, runs unjudged while the process is past its limit.
   */
  private watch(): void {
    if (!this.options.maxRssMb) return;
    this.look();
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      if (this.running.size === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
        return;
      }
      this.look();
    }, WATCHDOG_MS);
    this.watchdog.unref();
  }

  /** One look of the watchdog: the process's memory against its limit, and a task stopped past it. */
  private look(): void {
    const now = performance.now();
    if (now < this.settleUntil) return;
    const rssMb = Math.round(process.memoryUsage.rss() / (1024 * 1024));
    if (rssMb <= this.options.maxRssMb) return;
    let victim: [number, Running] | undefined;
    for (const entry of this.running) {
      const [, r] = entry;
      if (!victim || r.estimate > victim[1].estimate || (r.estimate === victim[1].estimate && r.startedAt > victim[1].startedAt)) victim = entry;
    }
    if (!victim) return;
    this.running.delete(victim[0]);
    this.stoppedAtMb = rssMb;
    this.settleUntil = now + WATCHDOG_SETTLE_MS;
    victim[1].stop.abort();
  }

  /**
   * Starts workers, up to `count` (and the pool's size), without waiting for them: a caller that
   * knows work is coming lets their start-up overlap its own (reading a file's structure).
   */
  warm(count: number): void {
    if (this.closed) return;
    const wanted = Math.min(count, this.options.maxThreads);
    if (wanted <= this.piscina.threads.length) return;
    this.trackWarming(warmThreads(this.piscina, wanted));
  }

  /** Tasks wait for workers being started rather than make piscina start more. */
  private trackWarming(started: Promise<unknown>): void {
    const warming = started.finally(() => {
      if (this.warming === warming) this.warming = null;
    });
    this.warming = warming;
  }

  /** Stops every worker; a task given afterwards (or ended by it) fails with reason `closed`. */
  async destroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    await this.piscina.destroy();
  }
}

function poolClosed(): TaskFailure {
  return new TaskFailure('closed', 'the worker pool is closed');
}

function budgetSpent(budget: TimeBudget): TaskFailure {
  return new TaskFailure('timeout', `the file used up its time budget of ${budget.totalMs / 1000} s`);
}

let shared: PreflightPool | undefined;

/**
 * The process-wide pool used when no pool is given; its idle workers exit on their own.
 * @example
 * import { defaultPool } from 'print-preflight';
 * console.log(defaultPool().threads); // the threads every call without `pool` shares
 */
export function defaultPool(): PreflightPool {
  shared ??= new PreflightPool();
  return shared;
}

/**
 * Stops the process-wide pool (the CLI calls this before exiting).
 * @example
 * import { closeDefaultPool, preflight } from 'print-preflight';
 * const report = await preflight('design.pdf', { sku: 'T-SHIRT-M' });
 * await closeDefaultPool(); // a script then exits at once instead of waiting for idle workers
 */
export async function closeDefaultPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.destroy();
}
