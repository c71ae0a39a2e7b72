/**
 * What travels through Redis: small job descriptions that refer to files (a path in a folder every
 * worker sees, or a URL), never the files themselves; and the retry policy every job is added with.
 */
import { z } from 'zod';
import { LocaleSchema } from '../model/locales.js';
import { TargetSchema } from '../flow/options.js';
import { LimitsOverrideSchema } from '../profile/schema.js';
import { FindingCodeSchema, SeveritySettingSchema } from '../model/codes.js';
import { FixModeSchema, PolicySchema } from '../model/policy.js';

/** Job names on the queue. */
export const JOB_CHECK = 'check';
export const JOB_BATCH_FILE = 'batch-file';

/** One file of a batch run over the fleet: the worker judges it exactly like a local batch would. */
export const BatchFileJobSchema = z
  .object({
    /** Absolute path of the PDF (the batch folder mounted at the same path on every worker), or its object's `s3://bucket/key` URL. */
    path: z.string().min(1),
    /** Path relative to the batch folder, forward slashes. */
    rel: z.string().min(1),
    /** Absolute path of the batch output folder (shared like the batch folder), or the output prefix's `s3://bucket/prefix/` URL. */
    out: z.string().min(1),
    target: TargetSchema,
    via: z.enum(['manifest', 'file name', 'folder']).nullable(),
    html: z.boolean(),
    raster: z.boolean(),
    /** Profiles folder (shared), or absent for the profiles shipped with the package. */
    profiles: z.string().min(1).optional(),
    /** Time limit per task in ms, or absent for the worker's. */
    timeoutMs: z.number().int().min(1).optional(),
    /** The run's rules over the profile's, as a local batch takes them (`preflight.severities`, `limits`, `policy`). */
    severities: z.partialRecord(FindingCodeSchema, SeveritySettingSchema).optional(),
    limits: LimitsOverrideSchema.optional(),
    policy: PolicySchema.optional(),
    /** Customer messages in this language. */
    locale: LocaleSchema.optional(),
    /** Worker time the whole file may use, in ms (`--file-budget`), or absent for the default. */
    fileBudgetMs: z.number().int().min(1).optional(),
    /** Fix by the policy (`--fix`): the fixed file and its report into `<out>/fixed/` (shared like `out`). */
    fix: FixModeSchema.optional(),
  })
  .strict();
export type BatchFileJob = z.infer<typeof BatchFileJobSchema>;

/** Retry policy: how often a job may fail transiently, and how often it may take a worker down. */
export const RetryPolicySchema = z
  .object({
    /** Runs of a job that fails with a transient error (a download that timed out…). Default 4. */
    attempts: z.number().int().min(1).max(50).default(4),
    /** First retry delay, doubled each time, in ms. Default 2,000. */
    backoffMs: z.number().int().min(0).default(2_000),
    /**
     * Workers a job may take down (killed, crashed, out of memory) before it is judged a poison file
     * and ends as `error` without running again. Default 2.
     */
    crashLimit: z.number().int().min(1).max(20).default(2),
  })
  .strict();
export type RetryPolicy = z.input<typeof RetryPolicySchema>;

/** BullMQ job options for a policy. Finished jobs are kept a while for inspection, then dropped. */
/**
 * Jobs carry references (a storage key, a path, a URL), never a file: a job's data stays far below
 * this (about 1 KB; a policy and a callback URL add at most 6 KB), and BullMQ refuses a larger one.
 */
export const JOB_SIZE_LIMIT = 64 * 1024;

export function jobOptions(policy: z.output<typeof RetryPolicySchema>, jobId: string) {
  return {
    jobId,
    sizeLimit: JOB_SIZE_LIMIT,
    attempts: policy.attempts,
    backoff: { type: 'exponential' as const, delay: policy.backoffMs },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

/** Thrown by a job runner for a failure worth retrying later (network, 5xx, timeouts). */
export class TransientJobError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'TransientJobError';
  }
}
