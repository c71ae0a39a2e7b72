/**
 * `print-preflight serve`: the HTTP API on fastify. Checks run on an embedded queue over the local
 * pool (or a queue given in the options: the fleet's); results live in the data folder. Every
 * answer that is not a success is application/problem+json.
 */
import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { InvalidArgumentError } from '../errors.js';
import { EmbeddedQueue, type CheckQueue } from '../jobs/queue.js';
import type { CheckRecord } from '../jobs/schema.js';
import { JobStore } from '../jobs/store.js';
import { PreflightPool } from '../pool/pool.js';
import { formatPath, loadProfiles } from '../profile/load.js';
import { ApiKeys, KeyLimiter } from './auth.js';
import type { ServiceContext } from './context.js';
import { ServiceMetrics } from './metrics.js';
import { isLoopbackHost, ServeOptionsSchema, type ServeOptions } from './options.js';
import { Problem, sendProblem, toProblem } from './problem.js';
import { useZodValidation, type RouteDoc } from './route.js';
import { checkRoutes } from './routes/checks.js';
import { opsRoutes } from './routes/ops.js';
import { orderRoutes } from './routes/orders.js';

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

/**
 * Starts the service. Refuses to listen beyond loopback without API keys.
 * @example
 * const service = await startService({ port: 8080, dataDir: './data', apiKeys: [process.env.KEY!] });
 * process.on('SIGTERM', () => service.close().then(() => process.exit(0)));
 */
export async function startService(input: ServeOptions = {}): Promise<ServiceHandle> {
  const parsed = ServeOptionsSchema.safeParse(input);
  if (!parsed.success) throw new InvalidArgumentError(`Invalid serve options: ${parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  const options = parsed.data;
  if (!options.apiKeys.length && !isLoopbackHost(options.host)) {
    throw new InvalidArgumentError(`Refusing to listen on ${options.host} without an API key: anyone who can reach it could use it. Give --api-key KEY (or PRINT_PREFLIGHT_API_KEY), or listen on 127.0.0.1.`);
  }

  const store = await JobStore.open(options.dataDir);
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
        network: { allowHosts: options.allowHosts },
        ...(options.callbackSecret ? { callback: { secret: options.callbackSecret, backoffMs: options.callbackBackoffMs, allowHosts: options.allowHosts } } : {}),
        onFinished: (r) => onFinished(r),
      });

  const app = Fastify({
    logger: { level: options.logLevel },
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
    // Requests arriving while shutting down get a problem+json 503 from the onRequest hook below.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors before routing (a malformed URL, an unreadable content type) are problems too.
    frameworkErrors: (error, request, reply) => {
      sendProblem(reply, request, toProblem(error));
    },
  });
  app.server.headersTimeout = options.headersTimeoutMs;
  const metrics = new ServiceMetrics(queue);
  queue.registerMetrics?.(metrics.registry);
  onFinished = (record) => {
    metrics.finished(record);
    app.log.info({ checkId: record.id, status: record.status, verdict: record.verdict, attempts: record.attempts }, 'check finished');
  };
  const shutdown = new AbortController();
  const keys = new ApiKeys(options.apiKeys);
  const routes: RouteDoc[] = [];
  const ctx: ServiceContext = {
    app,
    routes,
    options,
    store,
    queue,
    registry,
    pool,
    limiter: new KeyLimiter(store, options.maxConcurrentPerKey),
    metrics,
    // Node sets the keep-alive timeout once the answer is sent, and the idle timeout again when the
    // next request on the connection begins.
    processing: (request) => request.raw.socket?.setTimeout(0),
    waitFinished: (id, ms) => store.waitFinished(id, ms, { signal: shutdown.signal }),
  };

  useZodValidation(app);
  app.removeContentTypeParser('text/plain');
  await app.register(multipart, { limits: { fileSize: options.maxUploadBytes, files: 1, fields: 8, parts: 10 } });
  app.addHook('onRequest', async (request) => {
    if (shutdown.signal.aborted) throw new Problem(503, 'shutting-down', 'The server is shutting down; retry in a moment (another instance, or this one after its restart).', { headers: { 'Retry-After': '5' } });
    if (request.routeOptions.config?.auth === false) return;
    try {
      request.apiKey = keys.identify(request);
    } catch (error) {
      metrics.rejectedSubmission('unauthorized');
      throw error;
    }
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Shutting down: every answer closes its connection, so no keep-alive socket holds the exit.
    if (shutdown.signal.aborted) reply.header('Connection', 'close');
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status: problem.status, code: problem.code }, 'request refused');
    if (problem.status === 413) metrics.rejectedSubmission('too-large');
    if (problem.status === 415) metrics.rejectedSubmission('unsupported-media');
    if (problem.status === 429) metrics.rejectedSubmission('too-many');
    // A refused upload may still be streaming in: do not read the rest, close after answering.
    if (problem.status === 413 || problem.status === 401 || (problem.status >= 400 && request.isMultipart?.())) reply.header('Connection', 'close');
    return sendProblem(reply, request, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, request, new Problem(404, 'route-not-found', `There is no ${request.method} ${request.url.split('?')[0]}; see /docs for the API.`)),
  );

  checkRoutes(ctx);
  orderRoutes(ctx);
  opsRoutes(ctx);

  await queue.start();
  const retentionMs = options.retentionDays * 24 * 60 * 60_000;
  const sweep = () =>
    store.sweep(retentionMs).then(
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
