import { readFileSync } from 'node:fs';
import type { ServeOptions } from '../service/options.js';
import { LogLevelSchema } from '../util/log-level.js';
import { numberFlag, parseFlags, poolLimitsFrom, UsageError, type CliIO, type FlagSpec } from './args.js';

export const SERVE_HELP = `Usage: print-preflight serve [options]

Runs the HTTP API: POST /v1/checks (a PDF upload or a URL), GET /v1/checks/{id}, the HTML report
and previews, the order façade, /health, /metrics, /openapi.json and /docs. Logs are JSON lines.
Every option can also be set by an environment variable (the flag wins).

Options:
  --port N                port (default 8080; 0 picks a free one)            PRINT_PREFLIGHT_PORT
  --host HOST             address to listen on (default 127.0.0.1)            PRINT_PREFLIGHT_HOST
  --data DIR              uploads, reports, previews, job records
                          (default ./print-preflight-data); with --storage,
                          local scratch only                                  PRINT_PREFLIGHT_DATA
  --storage s3://BUCKET/PREFIX  keep every byte in S3-compatible object
                          storage: any server answers any check, a server on
                          an empty machine answers every earlier one. A
                          missing bucket or denied access stops the start;
                          the store away: requests get 503 storage-
                          unavailable, checks wait for it (90 s a call).
                          Credentials and region: the AWS environment/files   PRINT_PREFLIGHT_STORAGE
  --s3-endpoint URL       a non-AWS S3-compatible endpoint (MinIO, R2, …),
                          path-style addressing                               PRINT_PREFLIGHT_S3_ENDPOINT
  --presign S             answer fixed-file downloads with a redirect to a
                          presigned URL of the store, valid S seconds
                          (default 0: streamed through the server)            PRINT_PREFLIGHT_PRESIGN
  --no-reuse              run every check, even when the same bytes, target,
                          profile, limits and policy were checked before
                          (default: such a check takes that report at once,
                          its record names it in reusedFrom)                  PRINT_PREFLIGHT_NO_REUSE
  --api-key KEY           a key clients must send (repeatable; the variable
                          takes a comma-separated list). Without any, the
                          server only listens on loopback.                    PRINT_PREFLIGHT_API_KEY
  --workers N             worker threads (default: one per core)              PRINT_PREFLIGHT_WORKERS
  --retention-days N      delete finished checks after N days (default 7)     PRINT_PREFLIGHT_RETENTION_DAYS
  --fixed-retention-days N  delete fixed files no order references N days
                          after they were made or released (default 30);
                          files orders reference are kept                     PRINT_PREFLIGHT_FIXED_RETENTION_DAYS
  --public-url URL        the address the order service reaches this server
                          at: fixed files replace their original source URL
                          in orders as URL/v1/files/<token>.pdf               PRINT_PREFLIGHT_PUBLIC_URL
  --profiles DIR          product profiles folder                             PRINT_PREFLIGHT_PROFILES
  --callback-secret S     HMAC secret that signs callbacks                    PRINT_PREFLIGHT_CALLBACK_SECRET
  --allow-host HOST       a private/loopback host source URLs and callbacks
                          may reach (repeatable)                              PRINT_PREFLIGHT_ALLOW_HOST
  --max-upload-mb N       largest upload (default 50)                         PRINT_PREFLIGHT_MAX_UPLOAD_MB
  --min-free-mb N         answer 503 to submissions when the data folder has
                          less free space (default 256)                       PRINT_PREFLIGHT_MIN_FREE_MB

Tenants (each key sees only the checks it submitted; past a bound: 429 + Retry-After):
  --tenants FILE          JSON: {"tenants":[{"name":"acme","keys":["…"],
                          "maxQueued":500,"maxRunning":4,"uploadsPerMinute":120}],
                          "adminKeys":["…"]}; a tenant's keys share its checks PRINT_PREFLIGHT_TENANTS
  --admin-key KEY         a key that sees and deletes every tenant's checks
                          (repeatable)                                        PRINT_PREFLIGHT_ADMIN_KEY
  --max-queued N          checks a tenant may have waiting (default 200)      PRINT_PREFLIGHT_MAX_QUEUED
  --max-running N         checks of one tenant running at once, across the
                          fleet (default 0: the pool or the fleet decides)    PRINT_PREFLIGHT_MAX_RUNNING
  --uploads-per-minute N  submissions per tenant and minute (default 600;
                          0: no bound)                                        PRINT_PREFLIGHT_UPLOADS_PER_MINUTE
  --max-order-sources N   sources one order draft may name (default 50)       PRINT_PREFLIGHT_MAX_ORDER_SOURCES
  --tenant-metrics        per-tenant series in /metrics (one label value per
                          tenant)                                             PRINT_PREFLIGHT_TENANT_METRICS
  (--max-concurrent N is the former name of --max-running.)

  --frame-ancestors SRC   who may frame the HTML pages, a CSP source such as
                          'self' or https://admin.example.com (repeatable;
                          default: nobody)                                    PRINT_PREFLIGHT_FRAME_ANCESTORS
  --order-service URL     forward POST /v1/orders to the order service        PRINT_PREFLIGHT_ORDER_SERVICE
  --order-token TOKEN     its access token                                    PRINT_PREFLIGHT_ORDER_TOKEN
  --order-app-key KEY     its application key                                 PRINT_PREFLIGHT_ORDER_APP_KEY
  --log-level LEVEL       fatal, error, warn, info, debug (default info)      PRINT_PREFLIGHT_LOG_LEVEL
  --redis URL             fleet mode: put checks on a queue in Redis for
                          "print-preflight worker" processes (same --data
                          folder, shared) instead of running them here        PRINT_PREFLIGHT_REDIS
  --grace S               seconds running checks get to finish on SIGTERM
                          (default 30)                                        PRINT_PREFLIGHT_GRACE
  --decode-budget-mb N    bytes all decoders may produce for one file, in MiB
                          (default 1024; requests cannot raise it)            PRINT_PREFLIGHT_DECODE_BUDGET_MB
  --max-rss-mb N          memory watchdog: past N MB the task most likely to
                          blame is stopped, its file gets a finding
                          (default 85 % of memory; 0 off)                     PRINT_PREFLIGHT_MAX_RSS_MB

SIGTERM or SIGINT: stop accepting, let running checks finish (--grace), put the rest back in the
queue, exit 0 — within --grace even when Redis cannot be reached. Checks accepted with 202 are
finished after a restart.`;

const ENV: Record<string, string> = {
  port: 'PORT',
  host: 'HOST',
  data: 'DATA',
  storage: 'STORAGE',
  's3-endpoint': 'S3_ENDPOINT',
  presign: 'PRESIGN',
  'api-key': 'API_KEY',
  workers: 'WORKERS',
  'retention-days': 'RETENTION_DAYS',
  'fixed-retention-days': 'FIXED_RETENTION_DAYS',
  'public-url': 'PUBLIC_URL',
  profiles: 'PROFILES',
  'callback-secret': 'CALLBACK_SECRET',
  'allow-host': 'ALLOW_HOST',
  'max-upload-mb': 'MAX_UPLOAD_MB',
  'min-free-mb': 'MIN_FREE_MB',
  tenants: 'TENANTS',
  'admin-key': 'ADMIN_KEY',
  'max-queued': 'MAX_QUEUED',
  'max-running': 'MAX_RUNNING',
  'max-concurrent': 'MAX_CONCURRENT',
  'uploads-per-minute': 'UPLOADS_PER_MINUTE',
  'max-order-sources': 'MAX_ORDER_SOURCES',
  'frame-ancestors': 'FRAME_ANCESTORS',
  'order-service': 'ORDER_SERVICE',
  'order-token': 'ORDER_TOKEN',
  'order-app-key': 'ORDER_APP_KEY',
  'log-level': 'LOG_LEVEL',
  redis: 'REDIS',
  grace: 'GRACE',
  'decode-budget-mb': 'DECODE_BUDGET_MB',
  'max-rss-mb': 'MAX_RSS_MB',
};

const MULTIPLE = new Set(['api-key', 'allow-host', 'admin-key', 'frame-ancestors']);

/** Flags first, then PRINT_PREFLIGHT_* variables; lists in variables are comma-separated. */
export function serveOptionsFrom(args: string[], env: NodeJS.ProcessEnv): ServeOptions & { help?: boolean } {
  // The string flags are the environment variables' table; the values come back keyed by name.
  const stringFlags: Record<string, FlagSpec> = Object.fromEntries(Object.keys(ENV).map((k) => [k, { type: 'string', multiple: MULTIPLE.has(k) }]));
  const switches = { 'tenant-metrics': { type: 'boolean' }, 'no-reuse': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parseFlags(args, { ...stringFlags, ...switches });
  const raw: Readonly<Record<string, unknown>> = values;
  if (raw.help === true) return { help: true };
  if (positionals.length) throw new UsageError(`serve takes no arguments, got "${positionals[0]}"`);
  const one = (flag: string): string | undefined => {
    const v = raw[flag];
    if (Array.isArray(v)) return v.at(-1);
    return typeof v === 'string' ? v : env[`PRINT_PREFLIGHT_${ENV[flag]}`] || undefined;
  };
  const many = (flag: string): string[] => {
    const v = raw[flag];
    if (Array.isArray(v) && v.length) return v;
    const fromEnv = env[`PRINT_PREFLIGHT_${ENV[flag]}`];
    return fromEnv
      ? fromEnv
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  };
  const port = numberFlag(one('port'), 'port', { min: 0, max: 65_535 });
  const workers = numberFlag(one('workers'), 'workers', { min: 1, max: 256 });
  const retentionDays = numberFlag(one('retention-days'), 'retention-days', { min: 0.001, integer: false });
  const fixedRetentionDays = numberFlag(one('fixed-retention-days'), 'fixed-retention-days', { min: 0.001, integer: false });
  const publicUrl = one('public-url');
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(publicUrl)) throw new UsageError(`--public-url must be an http(s) address without query or fragment, got "${publicUrl}"`);
  const uploadMb = numberFlag(one('max-upload-mb'), 'max-upload-mb', { min: 0.001, max: 10_000, integer: false });
  const maxQueued = numberFlag(one('max-queued'), 'max-queued', { min: 1, max: 1_000_000 });
  const maxRunning = numberFlag(one('max-running'), 'max-running', { min: 0, max: 100_000 }) ?? numberFlag(one('max-concurrent'), 'max-concurrent', { min: 0, max: 100_000 });
  const uploadsPerMinute = numberFlag(one('uploads-per-minute'), 'uploads-per-minute', { min: 0, max: 1_000_000 });
  const maxOrderSources = numberFlag(one('max-order-sources'), 'max-order-sources', { min: 1, max: 10_000 });
  const minFreeMb = numberFlag(one('min-free-mb'), 'min-free-mb', { min: 0, max: 100_000_000, integer: false });
  const tenantMetrics = raw['tenant-metrics'] === true || /^(1|true|yes)$/i.test(env.PRINT_PREFLIGHT_TENANT_METRICS ?? '');
  const noReuse = raw['no-reuse'] === true || /^(1|true|yes)$/i.test(env.PRINT_PREFLIGHT_NO_REUSE ?? '');
  const storage = one('storage');
  if (storage !== undefined && !/^s3:\/\/[^/\s]+/.test(storage)) throw new UsageError(`--storage must be s3://BUCKET/PREFIX, got "${storage}"`);
  const s3Endpoint = one('s3-endpoint');
  if (s3Endpoint !== undefined && !storage) throw new UsageError('--s3-endpoint needs --storage s3://BUCKET/PREFIX');
  if (s3Endpoint !== undefined && !/^https?:\/\/[^/?#\s]+/i.test(s3Endpoint)) throw new UsageError(`--s3-endpoint must be an http(s) URL, got "${s3Endpoint}"`);
  const presign = numberFlag(one('presign'), 'presign', { min: 0, max: 604_800 });
  if (presign && !storage) throw new UsageError('--presign needs --storage s3://BUCKET/PREFIX');
  const tenantsFile = one('tenants');
  const fromFile = tenantsFile ? readTenantsFile(tenantsFile) : { tenants: undefined, adminKeys: [] as string[] };
  const adminKeys = [...fromFile.adminKeys, ...many('admin-key')];
  for (const k of adminKeys) if (k.length < 8) throw new UsageError('--admin-key: a key needs at least 8 characters');
  const grace = numberFlag(one('grace'), 'grace', { min: 0, max: 86_400, integer: false });
  const poolLimits = poolLimitsFrom({ 'decode-budget-mb': one('decode-budget-mb'), 'max-rss-mb': one('max-rss-mb') });
  const given = one('log-level');
  const logLevel = LogLevelSchema.options.find((l) => l === given);
  if (given !== undefined && !logLevel) throw new UsageError(`--log-level must be one of ${LogLevelSchema.options.join(', ')}, got "${given}"`);
  const apiKeys = many('api-key');
  for (const k of apiKeys) if (k.length < 8) throw new UsageError('--api-key: a key needs at least 8 characters');
  const orderService = one('order-service');
  const token = one('order-token');
  const appKey = one('order-app-key');
  if (orderService && (!token || !appKey)) throw new UsageError('--order-service needs --order-token and --order-app-key (or PRINT_PREFLIGHT_ORDER_TOKEN and PRINT_PREFLIGHT_ORDER_APP_KEY)');
  const redis = one('redis');
  const callbackSecret = one('callback-secret');
  const allowHosts = many('allow-host');
  // CSP sources are separated by spaces in a header; a variable may use spaces or commas.
  const frameAncestors = many('frame-ancestors')
    .flatMap((s) => s.split(/\s+/))
    .filter(Boolean);
  for (const src of frameAncestors) {
    if (!/^(?:'self'|'none'|(?:https?:\/\/)?(?:\*\.)?[A-Za-z0-9.-]+(?::\d{1,5}|:\*)?|https?:)$/.test(src))
      throw new UsageError(`--frame-ancestors: "${src}" is not a CSP source ('self', https:, or a host such as https://admin.example.com)`);
  }
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  return defined({
    port,
    host: one('host'),
    dataDir: one('data'),
    storage,
    s3Endpoint,
    presignSeconds: presign,
    reuse: noReuse ? false : undefined,
    apiKeys,
    workers,
    retentionDays,
    fixedRetentionDays,
    publicUrl,
    profiles: one('profiles'),
    callbackSecret,
    allowHosts,
    maxUploadBytes: uploadMb !== undefined ? Math.round(uploadMb * 1_000_000) : undefined,
    minFreeBytes: minFreeMb !== undefined ? Math.round(minFreeMb * 1_000_000) : undefined,
    tenants: fromFile.tenants,
    adminKeys: adminKeys.length ? adminKeys : undefined,
    maxQueuedPerTenant: maxQueued,
    maxRunningPerTenant: maxRunning,
    uploadsPerMinutePerTenant: uploadsPerMinute,
    maxOrderSources,
    tenantMetrics: tenantMetrics || undefined,
    frameAncestors: frameAncestors.length ? frameAncestors : undefined,
    orderService: orderService && token && appKey ? { baseUrl: orderService, accessToken: token, applicationKey: appKey } : undefined,
    logLevel,
    shutdownGraceMs: grace !== undefined ? Math.round(grace * 1000) : undefined,
    poolLimits: Object.keys(poolLimits).length ? poolLimits : undefined,
    queue: redis ? fleetQueue(redis, callbackSecret, allowHosts, publicUrl) : undefined,
  });
}

/** The tenants and admin keys of a `--tenants` file (checked again, with every key, when the server starts). */
function readTenantsFile(path: string): { tenants: NonNullable<ServeOptions['tenants']>; adminKeys: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--tenants ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not a JSON file (${(error as Error).message})`}`);
  }
  const o = data as { tenants?: unknown; adminKeys?: unknown; $schema?: unknown };
  const extra = data !== null && typeof data === 'object' ? Object.keys(data).filter((k) => k !== 'tenants' && k !== 'adminKeys' && k !== '$schema') : [];
  if (
    data === null ||
    typeof data !== 'object' ||
    Array.isArray(data) ||
    (o.tenants !== undefined && !Array.isArray(o.tenants)) ||
    (o.adminKeys !== undefined && !Array.isArray(o.adminKeys)) ||
    extra.length
  ) {
    throw new UsageError(
      `--tenants ${path}: expected {"tenants": [{"name", "keys", "maxQueued"?, "maxRunning"?, "uploadsPerMinute"?}], "adminKeys": []}${extra.length ? `; unknown field ${extra[0]}` : ''}`,
    );
  }
  return { tenants: (o.tenants ?? []) as NonNullable<ServeOptions['tenants']>, adminKeys: (o.adminKeys ?? []) as string[] };
}

/** Fleet mode: the server's queue lives in Redis (bullmq loads only then). */
function fleetQueue(url: string, callbackSecret: string | undefined, allowHosts: string[], publicUrl: string | undefined): NonNullable<ServeOptions['queue']> {
  parseRedisUrlOrUsage(url);
  return async (ctx) => {
    const { redisQueueFactory } = await import('../fleet/queue.js');
    const { jsonLogger } = await import('../fleet/log.js');
    return redisQueueFactory(
      { url },
      { ...(callbackSecret ? { callback: { secret: callbackSecret, allowHosts, publicUrl: publicUrl?.replace(/\/+$/, '') ?? null } } : {}), log: jsonLogger('server') },
    )(ctx);
  };
}

function parseRedisUrlOrUsage(url: string): void {
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    // reported below
  }
  if (!u || (u.protocol !== 'redis:' && u.protocol !== 'rediss:') || !u.hostname) throw new UsageError(`--redis needs a URL like redis://host:6379/0, got "${url}"`);
}

export async function serveCommand(args: string[], io: CliIO): Promise<number> {
  const options = serveOptionsFrom(args, process.env);
  if (options.help) {
    io.stdout(`${SERVE_HELP}\n`);
    return 0;
  }
  // fastify loads only for this command: the other verbs do not pay for it (nor install it).
  const { requireServerPackages, SERVICE_PACKAGES, FLEET_PACKAGES } = await import('../util/server-packages.js');
  await requireServerPackages('print-preflight serve', options.queue ? [...new Set([...SERVICE_PACKAGES, ...FLEET_PACKAGES])] : SERVICE_PACKAGES);
  const { startService } = await import('../service/server.js');
  let service;
  try {
    service = await startService(options);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 8080} (${e.code})`);
    throw error;
  }
  io.stderr(`print-preflight serve: listening on ${service.url} (docs: ${service.url}/docs)\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      service.app.log.info({ signal }, 'shutting down');
      service.close().then(resolve, (error: Error) => {
        service.app.log.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  if (options.queue) (await import('./output.js')).exitAfterShutdown(0);
  return 0;
}
