/**
 * An image per layer through the fleet (`serve --redis` and a `worker`, the compiled CLI as
 * deployed) — sharing a data folder, and with no shared folder (`--storage s3://…`, an S3 server on
 * 127.0.0.1) — gives the same record and the same file as the embedded server: the same status,
 * verdict, approval, findings, assembly and changes, and a fixed file of the same SHA-256 and bytes
 * once approved; a layer the product does not have is the same 400 naming the part. The images are
 * made at test time by Pillow, ImageMagick and exiftool (test/service/make_layer_images.py).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { eventually, startServe, startWorker, stopWorker, type ServeProcess, type WorkerProcess } from './fleet-harness.js';

let redis: RedisServer;
let redisS3: RedisServer;
let s3: S3Server;
let fleetS3: ServeProcess | null = null;
let workerS3: WorkerProcess | null = null;
let pool: PreflightPool;
let embedded: ServiceHandle;
let fleet: ServeProcess | null = null;
let worker: WorkerProcess | null = null;
const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-layers-'));
const images = join(dir, 'images');

beforeAll(async () => {
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, '..', 'service', 'make_layer_images.py'), images]);
  redis = await startRedis();
  pool = new PreflightPool({ maxThreads: 1 });
  embedded = await startService({ port: 0, dataDir: join(dir, 'embedded'), pool, logLevel: 'silent' });
  const data = join(dir, 'fleet');
  fleet = await startServe(redis.url, data);
  worker = startWorker(redis.url, data);
  // The fleet that keeps nothing on a shared disk: its own Redis, the files in S3.
  redisS3 = await startRedis();
  s3 = await startS3();
  const storage = ['--storage', `s3://${s3.bucket}/fleet`, '--s3-endpoint', s3.endpoint];
  for (const d of ['s3-server', 's3-worker']) mkdirSync(join(dir, d));
  fleetS3 = await startServe(redisS3.url, join(dir, 's3-server'), storage);
  workerS3 = startWorker(redisS3.url, join(dir, 's3-worker'), storage);
}, 120_000);

afterAll(async () => {
  fleet?.proc.kill('SIGKILL');
  fleetS3?.proc.kill('SIGKILL');
  if (worker) await stopWorker(worker, 'SIGKILL');
  if (workerS3) await stopWorker(workerS3, 'SIGKILL');
  await redisS3?.stop();
  await s3?.stop();
  await embedded?.close();
  await pool?.destroy();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface View {
  id: string;
  status: string;
  verdict: string | null;
  approval: { state: string } | null;
  fixed: { url: string; sha256: string; bytes: number; changes: unknown[]; refused: unknown[] } | null;
  report: { verdict: string; findings: { code: string; page: number | null; layer: string | null; severity: string; message: string }[]; assembly?: unknown; pages: unknown[] } | null;
}

function layersForm(fields: Record<string, string>, parts: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [layer, file] of Object.entries(parts)) fd.append(`layer.${layer}`, new Blob([readFileSync(join(images, file))]), file);
  return fd;
}

async function submit(url: string, body: FormData): Promise<View> {
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body });
  expect(res.status, await res.clone().text()).toBe(202);
  const { id } = (await res.json()) as { id: string };
  return eventually(
    async () => (await (await fetch(`${url}/v1/checks/${id}`)).json()) as View,
    (v) => v.status === 'done' || v.status === 'needs-approval' || v.status === 'error',
    180_000,
  );
}

/** What must be the same wherever the check ran (ids, times, tokens and the fixed file's URL are each server's own). */
function same(v: View) {
  return {
    status: v.status,
    verdict: v.verdict,
    approval: v.approval?.state,
    fixed: v.fixed ? { sha256: v.fixed.sha256, bytes: v.fixed.bytes, changes: v.fixed.changes, refused: v.fixed.refused } : null,
    findings: v.report?.findings.map((f) => `${f.code} p${f.page ?? '-'} ${f.layer ?? '-'} ${f.severity} ${f.message}`),
    assembly: v.report?.assembly,
    pages: v.report?.pages,
  };
}

describe('an image per layer through the fleet', () => {
  it('gives the same record and, once approved, the same file as the embedded server', async () => {
    const fields = { sku: 'TANKTOP-M', fix: 'approve', locale: 'fr', 'fit.front': 'contain' };
    const parts = { front: 'png8-alpha.png', back: 'orientation-6.jpg' };
    const [a, b, c] = [await submit(embedded.url, layersForm(fields, parts)), await submit(fleet!.url, layersForm(fields, parts)), await submit(fleetS3!.url, layersForm(fields, parts))];
    expect(a.status, JSON.stringify(a)).toBe('needs-approval');
    expect(a.report!.findings.some((f) => f.code === 'image-transparent-area' && f.layer === 'front')).toBe(true);
    expect(same(b), 'fleet, shared folder').toEqual(same(a));
    expect(same(c), 'fleet, S3').toEqual(same(a));
    const files: Buffer[] = [];
    for (const [url, v] of [
      [embedded.url, a],
      [fleet!.url, b],
      [fleetS3!.url, c],
    ] as const) {
      const approved = await fetch(`${url}/v1/checks/${v.id}/approve`, { method: 'POST' });
      expect(approved.status, await approved.clone().text()).toBe(200);
      const res = await fetch(`${url}${new URL(v.fixed!.url, url).pathname}`);
      expect(res.status).toBe(200);
      files.push(Buffer.from(await res.arrayBuffer()));
    }
    expect(createHash('sha256').update(files[0]!).digest('hex')).toBe(a.fixed!.sha256);
    expect(files[1]!.equals(files[0]!)).toBe(true);
    expect(files[2]!.equals(files[0]!)).toBe(true);
  }, 400_000);

  it('refuses a layer the product does not have with the same problem', async () => {
    const answers = [];
    for (const url of [embedded.url, fleet!.url, fleetS3!.url]) {
      const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: layersForm({ sku: 'TANKTOP-M' }, { front: 'small-1.jpg', sleeve: 'small-1.jpg' }) });
      const { instance: _i, ...body } = (await res.json()) as Record<string, unknown>;
      answers.push({ status: res.status, body });
    }
    expect(answers[0]!.status).toBe(400);
    expect((answers[0]!.body.errors as { path: string }[]).map((e) => e.path)).toEqual(['layer.sleeve']);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  }, 60_000);
});
