/**
 * What drawing a page costs a renderer, estimated from its content while the scanner reads it:
 * a cost for every operator, path point and glyph (each is an object a renderer builds, walks
 * and keeps: pdf.js keeps about 1.6 KB per operator), and a cost for the pixels each painting
 * operator covers — fills, strokes along their length, glyphs, images and shadings, each clipped to
 * the visible page and the clip in force, and counted every time it is painted.
 *
 * The rates are PDFium's (the engine that draws most pages), measured at the default preview size
 * (1,200 px) on a loaded 2-core machine: 2 µs per operator read (this scan's reading included),
 * 1 µs per path point, 3 µs per painting operator, 2 µs per glyph, 0.5 µs per point filled and 5 µs per point stroked; a fill covering
 * the page 0.5 ms; a hairline as long as the page's side 0.25 ms; glyphs covering the page 2 ms;
 * an image or a shading covering the page 20–70 ms (PDFium resamples and evaluates every pixel:
 * pdf.js is ten times faster there, and twenty times slower per operator). A page whose estimate
 * passes the limit is too complex to draw — 1.6 million hairlines took a renderer 79 s, a 2 × 2
 * image drawn over the page 2,000 times 43 s — and is never handed to a renderer.
 */
import type { Rect } from '../model/geometry.js';
import type { PathBox } from './marks.js';
import { clippedBox } from './matrix.js';
import { grouped } from '../util/text.js';

/**
 * Estimated cost (µs) of reading one operator (the renderer's parser, and this scan's own: a page
 * over the limit is also one this scan stops reading) or one path point, of one painting operator,
 * of one glyph, and of one point of a path filled or stroked (PDFium strokes a long path at 7 µs a
 * segment, fills a rectangle at 4.5 µs).
 */
const OPERATOR_US = 2;
const POINT_US = 1;
const PAINT_US = 3;
const GLYPH_US = 2;
const FILLED_POINT_US = 0.5;
const STROKED_POINT_US = 5;
/** Estimated cost (µs) of painting the whole visible page once, by kind. */
const FILL_PAGE_US = 500;
const GLYPH_PAGE_US = 2_000;
const IMAGE_PAGE_US = 50_000;
const SHADING_PAGE_US = 50_000;
/** Estimated cost (µs) of a hairline as long as the side of a square page of the same area. */
const STROKE_SIDE_US = 250;
/** Estimated cost (µs) of one dash of a dashed stroke. */
const DASH_US = 0.35;
/**
 * Estimated cost (µs) of a transparency group (a form with /Group, a soft mask set) covering the
 * page: an offscreen buffer drawn and composited — and pdf.js keeps every one until the page is done
 * (2,000 groups over the page took it 34 s and 11.8 GB).
 */
const GROUP_PAGE_US = 10_000;
/** Estimated cost (µs) of one step of a function evaluated for one pixel (PDFium's calculator: 25 ns). */
const STEP_US = 0.025;
/** Pixels of the whole page at the default preview size (1,200 px square). */
const PAGE_PIXELS = 1200 * 1200;

/** The page without a box: US Letter. */
const DEFAULT_AREA = 612 * 792;

export class RenderCost {
  /** Operators, path points and glyphs: the objects a renderer builds and keeps. */
  operations = 0;
  /** Estimated renderer time, µs. */
  micros = 0;
  /** How many times fills, glyphs, images and shadings cover the visible page, together. */
  coverage = 0;
  /** How many times the strokes' length is the side of the page. */
  strokeLength = 0;
  /** Dashes the dashed strokes are cut into. */
  dashes = 0;
  /** How many times transparency groups cover the page (pdf.js keeps a buffer for each). */
  groups = 0;
  /** Function steps evaluated pixel by pixel. */
  steps = 0;
  private readonly area: number;
  private readonly side: number;

  constructor(private readonly visible: Rect | null) {
    const a = visible ? (visible[2] - visible[0]) * (visible[3] - visible[1]) : 0;
    this.area = a > 0 && Number.isFinite(a) ? a : DEFAULT_AREA;
    this.side = Math.sqrt(this.area);
  }

  /** One operator read. */
  operator(): void {
    this.operations++;
    this.micros += OPERATOR_US;
  }

  /** `n` path points. */
  points(n: number): void {
    this.operations += n;
    this.micros += n * POINT_US;
  }

  /**
   * Operators a renderer runs again without reading them again: a Type 3 glyph's procedure at each
   * glyph shown (pdf.js replays it; PDFium draws the glyph once and copies it). They count as
   * objects, which keep a page from pdf.js, not as time.
   */
  replayed(n: number): void {
    this.operations += n;
  }

  /**
   * `count` glyph bitmaps a renderer draws (Type 3 glyphs at a size not drawn before), each an em
   * square of `emArea` square points: its pixels filled, clipped to the page's size.
   */
  bitmaps(count: number, emArea: number): void {
    const share = Math.min(1, Number.isFinite(emArea) ? emArea / this.area : 1);
    this.micros += count * (PAINT_US + share * FILL_PAGE_US);
  }

  /** `micros` of work a renderer does again (a soft mask drawn again for an object painted through it). */
  again(micros: number): void {
    this.micros += micros;
  }

  /** A transparency group drawn over `box` (the clip in force, or the page without one). */
  group(box: Rect | null, clip: Rect | null): void {
    const seen = this.seen(...(box ?? this.visible ?? [0, 0, 1e9, 1e9]), clip);
    if (!seen) return;
    const share = Math.min(1, ((seen[2] - seen[0]) * (seen[3] - seen[1])) / this.area);
    this.groups += share;
    this.micros += share * GROUP_PAGE_US;
  }

  /** A function of `steps` evaluated at every pixel of `region` (the clip, or the page). */
  evaluatedOver(region: Rect | null, clip: Rect | null, steps: number): void {
    if (steps <= 0) return;
    const seen = this.seen(...(region ?? this.visible ?? [0, 0, 1e9, 1e9]), clip);
    if (!seen) return;
    const share = Math.min(1, ((seen[2] - seen[0]) * (seen[3] - seen[1])) / this.area);
    this.evaluated(share * PAGE_PIXELS * steps);
  }

  /** `steps` function steps evaluated (an image's pixels times its tint transform's steps…). */
  evaluated(steps: number): void {
    this.steps += steps;
    this.micros += steps * STEP_US;
  }

  fill(box: PathBox | Rect | null, clip: Rect | null): void {
    if (box && !Array.isArray(box)) this.micros += box.points * FILLED_POINT_US;
    this.paint(box, clip, FILL_PAGE_US);
  }

  /** `count` glyphs shown in `box`. */
  glyphs(count: number, box: Rect | null, clip: Rect | null): void {
    this.operations += count;
    this.micros += count * GLYPH_US;
    this.paint(box, clip, GLYPH_PAGE_US);
  }

  image(box: Rect, clip: Rect | null): void {
    this.paint(box, clip, IMAGE_PAGE_US);
  }

  /** A shading painted over `region` (the clip in force, or the whole page without one). */
  shading(region: Rect | null, clip: Rect | null): void {
    this.paint(region ?? this.visible, clip, SHADING_PAGE_US);
  }

  /**
   * A stroke along the path `box` (its half perimeter stands for its length: a line's, a closed
   * box's half) of `width` in default user space, dashed with a period of `dash` (0: solid).
   */
  stroke(box: PathBox, width: number, clip: Rect | null, dash = 0): void {
    this.micros += PAINT_US + box.points * STROKED_POINT_US;
    if (box.empty) return;
    const w = Math.max(0, width);
    const seen = this.seen(box.x0 - w / 2, box.y0 - w / 2, box.x1 + w / 2, box.y1 + w / 2, clip);
    if (!seen) return;
    const length = seen[2] - seen[0] + (seen[3] - seen[1]);
    const inked = Math.min(1, (length * w) / this.area);
    this.strokeLength += length / this.side;
    this.coverage += inked;
    this.micros += (length / this.side) * STROKE_SIDE_US + inked * FILL_PAGE_US;
    // PDFium cuts a dashed line into its dashes, however small: 80 million of 0.0001 pt took it 26 s.
    if (dash > 0) {
      const dashes = Math.min(1e12, length / dash);
      this.dashes += dashes;
      this.micros += dashes * DASH_US;
    }
  }

  private paint(box: PathBox | Rect | null, clip: Rect | null, pageUs: number): void {
    this.micros += PAINT_US;
    if (!box) return;
    const seen = Array.isArray(box) ? this.seen(box[0], box[1], box[2], box[3], clip) : box.empty ? null : this.seen(box.x0, box.y0, box.x1, box.y1, clip);
    if (!seen) return;
    // A renderer clips to the page: one paint covers it once at most.
    const share = Math.min(1, ((seen[2] - seen[0]) * (seen[3] - seen[1])) / this.area);
    this.coverage += share;
    this.micros += share * pageUs;
  }

  /** What the estimate is made of, for a message: "operators, path points and glyphs: 1,249,756; …". */
  describe(): string {
    const parts = [`operators, path points and glyphs: ${grouped(this.operations)}`];
    if (this.coverage >= 1) parts.push(`fills, text, images and shadings covering the page ${grouped(Math.round(this.coverage))} times`);
    if (this.strokeLength >= 1) parts.push(`strokes ${grouped(Math.round(this.strokeLength))} times as long as the page`);
    if (this.dashes >= 1) parts.push(`${grouped(Math.round(this.dashes))} dashes`);
    if (this.groups >= 1) parts.push(`transparency groups covering the page ${grouped(Math.round(this.groups))} times`);
    if (this.steps >= 1) parts.push(`${grouped(Math.round(this.steps))} function steps evaluated pixel by pixel`);
    return parts.join('; ');
  }

  /** The part of a box on the visible page and inside the clip, or null. */
  private seen(bx0: number, by0: number, bx1: number, by1: number, clip: Rect | null): Rect | null {
    const box = clippedBox(bx0, by0, bx1, by1, clip, this.visible);
    const [x0, y0, x1, y1] = box;
    return x1 >= x0 && y1 >= y0 && Number.isFinite(x0 + y0 + x1 + y1) ? box : null;
  }
}
