/**
 * Where a page paints, object by object: text runs (glyph boxes from the text matrix, font size
 * and the font's widths), stroked lines (their width after the CTM), filled shapes, images and
 * shadings — each with its box in default user space, clipped by the clipping path in force. The
 * content scanner records them; content-in-seam-zone, line-too-thin and text-too-small judge them.
 *
 * A page can paint millions of objects: the lists are bounded. Past the cap, the marks kept are
 * those the checks need first — the smallest text, the thinnest lines, and the objects nearest
 * the page's edges — and `dropped` says how many were left out.
 */
import { z } from 'zod';
import type { Rect } from './facts.js';

const RectSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const TextMarkSchema = z.object({
  /** Glyph boxes of the run (ascent to descent, origin to advance), default user space. */
  box: RectSchema,
  /** Em height (font size through the text matrix and CTM), in points × UserUnit. */
  sizePt: z.number(),
  /** The run's text when the font's codes are plain ASCII, else ''. */
  text: z.string(),
});
export type TextMark = z.infer<typeof TextMarkSchema>;

export const StrokeMarkSchema = z.object({
  /** The stroked path's box, widened by half the line width. */
  box: RectSchema,
  /** Line width after the CTM, the thinnest way it is drawn, in points × UserUnit (0: a hairline). */
  widthPt: z.number(),
});
export type StrokeMark = z.infer<typeof StrokeMarkSchema>;

export const ShapeMarkSchema = z.object({
  box: RectSchema,
  kind: z.enum(['path', 'image', 'shading']),
});
export type ShapeMark = z.infer<typeof ShapeMarkSchema>;

export const PageMarksSchema = z.object({
  texts: z.array(TextMarkSchema),
  strokes: z.array(StrokeMarkSchema),
  shapes: z.array(ShapeMarkSchema),
  /** Marks left out because the page painted more than the lists keep. */
  dropped: z.number().int().min(0),
});
export type PageMarks = z.infer<typeof PageMarksSchema>;

/** Most marks of each kind kept per page. */
export const MAX_MARKS_PER_KIND = 2000;

/**
 * Collects a page's marks within {@link MAX_MARKS_PER_KIND} per kind. When a list doubles the cap
 * it is cut back to the cap: half by its own measure (smallest text, thinnest line), the rest by
 * nearness to the page's edges, where the seam zone is.
 */
export class MarkCollector {
  private readonly texts: TextMark[] = [];
  private readonly strokes: StrokeMark[] = [];
  private readonly shapes: ShapeMark[] = [];
  private dropped = 0;

  constructor(
    private readonly pageBox: Rect | null,
    private readonly cap = MAX_MARKS_PER_KIND,
  ) {}

  text(mark: TextMark): void {
    this.add(this.texts, mark, (m) => m.sizePt);
  }

  stroke(mark: StrokeMark): void {
    this.add(this.strokes, mark, (m) => m.widthPt);
  }

  shape(mark: ShapeMark): void {
    this.add(this.shapes, mark, null);
  }

  result(): PageMarks {
    return { texts: this.texts, strokes: this.strokes, shapes: this.shapes, dropped: this.dropped };
  }

  private add<T extends { box: Rect }>(list: T[], mark: T, measure: ((m: T) => number) | null): void {
    if (!mark.box.every(Number.isFinite)) return;
    list.push(mark);
    if (list.length < 2 * this.cap) return;
    const keep = new Set<T>();
    if (measure) for (const m of [...list].sort((a, b) => measure(a) - measure(b)).slice(0, this.cap / 2)) keep.add(m);
    for (const m of [...list].sort((a, b) => this.edgeDistance(a.box) - this.edgeDistance(b.box))) {
      if (keep.size >= this.cap) break;
      keep.add(m);
    }
    this.dropped += list.length - keep.size;
    const kept = list.filter((m) => keep.has(m));
    list.length = 0;
    for (const m of kept) list.push(m);
  }

  /** How far inside the page box a mark's nearest side lies (0 for one that reaches an edge). */
  private edgeDistance(box: Rect): number {
    const p = this.pageBox;
    if (!p) return 0;
    return Math.max(0, Math.min(box[0] - p[0], box[1] - p[1], p[2] - box[2], p[3] - box[3]));
  }
}

/** The intersection of two boxes, or null when they do not overlap; a null clip means no clip. */
export function clipBox(box: Rect, clip: Rect | null): Rect | null {
  if (!clip) return box;
  const r: Rect = [Math.max(box[0], clip[0]), Math.max(box[1], clip[1]), Math.min(box[2], clip[2]), Math.min(box[3], clip[3])];
  return r[0] <= r[2] && r[1] <= r[3] ? r : null;
}
