/**
 * The order façade over HTTP: a draft in, the validated payload out (every source preflighted), or
 * 422 naming every failing field and source with its report. With an order service configured,
 * POST /v1/orders forwards the payload with the existing client: only passing files reach it.
 */
import { OrderServiceClient } from '../../client/client.js';
import { OrderServiceError, ServiceRateLimitError, ServiceValidationError } from '../../client/errors.js';
import { buildOrderPayload, OrderPayloadError } from '../../order/build.js';
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

  const build = async (body: unknown, strict: boolean) => {
    try {
      return await buildOrderPayload(body, {
        strict,
        network: { allowHosts: options.allowHosts },
        preflight: { profiles: ctx.registry, ...(ctx.pool ? { pool: ctx.pool } : {}) },
      });
    } catch (error) {
      if (!(error instanceof OrderPayloadError)) throw error;
      const errors = error.issues.map((i) => ({ path: i.path, message: i.message, ...(i.report ? { report: i.report } : {}) }));
      throw new Problem(422, 'order-invalid', `The order cannot be built: ${error.issues.length} field${error.issues.length === 1 ? '' : 's'} or source${error.issues.length === 1 ? '' : 's'} fail (see errors).`, { errors });
    }
  };

  const responses422 = { 422: { description: 'Every failing field and source, each source with its preflight report', codes: ['order-invalid'] } };

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
      responses: { 200: { description: 'The payload and each source\'s report', schema: OrderPayloadAnswerSchema }, ...responses422 },
    },
    async (request) => {
      ctx.processing(request);
      const { payload, reports } = await build(request.body, request.query.strict === 'true');
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
        422: { description: 'Every failing field and source (each with its report), or what the order service refused', codes: ['order-invalid', 'ERR_SERVICE_VALIDATION'] },
        429: { description: 'The order service is rate limiting', codes: ['ERR_SERVICE_RATE_LIMITED'], headers: { 'Retry-After': 'seconds to wait' } },
        501: { description: 'No order service configured', codes: ['order-service-not-configured'] },
        502: { description: 'The order service refused or failed', codes: ['ERR_SERVICE_AUTH', 'ERR_SERVICE_PERMISSION', 'ERR_SERVICE_NOT_FOUND', 'ERR_SERVICE_SERVER', 'ERR_SERVICE_UNREACHABLE', 'ERR_SERVICE_RESPONSE'] },
      },
    },
    async (request, reply) => {
      if (!client) throw new Problem(501, 'order-service-not-configured', 'This server forwards no orders: start it with --order-service URL and the order service credentials.');
      ctx.processing(request);
      const { payload } = await build(request.body, request.query.strict === 'true');
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
