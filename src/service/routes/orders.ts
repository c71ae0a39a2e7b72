/**
 * The order façade over HTTP: a draft in, the validated payload out (every source preflighted), or
 * 422 naming every failing field and source with its report. With an order service configured,
 * POST /v1/orders forwards the payload with the existing client: only passing files reach it.
 */
import { randomUUID } from 'node:crypto';
import { OrderServiceClient } from '../../client/client.js';
import { OrderServiceError, ServiceRateLimitError, ServiceValidationError } from '../../client/errors.js';
import type { FastifyRequest } from 'fastify';
import { withRunningPlace } from '../../jobs/tenants.js';
import { buildOrderPayload, draftSourceCount, OrderPayloadError, validateDraft, type GivenPreflight, type OrderIssue } from '../../order/build.js';
import type { OrderPayload } from '../../order/schema.js';
import type { ServiceContext } from '../context.js';
import { Problem } from '../problem.js';
import { defineRoute } from '../route.js';
import { OrderDraftSchema, OrderForwardAnswerSchema, OrderPayloadAnswerSchema, OrderQuerySchema } from '../schemas.js';

export function orderRoutes(ctx: ServiceContext): void {
  const { app, routes, options } = ctx;
  const client = options.orderService
    ? new OrderServiceClient({
        baseUrl: options.orderService.baseUrl,
        accessToken: options.orderService.accessToken,
        applicationKey: options.orderService.applicationKey,
        ...(options.orderService.backoffMs !== undefined ? { backoffMs: options.orderService.backoffMs } : {}),
      })
    : null;

  /** An OrderPayloadError as the 422 problem naming every failing field and source. */
  const orderProblem = (error: OrderPayloadError) => {
    const errors = error.issues.map((i) => ({ path: i.path, message: i.message, ...(i.report ? { report: i.report } : {}) }));
    return new Problem(422, 'order-invalid', `The order cannot be built: ${error.issues.length} field${error.issues.length === 1 ? '' : 's'} or source${error.issues.length === 1 ? '' : 's'} fail (see errors).`, { errors });
  };

  /**
   * Builds the payload inside the tenant's bounds: at most `maxOrderSources` sources named; each
   * source to preflight takes a queued place (429 past the tenant's bound) and waits for a running
   * place, exactly like a check.
   */
  const build = async (request: FastifyRequest, strict: boolean) => {
    let order: OrderPayload;
    try {
      order = validateDraft(request.body);
    } catch (error) {
      if (error instanceof OrderPayloadError) throw orderProblem(error);
      throw error;
    }
    const named = order.rows.reduce((n, row) => n + (row.sources?.length ?? 0), 0);
    if (named > options.maxOrderSources) {
      ctx.metrics.rejectedSubmission('too-large', request.caller!.tenant);
      throw new Problem(413, 'order-too-many-sources', `The draft names ${named} sources; this server checks at most ${options.maxOrderSources} per draft. Split the order.`, {
        errors: [{ path: 'rows', message: `${named} sources, at most ${options.maxOrderSources}` }],
        limit: options.maxOrderSources,
      });
    }
    const caller = request.caller!;
    const sources = draftSourceCount(order);
    if (sources > caller.limits.maxQueued) {
      ctx.metrics.rejectedSubmission('too-large', caller.tenant);
      throw new Problem(413, 'order-too-many-sources', `The draft needs ${sources} preflights; this tenant may have at most ${caller.limits.maxQueued} checks waiting. Split the order.`, {
        errors: [{ path: 'rows', message: `${sources} sources to check, at most ${caller.limits.maxQueued} for this tenant` }],
        limit: caller.limits.maxQueued,
      });
    }
    let fixedFiles: GivenPreflight[];
    try {
      fixedFiles = await fixedSources(ctx, order);
    } catch (error) {
      if (error instanceof OrderPayloadError) throw orderProblem(error);
      throw error;
    }
    const reservation = sources ? await ctx.admission.admit(caller, sources, 'd') : null;
    ctx.metrics.acceptedDraftSources(caller.tenant, sources);
    const places = [...(reservation?.members ?? [])];
    const gone = new AbortController();
    // A client that hangs up stops its draft: its preflights stop too.
    const onClose = () => gone.abort(new Error('the client went away'));
    request.raw.socket?.once('close', onClose);
    try {
      return await buildOrderPayload(order, {
        strict,
        preflights: fixedFiles,
        network: { allowHosts: options.allowHosts },
        preflight: { profiles: ctx.registry, ...(ctx.pool ? { pool: ctx.pool } : {}), signal: gone.signal },
        schedule: (run) => withRunningPlace(ctx.tenants, { tenant: caller.tenant, member: places.shift() ?? `d:${randomUUID()}`, maxRunning: caller.limits.maxRunning }, run, { signal: gone.signal }),
      });
    } catch (error) {
      if (error instanceof OrderPayloadError) throw orderProblem(error);
      throw error;
    } finally {
      request.raw.socket?.off('close', onClose);
      await reservation?.release();
    }
  };

  const bounded = {
    413: { description: 'The draft names more sources than this server checks per draft (`order-too-many-sources`), or the body is over 1 MiB', codes: ['order-too-many-sources'] },
    422: { description: 'Every failing field and source, each source with its preflight report', codes: ['order-invalid'] },
    429: {
      description: 'This tenant has as many checks queued as it may, or has used its submissions per minute; each source counts as a check',
      codes: ['too-many-queued', 'too-many-submissions'],
      headers: { 'Retry-After': 'seconds to wait' },
    },
    503: { description: 'The data folder or the queue cannot take more, or the server is shutting down', codes: ['storage-full', 'storage-unavailable', 'queue-unavailable'], headers: { 'Retry-After': 'seconds to wait' } },
  };

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/orders/payload',
      operationId: 'buildOrderPayload',
      summary: 'Build a validated order body from a draft',
      description: 'Every field of the draft is checked against the order service\'s rules, and every source is downloaded and preflighted for its SKU. The answer is the order creation body (only files that passed) and each source\'s report; with `strict=true`, warnings fail too.',
      tags: ['orders'],
      auth: true,
      query: OrderQuerySchema,
      requestBodies: { 'application/json': { schema: OrderDraftSchema } },
      responses: { 200: { description: 'The payload and each source\'s report', schema: OrderPayloadAnswerSchema }, ...bounded },
    },
    async (request) => {
      ctx.processing(request);
      const { payload, reports } = await build(request, request.query.strict === 'true');
      return { payload, reports };
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/orders',
      operationId: 'createOrder',
      summary: 'Build the order body and create the order at the order service',
      description: 'As POST /v1/orders/payload, then the payload is sent to the order service: only passing print files reach production. Needs the server started with --order-service and its credentials; answers with what the service answered.',
      tags: ['orders'],
      auth: true,
      query: OrderQuerySchema,
      requestBodies: { 'application/json': { schema: OrderDraftSchema } },
      responses: {
        201: { description: 'Created at the order service', schema: OrderForwardAnswerSchema },
        ...bounded,
        422: { description: 'Every failing field and source (each with its report), or what the order service refused', codes: ['order-invalid', 'ERR_SERVICE_VALIDATION'] },
        429: {
          description: 'This tenant is over its bounds (as for /v1/orders/payload), or the order service is rate limiting',
          codes: ['too-many-queued', 'too-many-submissions', 'ERR_SERVICE_RATE_LIMITED'],
          headers: { 'Retry-After': 'seconds to wait' },
        },
        501: { description: 'No order service configured', codes: ['order-service-not-configured'] },
        502: { description: 'The order service refused or failed', codes: ['ERR_SERVICE_AUTH', 'ERR_SERVICE_PERMISSION', 'ERR_SERVICE_NOT_FOUND', 'ERR_SERVICE_SERVER', 'ERR_SERVICE_UNREACHABLE', 'ERR_SERVICE_RESPONSE'] },
      },
    },
    async (request, reply) => {
      if (!client) throw new Problem(501, 'order-service-not-configured', 'This server forwards no orders: start it with --order-service URL and the order service credentials.');
      ctx.processing(request);
      const { payload } = await build(request, request.query.strict === 'true');
      try {
        const service = await client.createOrder(payload);
        request.log.info('order forwarded');
        return reply.code(201).send({ payload, service });
      } catch (error) {
        if (error instanceof ServiceValidationError) {
          throw new Problem(422, error.code, error.message, { errors: error.messages.map((m) => ({ path: '(order service)', message: m })) });
        }
        if (error instanceof ServiceRateLimitError) {
          throw new Problem(429, error.code, error.message, { headers: { 'Retry-After': String(Math.ceil((error.retryAfterMs ?? 60_000) / 1000)) } });
        }
        if (error instanceof OrderServiceError) throw new Problem(502, error.code, error.message, { serviceStatus: error.status });
        throw error;
      }
    },
  );
}

/**
 * Sources that are this server's fixed files (`…/v1/files/{token}.pdf`): an approved (or automatic)
 * fix is judged by the fixed file's own report, bound to its SHA-256, without downloading it again;
 * a fix that is pending or was rejected refuses the draft (422 order-invalid), naming the source.
 */
async function fixedSources(ctx: ServiceContext, order: OrderPayload): Promise<GivenPreflight[]> {
  const given: GivenPreflight[] = [];
  const issues: OrderIssue[] = [];
  for (const [r, row] of order.rows.entries()) {
    for (const [s, source] of (row.sources ?? []).entries()) {
      let path: string;
      try {
        path = new URL(source.url).pathname;
      } catch {
        continue;
      }
      const m = /^\/v1\/files\/([0-9a-f]{48})\.pdf$/.exec(path);
      if (!m) continue;
      const id = await ctx.store.checkOfToken(m[1]!);
      const record = id ? await ctx.store.readRecord(id) : null;
      const state = record?.approval?.state;
      if (!record?.fixed || !state) continue;
      if (state === 'rejected' || state === 'pending') {
        issues.push({ path: `rows[${r}].sources[${s}].url`, message: state === 'rejected' ? `the fix of check ${record.id} was rejected: this file may not be printed; upload a new file` : `the fix of check ${record.id} waits for approval: approve it first` });
        continue;
      }
      const report = await ctx.store.readReport(record.id);
      if (report) given.push({ url: source.url, sha256: record.fixed.sha256, report });
    }
  }
  if (issues.length) throw new OrderPayloadError(issues);
  return given;
}
