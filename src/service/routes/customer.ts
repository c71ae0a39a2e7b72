/**
 * The customer's view of a check, besides the approval page: report.html in the reader's language
 * (`?locale=`, the check's, `Accept-Language`; `?view=prepress` for the technical report), the
 * original's report.html of a fixed check, and each layer's mockup as a PNG.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { storedReportPage } from '../../jobs/pages.js';
import type { CheckRecord } from '../../jobs/schema.js';
import { localeNotice } from '../../messages/catalogue.js';
import { negotiateLocale } from '../../model/locales.js';
import { REPORT_SCRIPT } from '../../report/html.js';
import type { ServiceContext } from '../context.js';
import { pagePolicy, PRIVATE_NO_STORE } from '../headers.js';
import { Problem } from '../problem.js';
import { defineRoute, type ResponseDoc } from '../route.js';
import { CheckParamsSchema, ReportPageQuerySchema } from '../schemas.js';
import type { Caller } from '../tenants.js';

/** A layer's mockup: `{layer}.png`. */
export const MockupParamsSchema = z
  .object({
    id: CheckParamsSchema.shape.id,
    layer: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be a layer id of the product (lower-case letters, digits and hyphens), e.g. "front"')
      .describe('The layer id, e.g. `front` or `left-sleeve` (see GET /v1/profiles)'),
  })
  .strict();

const REPORT_POLICY = (frameAncestors: readonly string[]) => pagePolicy(frameAncestors, { scripts: [REPORT_SCRIPT] });

export const REPORT_HTML_DOC = {
  description:
    "A self-contained HTML page (pictures inlined, no external resources) in the customer's language: the verdict and what it means, where a fix stands (\"changed — awaiting your approval\"), each part of the product by its name with the design drawn on it and the print file with its cut, bleed and safe lines, each finding in the customer's words, and the prepress detail in a closed technical section. Language: `?locale=` (BCP 47), else the check's `locale`, else `Accept-Language`, else English; a language it is not in is said on the page, never an error. `?view=prepress`: the full technical report (English) for print professionals.",
  /** The answers of a report.html route but its 404: the page (of `what`) and a check with no report. */
  responses: (what: string): Record<number, ResponseDoc> => ({
    200: {
      description: `The HTML report${what}, under a Content-Security-Policy that runs only the report's own script`,
      type: 'text/html' as const,
      headers: { 'Content-Security-Policy': 'the page policy', 'Cache-Control': 'private, no-store', 'Content-Language': 'the language of the page' },
    },
    409: { description: 'The check has no report: not finished yet, or it ended in an error', codes: ['check-not-finished', 'check-failed'] },
  }),
};

/** Renders a stored check's report.html (the fixed or only report, or the original) for a request. */
export async function sendReportPage(
  ctx: ServiceContext,
  request: FastifyRequest & { query: z.output<typeof ReportPageQuerySchema> },
  reply: FastifyReply,
  record: CheckRecord,
  which: 'after' | 'before',
): Promise<FastifyReply> {
  const job = await ctx.store.readJob(record.id);
  const language = negotiateLocale({ query: request.query.locale, check: job?.options.locale, acceptLanguage: request.headers['accept-language'] });
  const self = `/v1/checks/${record.id}/${which === 'before' ? 'original/' : ''}report.html`;
  const html = job
    ? await storedReportPage(ctx.store, ctx.registry, record, job, which, {
        locale: language.locale,
        notice: await localeNotice(language),
        view: request.query.view ?? 'customer',
        prepressHref: `${self}?view=prepress`,
      })
    : null;
  if (!html) throw new Problem('check-not-found', `Check ${record.id} has no ${which === 'before' ? 'original report: it fixed nothing' : 'report'}.`);
  return reply
    .header('Content-Security-Policy', REPORT_POLICY(ctx.options.frameAncestors))
    .header('Cache-Control', PRIVATE_NO_STORE)
    .header('Content-Language', request.query.view === 'prepress' ? 'en' : language.locale)
    .header('Vary', 'Accept-Language')
    .type('text/html; charset=utf-8')
    .send(html);
}

export function customerRoutes(ctx: ServiceContext, finished: (caller: Caller, id: string) => Promise<CheckRecord>): void {
  const { app, routes } = ctx;

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/checks/:id/original/report.html',
      operationId: 'getCheckOriginalReportHtml',
      summary: 'The visual report of the file as it was sent, for a check that fixed it',
      description: `The original file's report.html (its own SHA-256), beside the fixed file's at /v1/checks/{id}/report.html. ${REPORT_HTML_DOC.description}`,
      tags: ['checks'],
      auth: true,
      params: CheckParamsSchema,
      query: ReportPageQuerySchema,
      responses: {
        ...REPORT_HTML_DOC.responses(' of the original'),
        404: { description: "No such check of this tenant, or the check fixed nothing (its report is the original's)", codes: ['check-not-found'] },
      },
    },
    async (request, reply) => {
      const record = await finished(request.caller!, request.params.id);
      if (!record.fixed) throw new Problem('check-not-found', `Check ${record.id} fixed nothing: its report at /v1/checks/${record.id}/report.html is the original's.`);
      return sendReportPage(ctx, request, reply, record, 'before');
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/checks/:id/mockup/:layer.png',
      operationId: 'getCheckMockup',
      summary: "A layer's mockup: the design drawn on its part of the product",
      description:
        "The page of the layer (of the fixed file, when the check fixed one) drawn onto the part of the product it prints — the garment piece cut to its shape, a duvet face, a curtain on its rod — with the bleed that is cut away shown faint around it and the cut, bleed and safe lines. Made from the page's preview when the check ran (PNG). A check submitted with `raster=false` has none.",
      tags: ['checks'],
      auth: true,
      params: MockupParamsSchema,
      responses: {
        200: { description: 'The mockup', type: 'image/png', headers: { 'Cache-Control': 'private, no-store' } },
        404: { description: 'No such check of this tenant, or no mockup of that layer (not a layer of the product, no page for it, or not rendered)', codes: ['check-not-found', 'mockup-not-found'] },
        409: { description: 'The check has no mockups: not finished yet, or it ended in an error', codes: ['check-not-finished', 'check-failed'] },
      },
    },
    async (request, reply) => {
      const record = await finished(request.caller!, request.params.id);
      const report = await ctx.store.readReport(record.id);
      const page = report?.pages.find((p) => p.layer === request.params.layer);
      const file = page ? (await ctx.store.mockups(record.id)).get(page.index) : undefined;
      if (!file) throw new Problem('mockup-not-found', `Check ${record.id} has no mockup of layer "${request.params.layer}".`);
      const stream = await ctx.store.stream(file);
      if (!stream) throw new Problem('mockup-not-found', `Check ${record.id} has no mockup of layer "${request.params.layer}".`);
      return reply.type('image/png').header('Cache-Control', PRIVATE_NO_STORE).send(stream);
    },
  );
}
