import { z } from 'zod';
import { FindingCodeSchema, SeveritySchema, type FindingCode, type Severity } from './codes.js';
import { FindingActionSchema } from './policy.js';

/**
 * A finding in the end customer's words (no PDF terms; the product and layer by name; values filled
 * in): what it is, what would happen in production, what to do, and — for a fix — what was changed.
 * @example
 * import { CustomerMessageSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const { title, advice } = CustomerMessageSchema.parse(json);
 */
export const CustomerMessageSchema = z.strictObject({
  title: z.string(),
  problem: z.string(),
  production: z.string(),
  advice: z.string(),
  /** What a fix changed, said to the customer (codes that have a fix). */
  fixed: z.string().optional(),
});
export type CustomerMessage = z.infer<typeof CustomerMessageSchema>;

/**
 * One problem found in a print file: what rule, where, what was expected and what was found.
 * @example
 * import { FindingSchema } from 'print-preflight';
 * const finding = FindingSchema.parse({ code: 'image-low-resolution', severity: 'error', page: 1, layer: 'front', message: '…' });
 */
export const FindingSchema = z.strictObject({
  code: FindingCodeSchema,
  severity: SeveritySchema,
  /**
   * `fix` when the policy fixes this finding (the file is fixed, then checked again; until the fix
   * runs the finding is judged by its severity). Absent otherwise: the severity says the rest
   * (`error` rejects, `warning`/`info` let the file through).
   */
  action: FindingActionSchema.optional(),
  /** 1-based page number, or null for the whole file. */
  page: z.number().int().min(1).nullable(),
  /** The product layer the page is matched to, or null. */
  layer: z.string().nullable(),
  /** What was found and what to do, for a person. */
  message: z.string(),
  expected: z.string().nullable(),
  actual: z.string().nullable(),
  /** Machine-readable numbers behind the message (sizes in mm, ppi, pixel counts…). */
  details: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
  /** The finding told to the end customer, in the report's `locale` (only when a locale was asked for). */
  customer: CustomerMessageSchema.optional(),
});
export type Finding = z.infer<typeof FindingSchema>;

/** A finding as a check emits it: the severity is settled afterwards from the profile and call. */
export interface Draft {
  code: FindingCode;
  page: number | null;
  layer: string | null;
  message: string;
  expected: string | null;
  actual: string | null;
  details?: Record<string, number | string | boolean | null>;
  /** A severity this particular case calls for, when it differs from the code's default. */
  severity?: Severity;
}
