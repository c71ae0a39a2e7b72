/**
 * The graphics state the content interpreter follows (ISO 32000-2 §8.4), as pdf.js's
 * `StateManager` keeps it: the state in force, and a stack that `q` saves to and `Q` restores from.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { ColourSpaceFacts } from '../facts.js';
import type { Matrix, Rect } from '../../model/geometry.js';
import { isNum, type Operand } from '../lexer.js';
import { isFiniteMatrix } from '../matrix.js';
import type { PathBox } from '../marks.js';
import { PDFArray, dictOf, get, getNumber, items, numberOf } from '../objects.js';

export interface GState {
  ctm: Matrix;
  fill: ColourSpaceFacts;
  stroke: ColourSpaceFacts;
  fillPattern: PDFObject | undefined;
  strokePattern: PDFObject | undefined;
  /** The highest index (hival) of the fill and stroke colour spaces when they are Indexed. */
  fillHival: number | undefined;
  strokeHival: number | undefined;
  textRender: number;
  /** The font selected by Tf and the resources it was looked up in. */
  font: { name: string; resources: PDFDict | undefined } | undefined;
  /** Whether the current fill and stroke colours print (not paper white, not fully transparent). */
  fillInk: boolean;
  strokeInk: boolean;
  fillAlpha: number;
  strokeAlpha: number;
  /** A soft mask is in force: what shows through it cannot be told without drawing, so it counts as no ink. */
  masked: boolean;
  /** What drawing the soft mask in force costs a renderer (µs): it draws it again for every object painted through it. */
  maskMicros: number;
  /** Line width (w, or /LW of an ExtGState), in user space units. */
  lineWidth: number;
  /** The dash pattern's period (d), in user space units; 0 for a solid line. */
  dashPeriod: number;
  /** Bounding box of the clipping path in default user space; null: not clipped. */
  clip: Rect | null;
  /** Text state: Tf size, Tc, Tw, Tz (as a factor), TL, Ts. */
  fontSize: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
}

export const GRAY: ColourSpaceFacts = { family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' };
export const RGB: ColourSpaceFacts = { family: 'DeviceRGB', model: 'rgb', components: 3, label: 'DeviceRGB' };
export const CMYK: ColourSpaceFacts = { family: 'DeviceCMYK', model: 'cmyk', components: 4, label: 'DeviceCMYK' };

/** The state at the start of a content stream drawn at `ctm` (ISO 32000-2 Table 51's initial values). */
export function initialState(ctm: Matrix): GState {
  return {
    ctm,
    fill: GRAY,
    stroke: GRAY,
    fillPattern: undefined,
    strokePattern: undefined,
    fillHival: undefined,
    strokeHival: undefined,
    textRender: 0,
    font: undefined,
    fillInk: true,
    strokeInk: true,
    fillAlpha: 1,
    strokeAlpha: 1,
    masked: false,
    maskMicros: 0,
    lineWidth: 1,
    dashPeriod: 0,
    clip: null,
    fontSize: 0,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
  };
}

/**
 * The saved states (`q` pushes, `Q` pops), at most `maxDepth` deep. `balanced`: a `Q` that matches
 * a `q` past the depth restores nothing, as renderers that count their saves do; otherwise it
 * restores the deepest state kept. `onOverflow` hears each `q` past the depth.
 */
export class StateStack<S> {
  private readonly saved: S[] = [];
  private unsaved = 0;

  constructor(
    private readonly maxDepth: number,
    private readonly onOverflow: () => void = () => undefined,
    private readonly balanced = false,
  ) {}

  save(state: S): void {
    if (this.saved.length < this.maxDepth) this.saved.push(state);
    else {
      if (this.balanced) this.unsaved++;
      this.onOverflow();
    }
  }

  /** The state `Q` restores; undefined when there is none to restore. */
  restore(): S | undefined {
    if (this.unsaved > 0) {
      this.unsaved--;
      return undefined;
    }
    return this.saved.pop();
  }
}

export function numbers(args: Operand[]): number[] {
  return args.filter(isNum);
}

/** Grows the path's box by the points of one construction operator (re: x y w h); returns how many points it added. */
export function extendPath(path: PathBox, op: string, args: Operand[], ctm: Matrix): number {
  const n = args.length;
  if (op === 're') {
    const [x, y, w, h] = [args[n - 4], args[n - 3], args[n - 2], args[n - 1]];
    if (!isNum(x) || !isNum(y) || !isNum(w) || !isNum(h)) return 0;
    path.add(ctm, x, y);
    path.add(ctm, x + w, y);
    path.add(ctm, x, y + h);
    path.add(ctm, x + w, y + h);
    return 4;
  }
  let points = 0;
  for (let i = 0; i + 1 < n; i += 2) {
    const x = args[i];
    const y = args[i + 1];
    if (isNum(x) && isNum(y)) {
      path.add(ctm, x, y);
      points++;
    }
  }
  return points;
}

/** The period of a dash array ([on off …], numbers ≥ 0), or 0 for a solid line (an empty or all-zero array, or nonsense). */
export function dashPeriod(array: Operand | undefined): number {
  if (!Array.isArray(array) || array.length === 0) return 0;
  let sum = 0;
  for (const v of array) {
    if (!isNum(v) || v < 0) return 0;
    sum += v;
  }
  // An odd count repeats once more to make whole on–off pairs.
  const period = array.length % 2 ? 2 * sum : sum;
  return Number.isFinite(period) ? period : 0;
}

/** Whether a pattern is a shading pattern (type 2): a fill with it paints a shading over the path. */
export function isShadingPattern(context: PDFContext, pattern: PDFObject | undefined): boolean {
  return getNumber(context, dictOf(pattern), 'PatternType') === 2;
}

/** The smallest and largest scale a 2 × 2 matrix applies to any direction. */
export function singularValues(a: number, b: number, c: number, d: number): { min: number; max: number } {
  const s = a * a + b * b + c * c + d * d;
  const det = a * d - b * c;
  const root = Math.sqrt(Math.max(0, s * s - 4 * det * det));
  return { min: Math.sqrt(Math.max(0, (s - root) / 2)), max: Math.sqrt((s + root) / 2) };
}

export function matrixOf(context: PDFContext, dict: PDFDict, key = 'Matrix'): Matrix | undefined {
  const m = get(context, dict, key);
  if (!(m instanceof PDFArray) || m.size() !== 6) return undefined;
  const values = items(context, m).map(numberOf);
  return values.every((x) => x !== undefined) && isFiniteMatrix(values as number[]) ? (values as Matrix) : undefined;
}

export function intOrNull(n: number | undefined): number | null {
  return n === undefined ? null : Math.trunc(n);
}
