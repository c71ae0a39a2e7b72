/**
 * The fleet without a shared folder: `serve --redis --storage s3://…` and two `worker` processes,
 * each with a scratch folder of its own, sharing only Redis and an S3-compatible store (s3rver on
 * 127.0.0.1). 20 checks over HTTP, one worker killed with kill -9 in the middle of a check: every
 * check done exactly once, with the report a local check gives; a fixed file downloads with its
 * SHA-256; a server started on an empty folder answers all of them; the same file sent again is
 * answered from the stored result by the fleet.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../src/flow/options.js';
import { preflight } from '../../src/flow/preflight.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { OpenApiContract } from '../helpers/contracts.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { doneCounts, eventually, stable, startServe, startWorker, stopWorker, writeHeavyPdf, type ServeProcess, type WorkerProcess } from './fleet-harness.js';

let redis: RedisServer;
let s3: S3Server;
let pool: PreflightPool;
const servers: ServeProcess[] = [];
const workers: WorkerProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  s3 = await startS3();
  pool = new PreflightPool({ maxThreads: 1 });
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.proc.kill('SIGKILL');
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await pool?.destroy();
  await redis?.stop();
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const scratch = (name: string) => {
  const d = mkdtempSync(join(tmpdir(), `pp-s3-fleet-${name}-`));
  dirs.push(d);
  return d;
};

const FILES: Array<[string, Target]> = [
  ['reportlab-tshirt-M-exact.pdf', { sku: 'T-SHIRT-M' }],
  ['img2pdf-tanktop-cmyk-jpeg.pdf', { sku: 'TANKTOP-M' }],
  ['reportlab-curtains-swapped.pdf', { product: 'curtains', variant: '140x260' }],
  ['gs-duvet-blank-front.pdf', { product: 'duvet-cover', variant: '200x200' }],
  ['broken-truncated.pdf', { product: 'duvet-cover', variant: '200x200' }],
];

interface View {
  id: string;
  status: string;
  attempts: number;
  reusedFrom?: string;
  fixed: { url: string; sha256: string } | null;
  report: { verdict: string } & Record<string, unknown>;
}

async function post(url: string, file: string, fields: Record<string, string>, name: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(file)], { type: 'application/pdf' }), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form });
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const finished = (url: string, id: string) =>
  eventually(
    async () => (await (await fetch(`${url}/v1/checks/${id}`)).json()) as View,
    (v) => v.status === 'done' || v.status === 'error',
    180_000,
  );

const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe('serve --redis --storage s3://… with two workers, no shared folder', () => {
  it('20 checks, one worker killed with kill -9 mid-check: all done once, as check --json; a fresh server answers all', async () => {
    const storage = ['--storage', `s3://${s3.bucket}/fleet`, '--s3-endpoint', s3.endpoint];
    const heavy = writeHeavyPdf(join(scratch('heavy'), 'heavy.pdf'));
    const server = await startServe(redis.url, scratch('server'), [...storage, '--max-concurrent', '100']);
    servers.push(server);
    const a = startWorker(redis.url, scratch('worker-a'), storage);
    const b = startWorker(redis.url, scratch('worker-b'), storage);
    workers.push(a, b);

    const posted: Array<{ id: string; file: string; target: Target; name: string; fields: Record<string, string> }> = [];
    for (let i = 0; i < 20; i++) {
      let file: string;
      let target: Target;
      let name: string;
      let extra: Record<string, string> = {};
      if (i === 7) [file, target, name] = [heavy, { sku: 'T-SHIRT-M' }, 'heavy.pdf'];
      else if (i === 12) [file, target, name, extra] = ['test/corpus/files/qpdf-tshirt-M-sleeves-first.pdf', { sku: 'T-SHIRT-M' }, 'sleeves-first.pdf', { fix: 'auto', raster: 'false' }];
      else [file, target, name] = [`test/corpus/files/${FILES[i % FILES.length]![0]}`, FILES[i % FILES.length]![1], FILES[i % FILES.length]![0]];
      const fields = { ...(target as Record<string, string>), ...extra };
      posted.push({ id: await post(server.url, file, fields, name), file, target, name, fields });
    }
    const heavyId = posted[7]!.id;
    const victim = await Promise.race([a, b].map((w) => w.waitFor((l) => l.event === 'job-start' && l.jobId === heavyId, 150_000).then(() => w)));
    await eventually(
      async () => ((await (await fetch(`${server.url}/v1/checks/${heavyId}`)).json()) as { status: string }).status,
      (s) => s === 'running',
    );
    victim.proc.kill('SIGKILL');

    const views = await Promise.all(posted.map((p) => finished(server.url, p.id)));
    expect(views.map((v) => v.status)).toEqual(posted.map(() => 'done'));
    const survivor = victim === a ? b : a;
    await survivor.waitFor((l) => l.event === 'job-done' && l.jobId === heavyId);
    const counts = doneCounts([a, b]);
    expect(Object.fromEntries(posted.map((p) => [p.id, counts.get(p.id)]))).toEqual(Object.fromEntries(posted.map((p) => [p.id, 1])));
    expect(views[7]!.attempts).toBe(2);
    // Verdicts and reports as a local check gives them.
    const local = new Map<string, unknown>();
    for (const [i, p] of posted.entries()) {
      if (i === 12) continue;
      if (!local.has(p.name)) local.set(p.name, stable(await preflight(p.file, p.target, { pool, path: p.name })));
      expect(stable(views[i]!.report), p.name).toEqual(local.get(p.name));
    }
    // The fixed file, downloaded: its bytes are what the record says.
    const fixed = views[12]!.fixed!;
    const bytes = new Uint8Array(await (await fetch(`${server.url}${fixed.url}`)).arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(fixed.sha256);
    // Nobody kept a file of their own: every byte is in the store.
    for (const d of dirs.filter((x) => /pp-s3-fleet-(server|worker)-/.test(x))) expect(filesUnder(d), d).toEqual([]);

    // The same file again: the fleet answers from the stored result, naming the check it took.
    const again = await finished(server.url, await post(server.url, posted[0]!.file, posted[0]!.fields, posted[0]!.name));
    expect(again.status).toBe('done');
    expect(posted.map((p) => p.id)).toContain(again.reusedFrom);
    expect(stable(again.report)).toEqual(local.get(posted[0]!.name));

    // A server on a fresh machine (an empty folder) answers every check, with the same views.
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const fresh = await startServe(redis.url, scratch('fresh'), storage);
    servers.push(fresh);
    const contract = new OpenApiContract((await (await fetch(`${fresh.url}/openapi.json`)).json()) as Record<string, unknown>);
    for (const [i, p] of posted.entries()) {
      const text = await (await fetch(`${fresh.url}/v1/checks/${p.id}`)).text();
      expect(contract.componentErrors('Check', text), p.name).toEqual([]);
      expect(JSON.parse(text)).toEqual(views[i]);
      expect((await fetch(`${fresh.url}/v1/checks/${p.id}/report.html`)).status).toBe(200);
    }
    const again2 = new Uint8Array(await (await fetch(`${fresh.url}${fixed.url}`)).arrayBuffer());
    expect(createHash('sha256').update(again2).digest('hex')).toBe(fixed.sha256);
    await stopWorker(survivor);
    fresh.proc.kill('SIGTERM');
    expect(await fresh.exited).toBe(0);
  }, 420_000);
});
