/**
 * A check job and its record: the two documents a check is on disk (and on a queue). A job is what
 * was asked and never changes; a record is where the check stands and is rewritten as it moves.
 * Job data is small and refers to files: an upload is a path relative to the data folder.
 */
import { z } from 'zod';
import { TargetSchema } from '../flow/options.js';
import { LimitsOverrideSchema } from '../profile/schema.js';
import { VerdictSchema } from '../report/schema.js';
import { FindingCodeSchema, SeveritySettingSchema } from '../model/codes.js';
import { FixModeSchema, PolicySchema } from '../model/policy.js';
import { FixChangeSchema, RefusalSchema } from '../model/change.js';
import { FitSchema, RotateSchema } from '../model/instructions.js';
import { LocaleSchema } from '../model/locales.js';
import { TokenSchema } from '../model/token.js';
import { AssemblyFillSchema } from '../model/assembly.js';

/** A product layer's id, as profiles spell it (a part name of a multipart upload: `layer.<id>`). */
export const LayerIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a layer id (lower-case letters, digits and hyphens)');

/** Check ids: 32 lower-case hex characters (a UUID without dashes), safe as a folder name. */
export const CheckIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be a check id (32 hex characters)');

/**
 * Who a check belongs to: a tenant name from the server's configuration, `key-<fingerprint>` for a
 * key of its own, `admin`, or `anonymous` on a server without keys. Safe in a Redis key and a
 * metric label.
 */
export const TenantIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit');

/** The owner of a check job, and what the owner may run at once (it travels with the job to any fleet worker). */
export const CheckOwnerSchema = z
  .object({
    tenant: TenantIdSchema,
    /** Checks of this tenant running at once, fleet-wide; 0: no bound of its own (the pool or the fleet decides). */
    maxRunning: z.number().int().min(0).max(100_000),
  })
  .strict();

export const CheckSourceSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('upload'),
      /** The upload, relative to the data folder (`uploads/<id>.pdf`). */
      file: z.string().regex(/^uploads\/[0-9a-f]{32}\.pdf$/),
      /** The file name the client sent; the report names the file by it. */
      name: z.string().min(1).max(255),
    })
    .strict(),
  z.object({ kind: z.literal('url'), url: z.string().url() }).strict(),
  z
    .object({
      kind: z.literal('layers'),
      /**
       * One image or one-page PDF per layer id, assembled into the print file when the check runs:
       * an upload (`uploads/<id>.layer-<layer>`, with the name the client sent) or a URL, each with
       * its fill if one was asked for.
       */
      layers: z.record(
        LayerIdSchema,
        z.union([
          z.strictObject({ file: z.string().regex(/^uploads\/[0-9a-f]{32}\.layer-[a-z0-9][a-z0-9-]{0,63}$/), name: z.string().min(1).max(255), fit: AssemblyFillSchema.optional() }),
          z.strictObject({ url: z.string().url(), fit: AssemblyFillSchema.optional() }),
        ]),
      ),
    })
    .strict(),
]);

export const CheckOptionsSchema = z
  .object({
    /** Rasterise pages (pixel checks and previews). */
    raster: z.boolean().default(true),
    /** Keep each page's preview (GET /v1/checks/{id}/pages/{n}, the HTML report). */
    previews: z.boolean().default(true),
    severities: z.partialRecord(FindingCodeSchema, SeveritySettingSchema).optional(),
    limits: LimitsOverrideSchema.optional(),
    /** Action per finding code for this check (a call may only tighten the server's). */
    policy: PolicySchema.optional(),
    /** Apply the policy's fixes: `auto` (use the fixed file), `approve` (apply them, then wait for approval). */
    fix: FixModeSchema.optional(),
    /** Direction to turn sideways pages, when the policy fixes page-orientation-mismatch. */
    rotate: RotateSchema.optional(),
    /** How to fit pages of other proportions, when the policy fixes page-size-mismatch. */
    fit: FitSchema.optional(),
    /** Language of the customer messages in the report and on the approval page. */
    locale: LocaleSchema.optional(),
  })
  .strict();

export const CheckJobSchema = z
  .object({
    id: CheckIdSchema,
    createdAt: z.iso.datetime(),
    source: CheckSourceSchema,
    target: TargetSchema,
    options: CheckOptionsSchema,
    /** Where the finished check is POSTed, signed (x-webhook-signature). */
    callbackUrl: z.string().url().optional(),
    /** Who submitted it. Absent on jobs written by a version without tenants. */
    owner: CheckOwnerSchema.optional(),
  })
  .strict();

/**
 * `needs-approval`: the check fixed the file and waits for a person to approve or reject the
 * changes (`fix: approve`); its report is there, like `done`'s.
 */
export const CheckStatusSchema = z.enum(['queued', 'running', 'needs-approval', 'done', 'error']);

/** A check that has its answer (a report, or an error): nothing more runs for it. */
export const isSettled = (status: CheckStatus): boolean => status === 'done' || status === 'error' || status === 'needs-approval';

export { FixChangeSchema, RefusalSchema };

/** The fixed file of a check: where it is served, its SHA-256, what was changed and what could not be. */
export const FixedFileSchema = z
  .object({
    /** `/v1/files/{token}.pdf` — absolute (`<publicUrl>/v1/files/{token}.pdf`) when the server has a public URL: stable, unguessable, no API key (served once the fix is approved, or at once with `fix: auto`). */
    url: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int().min(0),
    changes: z.array(FixChangeSchema),
    /** Fixes the policy asked for that were not made, and why. */
    refused: z.array(RefusalSchema),
  })
  .strict();

/** Where an approval stands: `pending` (needs-approval), `approved`, `rejected`, or `auto` (approved by the policy). */
export const ApprovalStateSchema = z
  .object({
    state: z.enum(['pending', 'approved', 'rejected', 'auto']),
    at: z.iso.datetime().optional(),
    /** Why the customer rejected it, as they said it (at most 1,000 characters). */
    reason: z.string().max(1000).optional(),
    /**
     * Who decided: `api` (a call with an API key; `tenant` names the key's tenant), `approval-page`
     * (the customer, on the page the token opens), `policy` (the rules: approved by the policy, or a
     * fixed file that still fails, never served).
     */
    by: z.enum(['api', 'approval-page', 'policy']).optional(),
    /** The tenant of the API key that decided (`by: api`). */
    tenant: z.string().optional(),
  })
  .strict();

export const CallbackAttemptSchema = z
  .object({
    at: z.iso.datetime(),
    /** The HTTP status the callback answered, when it answered. */
    status: z.number().int().optional(),
    /** Why the attempt failed (no answer, blocked address, non-2xx). */
    error: z.string().optional(),
  })
  .strict();

export const CheckErrorSchema = z
  .object({
    /** The library's error code (`ERR_LAYER_TOO_LARGE`…); its problem code is the same in kebab-case (`layer-too-large`). */
    code: z.string(),
    message: z.string(),
    /** For a layer's image refused by the check (a layer given by URL, downloaded by the check): the layer. */
    layer: z.string().optional(),
    /** For an image over the product's `maxImagePixels` (`ERR_LAYER_TOO_LARGE`): its size from its header, and the limit per side. */
    widthPx: z.number().int().optional(),
    heightPx: z.number().int().optional(),
    limitPx: z.number().int().optional(),
  })
  .strict();

export const CheckRecordSchema = z
  .object({
    id: CheckIdSchema,
    status: CheckStatusSchema,
    /** The tenant that submitted it: only it (and an admin key) can read, fetch or delete the check. */
    owner: TenantIdSchema.optional(),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().optional(),
    finishedAt: z.iso.datetime().optional(),
    verdict: VerdictSchema.optional(),
    /** Why the check could not produce a report (not a problem in the file: those are findings). */
    error: CheckErrorSchema.optional(),
    /** How many times a run of this check was started (more than 1 after a restart). */
    attempts: z.number().int().min(0),
    /** Every delivery attempt of the callback, oldest first. */
    callbacks: z.array(CallbackAttemptSchema),
    /** Where the callback stands: `pending` until delivered or given up (`failed`). Absent without a callbackUrl. */
    callbackState: z.enum(['pending', 'delivered', 'failed']).optional(),
    /** The fixed file, when the check fixed one. */
    fixed: FixedFileSchema.optional(),
    /** The approval of the fixed file, when there is one. */
    approval: ApprovalStateSchema.optional(),
    /** The token of the fixed file and of the approval page (`/v1/approvals/{token}`). */
    token: TokenSchema.optional(),
    /** With no fixed file: the fixes the policy asked for that could not be made, and why. */
    fixRefused: z.array(RefusalSchema).optional(),
    /** The earlier check whose report this one took (same bytes, target, profile, limits, policy and tool version): nothing was run again. */
    reusedFrom: CheckIdSchema.optional(),
    /** Raised by every write (JobStore.updateRecord): what a change was made against. Internal. */
    version: z.number().int().min(0).optional(),
    /** The run that holds the check while it is `running`: only its result is written. Internal. */
    run: z.string().optional(),
    /** Runs that ended with their process (it died while the check was running). Internal. */
    crashes: z.number().int().min(0).optional(),
  })
  .strict();

export type CheckJob = z.infer<typeof CheckJobSchema>;
export type CheckJobInput = z.input<typeof CheckJobSchema>;
export type CheckSource = z.infer<typeof CheckSourceSchema>;
export type CheckOptions = z.infer<typeof CheckOptionsSchema>;
export type CheckStatus = z.infer<typeof CheckStatusSchema>;
export type CheckRecord = z.infer<typeof CheckRecordSchema>;
export type CallbackAttempt = z.infer<typeof CallbackAttemptSchema>;
export type CheckOwner = z.infer<typeof CheckOwnerSchema>;

/** The record of a job just accepted. */
export function newRecord(job: CheckJob): CheckRecord {
  return {
    id: job.id,
    status: 'queued',
    ...(job.owner ? { owner: job.owner.tenant } : {}),
    createdAt: job.createdAt,
    attempts: 0,
    callbacks: [],
    ...(job.callbackUrl ? { callbackState: 'pending' as const } : {}),
  };
}
