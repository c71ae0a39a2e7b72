/**
 * What a page's content should leave on paper, estimated from its painting operators without
 * drawing anything: the share of the visible page that fills, strokes, shadings and stencil masks
 * cover in a colour that is not paper white (and not fully transparent), and the share covered by
 * images. The blank-page check weighs the rendered pixels against it: a page the renderer left
 * empty while its content paints ink is a rendering failure, not a blank page.
 *
 * Estimates are bounding boxes, clipped to the visible page and to the clip paths in force: a fill
 * counts its path's box, a stroke its box's perimeter times the line width. Text is not counted (a
 * string of spaces paints nothing, and the lexer does not read strings); images are counted apart,
 * because an image may be all white.
 */
import type { ColourSpaceFacts, PageMarks, Rect } from './facts.js';

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
  if (space.colorants && space.colorants.length && space.colorants.every((c) => c === 'None')) return false;
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

export function intersect(a: Rect, b: Rect): Rect | null {
  const r: Rect = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return r[2] > r[0] && r[3] > r[1] ? r : null;
}

export function areaOf(r: Rect | null): number {
  return r ? (r[2] - r[0]) * (r[3] - r[1]) : 0;
}

/** Grows the box of a point set. */
export function extend(box: Rect | null, x: number, y: number): Rect {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return box ?? [0, 0, 0, 0];
  return box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)] : [x, y, x, y];
}

/** The sums behind a page's {@link PageMarks}. */
export class MarkTally {
  private ink = 0;
  private images = 0;

  constructor(private readonly visible: Rect | undefined) {}

  /** Where marks can be seen: the visible page, within the clip in force. */
  private seen(box: Rect, clip: Rect | null): Rect | null {
    const inClip = clip ? intersect(box, clip) : box;
    if (!inClip) return null;
    return this.visible ? intersect(inClip, this.visible) : inClip;
  }

  /** A fill of the path whose box is `box`; `coverage` < 1 for shapes known to fill part of it (stencil masks). */
  fill(box: Rect | null, clip: Rect | null, coverage = 1): void {
    if (box) this.ink += coverage * areaOf(this.seen(box, clip));
  }

  /** A stroke of `width` (default user space units) along a path whose box is `box`. */
  stroke(box: Rect | null, width: number, clip: Rect | null): void {
    if (!box) return;
    const half = Math.max(width, 0.5) / 2;
    const grown: Rect = [box[0] - half, box[1] - half, box[2] + half, box[3] + half];
    const seen = this.seen(grown, clip);
    if (!seen) return;
    const perimeter = 2 * (seen[2] - seen[0] + (seen[3] - seen[1]));
    this.ink += Math.min(areaOf(seen), perimeter * Math.max(width, 0.5));
  }

  /** A shading painted over the clip (or the whole page). */
  shade(clip: Rect | null): void {
    const region = clip ?? this.visible;
    if (region) this.ink += areaOf(this.seen(region, clip));
  }

  image(box: Rect, clip: Rect | null): void {
    this.images += areaOf(this.seen(box, clip));
  }

  result(): PageMarks {
    const page = this.visible ? areaOf(this.visible) : 0;
    const share = (a: number) => (page > 0 ? Math.min(1, Math.round((a / page) * 1e6) / 1e6) : 0);
    return { ink: share(this.ink), images: share(this.images) };
  }
}

export type { PageMarks };
