/**
 * The batch keeps every byte it judged, and only those: a file replaced while it is judged is
 * judged again; the start-up clean-up removes only the tool's own temporaries of runs that are
 * gone; files whose names look like temporaries are judged like any other.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTemporaryName, removeStaleTemporaries, writeDurable } from '../../../src/util/durable.js';
import { preflightFolder } from '../../../src/batch/run.js';
import type { TimeBudget } from '../../../src/pool/budget.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { ReportSchema } from '../../../src/report/schema.js';

const good = readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf');
const bad = readFileSync('test/corpus/files/reportlab-tshirt-M-three-pages.pdf');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const tmp = () => mkdtempSync(join(tmpdir(), 'pp-integrity-'));

/** A pool that runs `during` once, while the first file's structure is being read. */
class MeddlingPool extends PreflightPool {
  inspections = 0;
  constructor(private readonly during: () => void) {
    super({ maxThreads: 2 });
  }
  override async inspect(bytes: SharedArrayBuffer, docId: string, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget) {
    if (this.inspections++ === 0) this.during();
    return super.inspect(bytes, docId, signal, timeoutMs, budget);
  }
}

describe('a file replaced while it is judged', () => {
  const path = { file: '' };
  const pool = new MeddlingPool(() => {
    writeFileSync(path.file, bad); // the upload is replaced mid-judgement
  });
  afterAll(() => pool.destroy());

  it('is judged again, and the report describes the bytes on disk at the end', async () => {
    const dir = tmp();
    path.file = join(dir, 'T-SHIRT-M__order.pdf');
    writeFileSync(path.file, good);
    const summary = await preflightFolder(dir, { out: join(dir, 'out'), preflight: { pool }, html: false });
    expect(pool.inspections).toBe(2);
    expect(summary.results).toEqual([expect.objectContaining({ file: 'T-SHIRT-M__order.pdf', verdict: 'fail' })]);
    const report = ReportSchema.parse(JSON.parse(readFileSync(join(dir, 'out', summary.results[0]!.report), 'utf8')));
    expect(report.file.sha256).toBe(sha(bad));
  }, 60_000);
});

describe('a file overwritten in place, same length, its mtime set back', () => {
  const path = { file: '' };
  // One byte of the binary header comment differs: same size, same inode, the old mtime restored.
  const changed = Buffer.from(good);
  changed[10] = changed[10]! ^ 1;
  const pool = new MeddlingPool(() => {
    const before = statSync(path.file);
    const fd = openSync(path.file, 'r+');
    writeSync(fd, changed, 0, changed.length, 0);
    closeSync(fd);
    utimesSync(path.file, before.atime, before.mtime);
  });
  afterAll(() => pool.destroy());

  it('is judged again (its ctime moved), and the report hashes the new bytes', async () => {
    const dir = tmp();
    path.file = join(dir, 'T-SHIRT-M__order.pdf');
    writeFileSync(path.file, good);
    utimesSync(path.file, 1_700_000_000, 1_700_000_000); // whole seconds: setting it back is exact
    const summary = await preflightFolder(dir, { out: join(dir, 'out'), preflight: { pool, raster: false }, html: false });
    expect(pool.inspections).toBe(2);
    const report = ReportSchema.parse(JSON.parse(readFileSync(join(dir, 'out', summary.results[0]!.report), 'utf8')));
    expect(report.file.sha256).toBe(sha(changed));
  }, 60_000);
});

describe('temporaries', () => {
  it('cleans only the tool’s own temporaries, of runs that are gone', async () => {
    const out = tmp();
    const dead = spawnSync('true').pid; // a process that has exited
    mkdirSync(join(out, 'reports'), { recursive: true });
    const files = {
      stale: join(out, 'reports', `.print-preflight~${dead}-0123abcd~a.pdf.json`),
      live: join(out, 'reports', `.print-preflight~${process.pid}-0123abcd~b.pdf.json`),
      userTmp: join(out, 'reports', 'c.pdf.tmp-1-abcd'),
      userHidden: join(out, 'reports', '.print-preflight-notes'),
    };
    for (const f of Object.values(files)) writeFileSync(f, '{"half": ');
    expect(await removeStaleTemporaries(out)).toBe(1);
    expect(existsSync(files.stale)).toBe(false);
    expect(existsSync(files.live)).toBe(true);
    expect(existsSync(files.userTmp)).toBe(true);
    expect(existsSync(files.userHidden)).toBe(true);
    expect(isTemporaryName('c.pdf.tmp-1-abcd')).toBe(false);
  });

  it('leaves no temporary behind after an atomic write', async () => {
    const dir = tmp();
    await writeDurable(join(dir, 'x.json'), '{}');
    expect(readFileSync(join(dir, 'x.json'), 'utf8')).toBe('{}');
    expect(await removeStaleTemporaries(dir)).toBe(0);
  });

  it('judges input files whose names contain .tmp- like any other', async () => {
    const dir = tmp();
    copyFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf', join(dir, 'T-SHIRT-M__draft.tmp-3.pdf'));
    const pool = new PreflightPool({ maxThreads: 1 });
    try {
      const summary = await preflightFolder(dir, { out: join(dir, 'out'), preflight: { pool, raster: false }, html: false });
      expect(summary.results.map((r) => [r.file, r.verdict])).toEqual([['T-SHIRT-M__draft.tmp-3.pdf', 'pass']]);
      // A rerun's clean-up keeps its report.
      const again = await preflightFolder(dir, { out: join(dir, 'out'), preflight: { pool, raster: false }, html: false });
      expect(again.reused).toBe(1);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});
