/**
 * Where a page paints, object by object, and how much of it inks — both read from the content's
 * painting operators without drawing anything (the content scanner records them):
 *
 * - marks: text runs (glyph boxes from the text matrix, font size and the font's widths), stroked
 *   lines (their width after the CTM), filled shapes, images and shadings — each with its box in
 *   default user space, clipped by the clipping path in force. content-in-seam-zone,
 *   line-too-thin and text-too-small judge them. A page can paint millions of objects: the lists
 *   are bounded. Past the cap, the marks kept are those the checks need first — the smallest text,
 *   the thinnest lines, and the objects nearest the page's edges — and `dropped` says how many
 *   were left out.
 * - ink: the share of the visible page that fills, strokes, shadings and stencil masks cover in a
 *   colour that is not paper white (and not fully transparent), and the share covered by images.
 *   The blank-page check weighs the rendered pixels against it: a page the renderer left empty
 *   while its content paints ink is a rendering failure, not a blank page. Estimates are bounding
 *   boxes, clipped to the visible page and to the clip paths in force: a fill counts its path's
 *   box, a stroke its box's perimeter times the line width. Text is not counted (a string of
 *   spaces paints nothing); images are counted apart, because an image may be all white.
 */
import type { Matrix, Rect } from '../model/geometry.js';
import type { ColourSpaceFacts, PageMarks, ShapeMark, StrokeMark, TextMark } from './facts.js';
import { clippedBox } from './matrix.js';

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

  result(): Omit<PageMarks, keyof PageInk> {
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

/** A colour value this close to paper (1 in gray/RGB, 0 in CMYK and tints) prints nothing. */
const PAPER_TOLERANCE = 0.02;

/**
 * Whether painting in `space` with `values` leaves ink. Values absent: the colour space's initial
 * colour (black, or a full tint for Separation and DeviceN), which does.
 * @example
 * colourInks({ family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' }, [1]); // false
 */
export function colourInks(space: ColourSpaceFacts, values: readonly number[] | undefined): boolean {
  if (space.family === 'Pattern' || space.family === 'Indexed' || space.family === 'Unknown') return true;
  if (space.colorants?.length && space.colorants.every((c) => c === 'None')) return false;
  if (!values || values.length === 0) return true;
  if (space.family === 'Separation' || space.family === 'DeviceN') return values.some((v) => v > PAPER_TOLERANCE);
  switch (space.model) {
    case 'gray':
      return values[0]! < 1 - PAPER_TOLERANCE;
    case 'rgb':
      return values.slice(0, 3).some((v) => v < 1 - PAPER_TOLERANCE);
    case 'cmyk':
      return values.slice(0, 4).some((v) => v > PAPER_TOLERANCE);
    case 'lab': {
      const [l = 0, a = 0, b = 0] = values;
      return l < 100 * (1 - PAPER_TOLERANCE) || Math.abs(a) > 2 || Math.abs(b) > 2;
    }
    default:
      return true;
  }
}

export function areaOf(r: Rect | null): number {
  return r ? (r[2] - r[0]) * (r[3] - r[1]) : 0;
}

/**
 * The bounding box of the path being built, in default user space: kept in four numbers, because
 * a page may build millions of paths.
 */
export class PathBox {
  x0 = Infinity;
  y0 = Infinity;
  x1 = -Infinity;
  y1 = -Infinity;
  /** Points added since the last reset (what a renderer fills or strokes point by point). */
  points = 0;

  get empty(): boolean {
    return this.x0 > this.x1;
  }

  reset(): void {
    this.x0 = this.y0 = Infinity;
    this.x1 = this.y1 = -Infinity;
    this.points = 0;
  }

  /** Adds the point (x, y) of user space, mapped by `ctm`. */
  add(ctm: Matrix, x: number, y: number): void {
    this.points++;
    const px = ctm[0] * x + ctm[2] * y + ctm[4];
    const py = ctm[1] * x + ctm[3] * y + ctm[5];
    if (!Number.isFinite(px) || !Number.isFinite(py)) return;
    if (px < this.x0) this.x0 = px;
    if (px > this.x1) this.x1 = px;
    if (py < this.y0) this.y0 = py;
    if (py > this.y1) this.y1 = py;
  }

  rect(): Rect | null {
    return this.empty ? null : [this.x0, this.y0, this.x1, this.y1];
  }
}

/** How much of the visible page a page's content inks: the `ink` and `images` of {@link PageMarks}. */
export type PageInk = Pick<PageMarks, 'ink' | 'images'>;

/** The sums behind a page's {@link PageInk}. */
export class MarkTally {
  private ink = 0;
  private images = 0;

  constructor(private readonly visible: Rect | undefined) {}

  /** Area of the box [x0, y0, x1, y1] that can be seen: on the visible page, within the clip in force. */
  private seenArea(bx0: number, by0: number, bx1: number, by1: number, clip: Rect | null, perimeterWidth?: number): number {
    const [x0, y0, x1, y1] = clippedBox(bx0, by0, bx1, by1, clip, this.visible);
    if (!(x1 > x0 && y1 > y0)) return 0;
    const area = (x1 - x0) * (y1 - y0);
    // A stroke inks its path's outline, not the box it encloses.
    return perimeterWidth === undefined ? area : Math.min(area, 2 * (x1 - x0 + (y1 - y0)) * perimeterWidth);
  }

  /** A fill of the path `box`; `coverage` < 1 for shapes known to fill part of their box (stencil masks). */
  fill(box: PathBox | Rect | null, clip: Rect | null, coverage = 1): void {
    if (!box) return;
    if (box instanceof PathBox) {
      if (!box.empty) this.ink += coverage * this.seenArea(box.x0, box.y0, box.x1, box.y1, clip);
    } else this.ink += coverage * this.seenArea(box[0], box[1], box[2], box[3], clip);
  }

  /** A stroke of `width` (default user space units) along the path `box`. */
  stroke(box: PathBox, width: number, clip: Rect | null): void {
    if (box.empty) return;
    const w = Math.max(width, 0.5);
    this.ink += this.seenArea(box.x0 - w / 2, box.y0 - w / 2, box.x1 + w / 2, box.y1 + w / 2, clip, w);
  }

  /** A shading painted over the clip (or the whole page). */
  shade(clip: Rect | null): void {
    const region = clip ?? this.visible;
    if (region) this.ink += this.seenArea(region[0], region[1], region[2], region[3], clip);
  }

  image(box: Rect, clip: Rect | null): void {
    this.images += this.seenArea(box[0], box[1], box[2], box[3], clip);
  }

  result(): PageInk {
    const page = this.visible ? areaOf(this.visible) : 0;
    const share = (a: number) => (page > 0 ? Math.min(1, Math.round((a / page) * 1e6) / 1e6) : 0);
    return { ink: share(this.ink), images: share(this.images) };
  }
}
