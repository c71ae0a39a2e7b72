import { z } from 'zod';
import { ImageDetailSchema } from './image-detail-schema.js';

export const EDGES = ['top', 'right', 'bottom', 'left'] as const;
export type Edge = (typeof EDGES)[number];

/** What a page's raster shows, measured by a worker; checks judge it on the main thread. */
export const PixelFactsSchema = z.object({
  /** Share of pixels that are not near-white (0–1). */
  inkCoverage: z.number().min(0).max(1),
  /** Width of the near-white band along each edge of the displayed page, in pixels. */
  edgeGapPx: z.object({ top: z.number().int(), right: z.number().int(), bottom: z.number().int(), left: z.number().int() }),
});
export type PixelFacts = z.infer<typeof PixelFactsSchema>;

/**
 * What drawing a page showed: its ink coverage, blank edges and the preview's size.
 * @example
 * import { RasterFactsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const raster = RasterFactsSchema.parse(json);
 */
export const RasterFactsSchema = PixelFactsSchema.extend({
  index: z.number().int().min(1),
  widthPx: z.number().int().positive(),
  heightPx: z.number().int().positive(),
  /**
   * The engine that drew the page: `image` (its one covering image: a JPEG decoded and scaled by
   * sharp, or a Flate image streamed row by row), `pdfium` (PDFium in WebAssembly, for vector
   * pages) or `pdfjs` (pdf.js). See raster/renderer.ts.
   */
  method: z.enum(['pdfjs', 'image', 'pdfium']),
  ms: z.number(),
  /** What the renderer warned about (unreadable fonts, broken streams…), de-duplicated. */
  warnings: z.array(z.string()),
  /**
   * Why the preview may differ from print (a feature the renderer draws approximately, an image it
   * could not decode…); absent or null when it is drawn as it prints.
   */
  approximate: z.string().nullable().optional(),
  /**
   * What the page leaves unpainted (rendered on a transparent background): the share of the page,
   * and a grid of cells with each one's unpainted share (0–255, base64, row by row). Absent for
   * pages drawn from their one covering image, which paints everything.
   */
  unpainted: z
    .object({
      share: z.number().min(0).max(1),
      cols: z.number().int().positive(),
      rows: z.number().int().positive(),
      cells: z.string(),
      /** The unpainted pixels as runs along rows (raster/pixels.ts): base64 of 16-bit (row, from, to) triples. */
      runs: z.string().optional(),
    })
    .optional(),
  /** The detail each measured JPEG image carries (image-upscaled). */
  imageDetail: z.array(ImageDetailSchema).optional(),
});
export type RasterFacts = z.infer<typeof RasterFactsSchema>;

/** A page that could not be rasterised, and why. */
export const RasterFailureSchema = z.object({
  index: z.number().int().min(1),
  /** over-budget: never handed to a renderer, because it would not fit in the memory budget. */
  reason: z.enum(['timeout', 'crashed', 'failed', 'aborted', 'over-budget']),
  detail: z.string(),
});
export type RasterFailure = z.infer<typeof RasterFailureSchema>;
