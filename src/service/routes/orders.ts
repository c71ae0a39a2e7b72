/**
 * The order façade over HTTP: a draft in, the validated payload out (every source preflighted), or
 * 422 naming every failing field and source with its report. With an order service configured,
 * POST /v1/orders forwards the payload with the existing client: only passing files reach it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { OrderServiceClient } from '../../client/client.js';
import { OrderServiceError, ServiceRateLimitError, ServiceValidationError } from '../../client/errors.js';
import type { FastifyRequest } from 'fastify';
import { withRunningPlace } from '../../jobs/tenants.js';
import type { CheckRecord } from '../../jobs/schema.js';
import { ordinal } from '../../util/text.js';
import { tokenOf } from '../../model/token.js';
import type { Caller } from '../tenants.js';
import { buildOrderPayload, draftSourceCount, OrderPayloadError, validateDraft, type GivenPreflight, type OrderIssue } from '../../flow/order.js';
import type { OrderPayload } from '../../order/schema.js';
import type { ServiceContext } from '../context.js';
import { Problem } from '../problem.js';
import { defineRoute, type ResponseDoc } from '../route.js';
import { OrderDraftSchema, OrderForwardAnswerSchema, OrderNumberParamsSchema, OrderPayloadAnswerSchema, OrderQuerySchema, ReleasedReferencesSchema } from '../schemas.js';

/** The rule for sources that are, or were fixed into, this server's fixed files (both order routes say it). */
const FIXED_SOURCES =
  "Fixed files: a source that is the original URL of a URL submission of this tenant that fixed the file (the newest check of that exact URL for the row's product and variant decides) is replaced in the payload by the fixed file's absolute URL (`--public-url` + `/v1/files/{token}.pdf`) once the fix is approved or was automatic, and judged by the fixed file's own report, bound to its SHA-256; a source that names a fixed file (`…/v1/files/{token}.pdf`) is judged the same way. A fix that waits for approval or was rejected, or a check of that URL still running with `fix`, refuses the draft (422 `fix-not-approved`, naming each source). Every fixed file in a built or posted order is recorded as referenced by it (the tenant and `number`) and is kept while referenced.";

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
  const orderProblem = (error: OrderPayloadError, code: 'order-invalid' | 'fix-not-approved' = 'order-invalid') => {
    const errors = error.issues.map((i) => ({ path: i.path, message: i.message, ...(i.report ? { report: i.report } : {}) }));
    if (code === 'fix-not-approved') {
      return new Problem(
        code,
        `The order cannot be built: ${error.issues.length} source${error.issues.length === 1 ? '' : 's'} name${error.issues.length === 1 ? 's' : ''} a fixed file that is not approved (see errors).`,
        { errors },
      );
    }
    return new Problem(
      'order-invalid',
      `The order cannot be built: ${error.issues.length} field${error.issues.length === 1 ? '' : 's'} or source${error.issues.length === 1 ? '' : 's'} fail (see errors).`,
      { errors },
    );
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
      throw new Problem('order-too-many-sources', `The draft names ${named} sources; this server checks at most ${options.maxOrderSources} per draft. Split the order.`, {
        errors: [{ path: 'rows', message: `${named} sources, at most ${options.maxOrderSources}` }],
        limit: options.maxOrderSources,
      });
    }
    const caller = request.caller!;
    const sources = draftSourceCount(order);
    if (sources > caller.limits.maxQueued) {
      ctx.metrics.rejectedSubmission('too-large', caller.tenant);
      throw new Problem('order-too-many-sources', `The draft needs ${sources} preflights; this tenant may have at most ${caller.limits.maxQueued} checks waiting. Split the order.`, {
        errors: [{ path: 'rows', message: `${sources} sources to check, at most ${caller.limits.maxQueued} for this tenant` }],
        limit: caller.limits.maxQueued,
      });
    }
    let fixedFiles: FixedSource[];
    try {
      fixedFiles = await resolveFixedSources(ctx, caller, order);
    } catch (error) {
      if (error instanceof OrderPayloadError) throw orderProblem(error, 'fix-not-approved');
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
      const built = await buildOrderPayload(order, {
        strict,
        preflights: fixedFiles.map((f) => f.given),
        network: { allowHosts: options.allowHosts },
        preflight: { profiles: ctx.registry, ...(ctx.pool ? { pool: ctx.pool } : {}), signal: gone.signal },
        schedule: (run) => withRunningPlace(ctx.tenants, { tenant: caller.tenant, member: places.shift() ?? `d:${randomUUID()}`, maxRunning: caller.limits.maxRunning }, run, { signal: gone.signal }),
      });
      await recordReferences(ctx, caller, built.payload, fixedFiles);
      return built;
    } catch (error) {
      if (error instanceof OrderPayloadError) throw orderProblem(error);
      throw error;
    } finally {
      request.raw.socket?.off('close', onClose);
      await reservation?.release();
    }
  };

  const bounded: Record<number, ResponseDoc> = {
    413: { description: 'The draft names more sources than this server checks per draft (`order-too-many-sources`), or the body is over 1 MiB', codes: ['order-too-many-sources'] },
    422: {
      description:
        'Every failing field and source, each source with its preflight report (`order-invalid`); or sources naming a fixed file whose fix waits for approval or was rejected, or a URL whose check with `fix` is still running (`fix-not-approved`)',
      codes: ['order-invalid', 'fix-not-approved'],
    },
    501: { description: "A source's check fixed the file, but the server has no `--public-url` to name the fixed file in the order", codes: ['public-url-not-configured'] },
    429: {
      description: 'This tenant has as many checks queued as it may, or has used its submissions per minute; each source counts as a check',
      codes: ['too-many-queued', 'too-many-submissions'],
      headers: { 'Retry-After': 'seconds to wait' },
    },
    503: {
      description: 'The data folder or the queue cannot take more, or the server is shutting down',
      codes: ['storage-full', 'storage-unavailable', 'queue-unavailable'],
      headers: { 'Retry-After': 'seconds to wait' },
    },
  };

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/orders/payload',
      operationId: 'buildOrderPayload',
      summary: 'Build a validated order body from a draft',
      description: `Every field of the draft is checked against the order service's rules, and every source is downloaded and preflighted for its SKU. The answer is the order creation body (only files that passed) and each source's report; with \`strict=true\`, warnings fail too. ${FIXED_SOURCES}`,
      tags: ['orders'],
      auth: true,
      query: OrderQuerySchema,
      requestBodies: { 'application/json': { schema: OrderDraftSchema } },
      responses: { 200: { description: "The payload and each source's report", schema: OrderPayloadAnswerSchema }, ...bounded },
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
      description: `As POST /v1/orders/payload, then the payload is sent to the order service: only passing print files reach production. Needs the server started with --order-service and its credentials; answers with what the service answered. ${FIXED_SOURCES}`,
      tags: ['orders'],
      auth: true,
      query: OrderQuerySchema,
      requestBodies: { 'application/json': { schema: OrderDraftSchema } },
      responses: {
        201: { description: 'Created at the order service', schema: OrderForwardAnswerSchema },
        ...bounded,
        422: {
          description: 'Every failing field and source (each with its report), a fixed file not approved (as for /v1/orders/payload), or what the order service refused',
          codes: ['order-invalid', 'fix-not-approved', 'service-validation'],
        },
        429: {
          description: 'This tenant is over its bounds (as for /v1/orders/payload), or the order service is rate limiting',
          codes: ['too-many-queued', 'too-many-submissions', 'service-rate-limited'],
          headers: { 'Retry-After': 'seconds to wait' },
        },
        501: { description: 'No order service configured, or no `--public-url` to name a fixed file by', codes: ['order-service-not-configured', 'public-url-not-configured'] },
        502: {
          description: 'The order service refused or failed',
          codes: ['service-auth', 'service-permission', 'service-not-found', 'service-server', 'service-unreachable', 'service-response'],
        },
      },
    },
    async (request, reply) => {
      if (!client) throw new Problem('order-service-not-configured', 'This server forwards no orders: start it with --order-service URL and the order service credentials.');
      ctx.processing(request);
      const { payload } = await build(request, request.query.strict === 'true');
      try {
        const service = await client.createOrder(payload);
        request.log.info('order forwarded');
        return reply.code(201).send({ payload, service });
      } catch (error) {
        if (error instanceof ServiceValidationError) {
          throw Problem.of(error, error.message, { errors: error.messages.map((m) => ({ path: '(order service)', message: m })) });
        }
        if (error instanceof ServiceRateLimitError) {
          throw Problem.of(error, error.message, { headers: { 'Retry-After': String(Math.ceil((error.retryAfterMs ?? 60_000) / 1000)) } });
        }
        if (error instanceof OrderServiceError) throw Problem.of(error, error.message, { serviceStatus: error.status });
        throw error;
      }
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'DELETE',
      url: '/v1/orders/:number/references',
      operationId: 'releaseOrderFiles',
      summary: 'Release the fixed files an order references',
      description:
        "Call it when the order no longer needs its files (delivered, cancelled: the order service's `order.updated` webhook says so). Every fixed file this tenant's order `number` referenced when it was built or posted here is released: it is kept as long as another order references it, and otherwise deleted after the server's `--fixed-retention-days`. Orders built without a `number` cannot be released by number: their files stay referenced.",
      tags: ['orders'],
      auth: true,
      params: OrderNumberParamsSchema,
      responses: {
        200: { description: 'Released: the files the order referenced', schema: ReleasedReferencesSchema },
        404: { description: 'This tenant built or posted no order with that number that references a fixed file (or it was released already)', codes: ['order-not-found'] },
      },
    },
    async (request) => {
      const { number } = request.params;
      const tokens = await ctx.store.files.releaseReferences(referenceKey(request.caller!, number));
      if (!tokens.length)
        throw new Problem('order-not-found', `No order ${JSON.stringify(number)} of this tenant references a fixed file (none was built or posted here with that number, or it was released already).`);
      request.log.info({ tenant: request.caller!.tenant, files: tokens.length }, 'order files released');
      return { number, files: tokens.map((t) => `/v1/files/${t}.pdf`) };
    },
  );
}

/** A source of the draft that is (or becomes) one of this server's fixed files. */
interface FixedSource {
  token: string;
  given: GivenPreflight;
}

/**
 * Sources that are this server's fixed files, named directly (`…/v1/files/{token}.pdf`) or by the
 * original URL of a URL submission that fixed the file. The newest check of that URL this caller
 * may see, for the row's product and variant, decides (checks that ended in an error aside): when
 * it fixed the file and the fix was approved (or was automatic), the source becomes the fixed
 * file's absolute URL (`publicUrl` + `fixed.url`) in the payload; a check that made no fix leaves
 * the source as it is. A fixed file is judged by its own report, bound to its SHA-256, without
 * another download. A fix that is pending or was rejected, or a check of the URL still running
 * with `fix`, refuses the draft (422 fix-not-approved), naming each source. Changes `order` in place.
 */
async function resolveFixedSources(ctx: ServiceContext, caller: Caller, order: OrderPayload): Promise<FixedSource[]> {
  const found: FixedSource[] = [];
  const issues: OrderIssue[] = [];
  for (const [r, row] of order.rows.entries()) {
    for (const [s, source] of (row.sources ?? []).entries()) {
      const path = `rows[${r}].sources[${s}].url`;
      // Only a URL at this server's own public origin names one of its fixed files: the same path
      // on another host is somebody else's file, judged as any other source.
      const token = fixedFileToken(source.url, ctx.options.publicUrl);
      if (token) {
        const meta = await ctx.store.files.meta(token);
        if (!meta) continue;
        // A fix whose file still failed its checks was rejected by the server, not by a person (a
        // person decides only fixes that pass): the order fails on that file's own findings.
        const report = await ctx.store.files.readReport(token);
        if (meta.state === 'rejected' && report?.verdict === 'fail') {
          found.push({ token, given: { url: source.url, sha256: meta.sha256, report } });
          continue;
        }
        const refused = refusal(meta.state, meta.check) ?? (await notServed(ctx, token, meta.check));
        if (refused) issues.push({ path, message: refused });
        else if (report) found.push({ token, given: { url: source.url, sha256: meta.sha256, report } });
        continue;
      }
      const record = row.sku ? await newestCheckOfUrl(ctx, caller, source.url, row.sku) : null;
      if (!record) continue;
      if (record.status === 'queued' || record.status === 'running') {
        issues.push({ path, message: `check ${record.id} of this URL is still ${record.status} with fix: wait for it, then approve its fixed file` });
        continue;
      }
      if (!record.fixed || !record.token || !record.approval) continue;
      // Its fix did not make a printable file (rejected by the server): the source is judged as it is.
      if (record.approval.state === 'rejected' && (await ctx.store.files.readReport(record.token))?.verdict === 'fail') continue;
      const refused = refusal(record.approval.state, record.id);
      if (refused) {
        issues.push({ path, message: refused });
        continue;
      }
      if (!ctx.options.publicUrl) {
        throw new Problem(
          'public-url-not-configured',
          `Check ${record.id} fixed the file at ${source.url}; the order must name the fixed file, but this server has no --public-url to give the order service its address.`,
        );
      }
      const gone = await notServed(ctx, record.token, record.id);
      if (gone) {
        issues.push({ path, message: gone });
        continue;
      }
      const report = await ctx.store.files.readReport(record.token);
      if (!report) continue;
      source.url = `${ctx.options.publicUrl}${record.fixed.url}`;
      found.push({ token: record.token, given: { url: source.url, sha256: record.fixed.sha256, report } });
    }
  }
  if (issues.length) throw new OrderPayloadError(issues);
  return found;
}

/**
 * The token of a `{publicUrl}/v1/files/{token}.pdf` URL — at this server's public origin (scheme,
 * host and port) and under its path — or null (another server's URL, or no public URL configured).
 */
export function fixedFileToken(url: string, publicUrl: string | null | undefined): string | null {
  if (!publicUrl) return null;
  let given: URL;
  let ours: URL;
  try {
    given = new URL(url);
    ours = new URL(publicUrl);
  } catch {
    return null;
  }
  if (given.origin !== ours.origin || given.username || given.password || given.search || given.hash) return null;
  const base = ours.pathname.replace(/\/+$/, '');
  if (!given.pathname.startsWith(`${base}/v1/files/`)) return null;
  const rest = given.pathname.slice(base.length);
  return rest.startsWith('/v1/files/') ? tokenOf(rest.slice('/v1/files/'.length), '.pdf') : null;
}

/** Why an approved fixed file cannot be ordered: it is not served any more (removed); null while it is. */
async function notServed(ctx: ServiceContext, token: string, check: string): Promise<string | null> {
  const there = await ctx.store.files.exists(token);
  return there ? null : `the fixed file of check ${check} is not served any more (it was removed): check the file again`;
}

function refusal(state: string, check: string): string | null {
  if (state === 'rejected') return `the fix of check ${check} was rejected: this file may not be printed; upload a new file`;
  if (state === 'pending') return `the fix of check ${check} waits for approval: approve it first`;
  return null;
}

/** The newest check of exactly `url` that `caller` may see, for `sku`'s product and variant, that did not end in an error. */
async function newestCheckOfUrl(ctx: ServiceContext, caller: Caller, url: string, sku: string): Promise<CheckRecord | null> {
  let wanted;
  try {
    wanted = ctx.registry.resolve({ sku });
  } catch {
    return null;
  }
  let best: { record: CheckRecord; fix: boolean } | null = null;
  for (const id of await ctx.store.checksOfUrl(url)) {
    const [record, job] = await Promise.all([ctx.store.readRecord(id).catch(() => null), ctx.store.readJob(id).catch(() => null)]);
    if (!record || !job || record.status === 'error' || !ctx.callers.canSee(caller, record.owner)) continue;
    let target;
    try {
      target = ctx.registry.resolve(job.target);
    } catch {
      continue;
    }
    if (target.profile.id !== wanted.profile.id || target.variant.id !== wanted.variant.id) continue;
    if (!best || ordinal(record.createdAt, best.record.createdAt) > 0 || (record.createdAt === best.record.createdAt && ordinal(record.id, best.record.id) > 0)) {
      best = { record, fix: job.options.fix !== undefined };
    }
  }
  // A check without fix still running decides nothing yet: the source is judged as it is.
  if (best && !best.fix && (best.record.status === 'queued' || best.record.status === 'running')) return null;
  return best?.record ?? null;
}

/**
 * Records that the order references each fixed file it names: a file an order references is never
 * swept. The order is named by its tenant and `number` (the same order built twice is one
 * reference); an order without a number by its whole payload.
 */
async function recordReferences(ctx: ServiceContext, caller: Caller, payload: OrderPayload, files: readonly FixedSource[]): Promise<void> {
  const order = payload.number ?? null;
  const ref = referenceKey(caller, order ?? `\u0000${createHash('sha256').update(JSON.stringify(payload)).digest('hex')}`);
  for (const token of new Set(files.map((f) => f.token))) await ctx.store.files.addReference(token, ref, { tenant: caller.tenant, order });
}

/** What names an order's references: its tenant and number. */
function referenceKey(caller: Caller, number: string): string {
  return `${caller.tenant}\u0000${number}`;
}
