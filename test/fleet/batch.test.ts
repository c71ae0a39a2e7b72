/**
 * `batch --redis`: the same folder judged on this machine and by two worker processes through a
 * real Redis gives the same reports, summary and index; a rerun keeps unchanged reports either way.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSummarySchema } from '../../src/batch/summary.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { BIN, doneCounts, eventually, stable, startWorker, stopWorker, type WorkerProcess } from './fleet-harness.js';
import { expectPublished } from '../helpers/contracts.js';

let redis: RedisServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await redis?.stop();
});

const cli = (...args: string[]) => cliWith(() => undefined, ...args);
/** Runs the CLI; `during` gets the child and its stderr so far, on every stderr chunk. */
const cliWith = (during: (child: ReturnType<typeof spawn>, err: string) => void, ...args: string[]) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      during(child, err);
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });

/** A folder like a night's uploads: SKU file names, a SKU folder, a manifest entry, an unknown file. */
function makeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-batch-'));
  const put = (from: string, to: string) => {
    mkdirSync(join(dir, to, '..'), { recursive: true });
    copyFileSync(`test/corpus/files/${from}`, join(dir, to));
  };
  put('reportlab-tshirt-M-exact.pdf', 'T-SHIRT-M__order-1.pdf');
  put('reportlab-tshirt-M-three-pages.pdf', 'T-SHIRT-M__order-2.pdf');
  put('img2pdf-tanktop-cmyk-jpeg.pdf', 'TANKTOP-M/order-3.pdf');
  put('gs-tanktop-spot-vector.pdf', 'TANKTOP-M/order-4.pdf');
  put('reportlab-curtains-swapped.pdf', 'curtain-5.pdf');
  put('broken-truncated.pdf', 'T-SHIRT-M__order-6.pdf');
  put('qpdf-encrypted-user-password.pdf', 'T-SHIRT-M__order-7.pdf');
  put('gs-duvet-exact.pdf', 'no-product-8.pdf');
  writeFileSync(join(dir, 'manifest.csv'), 'file,product,variant\ncurtain-5.pdf,curtains,140x260\n');
  return dir;
}

const reports = (out: string) =>
  readdirSync(join(out, 'reports'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath, e.name).slice(out.length + 1))
    .sort();

describe('batch --redis', () => {
  it('gives the same reports, summary and index as a local batch, and resumes the same way', async () => {
    const dir = makeFolder();
    const data = mkdtempSync(join(tmpdir(), 'pp-fleet-bdata-'));
    const local = join(mkdtempSync(join(tmpdir(), 'pp-fleet-local-')), 'out');
    const fleet = join(mkdtempSync(join(tmpdir(), 'pp-fleet-out-')), 'out');
    const a = startWorker(redis.url, data);
    const b = startWorker(redis.url, data);
    workers.push(a, b);

    const l = await cli('batch', dir, '--out', local, '--manifest', join(dir, 'manifest.csv'), '--workers', '1');
    const f = await cli('batch', dir, '--out', fleet, '--manifest', join(dir, 'manifest.csv'), '--redis', redis.url);
    expect(f.err).not.toContain('Error');
    expect(l.code).toBe(1);
    expect(f.code).toBe(l.code);
    expect(f.out.replace(fleet, 'OUT')).toBe(l.out.replace(local, 'OUT'));

    const summary = BatchSummarySchema.parse(JSON.parse(readFileSync(join(fleet, 'summary.json'), 'utf8')));
    expect(summary).toMatchObject({ files: 8, pass: 1, error: 1, interrupted: false });
    expect(readFileSync(join(fleet, 'summary.json'), 'utf8')).toBe(readFileSync(join(local, 'summary.json'), 'utf8'));
    expect(readFileSync(join(fleet, 'index.html'), 'utf8')).toBe(readFileSync(join(local, 'index.html'), 'utf8'));
    expect(reports(fleet)).toEqual(reports(local));
    for (const rel of reports(local)) {
      const mine = JSON.parse(readFileSync(join(fleet, rel), 'utf8')) as { verdict?: string };
      // A report (a file that could not be checked has an error record instead).
      if (mine.verdict !== 'error') expectPublished('report', readFileSync(join(fleet, rel)), rel);
      expect(stable(mine), rel).toEqual(stable(JSON.parse(readFileSync(join(local, rel), 'utf8'))));
    }
    // Seven files reached the queue (the one with no product never does), each judged once, by both workers together.
    // A worker logs job-done just after the job's result is handed back: wait for its line.
    const counts = await eventually(
      async () => doneCounts([a, b]),
      (c) => c.size >= 7,
    );
    expect([...counts.values()]).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(a.lines.some((x) => x.event === 'job-done') && b.lines.some((x) => x.event === 'job-done')).toBe(true);

    // A rerun over Redis keeps every report, like a local rerun.
    const again = await cli('batch', dir, '--out', fleet, '--manifest', join(dir, 'manifest.csv'), '--redis', redis.url);
    expect(again.out).toContain('(7 kept from an earlier run)');
    const second = BatchSummarySchema.parse(JSON.parse(readFileSync(join(fleet, 'summary.json'), 'utf8')));
    expect(second.results.filter((r) => r.reused)).toHaveLength(7);
    await Promise.all([stopWorker(a), stopWorker(b)]);
  });

  it('--fix approve: the workers fix by the policy into <out>/fixed/, as a local batch does, originals kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-fix-'));
    copyFileSync('test/corpus/files/qpdf-tshirt-M-sleeves-first.pdf', join(dir, 'T-SHIRT-M__order.pdf'));
    copyFileSync('test/corpus/files/reportlab-tanktop-cmyk-spot.pdf', join(dir, 'TANKTOP-M__cmyk.pdf'));
    copyFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf', join(dir, 'T-SHIRT-M__exact.pdf'));
    const original = readFileSync(join(dir, 'T-SHIRT-M__order.pdf'));
    const data = mkdtempSync(join(tmpdir(), 'pp-fleet-bdata-'));
    const local = join(mkdtempSync(join(tmpdir(), 'pp-fleet-flocal-')), 'out');
    const fleet = join(mkdtempSync(join(tmpdir(), 'pp-fleet-fout-')), 'out');
    const w = startWorker(redis.url, data, ['--queue', 'fix']);
    workers.push(w);
    const args = ['--fix', 'approve', '--locale', 'pt', '--policy', 'page-edge-gap=warn', '--no-raster'];
    const l = await cli('batch', dir, '--out', local, '--workers', '1', ...args);
    const f = await cli('batch', dir, '--out', fleet, '--redis', redis.url, '--queue', 'fix', ...args);
    expect(f.err).not.toContain('Error');
    expect([l.code, f.code]).toEqual([0, 0]);
    expect(f.out.replace(fleet, 'OUT')).toBe(l.out.replace(local, 'OUT'));

    const summary = BatchSummarySchema.parse(JSON.parse(readFileSync(join(fleet, 'summary.json'), 'utf8')));
    const byFile = new Map(summary.results.map((r) => [r.file, r]));
    expect(byFile.get('T-SHIRT-M__order.pdf')!.fixed).toMatchObject({ file: 'fixed/T-SHIRT-M__order.pdf', needsApproval: false, originalVerdict: 'fail' });
    expect(byFile.get('T-SHIRT-M__order.pdf')!.verdict).toBe('pass');
    expect(byFile.get('TANKTOP-M__cmyk.pdf')!.fixed?.needsApproval).toBe(true);
    expect(byFile.get('T-SHIRT-M__exact.pdf')!.fixed).toBeUndefined();
    // Same summary, index, reports and fixed files as the local batch, byte for byte where no timing enters.
    expect(readFileSync(join(fleet, 'summary.json'), 'utf8')).toBe(readFileSync(join(local, 'summary.json'), 'utf8'));
    expect(readFileSync(join(fleet, 'index.html'), 'utf8')).toBe(readFileSync(join(local, 'index.html'), 'utf8'));
    const fixedFiles = (out: string) => readdirSync(join(out, 'fixed')).sort();
    expect(fixedFiles(fleet)).toEqual(fixedFiles(local));
    expect(fixedFiles(fleet)).toEqual([
      'T-SHIRT-M__order.pdf',
      'T-SHIRT-M__order.pdf.html',
      'T-SHIRT-M__order.pdf.json',
      'TANKTOP-M__cmyk.pdf',
      'TANKTOP-M__cmyk.pdf.html',
      'TANKTOP-M__cmyk.pdf.json',
    ]);
    for (const name of fixedFiles(local).filter((n) => n.endsWith('.pdf'))) {
      expect(readFileSync(join(fleet, 'fixed', name)).equals(readFileSync(join(local, 'fixed', name))), name).toBe(true);
      const mine = JSON.parse(readFileSync(join(fleet, 'fixed', `${name}.json`), 'utf8')) as { locale?: string; fix: { changes: { customer?: string }[] } };
      expect(mine.locale).toBe('pt');
      expect(mine.fix.changes.every((c) => typeof c.customer === 'string' && c.customer.length > 0)).toBe(true);
      expect(stable(mine), name).toEqual(stable(JSON.parse(readFileSync(join(local, 'fixed', `${name}.json`), 'utf8'))));
    }
    for (const rel of reports(local)) expect(stable(JSON.parse(readFileSync(join(fleet, rel), 'utf8'))), rel).toEqual(stable(JSON.parse(readFileSync(join(local, rel), 'utf8'))));
    // The call's policy reached the worker: it is part of every report's digest.
    expect(JSON.parse(readFileSync(join(fleet, 'reports/T-SHIRT-M__exact.pdf.json'), 'utf8')).profileDigest).toBe(
      JSON.parse(readFileSync(join(local, 'reports/T-SHIRT-M__exact.pdf.json'), 'utf8')).profileDigest,
    );
    expect(readFileSync(join(dir, 'T-SHIRT-M__order.pdf')).equals(original)).toBe(true);
    const counts = await eventually(
      async () => doneCounts([w]),
      (c) => c.size >= 3,
    );
    expect([...counts.values()]).toEqual([1, 1, 1]);
    await stopWorker(w);
  }, 240_000);

  it('Ctrl-C takes back the jobs no worker has started; the rerun judges them', async () => {
    const dir = makeFolder();
    const out = join(mkdtempSync(join(tmpdir(), 'pp-fleet-int-')), 'out');
    const queue = 'interrupt';
    // No worker yet: every job waits in Redis when the batch is interrupted.
    let sent = false;
    const stopped = await cliWith(
      (child, err) => {
        if (!sent && err.includes('[1/8]')) {
          sent = true;
          // Interrupt once the seven jobs are on the queue, so that they have to be taken back.
          const poll = setInterval(() => {
            void redis.command('LLEN', `print-preflight:${queue}:wait`).then((reply) => {
              if (reply.trim() === ':7') {
                clearInterval(poll);
                child.kill('SIGINT');
              }
            });
          }, 50);
        }
      },
      'batch',
      dir,
      '--out',
      out,
      '--manifest',
      join(dir, 'manifest.csv'),
      '--redis',
      redis.url,
      '--queue',
      queue,
    );
    expect(stopped.code).toBe(130);
    const summary = BatchSummarySchema.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary).toMatchObject({ files: 8, error: 1, interrupted: true });
    expect(summary.pending).toHaveLength(7);
    expect(stopped.out).toContain('7 not judged (interrupted)');
    expect((await redis.command('LLEN', `print-preflight:${queue}:wait`)).trim()).toBe(':0');

    const data = mkdtempSync(join(tmpdir(), 'pp-fleet-bdata-'));
    const w = startWorker(redis.url, data, ['--queue', queue]);
    workers.push(w);
    const resumed = await cli('batch', dir, '--out', out, '--manifest', join(dir, 'manifest.csv'), '--redis', redis.url, '--queue', queue);
    expect(resumed.code).toBe(1);
    const after = BatchSummarySchema.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(after).toMatchObject({ files: 8, interrupted: false, pending: [] });
    // Each file judged once: the withdrawn jobs never ran.
    const counts = await eventually(
      async () => doneCounts([w]),
      (c) => c.size >= 7,
    );
    expect([...counts.values()]).toEqual([1, 1, 1, 1, 1, 1, 1]);
    await stopWorker(w);
  });
});
