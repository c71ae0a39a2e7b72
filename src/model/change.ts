/**
 * What a fix did and what it would not do: a change made to the file, and a refusal (a fix the
 * policy asked for that was not made, with the reason). One definition for the transforms that make
 * them (convert/), the flow that passes them on, and the records, summaries and answers that show
 * them (jobs/, batch/, the service).
 */
import { z } from 'zod';
import { ChangeCodeSchema, FindingCodeSchema, type ChangeCode, type FindingCode } from './codes.js';
import { PageDifferenceSchema, type PageDifference } from './difference.js';

/**
 * One change made to the file. (The public types stand on their own, so the API reference documents
 * them without the schemas; the schemas below are held to them both ways by the compiler.)
 */
export interface Change {
  /** The finding code the change answers, or a change code of its own (`layers-assembled`). */
  code: ChangeCode;
  /** 1-based page, or null for the whole file. */
  page: number | null;
  /** What was done, technically. */
  action: string;
  /** The page drawn before and after, compared in ΔE00; absent when not measured. */
  difference?: PageDifference | undefined;
}

/** A fix that was asked for by a finding but not made, and why. */
export interface Refusal {
  code: FindingCode;
  /** 1-based page, or null for the whole file. */
  page: number | null;
  reason: string;
}

/** True only when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const where = {
  code: FindingCodeSchema,
  /** 1-based page, or null for the whole file. */
  page: z.number().int().min(1).nullable(),
};

export const ChangeSchema = z.strictObject({
  code: ChangeCodeSchema,
  page: where.page,
  /** What was done, technically. */
  action: z.string(),
  /** The page drawn before and after, compared in ΔE00 (convert/measure.ts); absent when not measured. */
  difference: PageDifferenceSchema.optional(),
});
const changeIsChange: Same<z.infer<typeof ChangeSchema>, Change> = true;

/** One change, as the API, the records and batch's summary show it: whether it waits for approval, and the customer's words for it. */
export const FixChangeSchema = z.strictObject({
  code: ChangeCodeSchema,
  page: where.page,
  action: ChangeSchema.shape.action,
  /** Whether the change waits for approval (`fix: approve`). */
  needsApproval: z.boolean(),
  /** The change told to the customer, in the check's locale. */
  customer: z.string().optional(),
  difference: ChangeSchema.shape.difference,
});
export type FixChange = z.infer<typeof FixChangeSchema>;

export const RefusalSchema = z.strictObject({ ...where, reason: z.string() });
const refusalIsRefusal: Same<z.infer<typeof RefusalSchema>, Refusal> = true;
void [changeIsChange, refusalIsRefusal];
