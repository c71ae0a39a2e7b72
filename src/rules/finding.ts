import { z } from 'zod';
import { FindingCodeSchema, SeveritySchema, type FindingCode, type Severity } from './codes.js';

/** One problem found in a print file: what rule, where, what was expected and what was found. */
export const FindingSchema = z.strictObject({
  code: FindingCodeSchema,
  severity: SeveritySchema,
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
