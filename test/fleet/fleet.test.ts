/**
 * The fleet for real: a redis-server started here on a loopback port, `print-preflight worker`
 * processes (the compiled CLI), and the server's RedisQueue in this process writing check jobs into
 * a data folder the workers share. Workers get short locks (8 s) and stall checks (1 s) so that a
 * killed worker's job moves on within seconds.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisQueue } from '../../src/fleet/queue.js';
import { JobStore } from '../../src/jobs/store.js';
import { newRecord, type CheckJob, type CheckRecord } from '../../src/jobs/schema.js';
import type { Target } from '../../src/flow/options.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { createUploadJob, doneCounts, eventually, stable, startWorker, stopWorker, writeHeavyPdf, type WorkerProcess } from './fleet-harness.js';

const CASES = (JSON.parse(readFileSync('test/corpus/cases.json', 'utf8')) as Array<{ file: string; target: Target; verdict: string }>).filter((c) =>
  [
    'reportlab-tshirt-M-exact.pdf',
    'img2pdf-tanktop-cmyk-jpeg.pdf',
    'reportlab-curtains-swapped.pdf',
    'gs-duvet-blank-front.pdf',
    'pikepdf-tanktop-icc-rgb.pdf',
    'qpdf-encrypted-owner-only-aes256.pdf',
    'broken-truncated.pdf',
    'cairo-curtains-within-tolerance.pdf',
  ].includes(c.file),
);
const corpus = (name: string) => `test/corpus/files/${name}`;

let redis: RedisServer;
let pool: PreflightPool;
const workers: WorkerProcess[] = [];
let queueNumber = 0;

beforeAll(async () => {
  redis = await startRedis();
  pool = new PreflightPool({ maxThreads: 1 });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await pool?.destroy();
  await redis?.stop();
});

/** A fresh data folder, queue name and server-side queue for one test. */
async function setup() {
  const queue = `t${++queueNumber}`;
  const store = await JobStore.open(mkdtempSync(join(tmpdir(), 'pp-fleet-data-')));
  const server = new RedisQueue({ url: redis.url, queue }, { store, policy: { attempts: 3, backoffMs: 200, crashLimit: 2 }, enqueueTimeoutMs: 1_000 });
  await server.start();
  const worker = (...args: string[]) => {
    const w = startWorker(redis.url, store.dir, ['--queue', queue, ...args]);
    workers.push(w);
    return w;
  };
  const finished = async (jobs: CheckJob[], timeoutMs = 150_000) => {
    const records = await Promise.all(jobs.map((j) => store.waitFinished(j.id, timeoutMs)));
    return records.map((r, i) => {
      if (!r) throw new Error(`check ${jobs[i]!.id} did not finish within ${timeoutMs} ms`);
      return r;
    });
  };
  return { queue, store, server, worker, finished };
}

/** The report of the same file checked here, as `check --json` makes it. */
const localReports = new Map<string, unknown>();
async function localReport(file: string, target: Target): Promise<unknown> {
  if (!localReports.has(file)) localReports.set(file, stable(await preflight(corpus(file), target, { pool, path: file })));
  return localReports.get(file);
}

describe('fleet on Redis', () => {
  it('two worker processes share 40 checks: each done exactly once, reports as a local check', async () => {
    const { store, server, worker, finished } = await setup();
    const a = worker();
    const b = worker();
    await Promise.all([a.waitFor((l) => l.event === 'redis-ready'), b.waitFor((l) => l.event === 'redis-ready')]);
    const jobs: Array<CheckJob & { file: string }> = [];
    for (let i = 0; i < 40; i++) {
      const c = CASES[i % CASES.length]!;
      const job = await createUploadJob(store, corpus(c.file), c.target, c.file);
      await server.enqueue(job);
      jobs.push({ ...job, file: c.file });
    }
    const records = await finished(jobs);
    expect(records.map((r) => r.status)).toEqual(jobs.map(() => 'done'));
    // A worker logs job-done just after the record is written: wait for the logs to catch up (a
    // loaded machine may show the records first), then every job must be logged exactly once.
    const logged = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
    const counts = await eventually(
      async () => doneCounts([a, b]),
      (m) => logged(m) >= jobs.length,
    );
    expect(Object.fromEntries(jobs.map((j) => [j.id, counts.get(j.id)]))).toEqual(Object.fromEntries(jobs.map((j) => [j.id, 1])));
    // Both took a share.
    expect(a.lines.filter((l) => l.event === 'job-done').length).toBeGreaterThan(0);
    expect(b.lines.filter((l) => l.event === 'job-done').length).toBeGreaterThan(0);
    for (const [i, job] of jobs.entries()) {
      const c = CASES[i % CASES.length]!;
      expect(records[i]!.verdict).toBe(c.verdict);
      expect(stable(await store.readReport(job.id))).toEqual(await localReport(job.file, c.target));
    }
    // BullMQ marks a job completed just after its result is on disk; the heartbeats follow each job.
    const counted = await eventually(
      () => server.counts(),
      (c) => c.completed === 40,
    );
    expect(counted).toEqual({ waiting: 0, active: 0, failed: 0, completed: 40 });
    const heartbeats = await eventually(
      () => server.workers(),
      (hs) => hs.reduce((s, h) => s + h.done, 0) === 40,
    );
    expect(heartbeats.map((h) => h.name).sort()).toEqual([a, b].map((w) => w.lines[0]!.worker).sort());
    await Promise.all([stopWorker(a), stopWorker(b)]);
    await server.close();
  });

  it('a worker killed with kill -9 mid-check: another worker takes the check over and its result is written once', async () => {
    const { store, server, worker, finished } = await setup();
    const heavy = writeHeavyPdf(join(store.dir, 'heavy.pdf'));
    const a = worker();
    const b = worker();
    await Promise.all([a.waitFor((l) => l.event === 'redis-ready'), b.waitFor((l) => l.event === 'redis-ready')]);
    const job = await createUploadJob(store, heavy, { sku: 'T-SHIRT-M' }, 'heavy.pdf');
    await server.enqueue(job);
    const started = await Promise.race([a, b].map((w) => w.waitFor((l) => l.event === 'job-start' && l.jobId === job.id).then(() => w)));
    const survivor = started === a ? b : a;
    // Mid-check for sure: the run has begun (record running) and takes seconds more.
    await eventually(
      () => store.readRecord(job.id),
      (r) => r?.status === 'running',
    );
    started.proc.kill('SIGKILL');
    await started.exited;
    const [record] = await finished([job]);
    expect(record!.status).toBe('done');
    expect(record!.attempts).toBe(2);
    expect(started.lines.some((l) => l.event === 'job-done')).toBe(false);
    // The record is written inside the run; the survivor logs job-done just after it returns.
    await survivor.waitFor((l) => l.event === 'job-done' && l.jobId === job.id);
    expect(doneCounts([a, b]).get(job.id)).toBe(1);
    expect(survivor.lines.some((l) => l.event === 'job-start' && l.jobId === job.id && l.stalls === 1)).toBe(true);
    const report = await store.readReport(job.id);
    expect(stable(report)).toEqual(stable(await preflight(heavy, { sku: 'T-SHIRT-M' }, { pool, path: 'heavy.pdf' })));
    await stopWorker(survivor);
    await server.close();
  });

  it('a file that takes worker after worker down ends as error after the crash limit, without a retry loop', async () => {
    const { store, server, worker, finished } = await setup();
    const poison = await createUploadJob(store, writeHeavyPdf(join(store.dir, 'poison.pdf')), { sku: 'T-SHIRT-M' }, 'poison.pdf');
    const good = await createUploadJob(store, corpus('reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' });
    // The supervisor (systemd's Restart=always) brings a killed worker back; this file kills every worker that opens it.
    const all: WorkerProcess[] = [];
    let kills = 0;
    let stopping = false;
    const supervise = (): void => {
      const w = worker();
      all.push(w);
      void w
        .waitFor((l) => l.event === 'job-start' && l.jobId === poison.id, 150_000)
        .then(
          () => {
            kills++;
            w.proc.kill('SIGKILL');
            if (!stopping) supervise();
          },
          () => undefined,
        );
    };
    supervise();
    supervise();
    await server.enqueue(poison);
    await server.enqueue(good);
    const [poisoned, fine] = await finished([poison, good]);
    stopping = true;
    expect(fine!.status).toBe('done');
    expect(poisoned).toMatchObject({ status: 'error', error: { code: 'ERR_WORKER_CRASHED' } });
    expect(poisoned!.error!.message).toContain('stopped 2 worker processes');
    expect(kills).toBe(2);
    expect(all.flatMap((w) => w.lines).filter((l) => l.event === 'job-poison' && l.jobId === poison.id)).toHaveLength(1);
    expect(await store.readReport(poison.id)).toBeNull();
    await Promise.all(all.map((w) => stopWorker(w)));
    await server.close();
  });

  it('Redis restarts mid-run: workers and the server reconnect and every check finishes once', async () => {
    const { store, server, worker, finished } = await setup();
    const a = worker();
    const b = worker();
    await Promise.all([a.waitFor((l) => l.event === 'redis-ready'), b.waitFor((l) => l.event === 'redis-ready')]);
    const jobs: CheckJob[] = [];
    for (let i = 0; i < 12; i++) {
      const c = CASES[i % CASES.length]!;
      jobs.push(await createUploadJob(store, corpus(c.file), c.target, c.file));
    }
    for (const job of jobs.slice(0, 6)) await server.enqueue(job);
    await Promise.race([a, b].map((w) => w.waitFor((l) => l.event === 'job-done')));
    // A planned restart (data saved): jobs queued before it are still there after it.
    await redis.down({ save: true });
    const health = await server.health();
    expect(health.ok).toBe(false);
    expect(health.detail).toContain(`Redis at redis://127.0.0.1:${redis.port}/0 does not answer`);
    // Checks submitted while Redis is away are accepted and reach the queue once it is back.
    for (const job of jobs.slice(6)) await server.enqueue(job);
    await redis.up();
    const records = await finished(jobs);
    expect(records.map((r) => r.status)).toEqual(jobs.map(() => 'done'));
    expect((await server.health()).ok).toBe(true);
    // Each result written once. A job whose lock ran out during the outage may be delivered again;
    // the worker then finds its result written and does not run it again.
    // A worker logs job-done just after the record is written: wait for the logs to catch up (a
    // loaded machine may show the records first), then every job must be logged exactly once.
    const logged = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
    const counts = await eventually(
      async () => doneCounts([a, b]),
      (m) => logged(m) >= jobs.length,
    );
    expect(Object.fromEntries(jobs.map((j) => [j.id, counts.get(j.id)]))).toEqual(Object.fromEntries(jobs.map((j) => [j.id, 1])));
    for (const l of [...a.lines, ...b.lines].filter((l) => l.event === 'job-already-done')) expect(counts.get(l.jobId!)).toBe(1);
    await Promise.all([stopWorker(a), stopWorker(b)]);
    await server.close();
  });

  it('Redis restarting empty: the server puts back the checks it lost, from the data folder', async () => {
    const { store, server, worker, finished } = await setup();
    const jobs: CheckJob[] = [];
    for (let i = 0; i < 4; i++) {
      const c = CASES[i]!;
      const job = await createUploadJob(store, corpus(c.file), c.target, c.file);
      await server.enqueue(job);
      jobs.push(job);
    }
    // No worker yet: the jobs wait in Redis, which then loses everything.
    await redis.restart({ save: false, downMs: 200 });
    const a = worker();
    const records: CheckRecord[] = await finished(jobs);
    expect(records.map((r) => r.status)).toEqual(jobs.map(() => 'done'));
    // job-done is logged just after the record is written: wait for the log to catch up.
    expect(
      (
        await eventually(
          async () => doneCounts([a]),
          (m) => m.size >= 4,
        )
      ).size,
    ).toBe(4);
    await stopWorker(a);
    await server.close();
  });

  it('a download that fails with 503 is retried with backoff and then checked; a 404 is not retried', async () => {
    const { store, server, worker, finished } = await setup();
    const pdf = readFileSync(corpus('reportlab-tshirt-M-exact.pdf'));
    const hits = new Map<string, number>();
    const source = createServer((req, res) => {
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      if (req.url === '/flaky.pdf' && n > 1) {
        res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': pdf.length });
        return res.end(pdf);
      }
      res.writeHead(req.url === '/flaky.pdf' ? 503 : 404);
      res.end('not now');
    });
    await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
    const { port } = source.address() as AddressInfo;
    const a = worker('--allow-host', `127.0.0.1:${port}`);
    const urlJob = async (path: string) => {
      const job: CheckJob = {
        id: randomUUID().replace(/-/g, ''),
        createdAt: new Date().toISOString(),
        source: { kind: 'url', url: `http://127.0.0.1:${port}${path}` },
        target: { sku: 'T-SHIRT-M' },
        options: { raster: true, previews: false },
      };
      await store.create(job, newRecord(job));
      await server.enqueue(job);
      return job;
    };
    const flaky = await urlJob('/flaky.pdf');
    const missing = await urlJob('/missing.pdf');
    const [done, notFound] = await finished([flaky, missing]);
    expect(done).toMatchObject({ status: 'done', verdict: 'pass', attempts: 2 });
    expect(hits.get('/flaky.pdf')).toBe(2);
    expect(a.lines.filter((l) => l.event === 'job-retry').map((l) => l.jobId)).toEqual([flaky.id]);
    expect((await store.readReport(flaky.id))!.rules['source-unreachable']).toBeUndefined();
    expect(notFound).toMatchObject({ status: 'done', verdict: 'fail', attempts: 1 });
    expect(hits.get('/missing.pdf')).toBe(1);
    expect((await store.readReport(missing.id))!.rules['source-unreachable']).toBe(1);
    await stopWorker(a);
    await server.close();
    source.close();
  });

  it('SIGTERM: a worker finishes its check in flight, then exits 0; past the grace period it puts it back', async () => {
    const { store, server, worker, finished } = await setup();
    const a = worker('--grace', '120');
    const job = await createUploadJob(store, writeHeavyPdf(join(store.dir, 'slow.pdf')), { sku: 'T-SHIRT-M' }, 'slow.pdf');
    await server.enqueue(job);
    await a.waitFor((l) => l.event === 'job-start' && l.jobId === job.id);
    a.proc.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(a.lines.map((l) => l.event)).toEqual(expect.arrayContaining(['worker-closing', 'job-done', 'worker-closed']));
    expect((await store.readRecord(job.id))!.status).toBe('done');

    const b = worker('--grace', '0.2');
    // Other bytes: the same file again would be answered at once from the first one's result (reuse).
    const second = await createUploadJob(store, writeHeavyPdf(join(store.dir, 'slow-2.pdf'), 40_001), { sku: 'T-SHIRT-M' }, 'slow-2.pdf');
    await server.enqueue(second);
    await b.waitFor((l) => l.event === 'job-start' && l.jobId === second.id);
    b.proc.kill('SIGTERM');
    expect(await b.exited).toBe(1);
    expect(b.lines.some((l) => l.event === 'job-requeued' && l.jobId === second.id)).toBe(true);
    expect((await store.readRecord(second.id))!.status).toBe('queued');
    // Put back without counting an attempt: the next worker runs it as a first attempt, not as a stalled one.
    const c = worker();
    const [record] = await finished([second]);
    expect(record!.status).toBe('done');
    expect(c.lines.some((l) => l.event === 'job-start' && l.jobId === second.id && l.stalls === 0)).toBe(true);
    await stopWorker(c);
    await server.close();
  });
});
