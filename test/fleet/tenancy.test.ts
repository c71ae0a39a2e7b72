/**
 * Tenants across a fleet: a real Redis, `serve` in this process on the Redis queue, and two
 * `print-preflight worker` processes. The owner travels with the job: a tenant limited to one
 * running check gets one worker, fleet-wide, while another tenant's check takes the other. Redis
 * stopped mid-run: /metrics still answers within a second (Redis marked down, its gauges stale,
 * then absent), submissions get 503 at once, reads go on, and every accepted check finishes once
 * Redis is back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisQueueFactory } from '../../src/fleet/queue.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startGatedSource, type GatedSource } from '../helpers/gated-source.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { eventually, startWorker, stopWorker, type WorkerProcess } from './fleet-harness.js';

const ACME = 'acme-fleet-key-01';
const OTHER = 'other-fleet-key-1';
const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

let redis: RedisServer;
let gate: GatedSource;
const workers: WorkerProcess[] = [];
const services: ServiceHandle[] = [];
let queueNumber = 0;

beforeAll(async () => {
  redis = await startRedis();
  gate = await startGatedSource();
});

afterAll(async () => {
  gate?.open();
  for (const s of services) await s.close();
  await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
  await gate?.close();
  await redis?.stop();
});

async function fleet(workerCount: number) {
  const queue = `tenancy${++queueNumber}`;
  const data = mkdtempSync(join(tmpdir(), 'pp-fleet-tenancy-'));
  const service = await startService({
    port: 0,
    dataDir: data,
    logLevel: 'silent',
    tenants: [
      { name: 'acme', keys: [ACME], maxRunning: 1 },
      { name: 'other', keys: [OTHER] },
    ],
    allowHosts: ['127.0.0.1'],
    queue: redisQueueFactory({ url: redis.url, queue }, { metricsStaleMs: 3_000, enqueueTimeoutMs: 1_000 }),
  });
  services.push(service);
  const started = Array.from({ length: workerCount }, () => startWorker(redis.url, data, ['--queue', queue, '--allow-host', '127.0.0.1']));
  workers.push(...started);
  await Promise.all(started.map((w) => w.waitFor((l) => l.event === 'redis-ready')));
  return { service, workers: started, queue };
}

const submit = (service: ServiceHandle, key: string, url: string) =>
  fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url, sku: 'T-SHIRT-M', raster: false }), headers: json(key) });

async function statusOf(service: ServiceHandle, key: string, id: string): Promise<string> {
  return ((await (await fetch(`${service.url}/v1/checks/${id}`, { headers: json(key) })).json()) as { status: string }).status;
}

describe('tenants on a fleet', () => {
  it('the owner travels with the job: a tenant limited to one running check holds one worker of two, fleet-wide', { timeout: 150_000 }, async () => {
    const {
      service,
      workers: [a, b],
      queue,
    } = await fleet(2);
    const trail = () => `arrived: ${gate.arrived.join(' ')}; workers: ${[a, b].map((w) => w!.lines.map((l) => `${l.event}:${l.jobId ?? ''}`).join(' ')).join(' | ')}`;
    const step = async <T>(p: Promise<T>) => {
      try {
        return await p;
      } catch (error) {
        throw new Error(`${(error as Error).message}; ${trail()}`);
      }
    };
    const ids: string[] = [];
    for (const name of ['acme1', 'acme2', 'acme3']) {
      const res = await submit(service, ACME, gate.url(`${queue}-${name}`));
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await step(gate.waitFor(`${queue}-acme1`, 60_000));
    // The second worker does not take acme's next check: it is free for another tenant's.
    const other = await submit(service, OTHER, gate.url(`${queue}-other`));
    expect(other.status).toBe(202);
    await step(gate.waitFor(`${queue}-other`, 60_000));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(gate.held().filter((n) => n.startsWith(queue))).toEqual([`${queue}-acme1`, `${queue}-other`]);
    // Another tenant cannot see acme's checks on the fleet either.
    expect((await fetch(`${service.url}/v1/checks/${ids[0]}`, { headers: json(OTHER) })).status).toBe(404);
    gate.release(`${queue}-other`);
    gate.release(`${queue}-acme1`);
    await step(gate.waitFor(`${queue}-acme2`, 60_000));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(gate.held().filter((n) => n.startsWith(`${queue}-acme`))).toEqual([`${queue}-acme2`]);
    gate.release(`${queue}-acme2`);
    await step(gate.waitFor(`${queue}-acme3`, 60_000));
    gate.release(`${queue}-acme3`);
    for (const id of ids)
      expect(
        await eventually(
          () => statusOf(service, ACME, id),
          (s) => s === 'done',
          60_000,
        ),
      ).toBe('done');
    // First come, first run within the tenant, across workers.
    expect(gate.arrived.filter((n) => n.startsWith(`${queue}-acme`))).toEqual([`${queue}-acme1`, `${queue}-acme2`, `${queue}-acme3`]);
    // Deferred checks were not attempts, and nothing is left in the tenant's ledger.
    const view = (await (await fetch(`${service.url}/v1/checks/${ids[2]}`, { headers: json(ACME) })).json()) as { attempts: number };
    expect(view.attempts).toBe(1);
    expect(await redis.command('ZCARD', `print-preflight:${queue}:tenant:acme:q`)).toBe(':0\r\n');
    expect(await redis.command('ZCARD', `print-preflight:${queue}:tenant:acme:r`)).toBe(':0\r\n');
    expect([a!, b!].flatMap((w) => w.lines).filter((l) => l.event === 'job-start' && ids.includes(l.jobId ?? ''))).toHaveLength(3);
  });

  it('Redis stopped mid-run: /metrics within a second, Redis marked down and its gauges stale then absent; 503 for submissions, reads go on; all finish after', { timeout: 150_000 }, async () => {
    const { service, queue } = await fleet(1);
    const metrics = async () => {
      const started = performance.now();
      const res = await fetch(`${service.url}/metrics`);
      const text = await res.text();
      return { status: res.status, text, ms: performance.now() - started };
    };
    const before = await submit(service, OTHER, gate.url(`${queue}-inflight`));
    expect(before.status).toBe(202);
    const id = ((await before.json()) as { id: string }).id;
    await gate.waitFor(`${queue}-inflight`);
    const up = await eventually(metrics, (m) => /^print_preflight_fleet_workers 1$/m.test(m.text));
    expect(up.text).toMatch(/^print_preflight_redis_up 1$/m);

    await redis.down({ save: true });
    const during = [];
    for (let i = 0; i < 3; i++) during.push(await metrics());
    for (const m of during) {
      expect(m.status).toBe(200);
      expect(m.ms).toBeLessThan(1_000);
      expect(m.text).toMatch(/^print_preflight_redis_up 0$/m);
    }
    // The last view, marked by its age, until it is too old to show.
    expect(during[0]!.text).toMatch(/^print_preflight_redis_view_age_seconds \d/m);
    const stale = await eventually(metrics, (m) => !/^print_preflight_fleet_workers /m.test(m.text), 15_000);
    expect(stale.ms).toBeLessThan(1_000);
    expect(stale.text).not.toMatch(/^print_preflight_queue_depth /m);
    expect(stale.text).toMatch(/^# TYPE print_preflight_queue_depth gauge$/m);

    // Submissions: refused at once with Retry-After, nothing accepted that could not be counted.
    const t0 = performance.now();
    const refused = await submit(service, OTHER, gate.url(`${queue}-refused`));
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { code: string }).code).toBe('queue-unavailable');
    // Reads come from the data folder: they go on.
    expect(await statusOf(service, OTHER, id)).toBe('running');
    expect((await fetch(`${service.url}/health`)).status).toBe(503);
    gate.release(`${queue}-inflight`);

    await redis.up();
    await eventually(metrics, (m) => /^print_preflight_redis_up 1$/m.test(m.text) && /^print_preflight_fleet_workers 1$/m.test(m.text), 30_000);
    const after = await submit(service, OTHER, gate.url(`${queue}-after`));
    expect(after.status).toBe(202);
    gate.release(`${queue}-after`);
    gate.open();
    expect(
      await eventually(
        () => statusOf(service, OTHER, id),
        (s) => s === 'done',
        90_000,
      ),
    ).toBe('done');
    const afterId = ((await after.json()) as { id: string }).id;
    expect(
      await eventually(
        () => statusOf(service, OTHER, afterId),
        (s) => s === 'done',
        90_000,
      ),
    ).toBe('done');

    // A Redis that is full (maxmemory, noeviction) cannot take more: 503, and nothing is kept.
    const kept = (await service.store.ids()).length;
    await redis.command('CONFIG', 'SET', 'maxmemory', '1');
    try {
      const full = await submit(service, OTHER, gate.url(`${queue}-full`));
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe('5');
      expect((await service.store.ids()).length).toBe(kept);
    } finally {
      await redis.command('CONFIG', 'SET', 'maxmemory', '0');
    }
    expect((await submit(service, OTHER, gate.url(`${queue}-room`))).status).toBe(202);
  });
});
