import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, PreflightError } from '../../../src/errors.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { preflight } from '../../../src/preflight.js';
import handle from '../../../src/pool/worker-main.js';
import { heavyPdf } from '../../helpers/heavy-pdf.js';

const good = 'test/corpus/files/reportlab-tshirt-M-exact.pdf';
const stable = (r: { timings?: unknown }) => ({ ...r, timings: undefined });

describe('PreflightPool options', () => {
  it('sizes itself from os.availableParallelism() by default', async () => {
    const pool = new PreflightPool();
    expect(pool.threads).toBe(availableParallelism());
    expect(pool.options).toMatchObject({ taskTimeoutMs: 60_000, maxWorkerMemoryMb: 1024, idleTimeoutMs: 5_000 });
    await pool.destroy();
  });

  it.each([
    [{ maxThreads: 0 }, /maxThreads/],
    [{ maxThreads: 1.5 }, /maxThreads/],
    [{ taskTimeoutMs: -1 }, /taskTimeoutMs/],
    [{ maxWorkerMemoryMb: 8 }, /maxWorkerMemoryMb/],
    [{ idleTimeoutMs: 'soon' }, /idleTimeoutMs/],
    [{ threads: 2 }, /threads/],
  ])('rejects %j', (options, message) => {
    expect(() => new PreflightPool(options as never)).toThrow(InvalidArgumentError);
    expect(() => new PreflightPool(options as never)).toThrow(message);
  });
});

describe('the pool survives what kills a task', () => {
  const pool = new PreflightPool({ maxThreads: 2, maxWorkerMemoryMb: 64 });
  afterAll(() => pool.destroy());

  it('gives a timed-out file a pdf-timeout finding while another file in the same pool passes', async () => {
    const [slow, fine] = await Promise.all([
      preflight(good, { sku: 'T-SHIRT-M' }, { pool, timeoutMs: 1 }),
      preflight(good, { sku: 'T-SHIRT-M' }, { pool }),
    ]);
    expect(slow.verdict).toBe('fail');
    expect(slow.findings.map((f) => f.code)).toContain('pdf-timeout');
    expect(fine.verdict).toBe('pass');
  });

  it('gives a page that runs a worker out of memory a pdf-too-complex finding, and goes on', async () => {
    const [heavy, fine] = await Promise.all([
      preflight(heavyPdf(2_000_000), { sku: 'TANKTOP-M' }, { pool }),
      preflight(good, { sku: 'T-SHIRT-M' }, { pool }),
    ]);
    const finding = heavy.findings.find((f) => f.code === 'pdf-too-complex')!;
    expect(finding).toMatchObject({ severity: 'error', page: 1 });
    expect(finding.message).toMatch(/ran out of memory/);
    expect(fine.verdict).toBe('pass');
    // And the pool still works afterwards.
    expect((await preflight(good, { sku: 'T-SHIRT-M' }, { pool })).verdict).toBe('pass');
  }, 120_000);

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
  it.each([
    [{ kind: 'inspect', docId: 'x', bytes: new ArrayBuffer(4) }],
    [{ kind: 'render', docId: 'x', bytes: new SharedArrayBuffer(4), page: 0 }],
    [{ kind: 'format-disk' }],
  ])('the worker refuses a malformed task %#', async (task) => {
    await expect(handle(task)).rejects.toThrow();
  });
});
