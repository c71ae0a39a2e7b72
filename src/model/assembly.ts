/**
 * The vocabulary of assembly — how a layer's image fills its page, and what a report says about
 * each assembled layer — shared by the transform (convert/), the flow and the report's schema.
 */
import { z } from 'zod';
import { FitSchema, type Fit } from './instructions.js';

/**
 * How an assembled layer's image fills its page: the page fits (`cover`, `contain` on the
 * background, `stretch`), or `tile` (the image repeated at its stated resolution), `mirror`
 * (placed as `contain`, the rest filled by mirroring its edges) and `bleed` (the image is the
 * trim: placed on it at its own size, the bleed around it mirrored from its edges — chosen by
 * itself for an image made at the trim size when no fill is asked).
 */
export type AssemblyFill = Fit | 'tile' | 'mirror' | 'bleed';
/** The fills, as a schema (the public type above stands on its own: the API reference documents it without this). */
export const AssemblyFillSchema = z.enum([...FitSchema.options, 'tile', 'mirror', 'bleed'] as const satisfies readonly AssemblyFill[]);

/** A transparent or semi-transparent area of a layer's image inside the trim: it prints as the fabric colour. */
export const TransparentAreaSchema = z.strictObject({
  /** Share of the trim that is transparent or semi-transparent (0–1). */
  share: z.number(),
  /** Of which semi-transparent (0–1 of the trim). */
  semiShare: z.number(),
  /** The box around it: x, y from the trim's top-left corner, width, height, in mm. */
  boxMm: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  /** The part of the trim it is mostly in (`other`: spread over it). */
  region: z.enum(['topLeft', 'top', 'topRight', 'left', 'centre', 'right', 'bottomLeft', 'bottom', 'bottomRight', 'other']),
});
export type TransparentArea = z.infer<typeof TransparentAreaSchema>;

/** How one layer was made: its fill, its source, and (for a tile) the tile's size and resolution. */
export const AssembledLayerSchema = z.strictObject({
  layer: z.string(),
  fill: AssemblyFillSchema,
  source: z.enum(['image', 'pdf']),
  /** The source image's pixels (upright), for an image. */
  widthPx: z.number().int().nullable(),
  heightPx: z.number().int().nullable(),
  /** A tile's size on the page and the resolution it was laid at (its stated one, else the production resolution). */
  tile: z.strictObject({ widthMm: z.number(), heightMm: z.number(), ppi: z.number(), stated: z.boolean() }).nullable(),
  /**
   * For `bleed`: the design's place on the page (mm from the page's top-left corner; the trim, or
   * the size the image states when that lies between the trim and the page) and why the fill was
   * used — asked for, or chosen because the image has the trim's proportions or states the trim's size.
   */
  bleed: z
    .strictObject({
      xMm: z.number(),
      yMm: z.number(),
      widthMm: z.number(),
      heightMm: z.number(),
      chosen: z.enum(['asked', 'trim-proportions', 'stated-size']),
    })
    .nullable()
    .optional(),
  /** The image's transparent area inside the trim (null: none); `filled` when a chosen background colour fills it. */
  transparent: TransparentAreaSchema.extend({ filledWith: z.string().nullable() }).nullable().optional(),
});
export type AssembledLayer = z.infer<typeof AssembledLayerSchema>;
