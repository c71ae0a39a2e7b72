/**
 * No state survives a file (issue 27, item 1). pdf-lib kept every reference it ever made in one
 * module-wide Map: after a 6 KB file whose cross-reference stream declares /Size 300000000000000,
 * every later file read in the process failed with "Map maximum size exceeded". Here: that file is
 * read quickly and judged the same by `check` (its structure read in the CLI's own thread) and by
 * `batch` (in a worker); a good file read after it in the same process — with a pool and without —
 * gets the verdict it gets alone; the reference pool holds only the last file's references, and a
 * file naming more objects than the budget allows is refused before the pool grows past it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecodeBudget } from '../../src/pdf/decode-budget.js';
import { inspectPdf } from '../../src/pdf/inspect.js';
import { referencePoolSize } from '../../src/pdf/pdf-lib.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
// @ts-expect-error plain ESM helper without types
import { budgetCases } from './make-hostile.mjs';
// @ts-expect-error plain ESM helper without types
import { onePage } from './pdf-writer.mjs';

const GOOD = 'test/corpus/files/reportlab-tshirt-M-exact.pdf';
let bad: Uint8Array;
let pool: PreflightPool;
const codes = (r: Report) => [...new Set(r.findings.map((f) => f.code))].sort();

beforeAll(async () => {
  const cases = (await budgetCases(new Uint8Array())) as { name: string; bytes: Uint8Array }[];
  bad = cases.find((c) => c.name === 'xref-stream-size-3e14.pdf')!.bytes;
  pool = new PreflightPool({ maxThreads: 1 });
});
afterAll(() => pool.destroy());

/** A file whose catalog holds an array naming `n` distinct objects (none of them there). */
function manyReferences(n: number): Uint8Array {
  const refs = Array.from({ length: n }, (_, i) => `${i + 100} 0 R`).join(' ');
  return onePage({ catalogExtra: `/Junk [${refs}]` });
}

describe('a file that names an absurd number of objects', () => {
  it('is read in moments, and /Size is taken for what it is', async () => {
    expect(bad.length).toBeLessThan(8_000);
    const budget = new DecodeBudget();
    const facts = await inspectPdf(bad, { budget });
    expect(facts.pages).toHaveLength(1);
    expect(facts.problems.map((p) => p.kind)).toEqual(['repaired']);
    expect(facts.problems[0]!.detail).toMatch(/cross-reference stream is shorter than its \/Index says/);
    // Its references: a handful, whatever /Size says.
    expect(budget.spent.objects).toBeLessThan(20);
  });

  it('is refused before the reference pool grows past the budget, and the next file starts a fresh pool', async () => {
    const budget = new DecodeBudget({ maxObjects: 10_000 });
    const facts = await inspectPdf(manyReferences(50_000), { budget });
    expect(facts.problems.map((p) => `${p.kind}: ${p.detail}`)).toEqual(['too-complex: the file names more than 10,000 distinct objects']);
    expect(facts.unrenderable).toBe(true);
    expect(referencePoolSize()).toBeLessThanOrEqual(10_001);
    await inspectPdf(new Uint8Array(readFileSync(GOOD)));
    expect(referencePoolSize()).toBeLessThan(100);
  });
});

describe('one process, the bad file then a good one', () => {
  it.each([
    ['without a pool', false],
    ['with a pool', true],
  ])(
    'the good file keeps its verdict (%s)',
    async (_label, withPool) => {
      const options = withPool ? { pool } : { pool: false as const };
      const alone = await preflight(GOOD, { sku: 'T-SHIRT-M' }, options);
      expect(alone.verdict).toBe('pass');
      // Many references first (within the budget), then the bad file, then the good one.
      const heavy = await preflight(manyReferences(200_000), { sku: 'T-SHIRT-M' }, { ...options, raster: false });
      expect(ReportSchema.safeParse(heavy).success).toBe(true);
      const first = await preflight(bad, { sku: 'T-SHIRT-M' }, { ...options, path: 'bad.pdf' });
      expect(codes(first)).toContain('pdf-repaired');
      const after = await preflight(GOOD, { sku: 'T-SHIRT-M' }, options);
      expect(after.verdict).toBe(alone.verdict);
      expect(codes(after)).toEqual(codes(alone));
    },
    120_000,
  );
});

describe('check and batch agree on the bad file', () => {
  it('same verdict and findings, whether its structure is read in the CLI or in a worker', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-state-'));
    const file = join(dir, 'xref-size.pdf');
    writeFileSync(file, bad);
    const check = spawnSync(process.execPath, ['bin/print-preflight.js', 'check', file, '--sku', 'T-SHIRT-M', '--json', '--workers', '1'], { encoding: 'utf8' });
    const checked = ReportSchema.parse(JSON.parse(check.stdout));
    const folder = join(dir, 'batch');
    mkdirSync(folder);
    writeFileSync(join(folder, 'T-SHIRT-M__xref-size.pdf'), bad);
    const batch = spawnSync(process.execPath, ['bin/print-preflight.js', 'batch', folder, '--out', join(dir, 'out'), '--workers', '1', '--no-html'], { encoding: 'utf8' });
    expect(batch.status, batch.stderr).toBe(1);
    const batched = ReportSchema.parse(JSON.parse(readFileSync(join(dir, 'out', 'reports', 'T-SHIRT-M__xref-size.pdf.json'), 'utf8')));
    expect(check.status).toBe(1);
    expect(batched.verdict).toBe(checked.verdict);
    expect(codes(batched)).toEqual(codes(checked));
  }, 120_000);
});
