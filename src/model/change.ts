/**
 * What a fix did and what it would not do: a change made to the file, and a refusal (a fix the
 * policy asked for that was not made, with the reason). One definition for the transforms that make
 * them (convert/), the flow that passes them on, and the records, summaries and answers that show
 * them (jobs/, batch/, the service).
 */
import { z } from 'zod';
import { FindingCodeSchema } from './codes.js';
import { PageDifferenceSchema } from './difference.js';

const where = {
  code: FindingCodeSchema,
  /** 1-based page, or null for the whole file. */
  page: z.number().int().min(1).nullable(),
};

/** One change made to the file. */
export const ChangeSchema = z.strictObject({
  ...where,
  /** What was done, technically. */
  action: z.string(),
  /** The page drawn before and after, compared in ΔE00 (convert/measure.ts); absent when not measured. */
  difference: PageDifferenceSchema.optional(),
});
export type Change = z.infer<typeof ChangeSchema>;

/** One change, as the API, the records and batch's summary show it: whether it waits for approval, and the customer's words for it. */
export const FixChangeSchema = z.strictObject({
  ...where,
  action: ChangeSchema.shape.action,
  /** Whether the change waits for approval (`fix: approve`). */
  needsApproval: z.boolean(),
  /** The change told to the customer, in the check's locale. */
  customer: z.string().optional(),
  difference: ChangeSchema.shape.difference,
});
export type FixChange = z.infer<typeof FixChangeSchema>;

/** A fix that was asked for by a finding but not made, and why. */
export const RefusalSchema = z.strictObject({ ...where, reason: z.string() });
export type Refusal = z.infer<typeof RefusalSchema>;
