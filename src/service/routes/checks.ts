/**
 * /v1/checks: submit (multipart upload or JSON URL), read, HTML report, page previews, delete.
 * A submission is on disk (upload fsynced, job and record written) before it is queued and
 * answered, so a 202 survives a crash.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callbackUrlProblem } from '../../jobs/callback.js';
import { CheckJobSchema, CheckOptionsSchema, newRecord, type CheckJob, type CheckSource } from '../../jobs/schema.js';
import { checkView, CheckViewSchema } from '../../jobs/view.js';
import { ProfileListingSchema, profileListing } from '../../profile/listing.js';
import { Problem, zodFields } from '../problem.js';
import { defineRoute } from '../route.js';
import { CheckFormSchema, CheckParamsSchema, CheckUploadSchema, CheckUrlBodySchema, PageParamsSchema, SubmitQuerySchema, targetOf } from '../schemas.js';
import type { ServiceContext } from '../context.js';
import { grouped } from '../../util/text.js';

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
  report: null,
  links: { self: '/v1/checks/3f2b8c1d9e4a4b7c8d6e5f4a3b2c1d0e', html: null, previews: [] },
};

export function checkRoutes(ctx: ServiceContext): void {
  const { app, routes, store } = ctx;

  const submitResponses = {
    200: { description: 'Finished within `wait`', schema: CheckViewSchema },
    202: { description: 'Accepted; poll `Location`', schema: CheckViewSchema, headers: { Location: 'the check: /v1/checks/{id}' }, example: CHECK_QUEUED_EXAMPLE },
    400: { description: 'A field or the file part is missing or malformed (`errors` lists each)', codes: ['request-invalid', 'multipart-invalid'] },
    413: { description: 'The upload is over the size limit (refused while it streams), or has too many parts', codes: ['upload-too-large', 'too-many-parts'] },
    422: { description: 'Unknown SKU, product or variant; or a callbackUrl that cannot be used', codes: ['ERR_UNKNOWN_SKU', 'ERR_UNKNOWN_PRODUCT', 'ERR_UNKNOWN_VARIANT', 'callback-not-configured', 'callback-url-refused'] },
    429: { description: 'This key has too many checks queued or running', codes: ['too-many-checks'], headers: { 'Retry-After': 'seconds to wait' } },
  };
  const upload = { schema: CheckUploadSchema, partTypes: { file: 'application/pdf' } };
  const submitWhen = 'With `?wait=N` (seconds, at most 60) the answer is 200 with the finished check when it finishes in time; otherwise 202 with `Location`. With `callbackUrl`, the finished check is POSTed there, signed (`x-webhook-signature`, base64 HMAC-SHA256 of the body with the server\'s callback secret), retried up to 10 times.';

  defineRoute(
    app,
    routes,
    {
      method: 'POST',
      url: '/v1/checks',
      operationId: 'submitCheck',
      summary: 'Check a print file: an upload or a URL',
      description: `Send the PDF as multipart/form-data (a \`file\` part, and \`sku\` or \`product\` + \`variant\`), or JSON \`{ "url": "https://…", "sku": "…" }\` to have it downloaded the way the order service will. ${submitWhen} Generated clients that type one body per operation use this for URLs and POST /v1/checks/upload for files.`,
      tags: ['checks'],
      auth: true,
      query: SubmitQuerySchema,
      requestBodies: {
        'multipart/form-data': upload,
        'application/json': { schema: CheckUrlBodySchema, example: { url: 'https://files.example.com/designs/duvet-200x200.pdf', sku: 'DUVET-COVER-200X200' } },
      },
      responses: { ...submitResponses, 415: { description: 'Neither multipart/form-data nor application/json' } },
    },
    async (request, reply) => submit(ctx, request, reply, request.isMultipart() ? () => acceptUpload(ctx, request) : () => acceptUrl(ctx, request.body)),
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
        throw new Problem(415, 'unsupported-media-type', 'Send multipart/form-data: a part named "file" with the PDF, and the fields sku, or product and variant (a URL goes to POST /v1/checks as JSON).');
      }
      return submit(ctx, request, reply, () => acceptUpload(ctx, request));
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
      description: 'The check as it stands: `queued`, `running`, `done` (with the report exactly as `print-preflight check --json` prints it, and links to the HTML report and previews) or `error`. Poll it after a 202, or wait for the callback.',
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      responses: { 200: { description: 'The check', schema: CheckViewSchema, example: CHECK_QUEUED_EXAMPLE }, 404: { description: 'No such check (or retention removed it)', codes: ['check-not-found'] } },
    },
    async (request) => {
      const view = await viewOf(ctx, request.params.id);
      if (!view) throw notFound(request.params.id);
      return view;
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
      description: 'A self-contained HTML page: every page drawn on its layer with bleed, trim and safe area, and the findings beside it (previews inlined, no external resources).',
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      responses: {
        200: { description: 'The HTML report', type: 'text/html' },
        404: { description: 'No such check', codes: ['check-not-found'] },
        409: { description: 'The check has no report: not finished yet, or it ended in an error', codes: ['check-not-finished', 'check-failed'] },
      },
    },
    async (request, reply) => {
      await finishedOrThrow(ctx, request.params.id);
      return sendFile(reply, store.reportHtmlFile(request.params.id), 'text/html; charset=utf-8', request.params.id).then((r) =>
        r.header('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"),
      );
    },
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
        200: { description: 'The image', type: ['image/webp', 'image/png'] },
        404: { description: 'No such check, or no preview of that page', codes: ['check-not-found', 'preview-not-found'] },
        409: { description: 'The check has no previews: not finished yet, or it ended in an error', codes: ['check-not-finished', 'check-failed'] },
      },
    },
    async (request, reply) => {
      await finishedOrThrow(ctx, request.params.id);
      const preview = (await store.previews(request.params.id)).get(request.params.n);
      if (!preview) throw new Problem(404, 'preview-not-found', `Check ${request.params.id} has no preview of page ${request.params.n}.`);
      return sendFile(reply, preview.file, PREVIEW_TYPES[preview.format] ?? 'application/octet-stream', request.params.id);
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
      description: 'Removes the check\'s report, previews and upload now, before retention would.',
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such check', codes: ['check-not-found'] }, 409: { description: 'The check is queued or running', codes: ['check-not-finished'] } },
    },
    async (request, reply) => {
      const record = await store.readRecord(request.params.id);
      if (!record) throw notFound(request.params.id);
      if (record.status === 'queued' || record.status === 'running') {
        throw new Problem(409, 'check-not-finished', `Check ${record.id} is ${record.status}; delete it once it has finished.`);
      }
      await store.remove(record.id);
      request.log.info({ checkId: record.id }, 'check deleted');
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
      description: 'What `print-preflight profiles --json` prints: every product this server checks against, its layers in page order, and each variant\'s SKUs and page sizes (trim + 2 × bleed).',
      tags: ['profiles'],
      auth: true,
      responses: { 200: { description: 'The profiles', schema: ProfileListingSchema } },
    },
    async () => profileListing(ctx.registry),
  );
}

/** Accepts a submission within the key's limit, queues it, and answers with the check. */
async function submit(ctx: ServiceContext, request: FastifyRequest & { query: { wait: number } }, reply: FastifyReply, accept: () => Promise<CheckJob>): Promise<FastifyReply> {
  const key = request.apiKey ?? 'anonymous';
  const token = await ctx.limiter.reserve(key);
  let job: CheckJob;
  try {
    job = await accept();
  } catch (error) {
    ctx.limiter.release(key, token);
    throw error;
  }
  ctx.limiter.bind(key, token, job.id);
  ctx.processing(request);
  await ctx.queue.enqueue(job);
  ctx.metrics.acceptedSubmission(job.source.kind);
  request.log.info({ checkId: job.id, source: job.source.kind, target: job.target }, 'check accepted');
  const wait = request.query.wait;
  const finished = wait > 0 ? await ctx.waitFinished(job.id, wait * 1000) : null;
  if (finished) return reply.code(200).send(await viewOf(ctx, job.id));
  return reply
    .code(202)
    .header('Location', `/v1/checks/${job.id}`)
    .send(await viewOf(ctx, job.id));
}

function notFound(id: string): Problem {
  return new Problem(404, 'check-not-found', `There is no check ${id}: it never existed, was deleted, or retention removed it.`);
}

async function finishedOrThrow(ctx: ServiceContext, id: string): Promise<void> {
  const record = await ctx.store.readRecord(id);
  if (!record) throw notFound(id);
  if (record.status === 'error') throw new Problem(409, 'check-failed', `Check ${id} ended in an error and has no report: ${record.error?.message ?? 'unknown'}`);
  if (record.status !== 'done') throw new Problem(409, 'check-not-finished', `Check ${id} is ${record.status}; its report is there once it is done.`);
}

async function sendFile(reply: FastifyReply, file: string, type: string, id: string): Promise<FastifyReply> {
  const stream = createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  }).catch(() => {
    throw notFound(id);
  });
  return reply.type(type).header('Cache-Control', 'private, max-age=3600').send(stream);
}

export async function viewOf(ctx: ServiceContext, id: string) {
  const record = await ctx.store.readRecord(id);
  if (!record) return null;
  const report = record.status === 'done' ? await ctx.store.readReport(id) : null;
  const pages = record.status === 'done' ? [...(await ctx.store.previews(id)).keys()] : [];
  return checkView(record, report, pages);
}

const newId = () => randomUUID().replaceAll('-', '');

/** A file name fit to show in a report: the last path segment, printable, at most 255 characters. */
function cleanName(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const base = (name ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (base || 'upload.pdf').slice(0, 255);
}

/** Reads a multipart submission, streaming the file to disk within the size limit. */
async function acceptUpload(ctx: ServiceContext, request: FastifyRequest): Promise<CheckJob> {
  const id = newId();
  const temp = ctx.store.uploadTemp(id);
  const fields: Record<string, string> = {};
  let name: string | null = null;
  try {
    const parts = request.parts({ limits: { fileSize: ctx.options.maxUploadBytes, files: 1, fields: 8, fieldSize: 8192, parts: 10 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw new Problem(400, 'request-invalid', `Unknown file part "${part.fieldname}": send the PDF as the part named "file".`, { errors: [{ path: part.fieldname, message: 'unknown file part; name it "file"' }] });
        name = cleanName(part.filename);
        // Fields sent before the file (curl -F sku=… -F file=@…) are judged before a byte is stored.
        const early = targetOf(fields);
        if (early.ok) targetOrThrow(ctx, early.target);
        // Streams to disk. At the limit the stream is destroyed at once: the 413 goes out while the
        // client is still sending, and nothing more is read or kept.
        part.file.once('limit', () => part.file.destroy(tooLarge(ctx.options.maxUploadBytes)));
        await pipeline(part.file, createWriteStream(temp, { flags: 'wx' }));
      } else {
        if (Object.hasOwn(fields, part.fieldname)) {
          throw new Problem(400, 'request-invalid', `The field "${part.fieldname}" is given twice.`, { errors: [{ path: part.fieldname, message: 'given more than once' }] });
        }
        fields[part.fieldname] = String(part.value);
      }
    }
    const form = CheckFormSchema.safeParse(fields);
    const errors = form.success ? [] : zodFields(form.error);
    if (name === null) errors.push({ path: 'file', message: 'a part named "file" with the PDF is required' });
    if (!form.success || name === null) throw new Problem(400, 'request-invalid', `The form is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
    const target = targetOrThrow(ctx, form.data);
    const callbackUrl = callbackOrThrow(ctx, form.data.callbackUrl);
    const file = await ctx.store.commitUpload(temp, id);
    return await createJob(ctx, id, { kind: 'upload', file, name }, target, { raster: form.data.raster !== 'false', previews: form.data.raster !== 'false' }, callbackUrl);
  } catch (error) {
    await rm(temp, { force: true });
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(ctx.options.maxUploadBytes);
    // busboy's own errors (no boundary, a part cut short, a malformed header) are the client's.
    if (!(error instanceof Problem) && code === undefined && error instanceof Error && /multipart|part|boundary|form/i.test(error.message)) {
      throw new Problem(400, 'multipart-invalid', `The multipart body cannot be read: ${error.message}.`);
    }
    throw error;
  }
}

function tooLarge(limit: number): Problem {
  return new Problem(413, 'upload-too-large', `The file is over the upload limit of ${grouped(limit)} bytes; it was refused when it reached it. The order service takes files up to 50 MB: recompress its images.`, {
    limitBytes: limit,
  });
}

async function acceptUrl(ctx: ServiceContext, body: unknown): Promise<CheckJob> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    ctx.metrics.rejectedSubmission('unsupported-media');
    throw new Problem(415, 'unsupported-media-type', 'Send multipart/form-data (a file part and sku or product + variant fields) or an application/json object { "url", "sku" }.');
  }
  const parsed = CheckUrlBodySchema.safeParse(body);
  if (!parsed.success) {
    ctx.metrics.rejectedSubmission('invalid');
    const errors = zodFields(parsed.error);
    throw new Problem(400, 'request-invalid', `The body is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
  }
  const b = parsed.data;
  const target = targetOrThrow(ctx, b);
  const callbackUrl = callbackOrThrow(ctx, b.callbackUrl);
  const options = { raster: b.raster ?? true, previews: b.raster ?? true, ...(b.severities ? { severities: b.severities } : {}), ...(b.limits ? { limits: b.limits } : {}) };
  return createJob(ctx, newId(), { kind: 'url', url: b.url }, target, options, callbackUrl);
}

function targetOrThrow(ctx: ServiceContext, fields: { sku?: string | undefined; product?: string | undefined; variant?: string | undefined }) {
  const t = targetOf(fields);
  if (!t.ok) {
    ctx.metrics.rejectedSubmission('invalid');
    throw new Problem(400, 'request-invalid', t.errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors: t.errors });
  }
  try {
    ctx.registry.resolve(t.target);
  } catch (error) {
    ctx.metrics.rejectedSubmission('unknown-target');
    throw error;
  }
  return t.target;
}

function callbackOrThrow(ctx: ServiceContext, url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (!ctx.options.callbackSecret) {
    throw new Problem(422, 'callback-not-configured', 'This server signs no callbacks: start it with --callback-secret to use callbackUrl.', { errors: [{ path: 'callbackUrl', message: 'the server has no callback secret' }] });
  }
  const problem = callbackUrlProblem(url, ctx.options.allowHosts);
  if (problem) throw new Problem(422, 'callback-url-refused', `callbackUrl ${problem}.`, { errors: [{ path: 'callbackUrl', message: problem }] });
  return url;
}

async function createJob(ctx: ServiceContext, id: string, source: CheckSource, target: CheckJob['target'], options: z.input<typeof CheckOptionsSchema>, callbackUrl: string | undefined): Promise<CheckJob> {
  const job = CheckJobSchema.parse({ id, createdAt: new Date().toISOString(), source, target, options, ...(callbackUrl ? { callbackUrl } : {}) });
  await ctx.store.create(job, newRecord(job));
  return job;
}
