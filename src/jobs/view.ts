/**
 * A check as the API shows it (GET /v1/checks/{id}, the 200 of POST /v1/checks, the callback
 * body): the record, the report exactly as `check --json` prints it, and links.
 */
import { z } from 'zod';
import { ReportSchema, VerdictSchema, type Report } from '../report/schema.js';
import { ApprovalStateSchema, CallbackAttemptSchema, CheckErrorSchema, CheckIdSchema, CheckStatusSchema, FixedFileSchema, RefusalSchema, type CheckRecord } from './schema.js';

export const CheckViewSchema = z.strictObject({
  id: CheckIdSchema,
  status: CheckStatusSchema,
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  verdict: VerdictSchema.nullable(),
  /** Why no report could be made (status `error`). Problems in the file are findings in the report. */
  error: CheckErrorSchema.nullable(),
  /** Runs started (more than 1 when a restart interrupted one). */
  attempts: z.number().int(),
  callback: z.strictObject({ state: z.enum(['pending', 'delivered', 'failed']), attempts: z.array(CallbackAttemptSchema) }).nullable(),
  /**
   * The fixed file (`fix: auto | approve`, and the policy fixed something): its URL (served once
   * approved, or at once with `fix: auto`), SHA-256, and the changes. Null otherwise.
   */
  fixed: FixedFileSchema.nullable(),
  /**
   * With `fix` and no fixed file: the fixes the policy asked for that could not be made, and why
   * (the file over the decode or time limits, an image that cannot be decoded…). Absent otherwise.
   */
  fixRefused: z.array(RefusalSchema).optional(),
  /**
   * The earlier check whose report this one took at once: the same file (SHA-256), target, profile,
   * limits, policy and tool version were checked before, so nothing ran again. Absent otherwise.
   */
  reusedFrom: CheckIdSchema.optional(),
  /** Where the approval of the fixed file stands; null when there is nothing to approve. */
  approval: ApprovalStateSchema.nullable(),
  /** The report, exactly as `print-preflight check --json` prints it; null until done. For a fixed file, the fixed file's report (named `<name>.fixed.pdf`, its SHA-256 the fixed file's); the original's is `original`. */
  report: ReportSchema.nullable(),
  /** For a check that fixed its file: the report on the file as it was sent (its own SHA-256). Absent otherwise. */
  original: ReportSchema.nullable().optional(),
  links: z.strictObject({
    self: z.string(),
    html: z.string().nullable(),
    previews: z.array(z.string()),
    /** The approval page (no API key: the token is the secret), when the check fixed the file. */
    approval: z.string().nullable().optional(),
    /** The original's report.html, when the check fixed the file. */
    original: z.string().nullable().optional(),
    /** Each layer's mockup (`/v1/checks/{id}/mockup/{layer}.png`), when the check rendered its pages. */
    mockups: z.array(z.string()).optional(),
  }),
});

export type CheckView = z.infer<typeof CheckViewSchema>;

/**
 * Builds the API's view of a check; `pages` are the page numbers that have a preview; `original` the
 * original's report of a fixed check; `publicUrl` the server's public URL, under which the fixed
 * file's URL is absolute (it is handed to others — an order service, a print shop — who do not know
 * the server's address).
 */
export function checkView(record: CheckRecord, report: Report | null, pages: readonly number[], original: Report | null = null, publicUrl?: string | null): CheckView {
  const self = `/v1/checks/${record.id}`;
  return {
    id: record.id,
    status: record.status,
    createdAt: record.createdAt,
    startedAt: record.startedAt ?? null,
    finishedAt: record.finishedAt ?? null,
    verdict: record.verdict ?? null,
    error: record.error ?? null,
    attempts: record.attempts,
    callback: record.callbackState ? { state: record.callbackState, attempts: record.callbacks } : null,
    fixed: record.fixed ? (publicUrl ? { ...record.fixed, url: `${publicUrl.replace(/\/+$/, '')}${record.fixed.url}` } : record.fixed) : null,
    ...(record.fixRefused?.length ? { fixRefused: record.fixRefused } : {}),
    ...(record.reusedFrom ? { reusedFrom: record.reusedFrom } : {}),
    approval: record.approval ?? null,
    report,
    ...(original ? { original } : {}),
    links: {
      self,
      html: report ? `${self}/report.html` : null,
      previews: pages.map((n) => `${self}/pages/${n}`),
      ...(record.token ? { approval: `/v1/approvals/${record.token}` } : {}),
      ...(original ? { original: `${self}/original/report.html` } : {}),
      ...(report?.pages.some((p) => p.raster && p.layer) ? { mockups: [...new Set(report.pages.filter((p) => p.raster && p.layer).map((p) => p.layer!))].map((l) => `${self}/mockup/${l}.png`) } : {}),
    },
  };
}
