/**
 * API keys and the per-key limit of concurrent checks.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { JobStore } from '../jobs/store.js';
import { Problem } from './problem.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Checks keys in constant time; a key is known to logs only by a short fingerprint. */
export class ApiKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** The fingerprint of the request's key, or a 401 problem. Without keys configured: "anonymous". */
  identify(request: FastifyRequest): string {
    if (!this.enabled) return 'anonymous';
    const given = keyOf(request);
    const challenge = { headers: { 'WWW-Authenticate': 'Bearer realm="print-preflight"' } };
    if (!given) throw new Problem(401, 'api-key-missing', 'Send an API key: "Authorization: Bearer KEY" or "x-api-key: KEY".', challenge);
    const d = digest(given);
    let ok = false;
    for (const known of this.digests) ok = timingSafeEqual(d, known) || ok;
    if (!ok) throw new Problem(401, 'api-key-unknown', 'The API key is not one this server accepts.', challenge);
    return d.toString('hex').slice(0, 12);
  }
}

function keyOf(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1]!;
  }
  const header = request.headers['x-api-key'];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || null;
}

/**
 * At most `limit` checks per key queued or running at once. A slot is reserved before an upload is
 * read (so a refused client does not upload first), then bound to the check it became, and freed
 * when that check finishes.
 */
export class KeyLimiter {
  private readonly slots = new Map<string, Set<string>>();

  constructor(
    private readonly store: JobStore,
    private readonly limit: number,
    private readonly retryAfterSeconds = 5,
  ) {
    store.onRecord((r) => {
      if (r.status === 'done' || r.status === 'error') for (const set of this.slots.values()) set.delete(r.id);
    });
  }

  async reserve(key: string): Promise<string> {
    const set = this.slots.get(key) ?? new Set<string>();
    this.slots.set(key, set);
    // Checks finished by another process (a fleet worker) are seen on disk.
    for (const id of [...set]) {
      if (id.startsWith('reserved:')) continue;
      const record = await this.store.readRecord(id).catch(() => null);
      if (!record || record.status === 'done' || record.status === 'error') set.delete(id);
    }
    if (set.size >= this.limit) {
      throw new Problem(429, 'too-many-checks', `This API key has ${set.size} checks queued or running, the most allowed at once. Retry when one has finished.`, {
        headers: { 'Retry-After': String(this.retryAfterSeconds) },
        limit: this.limit,
      });
    }
    const token = `reserved:${randomUUID()}`;
    set.add(token);
    return token;
  }

  bind(key: string, token: string, checkId: string): void {
    const set = this.slots.get(key);
    if (!set?.delete(token)) return;
    set.add(checkId);
  }

  release(key: string, token: string): void {
    this.slots.get(key)?.delete(token);
  }
}
