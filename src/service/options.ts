import { z } from 'zod';
import type { CheckQueue, QueueContext } from '../jobs/queue.js';
import { PoolOptionsSchema, type PreflightPool } from '../pool/pool.js';
import { ApiKeySchema, TenantConfigSchema } from './tenants.js';
import { LogLevelSchema } from '../util/log-level.js';

/**
 * Options of {@link startService} (`print-preflight serve`). Defaults are set here and nowhere else;
 * every one is also a flag and a `PRINT_PREFLIGHT_*` variable (see `serve --help`).
 */
export const ServeOptionsSchema = z
  .object({
    port: z.number().int().min(0).max(65_535).default(8080),
    host: z.string().min(1).default('127.0.0.1'),
    /** Uploads, reports, previews and job records; with `storage`, scratch only (uploads while they stream in). */
    dataDir: z.string().min(1).default('./print-preflight-data'),
    /**
     * `s3://BUCKET/PREFIX`: every byte (uploads, records, reports, previews, mockups, fixed files)
     * in S3-compatible object storage, so any server answers any check and keeps nothing itself.
     * Credentials and region from the standard AWS environment and files.
     */
    storage: z
      .string()
      .regex(/^s3:\/\//, 'must be s3://BUCKET/PREFIX')
      .optional(),
    /** The endpoint of a non-AWS S3-compatible store (`http://127.0.0.1:9000`), addressed path-style. */
    s3Endpoint: z.string().url().optional(),
    /** Fixed files are answered with a redirect (302) to a presigned GET URL of the object store, valid this many seconds; 0: streamed through the server. */
    presignSeconds: z.number().int().min(0).max(604_800).default(0),
    /**
     * A check whose file (SHA-256), target, profile, limits, policy and tool version match an earlier
     * finished check takes its report at once (the record names it in `reusedFrom`). Off: every
     * check runs.
     */
    reuse: z.boolean().default(true),
    /**
     * Keys a client must send (`Authorization: Bearer KEY` or `x-api-key: KEY`), each its own tenant
     * (it sees only the checks it submitted). No key at all (here, in `tenants` or `adminKeys`):
     * loopback only.
     */
    apiKeys: z.array(ApiKeySchema).default([]),
    /** Named tenants: a set of keys that share their checks and their bounds (each bound defaults to the per-tenant one below). */
    tenants: z.array(TenantConfigSchema).default([]),
    /** Keys that see, fetch and delete every tenant's checks. */
    adminKeys: z.array(ApiKeySchema).default([]),
    /** Worker threads of the pool. Default: os.availableParallelism(). */
    workers: z.number().int().min(1).max(256).optional(),
    /** Finished checks are deleted this many days after they finished. */
    retentionDays: z.number().positive().default(7),
    /**
     * Fixed files no order references are deleted this many days after they were made, decided on
     * or last released; a file an order built or posted here references is kept while it does.
     */
    fixedRetentionDays: z.number().positive().default(30),
    /**
     * The address clients and the order service reach this server at (`https://preflight.example.com`):
     * a fixed file put in an order in place of its original source URL is given as
     * `<publicUrl>/v1/files/<token>.pdf`. Without it such orders are refused (501).
     */
    publicUrl: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u) && !/[?#]/.test(u), 'must be an http(s) address without query or fragment')
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
    /** A folder of product profiles instead of the built-in ones. */
    profiles: z.string().min(1).optional(),
    /** HMAC secret that signs callbacks (`x-webhook-signature`). Without it, callbackUrl is refused. */
    callbackSecret: z.string().min(1).optional(),
    /** Delay before a callback's second attempt, in ms; doubles each attempt. */
    callbackBackoffMs: z.number().int().min(0).default(5_000),
    /** Hosts source URLs and callbacks may reach although they resolve to private or loopback addresses. */
    allowHosts: z.array(z.string().min(1)).default([]),
    /** Forward validated orders (POST /v1/orders) to the order service. */
    orderService: z.object({ baseUrl: z.string().url(), accessToken: z.string().min(1), applicationKey: z.string().min(1), backoffMs: z.number().int().min(0).optional() }).optional(),
    /** Largest upload, in bytes; a larger one is refused with 413 while it streams. */
    maxUploadBytes: z.number().int().positive().default(50_000_000),
    /** Checks (and order-draft sources) a tenant may have waiting to run; more get 429 with Retry-After. */
    maxQueuedPerTenant: z.number().int().min(1).max(1_000_000).default(200),
    /** Checks (and order-draft sources) of one tenant running at once; 0: no bound of its own (the pool or the fleet decides). */
    maxRunningPerTenant: z.number().int().min(0).max(100_000).default(0),
    /** Submissions (a check, or one source of an order draft) a tenant may make per minute; 0: no bound. */
    uploadsPerMinutePerTenant: z.number().int().min(0).max(1_000_000).default(600),
    /** Per-tenant series in /metrics (one label value per tenant: keep off with very many keys). */
    tenantMetrics: z.boolean().default(false),
    /** Sources one order draft may name (POST /v1/orders/payload, /v1/orders); more get 413. */
    maxOrderSources: z.number().int().min(1).max(10_000).default(50),
    /**
     * Who may frame the HTML pages (CSP frame-ancestors sources: `'self'`, `https://admin.example.com`).
     * Default none: no page of the service can be framed.
     */
    frameAncestors: z
      .array(z.string().regex(/^(?:'self'|'none'|(?:https?:\/\/)?(?:\*\.)?[A-Za-z0-9.-]+(?::\d{1,5}|:\*)?|https?:)$/, "must be 'self', a scheme (https:) or a host such as https://admin.example.com"))
      .default([]),
    /** Submissions get 503 when the data folder has less free space than this, in bytes. */
    minFreeBytes: z.number().int().min(0).default(256_000_000),
    /** A connection with nothing sent or received this long is closed (above the 60 s of ?wait). */
    idleTimeoutMs: z.number().int().min(100).default(75_000),
    /** Time to receive a whole request (headers and body). */
    requestTimeoutMs: z.number().int().min(100).default(300_000),
    /** Time to receive the headers. */
    headersTimeoutMs: z.number().int().min(100).default(30_000),
    /** On SIGTERM, running checks get this long to finish before they are put back in the queue. */
    shutdownGraceMs: z.number().int().min(0).default(30_000),
    /** Per-task time limit of the pool, in ms. */
    taskTimeoutMs: z.number().int().min(1).optional(),
    /**
     * The pool's operator limits: the decode budget of every file (requests cannot raise it) and
     * the memory watchdog (PreflightPool's `decodeLimits` and `maxRssMb`).
     */
    poolLimits: PoolOptionsSchema.pick({ decodeLimits: true, maxRssMb: true }).optional(),
    logLevel: LogLevelSchema.default('info'),
    /** Builds the queue (default: the embedded queue on a local pool). */
    queue: z.custom<(ctx: QueueContext) => CheckQueue | Promise<CheckQueue>>((v) => typeof v === 'function').optional(),
    /** A pool to use instead of creating one. */
    pool: z.custom<PreflightPool>((v) => typeof v === 'object' && v !== null).optional(),
  })
  .strict();

export type ServeOptions = z.input<typeof ServeOptionsSchema>;
export type ResolvedServeOptions = z.output<typeof ServeOptionsSchema>;

/** Whether a listen address reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}
