/**
 * The jobs layer under the service: the durable store (temporaries, retention, idempotent
 * results), runCheckJob (idempotent by id, unreadable uploads, aborts), and callback delivery
 * (giving up after the last attempt, the SSRF guard at delivery).
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackUrlProblem, deliverCallback } from '../../src/jobs/callback.js';
import { runCheckJob } from '../../src/jobs/run.js';
import { CheckJobSchema, newRecord, type CheckJob } from '../../src/jobs/schema.js';
import { JobStore } from '../../src/jobs/store.js';
import { temporaryFor } from '../../src/util/durable.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { CORPUS, tempDir } from './harness.js';

let pool: PreflightPool;
const dirs: string[] = [];
beforeAll(() => {
  pool = new PreflightPool({ maxThreads: 2 });
});
afterAll(async () => {
  await pool.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let counter = 0;
const id = () => (++counter).toString(16).padStart(32, 'a');

async function storeWithUpload(file = 'reportlab-tshirt-M-exact.pdf', extra: Partial<CheckJob> = {}): Promise<{ store: JobStore; job: CheckJob }> {
  const dir = tempDir('pp-jobs-');
  dirs.push(dir);
  const store = await JobStore.open(dir);
  const jobId = id();
  const temp = store.uploadTemp(jobId);
  copyFileSync(join(CORPUS, file), temp);
  const rel = await store.commitUpload(temp, jobId);
  const job = CheckJobSchema.parse({
    id: jobId,
    createdAt: new Date().toISOString(),
    source: { kind: 'upload', file: rel, name: file },
    target: { sku: 'T-SHIRT-M' },
    options: { raster: true, previews: true },
    ...extra,
  });
  await store.create(job, newRecord(job));
  return { store, job };
}

describe('JobStore', () => {
  it('refuses ids that are not check ids, and paths that leave the folder', async () => {
    const { store } = await storeWithUpload();
    expect(() => store.checkDir('../x')).toThrow(/check id/);
    expect(() => store.resolve('uploads/../../etc/passwd')).toThrow(/leaves the data folder/);
    expect(await store.readRecord('../../etc')).toBeNull();
  });

  it("clears only temporaries old enough to be a dead process's", async () => {
    const { store } = await storeWithUpload();
    const old = temporaryFor(join(store.dir, 'uploads', `${id()}.pdf`));
    const young = temporaryFor(join(store.dir, 'uploads', `${id()}.pdf`));
    writeFileSync(old, 'x');
    writeFileSync(young, 'x');
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(old, hourAgo, hourAgo);
    expect(await store.removeTemporaries()).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });

  it('retention removes checks finished longer ago than the limit, keeps the rest', async () => {
    const { store, job } = await storeWithUpload();
    const keep = CheckJobSchema.parse({ ...job, id: id() });
    const running = CheckJobSchema.parse({ ...job, id: id() });
    await store.create(keep, newRecord(keep));
    await store.create(running, newRecord(running));
    const day = 24 * 60 * 60_000;
    await store.updateRecord(job.id, (r) => ({ ...r, status: 'done', finishedAt: new Date(Date.now() - 8 * day).toISOString() }));
    await store.updateRecord(keep.id, (r) => ({ ...r, status: 'done', finishedAt: new Date(Date.now() - 6 * day).toISOString() }));
    await store.updateRecord(running.id, (r) => ({ ...r, status: 'running', createdAt: new Date(Date.now() - 30 * day).toISOString() }));
    expect(await store.sweep(7 * day)).toBe(1);
    expect(await store.ids()).toEqual([keep.id, running.id].sort());
    expect(existsSync(join(store.dir, store.uploadFile(job.id)))).toBe(false);
  });

  it('serialises changes of one record: none is lost', async () => {
    const { store, job } = await storeWithUpload();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.updateRecord(job.id, (r) => ({ ...r, callbacks: [...r.callbacks, { at: new Date().toISOString(), status: 500 + i }] }))));
    expect((await store.readRecord(job.id))!.callbacks).toHaveLength(20);
  });
});

describe('runCheckJob', () => {
  it('writes the report, HTML and previews, removes the upload, and does nothing the second time', async () => {
    const { store, job } = await storeWithUpload();
    const record = await runCheckJob(job, { store, pool });
    expect(record).toMatchObject({ status: 'done', verdict: 'pass', attempts: 1 });
    const report = readFileSync(join(store.checkDir(job.id), 'report.json'), 'utf8');
    expect(JSON.parse(report).file.path).toBe('reportlab-tshirt-M-exact.pdf');
    expect(readdirSync(join(store.checkDir(job.id), 'pages')).sort()).toEqual(['1.webp', '2.webp', '3.webp', '4.webp']);
    expect(readFileSync(store.reportHtmlFile(job.id), 'utf8')).toContain('data-verdict="pass"');
    expect(existsSync(store.resolve(store.uploadFile(job.id)))).toBe(false);
    const again = await runCheckJob(job, { store, pool });
    expect(again).toEqual(record);
    expect(readFileSync(join(store.checkDir(job.id), 'report.json'), 'utf8')).toBe(report);
  });

  it('an upload that is gone makes an error record with a stable code, not a throw', async () => {
    const { store, job } = await storeWithUpload();
    await store.removeUpload(job.id);
    const record = await runCheckJob(job, { store, pool });
    expect(record.status).toBe('error');
    expect(record.error?.code).toBe('ERR_INPUT_UNREADABLE');
  });

  it('an abort puts the job back to queued (a restart runs it)', async () => {
    const { store, job } = await storeWithUpload('reportlab-tshirt-M-three-pages.pdf');
    const controller = new AbortController();
    controller.abort();
    const record = await runCheckJob(job, { store, pool, signal: controller.signal });
    expect(record.status).toBe('queued');
    expect(record.attempts).toBe(1);
    expect((await store.unfinished()).map((r) => r.id)).toEqual([job.id]);
  });
});

describe('callbacks', () => {
  it.each([
    ['https://hooks.example.com/x', null],
    ['ftp://hooks.example.com/x', /http or https/],
    ['https://user:pw@hooks.example.com/x', /user name or password/],
    ['http://127.0.0.1:9/x', /loopback/],
    ['http://[::1]/x', /loopback/],
    ['http://10.1.2.3/x', /private/],
    ['not a url', /not a valid URL/],
  ])('callbackUrlProblem(%s)', (url, problem) => {
    const found = callbackUrlProblem(url, []);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('an allowed host may be loopback', () => {
    expect(callbackUrlProblem('http://127.0.0.1:9/x', ['127.0.0.1'])).toBeNull();
  });

  it('gives up after the last attempt, every attempt recorded', async () => {
    const server = http.createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const { store, job } = await storeWithUpload('reportlab-tshirt-M-exact.pdf', { callbackUrl: url });
      await runCheckJob(job, { store, pool });
      const record = await deliverCallback(job.id, store, { secret: 's', maxAttempts: 3, backoffMs: 10, allowHosts: ['127.0.0.1'] });
      expect(record!.callbackState).toBe('failed');
      expect(record!.callbacks.map((c) => c.status)).toEqual([500, 500, 500]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('checks the address a host name resolves to at delivery (localhost is loopback)', async () => {
    const { store, job } = await storeWithUpload('reportlab-tshirt-M-exact.pdf', { callbackUrl: 'http://localhost:9/hook' });
    await runCheckJob(job, { store, pool });
    const record = await deliverCallback(job.id, store, { secret: 's', maxAttempts: 1, backoffMs: 10 });
    expect(record!.callbackState).toBe('failed');
    expect(record!.callbacks[0]!.error).toMatch(/resolves to .*loopback/);
  });
});
