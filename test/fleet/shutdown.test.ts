/**
 * SIGTERM when Redis has gone away: a `worker` (idle, or with a check in flight) and `serve --redis`
 * stop within their grace period instead of waiting for a Redis that never answers; a check a
 * worker could not hand back is taken over by another worker once Redis is back (stalled-job
 * recovery) and finished once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisQueue } from '../../src/fleet/queue.js';
import { JobStore } from '../../src/jobs/store.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { BIN, createUploadJob, doneCounts, startWorker, stopWorker, writeHeavyPdf, type WorkerProcess } from './fleet-harness.js';

let redis: RedisServer;
const workers: WorkerProcess[] = [];
const servers: ChildProcess[] = [];
let queueNumber = 0;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await redis?.stop();
});

/** Seconds from now until `exited` resolves. */
async function secondsUntil(exited: Promise<number | null>): Promise<{ code: number | null; seconds: number }> {
  const start = performance.now();
  const code = await exited;
  return { code, seconds: (performance.now() - start) / 1000 };
}

/** Slack on top of a grace period: the hand-back window (5 s) and process exit on a loaded machine. */
const SLACK_S = 15;

describe('SIGTERM with Redis unreachable', () => {
  it('an idle worker stops at once, and says Redis could not be reached', async () => {
    const store = await JobStore.open(mkdtempSync(join(tmpdir(), 'pp-shutdown-')));
    const w = startWorker(redis.url, store.dir, ['--queue', `s${++queueNumber}`, '--grace', '30']);
    workers.push(w);
    await w.waitFor((l) => l.event === 'worker-started');
    await redis.down();
    await w.waitFor((l) => l.event === 'redis-unreachable' || l.event === 'worker-error');
    w.proc.kill('SIGTERM');
    const { code, seconds } = await secondsUntil(w.exited);
    expect(code).toBe(0);
    // Nothing in flight: no reason to wait for the 30 s grace, nor for Redis.
    expect(seconds).toBeLessThan(SLACK_S);
    expect(w.lines.map((l) => l.event)).toEqual(expect.arrayContaining(['worker-closing', 'worker-closed-without-redis', 'worker-closed']));
    await redis.up();
  }, 120_000);

  it('a worker with a check in flight stops within its grace; the check is taken over once Redis is back', async () => {
    const queue = `s${++queueNumber}`;
    const store = await JobStore.open(mkdtempSync(join(tmpdir(), 'pp-shutdown-')));
    const server = new RedisQueue({ url: redis.url, queue }, { store, policy: { attempts: 3, backoffMs: 200, crashLimit: 2 }, enqueueTimeoutMs: 1_000 });
    await server.start();
    const a = startWorker(redis.url, store.dir, ['--queue', queue, '--grace', '2']);
    workers.push(a);
    const job = await createUploadJob(store, writeHeavyPdf(join(store.dir, 'slow.pdf'), 120_000), { sku: 'T-SHIRT-M' }, 'slow.pdf');
    await server.enqueue(job);
    await a.waitFor((l) => l.event === 'job-start' && l.jobId === job.id);
    await redis.down({ save: true });
    a.proc.kill('SIGTERM');
    const { code, seconds } = await secondsUntil(a.exited);
    expect(code).toBe(1);
    expect(seconds).toBeLessThan(2 + SLACK_S);
    const note = a.lines.find((l) => l.event === 'worker-closed-without-redis');
    expect(note?.detail).toMatch(/not handed back.*stalled-job check/);

    await redis.up();
    const b = startWorker(redis.url, store.dir, ['--queue', queue]);
    workers.push(b);
    const record = await store.waitFinished(job.id, 150_000);
    expect(record?.status).toBe('done');
    // The record is written inside the run; the worker logs job-done just after it returns.
    await b.waitFor((l) => l.event === 'job-done' && l.jobId === job.id);
    expect(doneCounts([a, b]).get(job.id)).toBe(1);
    await stopWorker(b);
    await server.close(5_000);
  }, 240_000);

  it('serve --redis stops within its grace', async () => {
    const data = mkdtempSync(join(tmpdir(), 'pp-shutdown-serve-'));
    const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', data, '--redis', redis.url, '--grace', '3', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    servers.push(proc);
    const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    let err = '';
    await new Promise<void>((resolve, reject) => {
      proc.stderr!.on('data', (d) => {
        err += d;
        if (/listening on/.test(err)) resolve();
      });
      void exited.then(() => reject(new Error(`serve exited: ${err}`)));
    });
    await redis.down();
    // Let its connections notice.
    await new Promise((r) => setTimeout(r, 1_500));
    proc.kill('SIGTERM');
    const { code, seconds } = await secondsUntil(exited);
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(3 + SLACK_S);
    await redis.up();
  }, 120_000);
});
