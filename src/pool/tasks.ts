/** The messages that cross the worker boundary, as zod schemas: validated on both sides. */
import { z } from 'zod';
import { DocumentFactsSchema, type DocumentFacts } from '../pdf/facts.js';
import { RasterFactsSchema } from '../raster/facts.js';
import { DetailRequestSchema } from '../raster/image-detail.js';

const Shared = z.custom<SharedArrayBuffer>((v) => v instanceof SharedArrayBuffer, 'a SharedArrayBuffer');
const Matrix = z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]);
const Rect = z.tuple([z.number(), z.number(), z.number(), z.number()]);

/** Set by the pool: the worker announces it has taken the task, which starts the task's clock. */
const TaskId = z.number().int().positive().optional();

/** What a worker posts (on its parent port) the moment it takes a task. */
export const TaskStartedSchema = z.object({ taskStarted: z.number().int().positive() }).strict();

export const InspectTaskSchema = z.object({
  kind: z.literal('inspect'),
  taskId: TaskId,
  /** Identifies the document in the worker's cache (its sha256). */
  docId: z.string().min(1),
  bytes: Shared,
});

/** Starts a worker ahead of its first real task (its start-up overlaps the caller's work). */
/** The message of an `imageOnly` task whose page the image path did not draw. */
export const IMAGE_PATH_DECLINED = 'the image path did not draw this page';

export const WarmTaskSchema = z.object({ kind: z.literal('warm') });

export const ImagePlanSchema = z.object({
  ref: z.string(),
  ctm: Matrix,
  checkedBox: Rect,
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
  format: z.enum(['png', 'webp']).nullable(),
  /** Draw from the page's one image instead of pdf.js, when the structure allows. */
  plan: ImagePlanSchema.nullable(),
  /** The engine for the page when the image plan does not draw it (raster/renderer.ts); default pdf.js. */
  renderer: z.enum(['pdfium', 'pdfjs']).optional(),
  /**
   * The plan's JPEG stream, when the caller has it at hand (it read the structure itself): the
   * worker then draws the page without parsing the file.
   */
  jpeg: z.object({ data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes'), decodeInverted: z.boolean(), interpolate: z.boolean().optional() }).optional(),
  /**
   * Draw the page from its image or not at all (the caller runs it in its own thread, where no
   * time limit or heap cap guards a renderer): a page the image path gives back fails with
   * {@link IMAGE_PATH_DECLINED} and goes to the pool.
   */
  imageOnly: z.boolean().optional(),
  /** Images with more pixels are never decoded (sharp's limitInputPixels). */
  maxInputPixels: z.number().int().positive(),
  /** Pages drawing images with more pixels than this are not handed to pdf.js. */
  maxPdfjsImagePixels: z.number().int().positive(),
  largestImagePixels: z.number().int().min(0),
  /** JPEG images whose detail to measure (image-upscaled): raster/image-detail.ts. */
  detail: z.array(DetailRequestSchema).optional(),
});

export const TaskSchema = z.discriminatedUnion('kind', [InspectTaskSchema, RenderTaskSchema, WarmTaskSchema]);
export type InspectTask = z.infer<typeof InspectTaskSchema>;
export type RenderTask = z.infer<typeof RenderTaskSchema>;
export type Task = z.infer<typeof TaskSchema>;

/** A file's structure facts, and the SHA-256 of its bytes (hashed in the worker, off the caller's thread). */
export const InspectResultSchema = z.object({ facts: DocumentFactsSchema, sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export interface InspectResult {
  facts: DocumentFacts;
  sha256: string;
}
export const RenderResultSchema = z.object({
  facts: RasterFactsSchema,
  preview: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'bytes').nullable(),
});
export type RenderResult = z.infer<typeof RenderResultSchema>;
