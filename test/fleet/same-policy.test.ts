/**
 * One policy everywhere: the same file with the same shipped profile gives the same findings
 * (code, page, severity, action), the same verdict and — with fixes asked — the same changes,
 * approval and fixed verdict through the library, the CLI (`check --json`), a batch on this machine
 * (`batch --fix approve`), the single-process service, the fleet's service (`serve --redis` and a
 * `worker`) and a batch on the fleet (`batch --redis --fix approve`).
 *
 * Files: a duvet cover at half scale (img2pdf: scale fixed automatically, low resolution still
 * rejects — a fix never turns that error into a pass) and a tanktop in CMYK and spot colours
 * (reportlab: converted, with approval).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import { preflight } from '../../src/flow/preflight.js';
import { PreflightPool } from '../../src/pool/pool.js';
import type { Report } from '../../src/report/schema.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { BIN, eventually, startServe, startWorker, stopWorker, type ServeProcess, type WorkerProcess } from './fleet-harness.js';

const CORPUS = 'test/corpus/files';
const FILES = [
  { file: 'img2pdf-duvet-half-scale.pdf', sku: 'DUVET-COVER-200X200', fixedVerdict: 'fail', needsApproval: false },
  { file: 'reportlab-tanktop-cmyk-spot.pdf', sku: 'TANKTOP-M', fixedVerdict: 'pass', needsApproval: true },
] as const;

let redis: RedisServer;
let pool: PreflightPool;
let embedded: ServiceHandle;
let fleet: ServeProcess | null = null;
let worker: WorkerProcess | null = null;
const dir = mkdtempSync(join(tmpdir(), 'pp-same-policy-'));

beforeAll(async () => {
  redis = await startRedis();
  pool = new PreflightPool({ maxThreads: 1 });
  embedded = await startService({ port: 0, dataDir: join(dir, 'embedded'), pool, logLevel: 'silent' });
  const data = join(dir, 'fleet');
  fleet = await startServe(redis.url, data);
  worker = startWorker(redis.url, data);
});

afterAll(async () => {
  fleet?.proc.kill('SIGKILL');
  if (worker) await stopWorker(worker, 'SIGKILL');
  await embedded?.close();
  await pool?.destroy();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the policy decides about a report: its verdict and each finding's code, page, severity and action. */
const decided = (report: Pick<Report, 'verdict' | 'findings'>) => ({
  verdict: report.verdict,
  findings: report.findings.map((f) => `${f.code} p${f.page ?? '-'} ${f.severity} ${f.action ?? '-'}`).sort(),
});
/** What a fix decided: whether it waits for approval, each change's code and approval, and the fixed file's report. */
const fixedOutcome = (needsApproval: boolean, changes: readonly { code: string; page: number | null; needsApproval: boolean }[], report: Pick<Report, 'verdict' | 'findings'>) => ({
  needsApproval,
  changes: changes.map((c) => `${c.code} p${c.page ?? '-'} ${c.needsApproval ? 'approval' : 'automatic'}`).sort(),
  after: decided(report),
});

function cli(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout };
}

interface View {
  status: string;
  report: Report;
  fixed: { changes: { code: string; page: number | null; needsApproval: boolean }[] } | null;
}

async function submit(url: string, file: string, fields: Record<string, string>): Promise<View> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(join(CORPUS, file))], { type: 'application/pdf' }), file);
  for (const [k, v] of Object.entries({ ...fields, raster: 'false' })) form.set(k, v);
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  return eventually(
    async () => (await (await fetch(`${url}/v1/checks/${id}`)).json()) as View,
    (v) => v.status === 'done' || v.status === 'needs-approval' || v.status === 'error',
    120_000,
  );
}

describe('the same policy in the library, CLI, batch, service and fleet', () => {
  it('gives the same actions and verdicts without fixes, and the same changes, approval and fixed verdicts with fix=approve', async () => {
    // Batches: the same folder on this machine and on the fleet.
    const folder = join(dir, 'in');
    spawnSync('mkdir', ['-p', folder]);
    for (const f of FILES) copyFileSync(join(CORPUS, f.file), join(folder, `${f.sku}__${f.file}`));
    const localOut = join(dir, 'local-out');
    const fleetOut = join(dir, 'fleet-out');
    expect(cli('batch', folder, '--out', localOut, '--no-raster', '--no-html', '--workers', '1', '--fix', 'approve').code).toBe(1);
    expect(cli('batch', folder, '--out', fleetOut, '--no-raster', '--no-html', '--redis', redis.url, '--fix', 'approve').code).toBe(1);

    for (const { file, sku, fixedVerdict, needsApproval } of FILES) {
      const target = { sku };
      const lib = decided(await preflight(join(CORPUS, file), target, { pool, raster: false }));
      const libFix = await checkAndFix(join(CORPUS, file), target, { pool, raster: false, fix: 'approve' });
      const expectedFix = fixedOutcome(libFix.status === 'needs-approval', libFix.fixed?.changes ?? [], libFix.report);
      // The shipped policy at work: fixable findings carry action fix, the rest keep their severity.
      expect(
        lib.findings.some((f) => f.endsWith(' fix')),
        file,
      ).toBe(true);
      expect(libFix.fixed, file).not.toBeNull();
      expect([expectedFix.after.verdict, expectedFix.needsApproval], file).toEqual([fixedVerdict, needsApproval]);

      const check = cli('check', join(CORPUS, file), '--sku', sku, '--json', '--no-raster');
      expect(decided(JSON.parse(check.out) as Report), `${file}: CLI`).toEqual(lib);

      for (const [name, url] of [
        ['service', embedded.url],
        ['fleet', fleet!.url],
      ] as const) {
        expect(decided((await submit(url, file, { sku })).report), `${file}: ${name}`).toEqual(lib);
        const v = await submit(url, file, { sku, fix: 'approve' });
        expect(fixedOutcome(v.status === 'needs-approval', v.fixed?.changes ?? [], v.report), `${file}: ${name} fix`).toEqual(expectedFix);
      }

      for (const [name, out] of [
        ['batch', localOut],
        ['fleet batch', fleetOut],
      ] as const) {
        const rel = `${sku}__${file}`;
        const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { results: { file: string; verdict: string; fixed?: { needsApproval: boolean; originalVerdict: string } }[] };
        const result = summary.results.find((r) => r.file === rel)!;
        const original = JSON.parse(readFileSync(join(out, 'reports', `${rel}.json`), 'utf8')) as Report;
        expect(decided(original), `${file}: ${name}`).toEqual(lib);
        const fixedReport = JSON.parse(readFileSync(join(out, 'fixed', `${rel}.json`), 'utf8')) as Report & { fix: { changes: { code: string; page: number | null; needsApproval: boolean }[] } };
        expect(fixedOutcome(result.fixed!.needsApproval, fixedReport.fix.changes, fixedReport), `${file}: ${name} fix`).toEqual(expectedFix);
        expect([result.verdict, result.fixed!.originalVerdict], `${file}: ${name}`).toEqual([expectedFix.after.verdict, lib.verdict]);
      }
    }
  }, 300_000);
});
