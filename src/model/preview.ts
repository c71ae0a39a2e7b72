/**
 * Page previews: the image a check draws of each page, and its formats — `webp` (the default),
 * `png`, or `jpeg` (the cheapest to encode: batch's visual reports). One definition for the pool
 * that encodes them, the flow that returns them, the reports that show them and the records that
 * keep them.
 */
import { z } from 'zod';

export type PreviewFormat = 'png' | 'webp' | 'jpeg';

/** Every {@link PreviewFormat}, for the schemas that take one. */
export const PREVIEW_FORMATS = ['png', 'webp', 'jpeg'] as const satisfies readonly PreviewFormat[];

/** The formats a preview is written to a file in; JPEG previews stay in memory (flow/options.ts). */
export const WRITTEN_PREVIEW_FORMATS = ['png', 'webp'] as const satisfies readonly PreviewFormat[];
export const WrittenPreviewFormatSchema = z.enum(WRITTEN_PREVIEW_FORMATS);
export type WrittenPreviewFormat = z.infer<typeof WrittenPreviewFormatSchema>;

/** A page's preview image, as encoded by the worker. */
export interface Preview {
  bytes: Uint8Array;
  format: PreviewFormat;
  widthPx: number;
  heightPx: number;
}
