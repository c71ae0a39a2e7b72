/**
 * The decode limits as data: their schema (what an operator's configuration and a call's override
 * are validated against, at the boundary) and how a call's limits tighten the operator's. The budget
 * that spends them is pdf/decode-budget.ts, which a worker loads without this schema.
 */
import { z } from 'zod';

/**
 * The bounds on what one file may cost to decode (bytes decoded, pixels, stream sizes, nesting…):
 * an operator's limits, which a call may only lower.
 * @example
 * import { DecodeLimitsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const limits = DecodeLimitsSchema.partial().parse(json);
 */
export const DecodeLimitsSchema = z
  .object({
    /** Bytes all decoders together may produce for one file: every stream kind, every filter of a chain, decryption. */
    maxFileDecodedBytes: z.number().int().min(1),
    /** Content bytes the scanner may interpret for one file: each run of a content stream, form, pattern or glyph counts. */
    maxFileInterpretedBytes: z.number().int().min(1),
    /** Content-stream operators interpreted for one file (each page also has its own cap). */
    maxFileOperators: z.number().int().min(1),
    /** Filters in one stream's /Filter chain. */
    maxFilters: z.number().int().min(1),
    /** Indirect objects (distinct object numbers) pdf-lib may create for one file. */
    maxObjects: z.number().int().min(1),
    /** Distinct names (/Type, /F1…) new to the process that one file may create. */
    maxNames: z.number().int().min(1),
    /** Values (numbers, names, strings, arrays, dictionaries…) pdf-lib may parse for one file; a string counts one per 32 bytes. */
    maxParsedValues: z.number().int().min(1),
    /** Longest name, number or keyword token, in bytes. */
    maxTokenBytes: z.number().int().min(16),
    /** Longest string, in bytes. */
    maxStringBytes: z.number().int().min(16),
    /** Most entries of one array or dictionary. */
    maxContainerItems: z.number().int().min(16),
    /** Wall-clock time the structure read may take, in ms: a backstop behind the byte budgets, never the first bound. */
    maxStructureMs: z.number().int().min(1),
  })
  .strict();
export type DecodeLimits = z.infer<typeof DecodeLimitsSchema>;

/**
 * Partial limits of a call: each may only lower the operator's.
 * @example
 * import { DecodeLimitsOverrideSchema } from 'print-preflight/schemas';
 * DecodeLimitsOverrideSchema.parse({ maxFileDecodedBytes: 256 * 1024 * 1024 });
 */
export const DecodeLimitsOverrideSchema = DecodeLimitsSchema.partial();
export type DecodeLimitsOverride = z.input<typeof DecodeLimitsOverrideSchema>;

/**
 * The operator's limits lowered by a call's: a request can tighten a limit, never raise it.
 * @example
 * tightenLimits(DEFAULT_DECODE_LIMITS, { maxFileDecodedBytes: 1 << 20 }).maxFileDecodedBytes; // 1048576
 */
export function tightenLimits(base: DecodeLimits, override: DecodeLimitsOverride | undefined): DecodeLimits {
  const out = { ...base };
  if (!override) return out;
  for (const [key, value] of Object.entries(override) as [keyof DecodeLimits, number | undefined][]) {
    if (value !== undefined && value < out[key]) out[key] = value;
  }
  return out;
}
