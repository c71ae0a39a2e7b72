/**
 * Hostile and broken inputs (test/hostile/make-hostile.mjs): each gets a report with a clear
 * finding, within its time bound, with the pool's time limit and heap cap in force. Mixed into a
 * batch of good files: test/hostile/boundaries.test.ts (the CLI's batch under a 2 GiB memory limit,
 * every good file keeping the verdict it gets alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { ReportSchema } from '../../src/report/schema.js';
// @ts-expect-error plain ESM helper without types
import { hostileCorpus } from './make-hostile.mjs';
import { expectPublished } from '../helpers/contracts.js';

interface HostileCase {
  name: string;
  bytes: Uint8Array;
  expect: string[];
  why: string;
}

const PER_FILE_LIMIT_MS = 30_000;
/** Cases whose pages would take gigabytes to decode: answered from structure, never rendered. */
const OVER_BUDGET = [
  'progressive-jpeg-31622px-4-pages',
  'jpeg-header-larger-than-declared',
  'jpx-claims-40000px',
  'contents-256mib-listed-8-times',
  'smask-34862x4332-on-2px-image-drawn-20-times',
  'flate-image-14999px-8-pages',
  'inline-image-claims-40000px',
  'image-drawn-150000-times',
];
let cases: HostileCase[] = [];
const pool = new PreflightPool({ maxThreads: 2, taskTimeoutMs: 20_000, maxWorkerMemoryMb: 1024 });
beforeAll(async () => {
  cases = await hostileCorpus();
}, 60_000);
afterAll(() => pool.destroy());

describe('hostile inputs, one by one', () => {
  it('has the cases the issue lists', () => {
    const names = cases.map((c) => c.name).join(' ');
    for (const n of [
      'empty',
      'random-bytes',
      'png-renamed',
      'truncated-',
      'broken-xref',
      'missing-xref',
      'stream-length',
      'page-tree-cycle',
      'forms-draw-each-other',
      'nested-forms-100',
      'deflate-bomb',
      'image-claims-100000px',
      'pages-20000',
      'nested-array-10000',
      'javascript-and-launch',
      'font-pdfjs-rejects',
      ...OVER_BUDGET,
      'operators-6-million',
      'names-with-terminal-escapes',
    ]) {
      expect(names).toContain(n);
    }
  });

  it('answers every case with a report and a clear finding, within the time limit', async () => {
    for (const c of cases) {
      const started = performance.now();
      const report = await preflight(c.bytes, { sku: 'TANKTOP-M' }, { pool, path: c.name });
      const ms = performance.now() - started;
      expect(ReportSchema.safeParse(report).success, c.name).toBe(true);
      expectPublished('report', JSON.stringify(report), c.name);
      const codes = report.findings.map((f) => f.code);
      expect(
        c.expect.some((e) => codes.includes(e as never)),
        `${c.name} (${c.why}) must report one of ${c.expect.join(', ')}; got ${codes.join(', ')}`,
      ).toBe(true);
      expect(ms, `${c.name} took ${Math.round(ms)} ms`).toBeLessThan(PER_FILE_LIMIT_MS);
    }
  }, 300_000);

  it('never renders a page over the memory budget, and says what was too big', async () => {
    for (const name of OVER_BUDGET) {
      const c = cases.find((x) => x.name === `${name}.pdf`)!;
      const report = await preflight(c.bytes, { sku: 'TANKTOP-M' }, { pool, path: c.name });
      expect(report.pages.length, name).toBeGreaterThan(0);
      expect(
        report.pages.filter((p) => p.raster !== null).map((p) => p.index),
        `${name}: pages rendered`,
      ).toEqual([]);
      const said = report.findings
        .filter((f) => f.code === 'pdf-too-complex' || f.code === 'image-too-large')
        .map((f) => f.message)
        .join(' ');
      expect(said, name).toMatch(/pixels|px|bytes|MiB|times|operators/);
    }
  }, 300_000);

  it('never evaluates the scripts of a file (JavaScript is reported, not run)', async () => {
    const js = cases.find((c) => c.name === 'javascript-and-launch.pdf')!;
    const report = await preflight(js.bytes, { sku: 'TANKTOP-M' }, { pool });
    expect(report.pdf.activeContent).toEqual(['JavaScript', 'a Launch action (starts a program)']);
    expect(report.findings.find((f) => f.code === 'pdf-active-content')!.message).toMatch(/never runs them/);
  });
});
