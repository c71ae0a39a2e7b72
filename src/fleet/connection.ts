/**
 * Redis connections of the fleet. One URL (`redis://[user:password@]host[:port][/db]`, or
 * `rediss://` for TLS) names the Redis every server, batch and worker process shares. Each BullMQ
 * object gets its own connection (workers and event listeners block on theirs), made here with the
 * settings BullMQ needs: commands wait for a reconnection instead of failing
 * (`maxRetriesPerRequest: null`), and reconnection goes on forever with a capped delay, so a Redis
 * restart is a pause, not a crash.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';
import { parseOrThrow } from '../util/parse.js';
import { InvalidArgumentError } from '../errors.js';

/** Where the fleet's Redis is and what the queue is called. */
export const FleetConnectionSchema = z.object({
  /** `redis://host:6379/0` (or `rediss://` for TLS). */
  url: z.string(),
  /** Queue name: servers, batches and workers of one fleet must use the same. Default `checks`. */
  queue: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", "." and "-" only')
    .default('checks'),
  /** Prefix of every Redis key. Default `print-preflight`. */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", "." and "-" only')
    .default('print-preflight'),
});
export type FleetConnection = z.input<typeof FleetConnectionSchema>;
export type ResolvedFleetConnection = z.output<typeof FleetConnectionSchema>;

/** Longest wait between two reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * Reads a Redis URL into ioredis options.
 * @throws {InvalidArgumentError} naming what is wrong with the URL
 * @example
 * parseRedisUrl('redis://:secret@queue.internal:6380/2'); // { host: 'queue.internal', port: 6380, db: 2, password: 'secret' }
 */
export function parseRedisUrl(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InvalidArgumentError(`Expected a Redis URL like redis://host:6379/0 for --redis but received "${url}"`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new InvalidArgumentError(`Expected a redis:// or rediss:// URL for --redis but received the scheme "${u.protocol}"`);
  }
  if (!u.hostname) throw new InvalidArgumentError(`The Redis URL "${url}" has no host`);
  const port = u.port ? Number(u.port) : 6379;
  const dbText = u.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0 || db > 15 || !/^\d*$/.test(dbText)) {
    throw new InvalidArgumentError(`Expected a database number from 0 to 15 after the host in the Redis URL, got "/${dbText}"`);
  }
  const options: RedisOptions = { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port, db };
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (u.protocol === 'rediss:') options.tls = { servername: u.hostname };
  return options;
}

/** The URL with its password replaced, for logs and /health. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A new connection for one BullMQ object. Errors while Redis is away are reported through
 * `onError` (once per outage) instead of crashing the process.
 *
 * With `failFastMs`, a command fails at once while Redis is away, and after that many ms when it
 * does not answer, instead of waiting for a reconnection: for answers that must not hang (a
 * submission's admission, /metrics).
 */
export function connectRedis(url: string, name: string, onError?: (error: Error) => void, { failFastMs }: { failFastMs?: number } = {}): Redis {
  const redis = new Redis({
    ...parseRedisUrl(url),
    connectionName: name.replace(/[^A-Za-z0-9_.:-]/g, '_'),
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), MAX_RECONNECT_DELAY_MS),
    ...(failFastMs ? { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: failFastMs } : { maxRetriesPerRequest: null }),
  });
  let reported = false;
  redis.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    onError?.(error);
  });
  redis.on('ready', () => (reported = false));
  return redis;
}

/** Resolves and validates a connection description. */
export function resolveConnection(connection: FleetConnection): ResolvedFleetConnection {
  const parsed = parseOrThrow(FleetConnectionSchema, connection, 'Invalid fleet connection');
  parseRedisUrl(parsed.url);
  return parsed;
}

/**
 * Waits for `promise` at most `ms`: true when it settled in time. A command to a Redis that has
 * gone away never settles (commands wait for a reconnection), so nothing that must end — a
 * shutdown — may await one without this.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** True when the connection can run commands now (not connecting, reconnecting or closed). */
export const reachable = (redis: Redis | null | undefined): boolean => redis?.status === 'ready';
