/**
 * Approval of fixed files and the files themselves:
 * - POST /v1/checks/{id}/approve and /reject (API key): the platform decides;
 * - GET /v1/approvals/{token} (no key: the token is the secret): the page a platform links its
 *   customer to, each layer before and after and the changes in the customer's words, whose two
 *   forms post to /v1/approvals/{token}/approve and /reject;
 * - GET /v1/files/{token}.pdf (no key): the fixed file, once approved (or at once with `fix: auto`).
 */
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { localeNotice } from '../../messages/catalogue.js';
import { negotiateLocale, type NegotiatedLocale } from '../../model/locales.js';
import { storedApprovalPage } from '../../jobs/pages.js';
import { CheckViewSchema } from '../../jobs/view.js';
import type { CheckRecord } from '../../jobs/schema.js';
import { pagePolicy, PRIVATE_NO_STORE } from '../headers.js';
import { Problem } from '../problem.js';
import { defineRoute, type ResponseDoc } from '../route.js';
import { ApprovalParamsSchema, CheckParamsSchema, FileParamsSchema, LocaleQuerySchema, RejectBodySchema } from '../schemas.js';
import type { ServiceContext } from '../context.js';
import { viewOf } from './checks.js';

const APPROVAL_POLICY = (frameAncestors: readonly string[]) => pagePolicy(frameAncestors, { scripts: [], forms: true });

type Decision = 'approved' | 'rejected';

export function approvalRoutes(ctx: ServiceContext): void {
  /** The approval page, under its policy (no script; forms post only here) and never cached. */
  const sendPage = (reply: FastifyReply, html: string) =>
    reply.header('Content-Security-Policy', APPROVAL_POLICY(ctx.options.frameAncestors)).header('Cache-Control', PRIVATE_NO_STORE).type('text/html; charset=utf-8').send(html);
  const { app, routes, store } = ctx;
  // The approval page's forms post application/x-www-form-urlencoded (no script needed).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  const lockUnavailable: ResponseDoc = {
    description: "The decision cannot be recorded now (a fleet's Redis does not answer); retry in a moment",
    codes: ['queue-unavailable'],
    headers: { 'Retry-After': 'seconds to wait' },
  };
  const notAwaiting: ResponseDoc = { description: 'The check does not wait for approval: not finished, already approved or rejected, or it fixed nothing', codes: ['check-not-awaiting-approval'] };
  for (const decision of ['approved', 'rejected'] as const) {
    const verb = decision === 'approved' ? 'approve' : 'reject';
    defineRoute(
      app,
      routes,
      {
        method: 'POST',
        url: `/v1/checks/:id/${verb}`,
        operationId: `${verb}Check`,
        summary: decision === 'approved' ? 'Approve the fixed file of a check' : 'Reject the fixed file of a check',
        description:
          decision === 'approved'
            ? "For a check in `needs-approval`: the fixed file becomes the check's file (served at `fixed.url`, used by orders); the check is `done` and its callback (`check.finished`) goes out."
            : "For a check in `needs-approval`: the fix is refused; the fixed file is removed and orders refuse the check's source. `reason` (optional) is kept. The check is `done`; its callback goes out.",
        tags: ['checks'],
        auth: true,
        params: CheckParamsSchema,
        ...(decision === 'rejected' ? { body: RejectBodySchema } : {}),
        responses: {
          200: { description: 'The check, decided', schema: CheckViewSchema, headers: { 'Cache-Control': 'private, no-store' } },
          404: { description: 'No such check of this tenant', codes: ['check-not-found'] },
          409: notAwaiting,
          503: lockUnavailable,
        },
      },
      async (request, reply) => {
        const record = await ctx.store.readRecord(request.params.id);
        if (!record || !ctx.callers.canSee(request.caller!, record.owner))
          throw new Problem('check-not-found', `There is no check ${request.params.id}: it never existed, was deleted, or retention removed it.`);
        const reason = (request.body as { reason?: string } | undefined)?.reason;
        const decided = await decide(ctx, record.id, decision, reason, { by: 'api', tenant: request.caller!.tenant });
        request.log.info({ checkId: record.id, tenant: request.caller!.tenant, decision }, 'fix decided');
        return reply.header('Cache-Control', PRIVATE_NO_STORE).send(await viewOf(ctx, decided.id, decided));
      },
    );

    defineRoute(
      app,
      routes,
      {
        method: 'POST',
        url: `/v1/approvals/:token/${verb}`,
        operationId: `${verb}ByPage`,
        summary: decision === 'approved' ? "The approval page's approve button" : "The approval page's reject button",
        description: `What the approval page's form posts (application/x-www-form-urlencoded${decision === 'rejected' ? ', an optional `reason`' : ''}); answers with the page, which now shows the outcome. No API key: the token is the secret.`,
        tags: ['approvals'],
        auth: false,
        params: ApprovalParamsSchema,
        query: LocaleQuerySchema,
        ...(decision === 'rejected' ? { body: RejectBodySchema } : {}),
        responses: {
          200: { description: 'Decided: the approval page with the outcome', type: 'text/html', headers: { 'Content-Security-Policy': 'the page policy', 'Cache-Control': 'private, no-store' } },
          404: { description: 'No such approval', codes: ['approval-not-found'] },
          409: notAwaiting,
          503: lockUnavailable,
        },
      },
      async (request, reply) => {
        const record = await recordOfToken(ctx, request.params.token);
        const reason = (request.body as { reason?: string } | undefined)?.reason;
        const decided = await decide(ctx, record.id, decision, reason || undefined, { by: 'approval-page' });
        request.log.info({ checkId: record.id, decision, by: 'page' }, 'fix decided');
        return sendPage(reply, await approvalPage(ctx, decided, await negotiated(ctx, record.id, request.query.locale, request.headers['accept-language'])));
      },
    );
  }

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/approvals/:token',
      operationId: 'getApprovalPage',
      summary: 'The approval page a platform links its customer to',
      description:
        "Each part of the product with the original page that became it beside the page as it will print (paired by design through a reorder, a turn or a scaling), each change up close where it happened, the design drawn on the product, what is still to note — all in the customer's language — and two buttons (plain forms, no script) to approve or reject. Once decided, the outcome at the top instead of the buttons. Language: `?locale=` (BCP 47: `en`, `pt-PT`, `pt-BR`, `es`, `fr`, `de`, `it`; `pt` is `pt-PT`), else the check's `locale`, else the browser's `Accept-Language`, else English; a language the page is not in is said on the page, never an error. No API key: the token (in `links.approval` of the check) is the secret.",
      tags: ['approvals'],
      auth: false,
      params: ApprovalParamsSchema,
      query: LocaleQuerySchema,
      responses: {
        200: {
          description: 'The page, under a Content-Security-Policy that runs no script and lets forms post only here',
          type: 'text/html',
          headers: { 'Content-Security-Policy': 'the page policy', 'Cache-Control': 'private, no-store' },
        },
        404: { description: 'No such approval', codes: ['approval-not-found'] },
      },
    },
    async (request, reply) => {
      const record = await recordOfToken(ctx, request.params.token);
      return sendPage(reply, await approvalPage(ctx, record, await negotiated(ctx, record.id, request.query.locale, request.headers['accept-language'])));
    },
  );

  defineRoute(
    app,
    routes,
    {
      method: 'GET',
      url: '/v1/files/:file',
      operationId: 'getFixedFile',
      summary: 'A fixed file: `/v1/files/{token}.pdf`',
      description:
        "The fixed PDF of a check, once approved (or at once with `fix: auto`): a stable, unguessable URL that needs no API key, for the order service to download for the whole production. `ETag` and `Repr-Digest` carry its SHA-256 (the check's `fixed.sha256`), so what was printed can be proved. Fixed files stay when their check is deleted or expires: a file an order built or posted here references is kept while that order references it; an unreferenced one is removed after the server's `--fixed-retention-days` (default 30). A rejected fix removes its file.",
      tags: ['approvals'],
      auth: false,
      params: FileParamsSchema,
      responses: {
        200: { description: 'The PDF', type: 'application/pdf', headers: { ETag: '"<sha256>"', 'Repr-Digest': 'sha-256=:<base64>:' } },
        404: { description: 'No such file, or its fix is not approved (pending or rejected)', codes: ['file-not-found'] },
      },
    },
    async (request, reply) => {
      const token = request.params.file.slice(0, -'.pdf'.length);
      // Judged by what is kept beside the file: it is served while orders reference it, after its check is gone.
      const meta = await store.files.meta(token);
      const usable = meta && (meta.state === 'approved' || meta.state === 'auto');
      if (!usable) throw new Problem('file-not-found', 'There is no such file, or its fix has not been approved.');
      if (ctx.options.presignSeconds > 0 && store.remote && (await store.files.exists(token))) {
        const url = await store.files.presign(token, ctx.options.presignSeconds);
        if (url) return reply.code(302).header('Location', url).header('Cache-Control', 'private, no-store').header('ETag', `"${meta.sha256}"`).send();
      }
      return sendPdf(reply, await store.files.stream(token), meta.sha256);
    },
  );
}

async function sendPdf(reply: FastifyReply, stream: Readable | null, sha256: string): Promise<FastifyReply> {
  if (!stream) throw new Problem('file-not-found', 'There is no such file, or its fix has not been approved.');
  return (
    reply
      .type('application/pdf')
      .header('ETag', `"${sha256}"`)
      .header('Repr-Digest', `sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`)
      // The bytes behind a token never change; a shared cache may keep them.
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .send(stream)
  );
}

async function recordOfToken(ctx: ServiceContext, token: string): Promise<CheckRecord> {
  const id = await ctx.store.files.checkOf(token);
  const record = id ? await ctx.store.readRecord(id) : null;
  if (!record || record.token !== token) throw new Problem('approval-not-found', 'There is no such approval: the link is wrong, or the check was deleted.');
  return record;
}

/**
 * Moves a check from `needs-approval` to `done`, approved or rejected (once: a second decision is a
 * 409). A rejected fix's file is removed. The callback, if any, goes out again (`check.finished`).
 * The record keeps who decided (`who`), when, and the reason of a rejection.
 */
async function decide(ctx: ServiceContext, id: string, decision: Decision, reason: string | undefined, who: { by: 'api' | 'approval-page'; tenant?: string }): Promise<CheckRecord> {
  const job = await ctx.store.readJob(id);
  let refused: string | null = null;
  // One decision per check, in every server sharing the data folder: the record, the fixed file's
  // state and the file itself change together under the record's lock (Redis in a fleet); a second
  // decision, here or on another server, finds it decided and gets 409.
  const updated = await ctx.store.updateRecord(
    id,
    (r) => {
      if (r.status !== 'needs-approval' || r.approval?.state !== 'pending') {
        refused =
          r.approval && r.approval.state !== 'pending'
            ? `it was ${r.approval.state === 'auto' ? 'approved by the policy' : r.approval.state} already`
            : `it is ${r.status}${r.fixed ? '' : ' and fixed nothing'}`;
        return r;
      }
      return {
        ...r,
        status: 'done',
        approval: { state: decision, at: new Date().toISOString(), ...(reason ? { reason } : {}), ...who },
        ...(job?.callbackUrl ? { callbackState: 'pending' as const } : {}),
      };
    },
    async (next) => {
      if (!next.token) return;
      await ctx.store.files.setState(next.token, decision);
      if (decision === 'rejected') await ctx.store.files.remove(next.token);
    },
    { required: true },
  );
  if (!updated) throw new Problem('check-not-found', `There is no check ${id}.`);
  if (refused) throw new Problem('check-not-awaiting-approval', `Check ${id} does not wait for approval: ${refused}.`);
  // The decision's callback (check.finished) goes out now from this server, whichever process ran
  // the check, retried like the first (the fleet's queue claims it so one server delivers it).
  if (job?.callbackUrl) ctx.queue.deliverCallback?.(id);
  return updated;
}

/** The page's language: `?locale=`, the check's, the browser's, English. */
async function negotiated(ctx: ServiceContext, id: string, query: string | undefined, acceptLanguage: string | undefined): Promise<NegotiatedLocale> {
  const job = await ctx.store.readJob(id);
  return negotiateLocale({ query, check: job?.options.locale, acceptLanguage });
}

/** Renders the approval page from what the check stored, in the negotiated language. */
async function approvalPage(ctx: ServiceContext, record: CheckRecord, language: NegotiatedLocale): Promise<string> {
  const job = await ctx.store.readJob(record.id);
  const html = job
    ? await storedApprovalPage(ctx.store, ctx.registry, record, job, {
        locale: language.locale,
        notice: await localeNotice(language),
        action: `/v1/approvals/${record.token}`,
        // The outcome comes back in the language the page was read in.
        actionQuery: `?locale=${encodeURIComponent(language.locale)}`,
      })
    : null;
  if (!html) throw new Problem('approval-not-found', 'There is no such approval: the check fixed nothing, or it was deleted.');
  return html;
}

export type ApprovalDecision = z.infer<typeof RejectBodySchema>;
