import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CheckJob, CheckRecord } from '../../jobs/schema.js';
import { acceptUpload, acceptUrl } from './submission.js';
import { checkView, CheckViewSchema } from '../../jobs/view.js';
import { ProfileListingSchema, profileListing } from '../../profile/listing.js';
import { PRIVATE_NO_STORE } from '../headers.js';
import { Problem, toProblem } from '../problem.js';
import { defineRoute, type ResponseDoc } from '../route.js';
import { CheckLayersUploadSchema, CheckParamsSchema, CheckUploadSchema, CheckUrlBodySchema, PageParamsSchema, ReportPageQuerySchema, SubmitQuerySchema } from '../schemas.js';
import { customerRoutes, REPORT_HTML_DOC, sendReportPage } from './customer.js';
import type { ServiceContext } from '../context.js';
import type { Caller } from '../tenants.js';

const PREVIEW_TYPES: Record<string, string> = { png: 'image/png', webp: 'image/webp' };

/** A check just accepted, as the API shows it (the example of the document). */
const CHECK_QUEUED_EXAMPLE = {
  id: '3f2b8c1d9e4a4b7c8d6e5f4a3b2c1d0e',
  status: 'queued',
  createdAt: '2026-05-04T09:30:00.000Z',
  startedAt: null,
  finishedAt: null,
  verdict: null,
  error: null,
  attempts: 0,
  callback: null,
  fixed: null,
  approval: null,
  report: null,
  links: { self: '/v1/checks/3f2b8c1d9e4a4b7c8d6e5f4a3b2c1d0e', html: null, previews: [] },
};

export function checkRoutes(ctx: ServiceContext): void {
  const { app, routes, store } = ctx;

  const submitResponses: Record<number, ResponseDoc> = {
    200: { description: 'Finished within `wait`', schema: CheckViewSchema, headers: { 'Cache-Control': 'private, no-store' } },
    202: {
      description: 'Accepted; poll `Location`, first after `Retry-After` seconds',
      schema: CheckViewSchema,
      headers: { Location: 'the check: /v1/checks/{id}', 'Retry-After': 'seconds to wait before the first poll (a check rarely finishes sooner)', 'Cache-Control': 'private, no-store' },
      example: CHECK_QUEUED_EXAMPLE,
    },
    400: { description: 'A field or the file part is missing or malformed (`errors` lists each)', codes: ['request-invalid', 'multipart-invalid'] },
    413: { description: 'The upload is over the size limit (refused while it streams), or has too many parts', codes: ['upload-too-large', 'too-many-parts'] },
    422: {
      description: "Unknown SKU, product or variant; a callbackUrl that cannot be used; or `limits`/`severities` that would loosen the server's (`limits-not-allowed`)",
      codes: ['unknown-sku', 'unknown-product', 'unknown-variant', 'callback-not-configured', 'callback-url-refused', 'limits-not-allowed'],
    },
    429: {
      description: 'This tenant has as many checks queued as it may (`too-many-queued`), or has used its submissions per minute (`too-many-submissions`)',
      codes: ['too-many-queued', 'too-many-submissions'],
      headers: { 'Retry-After': 'seconds, estimated from the queue' },
    },
    503: {
      description: 'The data folder or the queue cannot take more (`storage-full`, `queue-unavailable`), or the server is shutting down',
      codes: ['storage-full', 'storage-unavailable', 'queue-unavailable'],
      headers: { 'Retry-After': 'seconds to wait' },
    },
  };
  const upload = { schema: CheckUploadSchema, partTypes: { file: 'application/pdf' } };
  const layersUpload = { schema: CheckLayersUploadSchema, partTypes: { file: 'application/pdf' } };
  const layersWhen =
    'Instead of a PDF, one image per layer of the product (PNG, JPEG, TIFF, WebP, or a one-page PDF): multipart parts named `layer.<layer id>` (`layer.front`, `layer.back`…, as GET /v1/profiles lists the layers), each with an optional `fit.<layer id>` field (`cover`, `contain`, `stretch`, `tile`, `mirror`, `bleed`; without it an image made at the trim size gets its bleed mirrored, `bleed`, and any other `cover`), or JSON `{ "layers": { "front": { "url": "…", "fit": "tile" } }, "sku": "…" }`. They are assembled into the print file in the worker pool, under the decode budget, and checked: the check\'s `fixed` file is that print file (`/v1/files/{token}.pdf`), usable in orders, and with `fix=approve` it waits for the customer\'s approval like any fix. A layer missing, an unknown layer, a part both `file` and `layer.*` are 400s whose `errors[].path` names the part; a part that is no image is a 422 (`layer-not-image`); before the check is accepted each image is probed in the worker pool — one over the product\'s `maxImagePixels` on a side (15,000 by default) is a 422 (`layer-too-large`, with its `widthPx`, `heightPx` and `limitPx`), one that cannot be decoded (cut short, damaged) a 422 (`layer-unreadable`), each naming the part. The upload limit holds for each part and for the request as a whole.';
  const submitWhen =
    "With `?wait=N` (seconds, at most 60) the answer is 200 with the finished check when it finishes in time; otherwise 202 with `Location`. With `callbackUrl`, the finished check is POSTed there, signed (`x-webhook-signature`, base64 HMAC-SHA256 of the body with the server's callback secret), retried up to 10 times.";

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/checks',
      operationId: 'submitCheck',
      summary: 'Check a print file: an upload or a URL',
      description: `Send the PDF as multipart/form-data (a \`file\` part, and \`sku\` or \`product\` + \`variant\`), or JSON \`{ "url": "https://…", "sku": "…" }\` to have it downloaded the way the order service will. ${layersWhen} With \`fix\` (\`auto\` or \`approve\`), either is fixed by its policy and checked again: the check ends \`done\` with \`fixed\`, or \`needs-approval\` (callback topic \`check.needs-approval\`) until POST /v1/checks/{id}/approve or /reject or the approval page decides. ${submitWhen} Generated clients that type one body per operation use this for URLs and POST /v1/checks/upload for files.`,
      tags: ['checks'],
      auth: true,
      query: SubmitQuerySchema,
      // JSON first: generators that take one body per operation (openapi-generator) take the first
      // one listed, and uploads have their own operation (uploadCheck).
      requestBodies: {
        'application/json': { schema: CheckUrlBodySchema, example: { url: 'https://files.example.com/designs/duvet-200x200.pdf', sku: 'DUVET-COVER-200X200' } },
        'multipart/form-data': layersUpload,
      },
      responses: {
        ...submitResponses,
        415: { description: 'Neither multipart/form-data nor application/json' },
        422: {
          ...submitResponses[422]!,
          description: `${submitResponses[422]!.description}; a \`layer.<id>\` part that is not a PNG, JPEG, TIFF, WebP or PDF file (\`layer-not-image\`), an image over the product's \`maxImagePixels\` on a side (\`layer-too-large\`), or one that cannot be decoded (\`layer-unreadable\`)`,
          codes: [...(submitResponses[422]!.codes ?? []), 'layer-not-image', 'layer-too-large', 'layer-unreadable'],
        },
        503: {
          ...submitResponses[503]!,
          description: `${submitResponses[503]!.description}; the worker pool that probes layer images is closed (\`pool-unavailable\`)`,
          codes: [...(submitResponses[503]!.codes ?? []), 'pool-unavailable'],
        },
      },
    },
    async (request, reply) => submit(ctx, request, reply, request.isMultipart() ? (caller) => acceptUpload(ctx, request, caller, { layers: true }) : (caller) => acceptUrl(ctx, request.body, caller)),
  );

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/checks/upload',
      operationId: 'uploadCheck',
      summary: 'Check an uploaded print file',
      description: `The multipart upload of POST /v1/checks on its own: a \`file\` part with the PDF, and \`sku\` or \`product\` + \`variant\`. ${submitWhen}`,
      tags: ['checks'],
      auth: true,
      query: SubmitQuerySchema,
      requestBodies: { 'multipart/form-data': upload },
      responses: { ...submitResponses, 415: { description: 'Not multipart/form-data' } },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        ctx.metrics.rejectedSubmission('unsupported-media');
        throw new Problem('unsupported-media-type', 'Send multipart/form-data: a part named "file" with the PDF, and the fields sku, or product and variant (a URL goes to POST /v1/checks as JSON).');
      }
      return submit(ctx, request, reply, (caller) => acceptUpload(ctx, request, caller));
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/checks/:id',
      operationId: 'getCheck',
      summary: 'A check: its status and, when done, its report',
      description:
        'The check as it stands: `queued`, `running`, `done` (with the report exactly as `print-preflight check --json` prints it, and links to the HTML report and previews) or `error`. Poll it after a 202, or wait for the callback.',
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      responses: {
        200: { description: 'The check', schema: CheckViewSchema, example: CHECK_QUEUED_EXAMPLE, headers: { 'Cache-Control': 'private, no-store' } },
        404: { description: 'No such check of this tenant (it never existed, belongs to another tenant, was deleted, or retention removed it)', codes: ['check-not-found'] },
      },
    },
    async (request, reply) => {
      const record = await visibleRecord(ctx, request.caller!, request.params.id);
      return reply.header('Cache-Control', PRIVATE_NO_STORE).send(await viewOf(ctx, record.id, record));
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/checks/:id/report.html',
      operationId: 'getCheckReportHtml',
      summary: 'The visual report of a finished check',
      description: `${REPORT_HTML_DOC.description} For a fixed check, the fixed file's report (its own SHA-256); the original's is at /v1/checks/{id}/original/report.html.`,
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      query: ReportPageQuerySchema,
      responses: {
        ...REPORT_HTML_DOC.responses(''),
        404: { description: 'No such check of this tenant', codes: ['check-not-found'] },
      },
    },
    async (request, reply) => sendReportPage(ctx, request, reply, await finishedOrThrow(ctx, request.caller!, request.params.id), 'after'),
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/checks/:id/pages/:n',
      operationId: 'getCheckPagePreview',
      summary: 'The preview image of page n (1-based)',
      description: 'The page as it will print, rendered when the check ran (WebP, or PNG when the server writes PNG previews). A check submitted with `raster=false` has none.',
      tags: ['checks'],
      auth: true,
      params: PageParamsSchema,
      responses: {
        200: { description: 'The image', type: ['image/webp', 'image/png'], headers: { 'Cache-Control': 'private, no-store' } },
        400: { description: 'The page number is not a decimal integer from 1 to 100,000, or the id is not a check id', codes: ['request-invalid'] },
        404: { description: 'No such check of this tenant, or no preview of that page', codes: ['check-not-found', 'preview-not-found'] },
        409: { description: 'The check has no previews: not finished yet, or it ended in an error', codes: ['check-not-finished', 'check-failed'] },
      },
    },
    async (request, reply) => {
      await finishedOrThrow(ctx, request.caller!, request.params.id);
      const preview = (await store.previews(request.params.id)).get(request.params.n);
      if (!preview) throw new Problem('preview-not-found', `Check ${request.params.id} has no preview of page ${request.params.n}.`);
      return sendFile(reply, await store.stream(preview.file), PREVIEW_TYPES[preview.format] ?? 'application/octet-stream', request.params.id);
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'DELETE',
      url: '/v1/checks/:id',
      operationId: 'deleteCheck',
      summary: 'Delete a finished check',
      description: "Removes the check's report, previews and upload now, before retention would.",
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      responses: {
        204: { description: 'Deleted' },
        404: { description: 'No such check of this tenant', codes: ['check-not-found'] },
        409: { description: 'The check is queued or running', codes: ['check-not-finished'] },
      },
    },
    async (request, reply) => {
      const record = await visibleRecord(ctx, request.caller!, request.params.id);
      if (record.status === 'queued' || record.status === 'running') {
        throw new Problem('check-not-finished', `Check ${record.id} is ${record.status}; delete it once it has finished.`);
      }
      await store.remove(record.id);
      request.log.info({ checkId: record.id, tenant: request.caller!.tenant }, 'check deleted');
      return reply.code(204).send();
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/profiles',
      operationId: 'listProfiles',
      summary: 'Products, variants, SKUs, layers and page sizes',
      description: "What `print-preflight profiles --json` prints: every product this server checks against, its layers in page order, and each variant's SKUs and page sizes (trim + 2 × bleed).",
      tags: ['profiles'],
      auth: true,
      responses: { 200: { description: 'The profiles', schema: ProfileListingSchema } },
    },
    async () => profileListing(ctx.registry),
  );

  customerRoutes(ctx, (caller, id) => finishedOrThrow(ctx, caller, id));
}

/** Accepts a submission within the key's limit, queues it, and answers with the check. */
async function submit(ctx: ServiceContext, request: FastifyRequest & { query: { wait?: number } }, reply: FastifyReply, accept: (caller: Caller) => Promise<CheckJob>): Promise<FastifyReply> {
  const caller = request.caller!;
  const reservation = await ctx.admission.admit(caller, 1, 'r');
  let job: CheckJob;
  try {
    job = await accept(caller);
    await reservation.bind(reservation.members[0]!, job.id);
  } catch (error) {
    await reservation.release();
    throw error;
  }
  ctx.processing(request);
  try {
    await ctx.queue.enqueue(job);
  } catch (error) {
    // The queue refused it (Redis full or read-only, a shutdown): the check is not accepted.
    await ctx.tenants.remove(caller.tenant, [job.id]).catch(() => undefined);
    await ctx.store.remove(job.id).catch(() => undefined);
    const problem = toProblem(error);
    throw problem.status === 500
      ? new Problem('queue-unavailable', `The queue cannot take checks now (${(error as Error).message}); retry in a moment.`, { headers: { 'Retry-After': '5' } })
      : problem;
  }
  ctx.metrics.acceptedSubmission(job.source.kind, caller.tenant);
  request.log.info({ checkId: job.id, tenant: caller.tenant, source: job.source.kind, target: job.target }, 'check accepted');
  const wait = request.query.wait ?? 0;
  const finished = wait > 0 ? await ctx.waitFinished(job.id, wait * 1000) : null;
  reply.header('Cache-Control', PRIVATE_NO_STORE);
  // The finished record is the one just waited for: not read again.
  if (finished) return reply.code(200).send(await viewOf(ctx, job.id, finished));
  return (
    reply
      .code(202)
      .header('Location', `/v1/checks/${job.id}`)
      // Paces polling: a check takes seconds, so a client that polls at once only adds load.
      .header('Retry-After', String(POLL_AFTER_S))
      .send(await viewOf(ctx, job.id))
  );
}

/** Seconds a client waits before polling an accepted check: about the time a typical check takes. */
const POLL_AFTER_S = 2;

function notFound(id: string): Problem {
  return new Problem('check-not-found', `There is no check ${id}: it never existed, was deleted, or retention removed it.`);
}

/**
 * The record of a check the caller may see. Another tenant's check is answered exactly like one
 * that does not exist: an id that leaked tells nothing.
 */
async function visibleRecord(ctx: ServiceContext, caller: Caller, id: string): Promise<CheckRecord> {
  const record = await ctx.store.readRecord(id);
  if (!record || !ctx.callers.canSee(caller, record.owner)) throw notFound(id);
  return record;
}

async function finishedOrThrow(ctx: ServiceContext, caller: Caller, id: string): Promise<CheckRecord> {
  const record = await visibleRecord(ctx, caller, id);
  if (record.status === 'error') throw new Problem('check-failed', `Check ${id} ended in an error and has no report: ${record.error?.message ?? 'unknown'}`);
  if (record.status !== 'done' && record.status !== 'needs-approval') throw new Problem('check-not-finished', `Check ${id} is ${record.status}; its report is there once it is done.`);
  return record;
}

async function sendFile(reply: FastifyReply, stream: Readable | null, type: string, id: string): Promise<FastifyReply> {
  if (!stream) throw notFound(id);
  // Not kept by any cache: after a DELETE the report is gone for every browser too.
  return reply.type(type).header('Cache-Control', PRIVATE_NO_STORE).send(stream);
}

export async function viewOf(ctx: ServiceContext, id: string, known?: CheckRecord) {
  const record = known ?? (await ctx.store.readRecord(id));
  if (!record) return null;
  const reported = record.status === 'done' || record.status === 'needs-approval';
  // Read at once, not one after the other (each is a round trip to object storage). A fixed check
  // carries the original's report too, each bound to its own file's SHA-256.
  const [report, previews, original] = reported ? await Promise.all([ctx.store.readReport(id), ctx.store.previews(id), record.fixed ? ctx.store.readBeforeReport(id) : null]) : [null, null, null];
  return checkView(record, report, previews ? [...previews.keys()] : [], original, ctx.options.publicUrl);
}
