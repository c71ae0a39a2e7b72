/**
 * Tenants: who owns a check. Each API key is a tenant of its own, unless the operator gives a name
 * to a set of keys (a customer with a key per system); admin keys see every tenant's checks. A
 * request is identified once (constant-time key comparison) and carries its {@link Caller}.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';
import { TenantIdSchema } from '../jobs/schema.js';
import { Problem } from './problem.js';

export const ApiKeySchema = z.string().min(8, 'an API key needs at least 8 characters').max(4096);

const RESERVED = new Set(['admin', 'anonymous']);

/** A tenant name an operator may give: not `admin`, `anonymous`, or `key-…` (the names of keys without one). */
export const TenantNameSchema = TenantIdSchema.refine((n) => !RESERVED.has(n.toLowerCase()) && !n.toLowerCase().startsWith('key-'), {
  message: 'must not be "admin", "anonymous" or start with "key-" (those name keys without a tenant)',
});

/** What bounds a tenant: every one defaults to the server's per-tenant setting. */
export const TenantLimitsSchema = z
  .object({
    /** Checks (and order-draft sources) waiting to run. */
    maxQueued: z.number().int().min(1).max(1_000_000),
    /** Checks (and order-draft sources) running at once, fleet-wide; 0: no bound of its own. */
    maxRunning: z.number().int().min(0).max(100_000),
    /** Submissions per minute; 0: no bound. */
    uploadsPerMinute: z.number().int().min(0).max(1_000_000),
  })
  .strict();
export type TenantLimits = z.infer<typeof TenantLimitsSchema>;

export const TenantConfigSchema = z
  .object({
    name: TenantNameSchema,
    keys: z.array(ApiKeySchema).min(1),
    ...TenantLimitsSchema.partial().shape,
  })
  .strict();
export type TenantConfig = z.input<typeof TenantConfigSchema>;

/** The file of `serve --tenants FILE`. */
export const TenantsFileSchema = z
  .object({
    $schema: z.string().optional(),
    tenants: z.array(TenantConfigSchema).default([]),
    adminKeys: z.array(ApiKeySchema).default([]),
  })
  .strict();

/** Who sent a request. */
export interface Caller {
  tenant: string;
  /** Sees every tenant's checks. */
  admin: boolean;
  limits: TenantLimits;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The tenant name of a key given without one: a short fingerprint (the key itself is never stored or logged). */
export const keyTenant = (key: string) => `key-${digest(key).toString('hex').slice(0, 12)}`;

/**
 * Identifies callers by their key, in constant time.
 * @example
 * const callers = new Callers({ apiKeys: ['k-1234567'], tenants: [], adminKeys: [], defaults });
 * request.caller = callers.identify(request);
 */
export class Callers {
  private readonly known: { digest: Buffer; caller: Caller }[] = [];
  private readonly anonymous: Caller;

  constructor(options: { apiKeys: readonly string[]; tenants: readonly z.output<typeof TenantConfigSchema>[]; adminKeys: readonly string[]; defaults: TenantLimits }) {
    const { defaults } = options;
    const seen = new Map<string, string>();
    const add = (key: string, caller: Caller) => {
      const d = digest(key);
      const hex = d.toString('hex');
      const before = seen.get(hex);
      if (before !== undefined && before !== caller.tenant) throw new InvalidArgumentError(`The same API key is given to ${before} and to ${caller.tenant}: a key must belong to one tenant.`);
      seen.set(hex, caller.tenant);
      this.known.push({ digest: d, caller });
    };
    const names = new Set<string>();
    for (const t of options.tenants) {
      if (names.has(t.name.toLowerCase())) throw new InvalidArgumentError(`The tenant ${t.name} is given twice.`);
      names.add(t.name.toLowerCase());
      const limits = { maxQueued: t.maxQueued ?? defaults.maxQueued, maxRunning: t.maxRunning ?? defaults.maxRunning, uploadsPerMinute: t.uploadsPerMinute ?? defaults.uploadsPerMinute };
      for (const key of t.keys) add(key, { tenant: t.name, admin: false, limits });
    }
    for (const key of options.apiKeys) add(key, { tenant: keyTenant(key), admin: false, limits: defaults });
    for (const key of options.adminKeys) add(key, { tenant: 'admin', admin: true, limits: defaults });
    this.anonymous = { tenant: 'anonymous', admin: false, limits: defaults };
  }

  /** Whether any key is configured (without one the server listens on loopback only). */
  get enabled(): boolean {
    return this.known.length > 0;
  }

  /** The caller of a request, or a 401 problem. Without keys configured: everyone is `anonymous`. */
  identify(request: FastifyRequest): Caller {
    if (!this.enabled) return this.anonymous;
    const given = keyOf(request);
    const challenge = { headers: { 'WWW-Authenticate': 'Bearer realm="print-preflight"' } };
    if (!given) throw new Problem('api-key-missing', 'Send an API key: "Authorization: Bearer KEY" or "x-api-key: KEY".', challenge);
    const d = digest(given);
    let found: Caller | null = null;
    // Every key is compared, whichever matches: the time taken does not tell which one did.
    for (const k of this.known) if (timingSafeEqual(d, k.digest)) found ??= k.caller;
    if (!found) throw new Problem('api-key-unknown', 'The API key is not one this server accepts.', challenge);
    return found;
  }

  /** Whether `caller` may see a check owned by `owner` (absent on checks from before tenants: admin only). */
  canSee(caller: Caller, owner: string | undefined): boolean {
    if (!this.enabled || caller.admin) return true;
    return owner === caller.tenant;
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
