/**
 * The deployment the issue is judged by, on one machine: a Redis, `serve --redis` and two
 * `worker` processes sharing a data folder; 30 checks posted over HTTP, one worker killed with
 * kill -9 in the middle of a check. Every check is done exactly once, with the report a local
 * check gives; /health names Redis and /metrics shows the fleet.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../src/flow/options.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { doneCounts, eventually, stable, startServe as startFleetServe, startWorker, stopWorker, writeHeavyPdf, type WorkerProcess } from './fleet-harness.js';
import { OpenApiContract } from '../helpers/contracts.js';

let redis: RedisServer;
let pool: PreflightPool;
let serve: ChildProcess | null = null;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  pool = new PreflightPool({ maxThreads: 1 });
});

afterAll(async () => {
  serve?.kill('SIGKILL');
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await pool?.destroy();
  await redis?.stop();
});

const FILES: Array<[string, Target]> = [
  ['reportlab-tshirt-M-exact.pdf', { sku: 'T-SHIRT-M' }],
  ['img2pdf-tanktop-cmyk-jpeg.pdf', { sku: 'TANKTOP-M' }],
  ['reportlab-curtains-swapped.pdf', { product: 'curtains', variant: '140x260' }],
  ['gs-duvet-blank-front.pdf', { product: 'duvet-cover', variant: '200x200' }],
  ['broken-truncated.pdf', { product: 'duvet-cover', variant: '200x200' }],
];

const startServe = (data: string) => startFleetServe(redis.url, data, ['--max-concurrent', '100']);

async function post(url: string, file: string, target: Target, name: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(file)], { type: 'application/pdf' }), name);
  for (const [k, v] of Object.entries(target)) form.set(k, v);
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

describe('serve --redis with two workers', () => {
  it('30 checks over HTTP, one worker killed with kill -9 mid-check: all done exactly once, reports as check --json', async () => {
    const data = mkdtempSync(join(tmpdir(), 'pp-fleet-serve-'));
    const heavy = writeHeavyPdf(join(mkdtempSync(join(tmpdir(), 'pp-fleet-heavy-')), 'heavy.pdf'));
    const server = await startServe(data);
    serve = server.proc;
    const a = startWorker(redis.url, data);
    const b = startWorker(redis.url, data);
    workers.push(a, b);

    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', checks: { queue: { ok: true, detail: `Redis at redis://127.0.0.1:${redis.port}/0` } } });

    const posted: Array<{ id: string; file: string; target: Target; name: string }> = [];
    for (let i = 0; i < 30; i++) {
      const [file, target] = i === 10 ? [heavy, { sku: 'T-SHIRT-M' }] : [`test/corpus/files/${FILES[i % FILES.length]![0]}`, FILES[i % FILES.length]![1]];
      const name = i === 10 ? 'heavy.pdf' : FILES[i % FILES.length]![0];
      posted.push({ id: await post(server.url, file, target as Target, name), file, target: target as Target, name });
    }
    const heavyId = posted[10]!.id;
    const victim = await Promise.race([a, b].map((w) => w.waitFor((l) => l.event === 'job-start' && l.jobId === heavyId, 150_000).then(() => w)));
    await eventually(
      async () => ((await (await fetch(`${server.url}/v1/checks/${heavyId}`)).json()) as { status: string }).status,
      (s) => s === 'running',
    );
    victim.proc.kill('SIGKILL');

    const views = await Promise.all(
      posted.map((p) =>
        eventually(
          async () => (await (await fetch(`${server.url}/v1/checks/${p.id}`)).json()) as { status: string; attempts: number; report: unknown },
          (v) => v.status === 'done' || v.status === 'error',
          180_000,
        ),
      ),
    );
    expect(views.map((v) => v.status)).toEqual(posted.map(() => 'done'));
    // Each check as the fleet's server sends it, against the Check schema of the document it serves.
    const contract = new OpenApiContract((await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>);
    for (const p of posted) expect(contract.componentErrors('Check', await (await fetch(`${server.url}/v1/checks/${p.id}`)).text()), p.name).toEqual([]);
    const counts = doneCounts([a, b]);
    expect(Object.fromEntries(posted.map((p) => [p.id, counts.get(p.id)]))).toEqual(Object.fromEntries(posted.map((p) => [p.id, 1])));
    expect(views[10]!.attempts).toBe(2);
    const local = new Map<string, unknown>();
    for (const [i, p] of posted.entries()) {
      if (!local.has(p.name)) local.set(p.name, stable(await preflight(p.file, p.target, { pool, path: p.name })));
      expect(stable(views[i]!.report), p.name).toEqual(local.get(p.name));
    }

    // The killed worker drops out of /metrics once its heartbeat expires (three heartbeats, 15 s).
    const metrics = await eventually(
      async () => (await fetch(`${server.url}/metrics`)).text(),
      (m) => /^print_preflight_fleet_workers 1$/m.test(m),
      40_000,
    );
    expect(metrics).toMatch(/^print_preflight_queue_depth 0$/m);
    const survivor = victim === a ? b : a;
    const doneBySurvivor = survivor.lines.filter((l) => l.event === 'job-done').length;
    expect(metrics).toContain(`print_preflight_fleet_worker_jobs{worker="${survivor.lines[0]!.worker}",outcome="done"} ${doneBySurvivor}`);
    expect(metrics).toMatch(/^print_preflight_checks_total\{status="done",verdict="pass"\} \d+$/m);

    await stopWorker(survivor);
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
