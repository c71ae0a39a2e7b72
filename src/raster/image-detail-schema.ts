/**
 * The shapes of an image-detail request (what the main thread asks a worker to measure, and where
 * the image is drawn) and of its measure, as zod schemas: the pool validates what it sends and gets
 * back with them. Apart from image-detail.ts, which the workers load without any schema library.
 */
import { z } from 'zod';
import { MatrixSchema, RectSchema } from '../model/geometry.js';

/** Where an image is drawn on its page: its matrix, the page's checked box and /Rotate (raster/fast-path.ts places it on the page raster). */
export const PlacedSchema = z.object({ ctm: MatrixSchema, checkedBox: RectSchema, rotate: z.number() });

export type Placed = z.infer<typeof PlacedSchema>;

/** An image the main thread asks the worker to measure, and where it is drawn (so that the page's drawing can say where its detail is). */
export const DetailRequestSchema = z.object({ ref: z.string(), widthPx: z.number().int().positive(), heightPx: z.number().int().positive(), placed: PlacedSchema.optional() });
export type DetailRequest = z.infer<typeof DetailRequestSchema>;

export const ImageDetailSchema = z.object({
  /** The image XObject ("12 0 R"). */
  ref: z.string(),
  /** Enlargement factor when the image was upscaled from a smaller picture, else null. */
  factor: z.number().nullable(),
  factorX: z.number().nullable(),
  factorY: z.number().nullable(),
  /** The coherence behind the verdict (raster/detail.ts). */
  evidence: z.number(),
  /** The largest factor the estimate allows (raster/detail.ts): what is compared with the smallest enlargement reported. */
  factorHigh: z.number().nullable().optional(),
  /** Enlarged by repeating pixels (nearest neighbour). */
  nearest: z.boolean().optional(),
  /** How sure the verdict is (raster/detail.ts): `high` or `medium`, when an enlargement was found. */
  confidence: z.enum(['high', 'medium']).optional(),
  /** Why what the scan found is no enlargement (raster/flat-art.ts): a near-uniform picture, a periodic pattern, a smooth one, crisp flat art. */
  silencedAs: z.enum(['near-uniform', 'periodic', 'smooth', 'crisp-flat-art']).optional(),
  /** How its pixels were read: a JPEG (any filters around it), JPEG 2000, or row data (Flate, LZW, RunLength, none). */
  kind: z.enum(['jpeg', 'jpx', 'rows']).optional(),
});
export type ImageDetail = z.infer<typeof ImageDetailSchema>;
