import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { watchFolder } from '../../../src/batch/watch.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { preflight } from '../../../src/flow/preflight.js';
import { ReportSchema } from '../../../src/report/schema.js';

const pool = new PreflightPool({ maxThreads: 2 });
afterAll(() => pool.destroy());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const good = readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('hot folder', () => {
  it('judges a slowly written file once, after it is complete, and moves it with its reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-hot-'));
    const out = join(dir, 'out');
    const results: { file: string; verdict: string; movedTo: string }[] = [];
    const hot = await watchFolder(dir, { out, intervalMs: 100, stableMs: 700, preflight: { pool }, onResult: (r) => results.push(r) });
    try {
      const target = join(dir, 'T-SHIRT-M__slow.pdf');
      const chunk = Math.ceil(good.length / 8);
      for (let i = 0; i < good.length; i += chunk) {
        appendFileSync(target, good.subarray(i, i + chunk));
        await sleep(250); // 2 s in all: longer than stableMs between the first and last byte
      }
      const until = Date.now() + 30_000;
      while (results.length === 0 && Date.now() < until) await sleep(50);
      await sleep(1500); // would any second judgement happen?
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ file: 'T-SHIRT-M__slow.pdf', verdict: 'pass', movedTo: 'pass/T-SHIRT-M__slow.pdf' });
      expect(existsSync(target)).toBe(false);
      expect(sha(readFileSync(join(out, 'pass/T-SHIRT-M__slow.pdf')))).toBe(sha(good));
      const report = ReportSchema.parse(JSON.parse(readFileSync(join(out, 'pass/T-SHIRT-M__slow.pdf.json'), 'utf8')));
      expect(report.file.sha256).toBe(sha(good));
      expect(existsSync(join(out, 'pass/T-SHIRT-M__slow.pdf.html'))).toBe(true);
    } finally {
      await hot.close();
    }
  }, 60_000);

  it('sorts files into pass, warn and fail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-hot-'));
    const out = join(dir, 'out');
    copyFileSync('test/corpus/files/reportlab-tshirt-M-three-pages.pdf', join(dir, 'T-SHIRT-M__bad.pdf'));
    copyFileSync('test/corpus/files/pikepdf-tanktop-icc-cmyk.pdf', join(dir, 'TANKTOP-M__cmyk.pdf'));
    writeFileSync(join(dir, 'who-knows.pdf'), good);
    const results: string[] = [];
    const hot = await watchFolder(dir, { out, intervalMs: 50, stableMs: 100, preflight: { pool }, html: false, onResult: (r) => results.push(r.movedTo) });
    const until = Date.now() + 30_000;
    while (results.length < 3 && Date.now() < until) await sleep(50);
    await hot.close();
    expect(results.sort()).toEqual(['fail/T-SHIRT-M__bad.pdf', 'fail/who-knows.pdf', 'warn/TANKTOP-M__cmyk.pdf']);
    expect(JSON.parse(readFileSync(join(out, 'fail/who-knows.pdf.json'), 'utf8'))).toMatchObject({ verdict: 'error' });
    expect(readFileSync(join(out, 'hotfolder.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
  }, 60_000);

  it('after a crash between judging and moving, reuses the finished report instead of judging again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-hot-'));
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'T-SHIRT-M__crash.pdf'), good);
    // What a crashed run leaves: the report in staging, the PDF still in the hot folder.
    const report = await preflight(join(dir, 'T-SHIRT-M__crash.pdf'), { sku: 'T-SHIRT-M' }, { pool, path: 'T-SHIRT-M__crash.pdf' });
    mkdirSync(join(out, '.staging'), { recursive: true });
    writeFileSync(join(out, '.staging/T-SHIRT-M__crash.pdf.json'), JSON.stringify(report));
    const dead = spawnSync('true').pid; // the crashed run: a process that is gone
    writeFileSync(join(out, `.staging/.print-preflight~${dead}-0123abcd~T-SHIRT-M__crash.pdf.json`), '{"half": ');
    const results: { reused: boolean; movedTo: string }[] = [];
    const hot = await watchFolder(dir, { out, intervalMs: 50, stableMs: 100, preflight: { pool }, onResult: (r) => results.push(r) });
    const until = Date.now() + 30_000;
    while (results.length < 1 && Date.now() < until) await sleep(50);
    await hot.close();
    expect(results).toEqual([expect.objectContaining({ reused: true, movedTo: 'pass/T-SHIRT-M__crash.pdf' })]);
    expect(readdirSync(join(out, '.staging'))).toEqual([]);
    expect(existsSync(join(out, 'pass/T-SHIRT-M__crash.pdf.json'))).toBe(true);
  }, 60_000);

  it('never overwrites an earlier upload of the same name: both are kept, each with its report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-hot-'));
    const out = join(dir, 'out');
    const results: { movedTo: string; report: string }[] = [];
    const hot = await watchFolder(dir, { out, intervalMs: 50, stableMs: 100, preflight: { pool }, html: false, onResult: (r) => results.push(r) });
    // The same order uploaded twice, the second time with a trailing comment (other bytes, still a pass).
    const second = Buffer.concat([good, Buffer.from('\n% uploaded again\n')]);
    try {
      writeFileSync(join(dir, 'T-SHIRT-M__order.pdf'), good);
      const until = Date.now() + 30_000;
      while (results.length < 1 && Date.now() < until) await sleep(50);
      writeFileSync(join(dir, 'T-SHIRT-M__order.pdf'), second);
      while (results.length < 2 && Date.now() < until) await sleep(50);
    } finally {
      await hot.close();
    }
    expect(results.map((r) => r.movedTo)).toEqual(['pass/T-SHIRT-M__order.pdf', 'pass/T-SHIRT-M__order~2.pdf']);
    expect(sha(readFileSync(join(out, 'pass/T-SHIRT-M__order.pdf')))).toBe(sha(good));
    expect(sha(readFileSync(join(out, 'pass/T-SHIRT-M__order~2.pdf')))).toBe(sha(second));
    expect(ReportSchema.parse(JSON.parse(readFileSync(join(out, results[1]!.report), 'utf8'))).file.sha256).toBe(sha(second));
    expect(ReportSchema.parse(JSON.parse(readFileSync(join(out, 'pass/T-SHIRT-M__order.pdf.json'), 'utf8'))).file.sha256).toBe(sha(good));
  }, 60_000);

  it('picks up a file it had claimed when a run stopped, before anything else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-hot-'));
    const out = join(dir, 'out');
    mkdirSync(join(out, '.incoming'), { recursive: true });
    writeFileSync(join(out, '.incoming', 'T-SHIRT-M__claimed.pdf'), good);
    const results: { movedTo: string }[] = [];
    const hot = await watchFolder(dir, { out, intervalMs: 50, stableMs: 100, preflight: { pool }, html: false, onResult: (r) => results.push(r) });
    const until = Date.now() + 30_000;
    while (results.length < 1 && Date.now() < until) await sleep(50);
    await hot.close();
    expect(results.map((r) => r.movedTo)).toEqual(['pass/T-SHIRT-M__claimed.pdf']);
    expect(readdirSync(join(out, '.incoming'))).toEqual([]);
  }, 60_000);
});
