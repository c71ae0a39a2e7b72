/**
 * A file's structure is read once per check. The command line starts the read in the pool before it
 * loads the profiles and the checks (flow/structure-read.ts); the check takes that read over when it
 * was started under the settings the run resolved, and reads again when not — with the same report.
 * A spy on the pool's inspect counts the reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { checkRun } from '../../../src/flow/check.js';
import { resolveRun } from '../../../src/flow/run.js';
import { inspectOptionsOf, startStructureRead } from '../../../src/flow/structure-read.js';
import { main } from '../../../src/cli/main.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { MAX_RENDER_IMAGE_PIXELS } from '../../../src/raster/budget.js';
import type { Report } from '../../../src/report/schema.js';
import { CORPUS } from '../../service/harness.js';

const FILE = join(CORPUS, 'qpdf-tshirt-M-sleeves-first.pdf');
const pool = new PreflightPool({ maxThreads: 1 });
afterAll(() => pool.destroy());
afterEach(() => vi.restoreAllMocks());

/** The report without its clock. */
const timeless = (r: Report) => ({ ...r, timings: undefined });

describe('a structure read started early', () => {
  it('command line: check reads the structure once, the read it started before loading the profiles', async () => {
    const inspect = vi.spyOn(PreflightPool.prototype, 'inspect');
    const out: string[] = [];
    const io = { stdout: (s: string) => void out.push(s), stderr: () => undefined, isTTY: false };
    for (const extra of [[], ['--file-budget', '20'], ['--decode-budget-mb', '256', '--workers', '1']]) {
      inspect.mockClear();
      out.length = 0;
      expect(await main(['check', FILE, '--sku', 'T-SHIRT-M', '--no-raster', '--json', ...extra], { ...io }), extra.join(' ')).toBe(1);
      expect(inspect.mock.calls.length, extra.join(' ')).toBe(1);
      expect(JSON.parse(out.join('')).file.path).toBe(FILE);
    }
  });

  it('a read under other settings is not taken over: the check reads again, to the same report', async () => {
    const run = await resolveRun({ sku: 'T-SHIRT-M' }, { pool, raster: false });
    const plain = (await checkRun(FILE, run)).report;
    const inspect = vi.spyOn(pool, 'inspect');
    const bytes = new Uint8Array(readFileSync(FILE));
    const options = inspectOptionsOf(pool.decodeLimits, MAX_RENDER_IMAGE_PIXELS);
    const same = startStructureRead(bytes, { executor: pool, options, fileBudgetMs: run.options.fileBudgetMs });
    const taken = (await checkRun(FILE, run, Promise.resolve(same))).report;
    expect(inspect.mock.calls.length).toBe(1);
    expect(timeless(taken)).toEqual(timeless(plain));

    inspect.mockClear();
    const other = startStructureRead(bytes, { executor: pool, options, fileBudgetMs: run.options.fileBudgetMs - 1 });
    const again = (await checkRun(FILE, run, Promise.resolve(other))).report;
    expect(inspect.mock.calls.length).toBe(2);
    expect(timeless(again)).toEqual(timeless(plain));
    await other.result;
  });

  it('a file that cannot be read fails the check as before, and the read nobody took leaves no unhandled rejection', async () => {
    const errors: string[] = [];
    const io = { stdout: () => undefined, stderr: (s: string) => void errors.push(s), isTTY: false };
    const rejected = vi.fn();
    process.on('unhandledRejection', rejected);
    try {
      expect(await main(['check', join(CORPUS, 'no-such-file.pdf'), '--sku', 'T-SHIRT-M', '--no-raster'], io)).toBe(2);
      expect(errors.join('')).toMatch(/No such file/);
      // An unknown SKU is said first, as before: the file is never read further.
      errors.length = 0;
      expect(await main(['check', join(CORPUS, 'no-such-file.pdf'), '--sku', 'T-SHIRT-MX', '--no-raster'], io)).toBe(2);
      expect(errors.join('')).toMatch(/Unknown SKU "T-SHIRT-MX"/);
      await new Promise((ok) => setTimeout(ok, 50));
      expect(rejected).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', rejected);
    }
  });
});
