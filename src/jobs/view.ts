/**
 * A check as the API shows it (GET /v1/checks/{id}, the 200 of POST /v1/checks, the callback
 * body): the record, the report exactly as `check --json` prints it, and links.
 */
import { z } from 'zod';
import { ReportSchema, VerdictSchema, type Report } from '../report/schema.js';
import { ApprovalStateSchema, CallbackAttemptSchema, CheckErrorSchema, CheckIdSchema, CheckStatusSchema, FixedFileSchema, RefusedFixSchema, type CheckRecord } from './schema.js';

export const CheckViewSchema = z
  .strictObject({
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
    callback: z
      .strictObject({ state: z.enum(['pending', 'delivered', 'failed']), attempts: z.array(CallbackAttemptSchema) })
      .nullable(),
    /**
     * The fixed file (`fix: auto | approve`, and the policy fixed something): its URL (served once
     * approved, or at once with `fix: auto`), SHA-256, and the changes. Null otherwise.
     */
    fixed: FixedFileSchema.nullable(),
    /**
     * With `fix` and no fixed file: the fixes the policy asked for that could not be made, and why
     * (the file over the decode or time limits, an image that cannot be decoded…). Absent otherwise.
     */
    fixRefused: z.array(RefusedFixSchema).optional(),
    /** Where the approval of the fixed file stands; null when there is nothing to approve. */
    approval: ApprovalStateSchema.nullable(),
    /** The report, exactly as `print-preflight check --json` prints it; null until done. For a fixed file, its report (the original's is on the approval page). */
    report: ReportSchema.nullable(),
    links: z.strictObject({
      self: z.string(),
      html: z.string().nullable(),
      previews: z.array(z.string()),
      /** The approval page (no API key: the token is the secret), when the check fixed the file. */
      approval: z.string().nullable().optional(),
    }),
  });

export type CheckView = z.infer<typeof CheckViewSchema>;

/** Builds the API's view of a check; `pages` are the page numbers that have a preview. */
export function checkView(record: CheckRecord, report: Report | null, pages: readonly number[]): CheckView {
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
    fixed: record.fixed ?? null,
    ...(record.fixRefused?.length ? { fixRefused: record.fixRefused } : {}),
    approval: record.approval ?? null,
    report,
    links: {
      self,
      html: report ? `${self}/report.html` : null,
      previews: pages.map((n) => `${self}/pages/${n}`),
      ...(record.token ? { approval: `/v1/approvals/${record.token}` } : {}),
    },
  };
}
