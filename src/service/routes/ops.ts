/**
 * Operations: /health (liveness, answered from the event loop) and /ready (readiness: each
 * dependency checked now, the failing one named), /metrics (Prometheus), /openapi.json and /docs.
 */
import { randomUUID } from 'node:crypto';
import type { PreflightPool } from '../../pool/pool.js';
import type { ServiceContext } from '../context.js';
import { inlineScripts, pagePolicy } from '../headers.js';
import { openApiDocument, DOCS_HTML } from '../openapi.js';
import { Problem } from '../problem.js';
import { defineRoute } from '../route.js';
import { HealthSchema } from '../schemas.js';

/** The smallest PDF the pool can inspect: one empty page. */
const PROBE_PDF = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
const POOL_PROBE_TTL_MS = 10_000;

export function opsRoutes(ctx: ServiceContext): void {
  const { app, routes } = ctx;
  const poolProbe = cachedPoolProbe(ctx.pool);
  // The docs page is static: its own scripts, and no other, may run.
  const docsPolicy = pagePolicy(ctx.options.frameAncestors, { scripts: inlineScripts(DOCS_HTML), connect: true });

  const dependencies = async (fresh: boolean) => {
    const [data, queue, pool] = await Promise.all([ctx.store.probe(), ctx.queue.health(), poolProbe({ fresh })]);
    const checks: Record<string, ProbeAnswer> = { data, queue, ...(pool ? { pool } : {}) };
    const failing = Object.entries(checks).filter(([, c]) => !c.ok);
    return { checks, failing: failing.map(([name, c]) => `${name}: ${c.detail ?? 'failing'}`).join('; ') };
  };
  for (const probe of ['health', 'ready'] as const) {
    const health = probe === 'health';
    defineRoute(
      app,
      routes,
      {
        method: 'GET',
        url: `/${probe}`,
        operationId: health ? 'getHealth' : 'getReady',
        summary: health ? 'Whether the server lives, and its dependencies as last seen (liveness)' : 'Whether the server can take checks now (readiness)',
        description: health
          ? 'Answered from the event loop whatever the pool does: the data folder and the queue are checked, the worker pool by its last probe (a one-page PDF inspected at most every 10 s; a new probe runs in the background). A 503 names what does not work, in `detail` and in `checks`. For liveness probes; needs no API key.'
          : 'Each dependency checked now: the data folder, the queue, and the worker pool inspecting a one-page PDF (waited for unless every worker is busy with checks within their time limits). A 503 names what does not work. For readiness probes and load balancers; needs no API key.',
        tags: ['operations'],
        auth: false,
        responses: {
          200: { description: 'All work', schema: HealthSchema, example: { status: 'ok', checks: { data: { ok: true }, queue: { ok: true }, pool: { ok: true } } } },
          503: { description: 'Something does not work; `checks` says what', codes: ['unhealthy'], headers: { 'Retry-After': 'seconds to wait' } },
        },
      },
      async (request, reply) => {
        ctx.processing(request);
        const { checks, failing } = await dependencies(!health);
        if (failing) throw new Problem('unhealthy', failing, { checks, headers: { 'Retry-After': '10' } });
        return reply.header('Cache-Control', 'no-store').send({ status: 'ok', checks });
      },
    );
  }

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/metrics',
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description:
        'Checks by status and verdict, durations, queue depth, in-flight checks and rejected submissions, in the Prometheus text format; in fleet mode Redis and the workers too (answered within a second whatever Redis does: `print_preflight_redis_up` says whether Redis answered).',
      tags: ['operations'],
      auth: false,
      responses: { 200: { description: 'Prometheus text format', type: 'text/plain' } },
    },
    async (_request, reply) => reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()),
  );

  let doc: Record<string, unknown> | null = null;
  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This document',
      description: 'OpenAPI 3.1, generated from the schemas the routes validate with; `servers` names the address it was fetched from.',
      tags: ['operations'],
      auth: false,
      responses: { 200: { description: 'OpenAPI 3.1', type: 'application/json' } },
    },
    async (request) => {
      doc ??= openApiDocument(routes, { apiKeys: ctx.options.apiKeys.length > 0 });
      // The address the client used (a request without a Host header keeps the document's default).
      return request.host ? { ...doc, servers: [{ url: `${request.protocol}://${request.host}`, description: 'This server' }] } : doc;
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/docs',
      operationId: 'getDocs',
      summary: 'A readable page of the OpenAPI document',
      description: 'Every operation with its parameters, bodies and answers, read from /openapi.json (no external resources).',
      tags: ['operations'],
      auth: false,
      responses: { 200: { description: 'HTML, under a Content-Security-Policy that runs only its own script', type: 'text/html', headers: { 'Content-Security-Policy': 'the page policy' } } },
    },
    async (_request, reply) => reply.type('text/html; charset=utf-8').header('Content-Security-Policy', docsPolicy).send(DOCS_HTML),
  );
}

type ProbeAnswer = { ok: boolean; detail?: string };

/**
 * Inspects a one-page PDF on the pool, at most every 10 s; null when there is no local pool. The
 * first probe starts with the server, so that /health has an answer to give before anything asks.
 * `fresh: false` (/health): once a probe has answered, its answer serves at once while the next one
 * runs (at most {@link HEALTH_WAIT_MS} waited for it), so /health never waits behind the pool's work.
 * `fresh: true` (/ready): the current probe is waited for, as long as the pool is busy only with
 * tasks within their time limits.
 */
function cachedPoolProbe(pool: PreflightPool | undefined): (how: { fresh: boolean }) => Promise<ProbeAnswer | null> {
  let last: { at: number; result: Promise<ProbeAnswer> } | null = null;
  let known: ProbeAnswer | null = null;
  const current = (): Promise<ProbeAnswer> => {
    if (last && Date.now() - last.at < POOL_PROBE_TTL_MS) return last.result;
    const shared = new SharedArrayBuffer(PROBE_PDF.length);
    new Uint8Array(shared).set(PROBE_PDF);
    const result = pool!.inspect(shared, `health:${randomUUID()}`, undefined, Math.min(20_000, pool!.options.taskTimeoutMs)).then(
      () => ({ ok: true }),
      (error: Error) => ({ ok: false, detail: `the worker pool cannot inspect a one-page PDF: ${error.message}` }),
    );
    void result.then((answer) => (known = answer));
    last = { at: Date.now(), result };
    return result;
  };
  if (pool) current();
  return async ({ fresh }) => {
    if (!pool) return null;
    const result = current();
    if (!fresh && known) {
      const earlier = known;
      return Promise.race([result, delay(HEALTH_WAIT_MS).then(() => earlier)]);
    }
    // A probe waiting behind running tasks (a long fix on every worker) says nothing about the
    // pool's health: while its tasks run within their time limits, it is busy, not failing.
    const busy = new Promise<ProbeAnswer | null>((resolve) => {
      // (The probe itself is one of the tasks counted.)
      const timer = setTimeout(
        () => resolve(pool.runningTasks > 1 ? { ok: true, detail: `busy: ${pool.runningTasks - 1} task(s) running or waiting, each within its time limit` } : null),
        POOL_PROBE_WAIT_MS,
      );
      timer.unref();
      void result.finally(() => clearTimeout(timer));
    });
    return Promise.race([result, busy.then((b) => b ?? result)]);
  };
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** How long /health waits for a new pool probe before it answers with the last one's answer. */
const HEALTH_WAIT_MS = 50;

/** How long /health waits for the pool's probe before it answers from the pool's running tasks. */
const POOL_PROBE_WAIT_MS = 1_500;
