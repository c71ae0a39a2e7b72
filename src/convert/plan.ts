/**
 * What a transform is asked to do and what it answers, as zod schemas: the messages that cross the
 * worker boundary for fix, reorder and assemble (they run in the pool, like every other reading of
 * a file's bytes). A transform takes the findings it fixes in this plan — it never checks a file
 * itself; check → fix → check again is flow/'s.
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';
import { FindingCodeSchema } from '../model/codes.js';
import { AssembledLayerSchema, AssemblyFillSchema } from '../model/assembly.js';
import { FitSchema, InstructionWordsSchema, RotateSchema } from '../model/instructions.js';
import { ChangeSchema, RefusalSchema } from '../model/change.js';

export { AssembledLayerSchema, AssemblyFillSchema, type AssembledLayer, type AssemblyFill } from '../model/assembly.js';

/** One page of a fix plan: the findings on it that are to be fixed, and what its layer needs. */
export const FixPagePlanSchema = z
  .object({
    /** 1-based page number. */
    index: z.number().int().min(1),
    /** The page's /Rotate as the check read it. */
    rotate: z.number().int(),
    /** The size of the page's layer (page size, bleed included), when the page has a layer. */
    layer: z.object({ widthMm: z.number().positive(), heightMm: z.number().positive() }).nullable(),
    /** Codes of this page's findings to fix. */
    codes: z.array(FindingCodeSchema),
  })
  .strict();

/** Everything a fix needs to know, decided before it runs (flow/fix.ts plans it from a check). */
export const FixPlanSchema = z
  .object({
    pages: z.array(FixPagePlanSchema),
    /** Direction to turn sideways pages (page-orientation-mismatch); without it that fix is refused. */
    rotate: RotateSchema.optional(),
    /** How to fit pages of other proportions (page-size-mismatch); without it that fix is refused. */
    fit: FitSchema.optional(),
    /** Whose words a refusal uses for the instruction it needs (default the command line's). */
    instructions: InstructionWordsSchema.optional(),
    jpegQuality: z.number().int().min(30).max(100),
    /** Convert images and vector colours to sRGB. */
    colour: z.boolean(),
    /** Downsample images to this many pixels on the longest side (image-too-large), or null. */
    maxImagePixels: z.number().int().min(1).nullable(),
    /** Recompress JPEG images until the file is under `maxFileBytes` (file-too-large). */
    fileTooLarge: z.boolean(),
    maxFileBytes: z.number().int().min(1),
    /** The edit log to write into the fixed file (edit-log.ts): the original's SHA-256 and the changes made before this step. */
    log: z.lazy(() => EditLogSchema).optional(),
  })
  .strict();
export type FixPlan = z.infer<typeof FixPlanSchema>;
export type FixPagePlan = z.infer<typeof FixPagePlanSchema>;

/** What the fixed file's edit log names besides this step's changes: the original, and the steps before. */
export const EditLogSchema = z.strictObject({ originalSha256: z.string().regex(/^[0-9a-f]{64}$/), earlier: z.array(ChangeSchema) });
export type EditLog = z.infer<typeof EditLogSchema>;

/** What a fix transform answers: the new bytes (null when nothing changed), its changes and refusals. */
export const FixOutcomeSchema = z.strictObject({
  bytes: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes').nullable(),
  changes: z.array(ChangeSchema),
  refused: z.array(RefusalSchema),
});
export type FixOutcome = z.infer<typeof FixOutcomeSchema>;

/** A layer of an assembly: an image or one-page PDF, by its bytes, and the page it becomes. */
export const AssemblyLayerSchema = z.strictObject({
  id: z.string().min(1),
  pageWidthMm: z.number().positive(),
  pageHeightMm: z.number().positive(),
  input: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes'),
  /** This layer's fill, over the plan's. */
  fit: AssemblyFillSchema.optional(),
  /** The layer's trim (page less bleed), where a transparent area is measured. */
  trimWidthMm: z.number().positive().optional(),
  trimHeightMm: z.number().positive().optional(),
});

export const AssemblyPlanSchema = z.strictObject({
  layers: z.array(AssemblyLayerSchema).min(1),
  fit: AssemblyFillSchema,
  /**
   * The plan's fill was asked for. When it was not (nor a layer's own), a layer made at the trim
   * size gets `bleed` instead of the default `cover` (trim-design.ts).
   */
  fitAsked: z.boolean().optional(),
  background: z.string(),
  /** The background was chosen: transparent areas are filled with it on purpose (else they are measured and said). */
  backgroundChosen: z.boolean().optional(),
  jpegQuality: z.number().int().min(30).max(100),
  lossless: z.boolean(),
  upsample: z.boolean(),
  productionPpi: z.number().positive(),
  maxImagePixels: z.number().int().min(1),
  maxFileBytes: z.number().int().min(1),
});
export type AssemblyPlan = z.infer<typeof AssemblyPlanSchema>;

export const AssemblyOutcomeSchema = z.strictObject({
  bytes: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes'),
  changes: z.array(z.string()),
  layers: z.array(AssembledLayerSchema),
});
export type AssemblyOutcome = z.infer<typeof AssemblyOutcomeSchema>;

/** A transform run in the pool: the file's bytes (shared), what to do, and the decode budget in force. */
export const TransformOpSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('fix'), plan: FixPlanSchema }),
  z.strictObject({ op: z.literal('reorder'), order: z.array(z.number().int().min(1)).min(1), log: EditLogSchema.optional() }),
  z.strictObject({ op: z.literal('assemble'), plan: AssemblyPlanSchema }),
]);
export type TransformOp = z.infer<typeof TransformOpSchema>;

const Bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes');

/** What a transform answers across the worker boundary (validated by the pool). */
export const TransformAnswerSchema = z.union([
  z.strictObject({ op: z.literal('fix'), outcome: FixOutcomeSchema }),
  z.strictObject({ op: z.literal('reorder'), bytes: Bytes }),
  z.strictObject({ op: z.literal('reorder'), refused: z.strictObject({ code: z.enum(['pdf-too-complex', 'pdf-damaged']), reason: z.string() }) }),
  z.strictObject({ op: z.literal('assemble'), outcome: AssemblyOutcomeSchema }),
  z.strictObject({ op: z.literal('assemble'), invalid: z.string() }),
]);

/** Throws unless `order` names every page of an n-page file exactly once (1-based). */
export function assertPermutation(order: readonly number[], pageCount: number): void {
  const ok = order.length === pageCount && order.every((n) => Number.isInteger(n) && n >= 1 && n <= pageCount) && new Set(order).size === pageCount;
  if (!ok) {
    throw new InvalidArgumentError(
      `The page order must name each of the file's ${pageCount} pages once (e.g. ${Array.from({ length: Math.min(pageCount, 8) }, (_, i) => pageCount - i).join(',')}), got ${order.slice(0, 16).join(',') || 'nothing'}`,
    );
  }
}
