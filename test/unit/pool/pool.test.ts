import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, PreflightError } from '../../../src/errors.js';
import { TimeBudget } from '../../../src/pool/budget.js';
import { failedOrAnswer, PreflightPool, renderResultOf, TaskFailure } from '../../../src/pool/pool.js';
import { preflight } from '../../../src/flow/preflight.js';
import handle from '../../../src/pool/worker-main.js';
import { heavyPdf, manyNumbersPdf } from '../../helpers/heavy-pdf.js';

const good = 'test/corpus/files/reportlab-tshirt-M-exact.pdf';
const stable = (r: { timings?: unknown }) => ({ ...r, timings: undefined });

describe('PreflightPool options', () => {
  it('sizes itself from os.availableParallelism() by default', async () => {
    const pool = new PreflightPool();
    expect(pool.threads).toBe(availableParallelism());
    expect(pool.options).toMatchObject({ taskTimeoutMs: 60_000, maxWorkerMemoryMb: 1024, maxWorkerYoungGenerationMb: 16, idleTimeoutMs: 5_000 });
    await pool.destroy();
  });

  it('starts each worker with the young generation and heap cap asked for, as Node reports them', async () => {
    const pool = new PreflightPool({ maxThreads: 1, maxWorkerMemoryMb: 256, maxWorkerYoungGenerationMb: 8 });
    try {
      pool.warm(1);
      const { piscina } = pool as unknown as { piscina: { threads: { resourceLimits?: { maxYoungGenerationSizeMb?: number; maxOldGenerationSizeMb?: number } }[] } };
      await vi.waitFor(() => expect(piscina.threads.length).toBeGreaterThan(0), { timeout: 20_000 });
      await vi.waitFor(() => expect(piscina.threads[0]!.resourceLimits).toMatchObject({ maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }), { timeout: 20_000 });
    } finally {
      await pool.destroy();
    }
  });

  it.each([
    [{ maxThreads: 0 }, /maxThreads/],
    [{ maxThreads: 1.5 }, /maxThreads/],
    [{ taskTimeoutMs: -1 }, /taskTimeoutMs/],
    [{ maxWorkerMemoryMb: 8 }, /maxWorkerMemoryMb/],
    [{ maxWorkerYoungGenerationMb: 0 }, /maxWorkerYoungGenerationMb/],
    [{ idleTimeoutMs: 'soon' }, /idleTimeoutMs/],
    [{ threads: 2 }, /threads/],
  ])('rejects %j', (options, message) => {
    expect(() => new PreflightPool(options as never)).toThrow(InvalidArgumentError);
    expect(() => new PreflightPool(options as never)).toThrow(message);
  });
});

describe('the pool survives what kills a task', () => {
  // A generous task limit: on a loaded machine the out-of-memory page must still reach its memory
  // ceiling before any clock stops it (the timeout test sets its own 1 ms limit per call).
  const pool = new PreflightPool({ maxThreads: 2, maxWorkerMemoryMb: 64, taskTimeoutMs: 600_000 });
  afterAll(() => pool.destroy());

  it('gives a timed-out file a pdf-timeout finding while another file in the same pool passes', async () => {
    const [slow, fine] = await Promise.all([preflight(good, { sku: 'T-SHIRT-M' }, { pool, timeoutMs: 1 }), preflight(good, { sku: 'T-SHIRT-M' }, { pool })]);
    expect(slow.verdict).toBe('fail');
    expect(slow.findings.map((f) => f.code)).toContain('pdf-timeout');
    expect(fine.verdict).toBe('pass');
  });

  // A page of 2 million fills ran a 64 MB worker out of memory while pdf.js drew it; the render-cost
  // screen now refuses such a page before any renderer sees it (test/hostile), so the file that
  // kills the task here is one whose structure is millions of objects, each array within the
  // parser's bounds.
  it('gives a file that runs a worker out of memory a pdf-too-complex finding, and goes on', async () => {
    const [heavy, fine] = await Promise.all([
      preflight(manyNumbersPdf(900_000, 4), { sku: 'TANKTOP-M' }, { pool, timeoutMs: 600_000, fileBudgetMs: 600_000 }),
      preflight(good, { sku: 'T-SHIRT-M' }, { pool }),
    ]);
    const finding = heavy.findings.find((f) => f.code === 'pdf-too-complex')!;
    expect(finding).toMatchObject({ severity: 'error' });
    expect(finding.message).toMatch(/ran out of memory/);
    expect(fine.verdict).toBe('pass');
    // And the pool still works afterwards.
    expect((await preflight(good, { sku: 'T-SHIRT-M' }, { pool })).verdict).toBe('pass');
  }, 900_000);

  it('gives the same report in the pool and in the calling thread', async () => {
    const a = await preflight(good, { sku: 'T-SHIRT-M' }, { pool });
    const b = await preflight(good, { sku: 'T-SHIRT-M' }, { pool: false });
    expect(stable(b)).toEqual(stable(a));
  });

  it('rejects an aborted call with ERR_ABORTED', async () => {
    const controller = new AbortController();
    const call = preflight(good, { sku: 'T-SHIRT-M' }, { pool, signal: controller.signal });
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreflightError);
    expect((error as PreflightError).code).toBe('ERR_ABORTED');
  });
});

describe('worker messages', () => {
  it.each([[{ kind: 'inspect', docId: 'x', bytes: new ArrayBuffer(4) }], [{ kind: 'render', docId: 'x', bytes: new SharedArrayBuffer(4), page: 0 }], [{ kind: 'format-disk' }]])(
    'the worker refuses a malformed task %#, answering the failure (an error thrown in a worker loses its class crossing over)',
    async (task) => {
      const answer = await handle(task);
      expect(answer).toEqual({ taskFailed: expect.stringMatching(/\S/) });
      expect(() => failedOrAnswer(answer)).toThrow(TaskFailure);
    },
  );

  it('a failure answered is a failed TaskFailure; a decline keeps its kind; an answer passes', () => {
    const failed = (() => {
      try {
        failedOrAnswer({ taskFailed: 'no such page' });
      } catch (error) {
        return error;
      }
    })();
    expect(failed).toMatchObject({ reason: 'failed', message: 'no such page', declined: null });
    expect(() => renderResultOf({ declined: 'image-unreadable', detail: 'its image could not be read' })).toThrow(expect.objectContaining({ reason: 'failed', declined: 'image-unreadable' }));
    const raster = { facts: { index: 1 }, preview: null } as unknown as Parameters<typeof renderResultOf>[0];
    expect(renderResultOf(raster)).toBe(raster);
    expect(failedOrAnswer(raster)).toBe(raster);
  });
});

describe('time limits measure the task, not the queue', () => {
  it('TimeBudget counts finished and running tasks, never the wait before them', () => {
    let t = 0;
    const budget = new TimeBudget(1000, () => t);
    t = 5_000; // time in a queue costs nothing
    expect(budget.remainingMs()).toBe(1000);
    const stopA = budget.start();
    const stopB = budget.start();
    t += 300;
    expect(budget.remainingMs()).toBe(400); // two tasks running for 300 ms each
    stopA();
    stopA(); // a second stop is ignored
    t += 100;
    expect(budget.remainingMs()).toBe(300);
    stopB();
    t += 10_000;
    expect(budget.remainingMs()).toBe(300);
    expect(budget.spent).toBe(false);
    const stopC = budget.start();
    t += 300;
    expect(budget.spent).toBe(true);
    stopC();
  });

  it('does not time out a page that waited in the queue longer than its limit', async () => {
    const pool = new PreflightPool({ maxThreads: 1 });
    try {
      const heavy = toShared(heavyPdf(600_000));
      const light = toShared(new Uint8Array(readFileSync(good)));
      const task = { maxPx: 600, format: null, plan: null, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 };
      const started = performance.now();
      const slow = pool.render({ ...task, docId: 'heavy', bytes: heavy, page: 1 });
      // Queued behind the heavy page (~10 s here): under a clock started at submission it would
      // time out. The limit leaves the heavy page a margin on a fast machine and the light page
      // (~0.1 s alone) one on a slow or loaded one (2.5 s was passed once at a load average of 8).
      const limitMs = 6_000;
      const quick = pool.render({ ...task, docId: 'light', bytes: light, page: 1 }, undefined, limitMs);
      const slowResult = await slow;
      const waited = performance.now() - started;
      const quickResult = await quick;
      expect(waited, 'the heavy page must keep the only worker busy longer than the light page’s limit').toBeGreaterThan(limitMs);
      expect(slowResult.facts.index).toBe(1);
      expect(quickResult.facts.widthPx).toBeGreaterThan(0);
    } finally {
      await pool.destroy();
    }
  }, 120_000);

  it('stops a file that uses up its time budget, and says so', async () => {
    const pool = new PreflightPool({ maxThreads: 2 });
    try {
      const report = await preflight(heavyPdf(400_000), { sku: 'TANKTOP-M' }, { pool, fileBudgetMs: 500 });
      const finding = report.findings.find((f) => f.code === 'pdf-timeout');
      expect(finding?.message).toMatch(/time budget of 0.5 s/);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});

function toShared(bytes: Uint8Array): SharedArrayBuffer {
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

describe('the memory watchdog (issue 28)', () => {
  it('stops the task it blames when the process passes its limit: the file gets a finding, the pool goes on', async () => {
    // A limit every process is past: the first look stops whatever runs longer than a moment.
    const pool = new PreflightPool({ maxThreads: 1, maxRssMb: 1 });
    try {
      const heavy = heavyPdf(60_000);
      const first = await preflight(heavy, { sku: 'T-SHIRT-M' }, { pool, path: 'heavy.pdf' });
      const said = first.findings
        .filter((f) => f.code === 'pdf-too-complex')
        .map((f) => f.message)
        .join(' ');
      expect(said).toMatch(/stopped by the memory watchdog: the process used \d+ MB, more than its 1 MB \(maxRssMb\)/);
      // The worker it ended was replaced: the next file gets its report too. The watchdog waits
      // a second after a stop for the memory to go before it judges again (WATCHDOG_SETTLE_MS):
      // a second file quicker than that would end before its first look.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const second = await preflight(heavy, { sku: 'T-SHIRT-M' }, { pool, path: 'heavy-2.pdf' });
      expect(second.findings.some((f) => f.code === 'pdf-too-complex')).toBe(true);
    } finally {
      await pool.destroy();
    }
  }, 120_000);

  it('is off with 0, and defaults to 85 % of the memory the process may use', async () => {
    const off = new PreflightPool({ maxThreads: 1, maxRssMb: 0 });
    const report = await preflight(good, { sku: 'T-SHIRT-M' }, { pool: off });
    expect(report.verdict).toBe('pass');
    await off.destroy();
    const byDefault = new PreflightPool();
    expect(byDefault.options.maxRssMb).toBeGreaterThan(0);
    expect(byDefault.options.maxRssMb).toBeLessThanOrEqual(Math.floor((totalmem() * 0.85) / 1048576));
    await byDefault.destroy();
  });
});

describe('a destroyed pool', () => {
  it('refuses a task with reason closed (no fault of its input) instead of starting workers again', async () => {
    const pool = new PreflightPool({ maxThreads: 1 });
    await pool.destroy();
    const error = await pool.probeImage(new SharedArrayBuffer(8), 100).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailure);
    expect(error).toMatchObject({ reason: 'closed', message: 'the worker pool is closed' });
  });
});
