/**
 * The tenants' ledger, in memory (the embedded server) and in a real Redis (the fleet): the same
 * table of cases holds for both — queued bound all or none, running bound with leases that expire
 * when a process dies, the per-minute allowance, and reconciliation of entries nothing waits for.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/fleet/tenants.js';
import { MemoryLedger, withRunningPlace, type TenantLedger } from '../../src/jobs/tenants.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

let redis: RedisServer;
const clients: Redis[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

let n = 0;
const kinds: [string, () => TenantLedger][] = [
  ['memory', () => new MemoryLedger()],
  [
    'redis',
    () => {
      const client = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: 1 });
      clients.push(client);
      return new RedisLedger(client, `test${n++}:checks`);
    },
  ],
];

describe.each(kinds)('%s ledger', (_kind, make) => {
  it('admits queued members within the bound, all or none; renames a reservation; counts', async () => {
    const ledger = make();
    expect(await ledger.admit('acme', ['r:1', 'r:2'], 3)).toEqual({ ok: true });
    expect(await ledger.admit('acme', ['d:1', 'd:2'], 3)).toEqual({ ok: false, queued: 2 });
    expect(await ledger.load('acme')).toEqual({ queued: 2, running: 0 });
    expect(await ledger.admit('acme', ['r:1'], 2)).toEqual({ ok: true });
    await ledger.rename('acme', 'r:1', 'c1');
    expect(await ledger.admit('other', ['r:9'], 1)).toEqual({ ok: true });
    expect(await ledger.admit('acme', ['x'], 0)).toEqual({ ok: true });
    expect(await ledger.load('acme')).toEqual({ queued: 3, running: 0 });
    expect([...(await ledger.loads()).keys()].sort()).toEqual(['acme', 'other']);
    await ledger.remove('acme', ['c1', 'r:2', 'x']);
    expect(await ledger.load('acme')).toEqual({ queued: 0, running: 0 });
  });

  it('runs at most maxRunning at once; a running member may start again; leases expire', async () => {
    const ledger = make();
    await ledger.admit('acme', ['a', 'b', 'c'], 10);
    expect(await ledger.startRun('acme', 'a', 2, 60_000)).toBe(true);
    expect(await ledger.startRun('acme', 'b', 2, 300)).toBe(true);
    expect(await ledger.startRun('acme', 'c', 2, 60_000)).toBe(false);
    expect(await ledger.startRun('acme', 'a', 2, 60_000)).toBe(true);
    expect(await ledger.load('acme')).toEqual({ queued: 1, running: 2 });
    // b's process "died": its lease runs out and frees the place.
    await new Promise((r) => setTimeout(r, 400));
    expect(await ledger.startRun('acme', 'c', 2, 60_000)).toBe(true);
    expect(await ledger.load('acme')).toEqual({ queued: 0, running: 2 });
    await ledger.requeue('acme', 'c');
    expect(await ledger.load('acme')).toEqual({ queued: 1, running: 1 });
    expect(await ledger.startRun('other', 'z', 0, 60_000)).toBe(true);
  });

  it('first come, first run: a place goes to the oldest waiting member; a submission still being read does not wait for one', async () => {
    const ledger = make();
    await ledger.admit('acme', ['r:upload', 'a', 'b', 'c'], 10);
    expect(await ledger.ahead('acme', 'a')).toBe(1);
    expect(await ledger.ahead('acme', 'c')).toBe(3);
    expect(await ledger.startRun('acme', 'c', 1, 60_000)).toBe(false);
    expect(await ledger.startRun('acme', 'a', 1, 60_000)).toBe(true);
    await ledger.remove('acme', ['a']);
    expect(await ledger.startRun('acme', 'c', 1, 60_000)).toBe(false);
    expect(await ledger.startRun('acme', 'b', 1, 60_000)).toBe(true);
    await ledger.remove('acme', ['b']);
    expect(await ledger.startRun('acme', 'c', 1, 60_000)).toBe(true);
    // With two places free, the two oldest may start in either order.
    await ledger.admit('acme', ['d', 'e', 'f'], 10);
    await ledger.remove('acme', ['c']);
    expect(await ledger.startRun('acme', 'f', 2, 60_000)).toBe(false);
    expect(await ledger.startRun('acme', 'e', 2, 60_000)).toBe(true);
    expect(await ledger.startRun('acme', 'd', 2, 60_000)).toBe(true);
    expect(await ledger.load('acme')).toEqual({ queued: 2, running: 2 });
  });

  it('a per-minute allowance refilled continuously: past it, the wait until the next', async () => {
    const ledger = make();
    for (let i = 0; i < 3; i++) expect(await ledger.take('acme', 3, 1)).toBe(0);
    const wait = await ledger.take('acme', 3, 1);
    expect(wait).toBeGreaterThan(19_000);
    expect(wait).toBeLessThanOrEqual(20_000);
    expect(await ledger.take('other', 3, 1)).toBe(0);
    expect(await ledger.take('acme', 0, 100)).toBe(0);
  });

  it('withRunningPlace waits for a place, renews it, frees it', async () => {
    const ledger = make();
    await ledger.admit('acme', ['hold', 'next'], 10);
    expect(await ledger.startRun('acme', 'hold', 1, 60_000)).toBe(true);
    let ran = false;
    const waiting = withRunningPlace(
      ledger,
      { tenant: 'acme', member: 'next', maxRunning: 1 },
      async () => {
        ran = true;
        return (await ledger.load('acme')).running;
      },
      { pollMs: 50 },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toBe(false);
    await ledger.remove('acme', ['hold']);
    expect(await waiting).toBe(1);
    expect(await ledger.load('acme')).toEqual({ queued: 0, running: 0 });
    const aborted = new AbortController();
    await ledger.admit('acme', ['hold2'], 10);
    await ledger.startRun('acme', 'hold2', 1, 60_000);
    const refused = withRunningPlace(ledger, { tenant: 'acme', member: 'never', maxRunning: 1 }, async () => 'ran', { signal: aborted.signal, pollMs: 50 });
    aborted.abort(new Error('client went away'));
    await expect(refused).rejects.toThrow('client went away');
  });
});

describe('redis ledger reconciliation', () => {
  it('drops queued entries nothing waits for and forgets empty tenants', async () => {
    const client = new Redis({ host: '127.0.0.1', port: redis.port });
    clients.push(client);
    const ledger = new RedisLedger(client, 'reconcile:checks');
    await ledger.admit('acme', ['done-check', 'waiting-check', 'r:old'], 0);
    const dropped = await ledger.reconcile(async (_t, member) => member !== 'waiting-check');
    expect(dropped).toBe(2);
    expect(await ledger.load('acme')).toEqual({ queued: 1, running: 0 });
    await ledger.remove('acme', ['waiting-check']);
    await ledger.reconcile(async () => false);
    expect(await client.smembers('reconcile:checks:tenants')).toEqual([]);
  });
});
