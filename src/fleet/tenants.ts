/**
 * The tenants' ledger of a fleet, in Redis: every `serve --redis` admits submissions against it and
 * every worker takes a running place from it before it runs a check, so a tenant's bounds hold
 * across all of them. Each change is one Lua script (atomic, timed by Redis's own clock).
 *
 * Keys, under `<prefix>:<queue>:`: `tenants` (a set of names), `tenant:<name>:q` (queued members,
 * scored by when they were queued), `tenant:<name>:r` (running members, scored by when their lease
 * ends) and `tenant:<name>:rate` (the per-minute bucket).
 */
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { TenantAdmission, TenantLedger, TenantLoad } from '../jobs/tenants.js';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const SCRIPTS = {
  // KEYS: q, tenants. ARGV: tenant, maxQueued, members…
  ppAdmit: {
    numberOfKeys: 2,
    lua: `${NOW}
local count = redis.call('ZCARD', KEYS[1])
local fresh = {}
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then fresh[#fresh + 1] = ARGV[i] end
end
local max = tonumber(ARGV[2])
if max > 0 and count + #fresh > max then return {0, count} end
-- In the order given, also within one millisecond (scores 1/1000 ms apart).
for i, m in ipairs(fresh) do redis.call('ZADD', KEYS[1], now + (i - 1) / 1000, m) end
redis.call('SADD', KEYS[2], ARGV[1])
return {1, count + #fresh}`,
  },
  // KEYS: q. ARGV: from, to.
  ppRename: {
    numberOfKeys: 1,
    lua: `${NOW}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('ZADD', KEYS[1], now, ARGV[2]) end
return 1`,
  },
  // KEYS: q, r, tenants. ARGV: tenant, member.
  ppRequeue: {
    numberOfKeys: 3,
    lua: `${NOW}
local freed = redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
return freed`,
  },
  // KEYS: q, r, tenants. ARGV: tenant, member, maxRunning, leaseMs. First come, first run: with a
  // bound, a waiting member starts only when it is among the oldest waiting (submissions still being
  // read, `r:…`, do not wait for a place and are skipped).
  ppStart: {
    numberOfKeys: 3,
    lua: `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local member = ARGV[2]
local max = tonumber(ARGV[3])
if max > 0 and not redis.call('ZSCORE', KEYS[2], member) then
  local free = max - redis.call('ZCARD', KEYS[2])
  if free <= 0 then return 0 end
  if redis.call('ZSCORE', KEYS[1], member) then
    local ahead, offset, found = 0, 0, false
    repeat
      local batch = redis.call('ZRANGE', KEYS[1], offset, offset + 99)
      for _, m in ipairs(batch) do
        if m == member then
          found = true
          break
        end
        if string.sub(m, 1, 2) ~= 'r:' then ahead = ahead + 1 end
        if ahead >= free then break end
      end
      offset = offset + 100
    until found or ahead >= free or #batch < 100
    if not found then return 0 end
  end
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), member)
redis.call('ZREM', KEYS[1], member)
redis.call('SADD', KEYS[3], ARGV[1])
return 1`,
  },
  // KEYS: r. ARGV: member, leaseMs.
  ppRenew: {
    numberOfKeys: 1,
    lua: `${NOW}
return redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])`,
  },
  // KEYS: q, r. ARGV: members…
  ppRemove: {
    numberOfKeys: 2,
    lua: `local freed = 0
for i = 1, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  freed = freed + redis.call('ZREM', KEYS[2], ARGV[i])
end
return freed`,
  },
  // KEYS: rate. ARGV: perMinute, cost. Returns 0, or the ms until the cost could be taken.
  ppTake: {
    numberOfKeys: 1,
    lua: `${NOW}
local cap = tonumber(ARGV[1])
local rate = cap / 60000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
local need = math.min(tonumber(ARGV[2]), cap)
local wait = 0
if tokens < need then wait = math.ceil((need - tokens) / rate) else tokens = tokens - need end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 120000)
return wait`,
  },
  // KEYS: q, r. Returns {queued, running}.
  ppLoad: {
    numberOfKeys: 2,
    lua: `${NOW}
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')}`,
  },
  // KEYS: q, r, tenants. ARGV: tenant. Forgets a tenant with nothing queued or running.
  ppForget: {
    numberOfKeys: 3,
    lua: `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0 then return redis.call('SREM', KEYS[3], ARGV[1]) end
return 0`,
  },
} as const;

type Scripted = Redis & { [K in keyof typeof SCRIPTS]: (...args: (string | number)[]) => Promise<unknown> };

/**
 * A {@link TenantLedger} in Redis, shared by the fleet's servers and workers.
 * @example
 * const ledger = new RedisLedger(connectRedis(url, 'ledger'), 'print-preflight:checks');
 * await ledger.admit('acme', [checkId], 200);
 */
export class RedisLedger implements TenantLedger {
  private readonly redis: Scripted;
  private readonly events = new EventEmitter<{ freed: [] }>();

  /** @param base `<prefix>:<queue>`: the fleet's key space. */
  constructor(
    redis: Redis,
    private readonly base: string,
  ) {
    for (const [name, { numberOfKeys, lua }] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys, lua });
    this.redis = redis as Scripted;
    this.events.setMaxListeners(0);
  }

  private key(tenant: string, part: 'q' | 'r' | 'rate'): string {
    return `${this.base}:tenant:${tenant}:${part}`;
  }

  private get tenantsKey(): string {
    return `${this.base}:tenants`;
  }

  async admit(tenant: string, members: readonly string[], maxQueued: number): Promise<TenantAdmission> {
    const [ok, count] = (await this.redis.ppAdmit(this.key(tenant, 'q'), this.tenantsKey, tenant, maxQueued, ...members)) as [number, number];
    return ok === 1 ? { ok: true } : { ok: false, queued: count };
  }

  async rename(tenant: string, from: string, to: string): Promise<void> {
    await this.redis.ppRename(this.key(tenant, 'q'), from, to);
  }

  async requeue(tenant: string, member: string): Promise<void> {
    const freed = (await this.redis.ppRequeue(this.key(tenant, 'q'), this.key(tenant, 'r'), this.tenantsKey, tenant, member)) as number;
    if (freed) this.events.emit('freed');
  }

  async startRun(tenant: string, member: string, maxRunning: number, leaseMs: number): Promise<boolean> {
    return (await this.redis.ppStart(this.key(tenant, 'q'), this.key(tenant, 'r'), this.tenantsKey, tenant, member, maxRunning, Math.ceil(leaseMs))) === 1;
  }

  async ahead(tenant: string, member: string): Promise<number> {
    return (await this.redis.zrank(this.key(tenant, 'q'), member)) ?? 0;
  }

  async renew(tenant: string, member: string, leaseMs: number): Promise<void> {
    await this.redis.ppRenew(this.key(tenant, 'r'), member, Math.ceil(leaseMs));
  }

  async remove(tenant: string, members: readonly string[]): Promise<void> {
    if (!members.length) return;
    const freed = (await this.redis.ppRemove(this.key(tenant, 'q'), this.key(tenant, 'r'), ...members)) as number;
    if (freed) this.events.emit('freed');
  }

  async take(tenant: string, perMinute: number, cost: number): Promise<number> {
    if (perMinute <= 0) return 0;
    return (await this.redis.ppTake(this.key(tenant, 'rate'), perMinute, cost)) as number;
  }

  async load(tenant: string): Promise<TenantLoad> {
    const [queued, running] = (await this.redis.ppLoad(this.key(tenant, 'q'), this.key(tenant, 'r'))) as [number, number];
    return { queued, running };
  }

  async loads(): Promise<Map<string, TenantLoad>> {
    const tenants = (await this.redis.smembers(this.tenantsKey)).sort();
    const out = new Map<string, TenantLoad>();
    const loads = await Promise.all(tenants.map((t) => this.load(t)));
    tenants.forEach((t, i) => {
      const load = loads[i]!;
      if (load.queued || load.running) out.set(t, load);
    });
    return out;
  }

  onFreed(listener: () => void): () => void {
    this.events.on('freed', listener);
    return () => this.events.off('freed', listener);
  }

  /**
   * Drops queued members that no longer wait: `stale(tenant, member, queuedAt)` decides (a check
   * that finished without its worker saying so, a reservation of a server that died). Forgets
   * tenants left with nothing. Resolves to the number dropped.
   */
  async reconcile(stale: (tenant: string, member: string, queuedAt: number) => Promise<boolean>): Promise<number> {
    let dropped = 0;
    for (const tenant of await this.redis.smembers(this.tenantsKey)) {
      const flat = await this.redis.zrange(this.key(tenant, 'q'), 0, -1, 'WITHSCORES');
      const gone: string[] = [];
      for (let i = 0; i < flat.length; i += 2) if (await stale(tenant, flat[i]!, Number(flat[i + 1]))) gone.push(flat[i]!);
      if (gone.length) {
        await this.redis.zrem(this.key(tenant, 'q'), ...gone);
        dropped += gone.length;
      }
      await this.redis.ppForget(this.key(tenant, 'q'), this.key(tenant, 'r'), this.tenantsKey, tenant);
    }
    return dropped;
  }
}
