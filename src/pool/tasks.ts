/** The messages that cross the worker boundary, as zod schemas: the pool builds tasks typed by them and validates every answer; a worker checks only a task's kind (no schema library on its start-up). */
import { z } from 'zod';
import { PREVIEW_FORMATS } from '../model/preview.js';
import { MatrixSchema, RectSchema } from '../model/geometry.js';
import { DocumentFactsSchema, type DocumentFacts } from '../pdf/facts.js';
import { RasterFactsSchema } from '../raster/facts.js';
import { DecodeLimitsSchema } from '../pdf/decode-limits.js';
import { DetailRequestSchema } from '../raster/image-detail-schema.js';
import type { JpegLocation } from '../raster/image-plan.js';
import { TransformOpSchema } from '../convert/plan.js';

/** Where a JPEG's data lies in the file: offset and length (raster/image-plan.ts's JpegLocation). */
const JpegAtSchema = z.tuple([z.number().int().min(0), z.number().int().min(1)]);
const JpegLocationSchema: z.ZodType<JpegLocation> = z.object({ at: JpegAtSchema, decodeInverted: z.boolean(), interpolate: z.boolean() });

const Shared = z.custom<SharedArrayBuffer>((v) => v instanceof SharedArrayBuffer, 'a SharedArrayBuffer');

/** Set by the pool: the worker announces it has taken the task, which starts the task's clock. */
const TaskId = z.number().int().positive().optional();

/**
 * A task that failed in the worker, answered rather than thrown: an error thrown in a worker
 * reaches the pool as a bare clone (its class and code lost), so a throw from the pool's run can
 * then only mean the worker itself stopped — told apart by what it is, not by its message.
 */
export const TaskFailedSchema = z.strictObject({ taskFailed: z.string() });
export type TaskFailed = z.infer<typeof TaskFailedSchema>;

/** What a worker posts (on its parent port) the moment it takes a task. */
export const TaskStartedSchema = z.object({ taskStarted: z.number().int().positive() }).strict();

/** How a file's structure is read: the decode budget in force, and what the renderer may be given. */
export const InspectOptionsSchema = z
  .object({
    /** The file's decode budget (the operator's limits, tightened by the call). Default: decode-budget.ts's defaults. */
    limits: DecodeLimitsSchema.optional(),
    /** Pixels of images a renderer decodes that glyphs and soft-mask groups draw (the call's render budget). */
    maxHiddenImagePixels: z.number().int().min(1).optional(),
  })
  .strict();
export type InspectTaskOptions = z.infer<typeof InspectOptionsSchema>;

export const InspectTaskSchema = z.object({
  kind: z.literal('inspect'),
  taskId: TaskId,
  /** Identifies the document in the worker's cache (its sha256). */
  docId: z.string().min(1),
  bytes: Shared,
  options: InspectOptionsSchema.optional(),
});

/** Starts a worker ahead of its first real task (its start-up overlaps the caller's work). */
export const WarmTaskSchema = z.object({ kind: z.literal('warm') });

export const ImagePlanSchema = z.object({
  ref: z.string(),
  ctm: MatrixSchema,
  checkedBox: RectSchema,
  rotate: z.number(),
  widthPx: z.number().int().positive(),
  heightPx: z.number().int().positive(),
});

export const RenderTaskSchema = z.object({
  kind: z.literal('render'),
  taskId: TaskId,
  docId: z.string().min(1),
  bytes: Shared,
  page: z.number().int().min(1),
  maxPx: z.number().int().min(16).max(20_000),
  /** Encode a preview in this format, or only measure the pixels. */
  format: z.enum(PREVIEW_FORMATS).nullable(),
  /** Draw from the page's one image instead of pdf.js, when the structure allows. */
  plan: ImagePlanSchema.nullable(),
  /** The engine for the page when the image plan does not draw it (raster/renderer.ts); default pdf.js. */
  renderer: z.enum(['pdfium', 'pdfjs']).optional(),
  /** PDFium draws the page's annotations too (printable ones without an appearance stream: raster/renderer.ts). */
  annotations: z.boolean().optional(),
  /** The page draws DeviceCMYK: PDFium draws it from the file's chain copy (convert/chain-copy.ts), its CMYK through the chain's profile. */
  cmykChain: z.boolean().optional(),
  /**
   * The engine that gets a second look when the first fails, cannot reach the page, draws it
   * empty although `expect` says its content paints, or (pdf.js) cannot decode one of its images.
   */
  fallback: z.enum(['pdfium', 'pdfjs']).nullable().optional(),
  /** The page object the page tree walk found at `page` ("12 0 R"): pdf.js must draw that one. */
  pageRef: z.string().nullable().optional(),
  /**
   * What the page's content should leave on paper (pdf/marks.ts), and the blank-page threshold in
   * force: a raster at or below `blankInk` while `ink` or `images` is above it asks for a second look.
   */
  expect: z.object({ ink: z.number().min(0).max(1), images: z.number().min(0).max(1), blankInk: z.number().min(0).max(1) }).optional(),
  /**
   * The plan's JPEG stream, when the structure read found it: its bytes (a caller drawing the page
   * in its own thread) or where they lie in `bytes` (a worker): the page is drawn without parsing
   * the file again.
   */
  jpeg: z
    .object({
      data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes').optional(),
      at: JpegAtSchema.optional(),
      decodeInverted: z.boolean(),
      interpolate: z.boolean().optional(),
    })
    .refine((j) => (j.data === undefined) !== (j.at === undefined), 'either the JPEG bytes or where they lie')
    .optional(),
  /** Images with more pixels are never decoded (sharp's limitInputPixels). */
  maxInputPixels: z.number().int().positive(),
  /** Pages drawing images with more pixels than this are not handed to pdf.js. */
  maxPdfjsImagePixels: z.number().int().positive(),
  largestImagePixels: z.number().int().min(0),
  /** The decode budget of parsing the file again for its image streams (as its structure was read). */
  limits: DecodeLimitsSchema.optional(),
  /** JPEG images whose detail to measure (image-upscaled): raster/image-detail.ts. */
  detail: z.array(DetailRequestSchema).optional(),
});

/**
 * A transform of a file (fix, reorder, assemble: convert/plan.ts): its bytes, what to do, and the
 * decode budget in force. It runs in a worker like every other reading of a file's bytes.
 */
export const TransformTaskSchema = z.object({
  kind: z.literal('transform'),
  taskId: TaskId,
  bytes: Shared,
  op: TransformOpSchema,
  limits: DecodeLimitsSchema,
});
export type TransformTask = z.infer<typeof TransformTaskSchema>;

/**
 * A look at an untrusted image before the service accepts it (raster/image-probe.ts): its header's
 * size and, only when neither side is over `maxSidePx`, whether it decodes.
 */
export const ProbeImageTaskSchema = z.object({
  kind: z.literal('probe-image'),
  taskId: TaskId,
  bytes: Shared,
  maxSidePx: z.number().int().min(1),
});
export type ProbeImageTask = z.infer<typeof ProbeImageTaskSchema>;

/** A probe's answer (raster/image-probe.ts's ImageProbe). */
export const ImageProbeSchema = z.strictObject({
  format: z.string().nullable(),
  widthPx: z.number().int().min(0).nullable(),
  heightPx: z.number().int().min(0).nullable(),
  decoded: z.boolean(),
  unreadable: z.string().nullable(),
});

export const TaskSchema = z.discriminatedUnion('kind', [InspectTaskSchema, RenderTaskSchema, WarmTaskSchema, TransformTaskSchema, ProbeImageTaskSchema]);
export type InspectTask = z.infer<typeof InspectTaskSchema>;
export type RenderTask = z.infer<typeof RenderTaskSchema>;
export type Task = z.infer<typeof TaskSchema>;

/**
 * A file's structure facts, the SHA-256 of its bytes (hashed in the worker, off the caller's
 * thread), and where the JPEG of each page drawn from its one image lies in the file (by image
 * reference), so that no worker parses the file again to draw those pages.
 */
export const InspectResultSchema = z.object({
  facts: DocumentFactsSchema,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  jpegs: z.record(z.string(), JpegLocationSchema).optional(),
});
export interface InspectResult {
  facts: DocumentFacts;
  sha256: string;
  jpegs?: Record<string, JpegLocation>;
}
export const RenderResultSchema = z.object({
  facts: RasterFactsSchema,
  preview: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes').nullable(),
});
export type RenderResult = z.infer<typeof RenderResultSchema>;

/**
 * Why a render task drew nothing, as a kind the caller acts on (an error's message does not cross
 * the worker boundary with anything else): `image-unreadable` — the page's one image could
 * not be read, and drawing the page whole is over the memory budget.
 */
export const RenderDeclineSchema = z.enum(['image-unreadable']);
export type RenderDecline = z.infer<typeof RenderDeclineSchema>;
/** A render task's answer: the raster, or why it declined. */
export const RenderAnswerSchema = z.union([RenderResultSchema, z.strictObject({ declined: RenderDeclineSchema, detail: z.string() })]);
export type RenderAnswer = z.infer<typeof RenderAnswerSchema>;
