/**
 * The two shapes of page geometry, declared once for every room: a rectangle and a transformation
 * matrix, in the PDF specification's order (ISO 32000-2, 8.3.3 and 7.9.5). Schemas, because facts and
 * tasks that hold them cross the worker boundary.
 */
import { z } from 'zod';

/**
 * Four numbers `[x0, y0, x1, y1]`: a PDF rectangle in default user space (points, origin at the
 * bottom left). A type that aliases it under another name says its own unit and origin (`BoxMm`,
 * `UnitBox`: `[left, top, right, bottom]` from the top-left corner of the page as shown).
 * @example
 * import { RectSchema } from 'print-preflight/schemas';
 * const [x0, y0, x1, y1] = RectSchema.parse([0, 0, 595, 842]);
 */
export const RectSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);
export type Rect = z.infer<typeof RectSchema>;

/**
 * Six numbers `[a, b, c, d, e, f]`: the matrix `[a b 0; c d 0; e f 1]` that maps one space onto another.
 * @example
 * import { MatrixSchema } from 'print-preflight/schemas';
 * MatrixSchema.parse([1, 0, 0, 1, 0, 0]); // the identity
 */
export const MatrixSchema = z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]);
export type Matrix = z.infer<typeof MatrixSchema>;
