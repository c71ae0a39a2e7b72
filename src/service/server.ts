/**
 * `print-preflight serve`: the HTTP API on fastify. Checks run on an embedded queue over the local
 * pool (or a queue given in the options: the fleet's); results live in the data folder. Every
 * answer that is not a success is application/problem+json — including the HTTP parser's own
 * refusals — and every answer carries the same security headers, set before its first byte.
 */
import { parseOrThrow } from '../util/parse.js';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { InvalidArgumentError } from '../errors.js';
import { EmbeddedQueue, type CheckQueue } from '../jobs/queue.js';
import type { CheckRecord } from '../jobs/schema.js';
import { openStorage } from '../storage/open.js';
import { JobStore } from '../jobs/store.js';
import { MemoryLedger } from '../jobs/tenants.js';
import { PreflightPool } from '../pool/pool.js';
import { loadProfiles } from '../profile/load.js';
import { escapeForLog } from '../util/text.js';
import { Admission } from './admission.js';
import type { ServiceContext } from './context.js';
import { drainBody, lingerOnClose } from './drain.js';
import { securityHeaders } from './headers.js';
import { ServiceMetrics } from './metrics.js';
import { isLoopbackHost, ServeOptionsSchema, type ServeOptions } from './options.js';
import { clientErrorProblem, Problem, rawProblem, sendProblem, toProblem } from './problem.js';
import { useZodValidation, type RouteDoc } from './route.js';
import { checkRoutes } from './routes/checks.js';
import { approvalRoutes } from './routes/approvals.js';
import { opsRoutes } from './routes/ops.js';
import { orderRoutes } from './routes/orders.js';
import { Callers } from './tenants.js';

export interface ServiceHandle {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  app: FastifyInstance;
  store: JobStore;
  queue: CheckQueue;
  /** Graceful stop: no new requests, waiting clients answered 202, running checks finish or are requeued. */
  close(): Promise<void>;
}

const SWEEP_EVERY_MS = 60 * 60_000;
/** Longest URL (path and query) answered; a longer one gets 414. Node reads at most 16 KiB of request line and headers. */
const MAX_URL_LENGTH = 8 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
/** Error codes of a request whose client went away: not a failure of the server. */
const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'stream-premature-close', 'FST_MP_PREMATURE_CLOSE']);

/**
 * Starts the service. Refuses to listen beyond loopback without API keys.
 * @example
 * const service = await startService({ port: 8080, dataDir: './data', apiKeys: [process.env.KEY!] });
 * process.on('SIGTERM', () => service.close().then(() => process.exit(0)));
 */
export async function startService(input: ServeOptions = {}): Promise<ServiceHandle> {
  const options = parseOrThrow(ServeOptionsSchema, input, 'Invalid serve options');
  const defaults = { maxQueued: options.maxQueuedPerTenant, maxRunning: options.maxRunningPerTenant, uploadsPerMinute: options.uploadsPerMinutePerTenant };
  const callers = new Callers({ apiKeys: options.apiKeys, tenants: options.tenants, adminKeys: options.adminKeys, defaults });
  if (!callers.enabled && !isLoopbackHost(options.host)) {
    throw new InvalidArgumentError(
      `Refusing to listen on ${options.host} without an API key: anyone who can reach it could use it. Give --api-key KEY (or PRINT_PREFLIGHT_API_KEY), or listen on 127.0.0.1.`,
    );
  }

  const storage = options.storage ? await openStorage({ url: options.storage, ...(options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}) }, 'print-preflight serve --storage') : undefined;
  const store = await JobStore.open(options.dataDir, storage ? { storage } : {});
  const registry = await loadProfiles(options.profiles);
  const ownPool = !options.queue && !options.pool;
  const pool = options.queue
    ? options.pool
    : (options.pool ??
      new PreflightPool({ ...(options.workers ? { maxThreads: options.workers } : {}), ...(options.taskTimeoutMs ? { taskTimeoutMs: options.taskTimeoutMs } : {}), ...options.poolLimits }));
  let onFinished: (record: CheckRecord) => void = () => undefined;
  const queue: CheckQueue = options.queue
    ? await options.queue({ store, registry, profilesDir: options.profiles, onFinished: (r) => onFinished(r) })
    : new EmbeddedQueue({
        store,
        ...(pool ? { pool } : {}),
        profiles: registry,
        reuse: options.reuse,
        network: { allowHosts: options.allowHosts },
        ...(options.callbackSecret ? { callback: { secret: options.callbackSecret, backoffMs: options.callbackBackoffMs, allowHosts: options.allowHosts, publicUrl: options.publicUrl ?? null } } : {}),
        onFinished: (r) => onFinished(r),
      });
  const tenants = queue.tenants ?? new MemoryLedger();
  const baseHeaders = securityHeaders(options.frameAncestors);

  const app = Fastify({
    logger: {
      level: options.logLevel,
      // Names from requests and files reach the logs: no raw bidi or C1 control reaches a terminal.
      hooks: { streamWrite: escapeForLog },
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,64}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    connectionTimeout: options.idleTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // Longer than clients keep idle sockets (undici 4 s, proxies 60 s): the client, not the server, closes an idle
    // connection, so a request never races a server-side close.
    keepAliveTimeout: 65_000,
    // A path segment may be as long as a URL: a long id is a 400 of its schema, a long URL a 414.
    routerOptions: { maxParamLength: MAX_URL_LENGTH },
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      // How often Node looks for requests past the headers or request timeout (then answers 408).
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(Math.min(options.headersTimeoutMs, options.requestTimeoutMs) / 4))),
    },
    // Requests arriving while shutting down get a problem+json 503 from the onRequest hook below.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors before routing (a malformed URL, an unreadable content type) are problems too.
    // They are answered outside the hooks, so they get the answer headers here.
    frameworkErrors: (error, request, reply) => {
      reply.headers({ ...baseHeaders, 'x-request-id': request.id });
      sendProblem(reply, request, toProblem(error));
    },
    // What the HTTP parser refuses (malformed, headers too large, too slow) never reaches a route.
    clientErrorHandler: (error, socket: Socket) => {
      const e = error as unknown as NodeJS.ErrnoException & { rawPacket?: Buffer };
      const problem = clientErrorProblem(e);
      if (problem && socket.writable && !socket.destroyed) {
        app.log.info({ status: problem.status, code: problem.code, parser: e.code }, 'request refused by the HTTP parser');
        return answerAndClose(socket, rawProblem(problem, { ...baseHeaders, 'x-request-id': randomUUID() }));
      }
      socket.destroy();
    },
  });
  app.server.headersTimeout = options.headersTimeoutMs;
  // CONNECT is not a request for a resource: Node hands it over as a tunnel; refuse it like any unknown method.
  app.server.on('connect', (_req, socket: Socket) => {
    answerAndClose(socket, rawProblem(new Problem('method-not-allowed', 'CONNECT is not served here.'), { ...baseHeaders, 'x-request-id': randomUUID() }));
  });
  const metrics = new ServiceMetrics({
    counts: () => (queue.recentCounts ? queue.recentCounts() : queue.counts()),
    tenants,
    perTenant: options.tenantMetrics,
  });
  queue.registerMetrics?.(metrics.registry);
  onFinished = (record) => {
    metrics.finished(record);
    app.log.info({ checkId: record.id, tenant: record.owner, status: record.status, verdict: record.verdict, attempts: record.attempts }, 'check finished');
  };
  const shutdown = new AbortController();
  const routes: RouteDoc[] = [];
  const ctx: ServiceContext = {
    app,
    routes,
    options,
    store,
    queue,
    registry,
    pool,
    callers,
    tenants,
    admission: new Admission({ store, queue, tenants, metrics, minFreeBytes: options.minFreeBytes }),
    metrics,
    // Node sets the keep-alive timeout once the answer is sent, and the idle timeout again when the
    // next request on the connection begins.
    processing: (request) => request.raw.socket?.setTimeout(0),
    waitFinished: (id, ms) => store.waitFinished(id, ms, { signal: shutdown.signal }),
  };

  useZodValidation(app);
  app.removeContentTypeParser('text/plain');
  // Only POST routes take a body. A client that labels every request JSON sends DELETE with
  // `Content-Type: application/json` and nothing after it (openapi-generator's Python client does):
  // that is no body, not a malformed one.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && request.method !== 'POST') done(null, undefined);
    else json(request, body as string, done);
  });
  await app.register(multipart, { limits: { fileSize: options.maxUploadBytes, files: 1, fields: 8, parts: 10 } });
  app.addHook('onRequest', async (request) => {
    if (shutdown.signal.aborted)
      throw new Problem('shutting-down', 'The server is shutting down; retry in a moment (another instance, or this one after its restart).', { headers: { 'Retry-After': '5' } });
    if (request.url.length > MAX_URL_LENGTH) throw new Problem('uri-too-long', `The URL is ${request.url.length} characters long; this server reads at most ${MAX_URL_LENGTH}.`);
    // A path with no route is 404 (or 405) whoever asks: what exists is published at /openapi.json.
    if (request.is404 || request.routeOptions.config?.auth === false) return;
    try {
      request.caller = callers.identify(request);
    } catch (error) {
      metrics.rejectedSubmission('unauthorized');
      throw error;
    }
  });
  app.addHook('onSend', async (request, reply) => {
    for (const [name, value] of Object.entries(baseHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    reply.header('x-request-id', request.id);
    // Shutting down: every answer closes its connection, so no keep-alive socket holds the exit.
    if (shutdown.signal.aborted) reply.header('Connection', 'close');
  });

  app.setErrorHandler(async (error, request, reply) => {
    if (clientGone(request, error)) {
      // Nobody is left to answer: the client closed the connection (mid-upload, say).
      request.log.info({ code: (error as NodeJS.ErrnoException).code, message: (error as Error).message }, 'client went away');
      reply.header('Connection', 'close');
      return sendProblem(reply, request, new Problem('client-closed-request', 'The client closed the connection before the request was whole.'));
    }
    const problem = toProblem(error);
    if (problem.status >= 500 && problem.status !== 503) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status: problem.status, code: problem.code, detail: problem.detail }, 'request refused');
    if (problem.status === 413) metrics.rejectedSubmission('too-large', request.caller?.tenant);
    if (problem.status === 415) metrics.rejectedSubmission('unsupported-media', request.caller?.tenant);
    // A refused body may still be streaming in: its rest is read and dropped first (within a bound),
    // so a client that sends it all before reading gets this answer, not EPIPE; then the connection closes.
    if (problem.status === 413 || problem.status === 401 || (problem.status >= 400 && request.isMultipart?.())) {
      const whole = await drainBody(request.raw, options.maxUploadBytes + DRAIN_SLACK_BYTES, DRAIN_MS);
      reply.header('Connection', 'close');
      if (!whole && request.raw.socket) lingerOnClose(request.raw.socket, LINGER_MS);
    }
    return sendProblem(reply, request, problem);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = allowedMethods(routes, path);
    if (!allowed.length) return sendProblem(reply, request, new Problem('route-not-found', `There is no ${request.method} ${path}; see /docs for the API.`));
    const allow = allowed.join(', ');
    if (request.method === 'OPTIONS') return reply.code(204).header('Allow', allow).send();
    return sendProblem(reply, request, new Problem('method-not-allowed', `${path} answers ${allow}, not ${request.method}.`, { headers: { Allow: allow } }));
  });

  checkRoutes(ctx);
  approvalRoutes(ctx);
  orderRoutes(ctx);
  opsRoutes(ctx);

  await queue.start();
  const retentionMs = options.retentionDays * 24 * 60 * 60_000;
  const fixedRetentionMs = options.fixedRetentionDays * 24 * 60 * 60_000;
  const sweep = () =>
    store.sweep(retentionMs, Date.now(), fixedRetentionMs).then(
      (n) => n && app.log.info({ removed: n }, 'retention removed old checks'),
      (error: Error) => app.log.warn({ err: error }, 'retention sweep failed'),
    );
  void sweep();
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();

  let address: string;
  try {
    address = await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    clearInterval(sweeper);
    await queue.close(0);
    if (ownPool) await pool?.destroy();
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    url: address,
    app,
    store,
    queue,
    close: () =>
      (closing ??= (async () => {
        shutdown.abort();
        clearInterval(sweeper);
        const idle = setInterval(() => app.server.closeIdleConnections(), 250);
        try {
          await app.close();
        } finally {
          clearInterval(idle);
        }
        await queue.close(options.shutdownGraceMs);
        if (ownPool) await pool?.destroy();
      })()),
  };
}

/** Writes a whole answer and closes: the answer is flushed first, and a client that keeps the connection open is cut off after a second. */
function answerAndClose(socket: Socket, answer: string): void {
  socket.end(answer);
  const timer = setTimeout(() => socket.destroy(), 1_000);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** Whether an error means the client is gone (closed mid-request), not that the server failed. */
/** What a refused request's body may still bring past the upload limit (multipart framing, fields) before the connection is closed on it. */
const DRAIN_SLACK_BYTES = 1024 * 1024;
/** How long a refused request's body is read before the answer goes out regardless. */
const DRAIN_MS = 15_000;
/** How long a refused connection whose body was not read whole keeps reading (and dropping) before it closes. */
const LINGER_MS = 2_000;

function clientGone(request: FastifyRequest, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code && CLIENT_GONE.has(code)) return true;
  return request.raw.destroyed && !request.raw.complete;
}

/** The methods a path answers (from the route table; HEAD with GET, OPTIONS always), or none when no route has that path. */
function allowedMethods(routes: readonly RouteDoc[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    const pattern = new RegExp(`^${r.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    if (!pattern.test(path)) continue;
    methods.add(r.method);
    if (r.method === 'GET') methods.add('HEAD');
  }
  if (!methods.size) return [];
  methods.add('OPTIONS');
  return [...methods].sort();
}
