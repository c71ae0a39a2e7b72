/**
 * The page scan's operator table: what each operator does to the graphics and text state, and
 * what painting operators hand to the collectors (colours, images, fonts, text, marks, ink, the
 * render cost). One frame per content stream run (page, form, pattern cell, glyph procedure).
 */
import type { PDFObject } from 'pdf-lib';
import { unknownColourSpace } from '../colour-space.js';
import type { TextMark } from '../facts.js';
import type { Matrix, Rect } from '../../model/geometry.js';
import { isName, isNum, type InlineImage, type Operand } from '../lexer.js';
import { IDENTITY, isFiniteMatrix, multiply } from '../matrix.js';
import { PathBox, clipBox, colourInks } from '../marks.js';
import { dictOf, get, resolve, type PDFDict } from '../objects.js';
import type { ColourCollector } from './colours.js';
import type { FontCollector } from './fonts.js';
import type { ImageCollector } from './images.js';
import type { PageScan } from './page-scan.js';
import { CMYK, GRAY, RGB, StateStack, dashPeriod, extendPath, isShadingPattern, numbers, singularValues, type GState } from './state.js';
import type { TextCollector } from './text.js';
import type { TransparencyCollector } from './transparency.js';
import { colourOperators, operatorTable, type DeviceFamily, type OperatorTable, type WalkHooks } from './walk.js';

/** The collectors that subscribe to what the interpreter sees. */
export interface Collectors {
  colours: ColourCollector;
  images: ImageCollector;
  fonts: FontCollector;
  text: TextCollector;
  transparency: TransparencyCollector;
}

/** One run of a content stream: its place (resources, forms it is inside) and its state. */
export interface ScanFrame {
  scan: PageScan;
  c: Collectors;
  bytes: Uint8Array;
  resources: PDFDict | undefined;
  via: string[];
  active: Set<PDFObject>;
  gs: GState;
  stack: StateStack<GState>;
  /** Marked-content sequences open here; `hiddenDepth` counts those in hidden optional content. */
  marked: boolean[];
  hiddenDepth: number;
  /** Text object (BT … ET): the text matrix and the start of its line; the last run, to merge with. */
  tm: Matrix;
  tlm: Matrix;
  lastText: TextMark | null;
  /**
   * The path being built, as a box in default user space (four numbers: a page may build
   * millions of paths), and whether it becomes a clip (W, W*).
   */
  path: PathBox;
  pendingClip: boolean;
}

export function scanFrame(scan: PageScan, c: Collectors, bytes: Uint8Array, resources: PDFDict | undefined, start: GState, via: string[], active: Set<PDFObject>): ScanFrame {
  const stack = new StateStack<GState>(scan.limits.maxStateDepth, () => {
    if (scan.stateTooDeep) return;
    // pdf.js saves its canvas state at every q: a million of them took it more than a minute.
    scan.stateTooDeep = true;
    scan.refuse(`the graphics state is saved (q) more than ${scan.limits.maxStateDepth} times without being restored (a renderer keeps every saved state)`);
  });
  return { scan, c, bytes, resources, via, active, gs: { ...start }, stack, marked: [], hiddenDepth: 0, tm: IDENTITY, tlm: IDENTITY, lastText: null, path: new PathBox(), pendingClip: false };
}

export const FILL_OPS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);
export const STROKE_OPS = new Set(['S', 's', 'B', 'B*', 'b', 'b*']);
const TEXT_SHOW_OPS = new Set(['Tj', 'TJ', "'", '"']);
/** Operators that change the graphics or text state; the rest paint or draw. */
const STATE_OPS = new Set([
  'q',
  'Q',
  'cm',
  'g',
  'G',
  'rg',
  'RG',
  'k',
  'K',
  'cs',
  'CS',
  'sc',
  'SC',
  'scn',
  'SCN',
  'Tf',
  'Tr',
  'gs',
  'w',
  'BT',
  'ET',
  'Td',
  'TD',
  'Tm',
  'T*',
  'Tc',
  'Tw',
  'Tz',
  'TL',
  'Ts',
]);
/** Marked content: followed even inside hidden optional content (its ends close it). */
const MARKED_OPS = new Set(['BMC', 'BDC', 'EMC']);
/** Operators that end a path: they paint it (or not, `n`) and apply a pending clip. */
const PATH_END_OPS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'S', 's', 'n']);
/** Path construction: operand pairs that are points (re: x y w h). */
const PATH_OPS = ['m', 'l', 'c', 'v', 'y', 're'];
const PAINT_OPS = [...new Set([...FILL_OPS, ...STROKE_OPS, ...PATH_END_OPS, ...TEXT_SHOW_OPS])];
const DEVICE: Record<DeviceFamily, typeof GRAY> = { DeviceGray: GRAY, DeviceRGB: RGB, DeviceCMYK: CMYK };

/** The walk's hooks for a scan: every operator counted against the limits, inline images to the image collector. */
export const SCAN_HOOKS: WalkHooks<ScanFrame> = {
  before(f, op) {
    const scan = f.scan;
    scan.countOperator(true);
    scan.budget.chargeOperator();
    scan.cost.operator();
    if (scan.cost.micros > scan.limits.maxRenderMs * 1000) scan.checkRenderCost();
    // Hidden optional content changes the graphics state but paints nothing.
    return f.hiddenDepth === 0 || STATE_OPS.has(op) || MARKED_OPS.has(op);
  },
  inlineImage(f, inline: InlineImage) {
    if (f.hiddenDepth === 0) f.c.images.inlineImage(inline.dict, f.resources, f.gs, f.via, f.active, f.bytes.subarray(inline.dataStart, inline.dataEnd));
  },
  inlineDataLength: (f, dict) => f.c.images.info.inlineDataLength(dict, f.resources),
};

/** BDC /OC /name: the named OCG or OCMD in the resources' /Properties. */
function markedHidden(f: ScanFrame, args: Operand[]): boolean {
  const [tag, props] = args;
  if (!isName(tag) || tag.name !== 'OC' || !isName(props)) return false;
  return f.scan.hidden(f.scan.resource(f.resources, 'Properties', props.name));
}

function endPath(f: ScanFrame) {
  const box = f.pendingClip ? f.path.rect() : null;
  if (box) f.gs.clip = clipBox(box, f.gs.clip) ?? [box[0], box[1], box[0], box[1]];
  f.pendingClip = false;
  f.path.reset();
}

function moveText(f: ScanFrame, tx: number, ty: number) {
  f.tlm = multiply([1, 0, 0, 1, tx, ty], f.tlm);
  f.tm = f.tlm;
}

/** A painted path's marks: a stroke with its width after the CTM, a fill as a shape. */
function pathMarks(f: ScanFrame, op: string, path: Rect) {
  if (op === 'n') return;
  const gs = f.gs;
  const [a, b, c, d] = gs.ctm;
  const u = f.scan.userUnit;
  if (STROKE_OPS.has(op)) {
    const { min, max } = singularValues(a, b, c, d);
    const half = (gs.lineWidth * max) / 2;
    const box = clipBox([path[0] - half, path[1] - half, path[2] + half, path[3] + half], gs.clip);
    if (box) f.scan.marks.stroke({ box, widthPt: gs.lineWidth * min * u });
  }
  if (FILL_OPS.has(op)) {
    const box = clipBox([...path], gs.clip);
    if (box) f.scan.marks.shape({ box, kind: 'path' });
  }
}

/** Shows text (Tj TJ ' "): its run measured and marked, its font recorded, its colours painted. */
function showText(f: ScanFrame, args: Operand[], opStart: number, opEnd: number, op: string) {
  const { scan, c, gs } = f;
  if (op === "'" || op === '"') {
    if (op === '"' && isNum(args[0]) && isNum(args[1])) {
      gs.wordSpacing = args[0];
      gs.charSpacing = args[1];
    }
    moveText(f, 0, -gs.leading);
  }
  const tmBefore = f.tm;
  const run = c.text.showText(f.bytes, opStart, opEnd, gs, f.tm);
  if (run) {
    scan.cost.glyphs(run.glyphs, run.box, gs.clip);
    f.tm = multiply([1, 0, 0, 1, run.advance, 0], f.tm);
    if (run.mark && !scan.inPattern) f.lastText = c.text.addText(run.mark, f.lastText);
  }
  const mode = gs.textRender;
  c.fonts.shown(gs, f.bytes, opStart, opEnd, tmBefore);
  if (mode === 0 || mode === 2 || mode === 4 || mode === 6) c.colours.paint('fill', gs, f.resources, f.via, f.active);
  if (mode === 1 || mode === 2 || mode === 5 || mode === 6) c.colours.paint('stroke', gs, f.resources, f.via, f.active);
}

/** Fills, strokes, ends paths and shows text: what each paints, where, and at what cost. */
function paint(f: ScanFrame, args: Operand[], start: number, end: number, op: string) {
  const { scan, c, gs, path } = f;
  if (gs.maskMicros && (FILL_OPS.has(op) || STROKE_OPS.has(op) || TEXT_SHOW_OPS.has(op))) scan.cost.again(gs.maskMicros);
  if (FILL_OPS.has(op)) {
    c.colours.paint('fill', gs, f.resources, f.via, f.active);
    if (!scan.inPattern && gs.fillInk && gs.fillAlpha > 0 && !gs.masked) scan.ink.fill(path, gs.clip);
    if (gs.fill.family === 'Pattern' && isShadingPattern(scan.context, gs.fillPattern)) {
      scan.cost.shading(path.rect(), gs.clip);
      scan.cost.evaluatedOver(path.rect(), gs.clip, c.colours.shadingSteps(get(scan.context, dictOf(gs.fillPattern), 'Shading')));
    } else scan.cost.fill(path, gs.clip);
  }
  if (STROKE_OPS.has(op)) {
    c.colours.paint('stroke', gs, f.resources, f.via, f.active);
    const scale = Math.sqrt(Math.abs(gs.ctm[0] * gs.ctm[3] - gs.ctm[1] * gs.ctm[2]));
    const width = gs.lineWidth * scale;
    if (!scan.inPattern && gs.strokeInk && gs.strokeAlpha > 0 && !gs.masked) scan.ink.stroke(path, width, gs.clip);
    scan.cost.stroke(path, width, gs.clip, gs.dashPeriod * scale);
  }
  if (PATH_END_OPS.has(op)) {
    const box = path.rect();
    if (box && !scan.inPattern) pathMarks(f, op, box);
    endPath(f);
  }
  if (TEXT_SHOW_OPS.has(op)) showText(f, args, start, end, op);
}

/** `sh`: a shading painted over the clip. */
function shade(f: ScanFrame, args: Operand[]) {
  const { scan, c, gs } = f;
  const n = args[0];
  if (!isName(n)) return;
  if (gs.clip && !scan.inPattern) scan.marks.shape({ box: [...gs.clip], kind: 'shading' });
  // The shading as found (a mesh shading is a stream: its data is screened too).
  const shading = resolve(scan.context, scan.resource(f.resources, 'Shading', n.name));
  if (!dictOf(shading)) return;
  c.colours.useShading(shading!, f.resources, f.via);
  if (!scan.inPattern && gs.fillAlpha > 0 && !gs.masked) scan.ink.shade(gs.clip);
  scan.cost.shading(gs.clip, gs.clip);
  scan.cost.evaluatedOver(gs.clip, gs.clip, c.colours.shadingSteps(shading));
  if (gs.maskMicros) scan.cost.again(gs.maskMicros);
}

/** A matrix operand (cm, Tm): six finite numbers, or undefined. */
function matrixOperand(args: Operand[]): Matrix | undefined {
  const m = args.slice(-6);
  return m.length === 6 && m.every(isNum) && isFiniteMatrix(m as number[]) ? (m as Matrix) : undefined;
}

/** A number operand sets a text-state field. */
const textState =
  (key: 'charSpacing' | 'wordSpacing' | 'leading' | 'rise'): ((f: ScanFrame, args: Operand[]) => void) =>
  (f, args) => {
    if (isNum(args[0])) f.gs[key] = args[0];
  };

export const SCAN_OPS: OperatorTable<ScanFrame> = operatorTable<ScanFrame>(
  [
    ['BMC', 'BDC'],
    (f, args, _s, _e, op) => {
      const hide = op === 'BDC' && markedHidden(f, args);
      if (f.marked.length < f.scan.limits.maxStateDepth) {
        f.marked.push(hide);
        if (hide) f.hiddenDepth++;
      } else if (!f.scan.markedTooDeep) {
        // PDFium copies the open sequences onto every object it reads: it ran out of memory on
        // 500,000 of them. Real pages nest a few.
        f.scan.markedTooDeep = true;
        f.scan.refuse(`marked-content sequences are nested more than ${f.scan.limits.maxStateDepth} deep (a renderer keeps every open one with every object)`);
      }
    },
  ],
  [
    ['EMC'],
    (f) => {
      if (f.marked.pop()) f.hiddenDepth--;
    },
  ],
  [PATH_OPS, (f, args, _s, _e, op) => f.scan.cost.points(extendPath(f.path, op, args, f.gs.ctm))],
  [
    ['W', 'W*'],
    (f) => {
      f.pendingClip = true;
    },
  ],
  [
    ['w'],
    (f, [width]) => {
      if (isNum(width) && width >= 0) f.gs.lineWidth = width;
    },
  ],
  [
    ['d'],
    (f, args) => {
      f.gs.dashPeriod = dashPeriod(args[0]);
    },
  ],
  [['q'], (f) => f.stack.save({ ...f.gs })],
  [
    ['Q'],
    (f) => {
      f.gs = f.stack.restore() ?? f.gs;
    },
  ],
  [
    ['cm'],
    (f, args) => {
      const m = matrixOperand(args);
      if (m) f.gs.ctm = multiply(m, f.gs.ctm);
    },
  ],
  ...colourOperators<ScanFrame>({
    device(f, paint, family, args) {
      const space = DEVICE[family];
      if (paint === 'fill') {
        f.gs.fill = space;
        f.gs.fillInk = colourInks(space, numbers(args));
      } else {
        f.gs.stroke = space;
        f.gs.strokeInk = colourInks(space, numbers(args));
      }
    },
    space(f, paint, args) {
      const { scan, gs, resources } = f;
      const n = args[args.length - 1];
      if (isName(n)) f.c.colours.screenColourSpace(n.name, resources);
      const cs = isName(n) ? scan.colourSpaces.describe(n.name, resources) : unknownColourSpace('no name given');
      const hival = cs.family === 'Indexed' && isName(n) ? f.c.colours.indexedHival(n.name, resources) : undefined;
      if (paint === 'fill') {
        gs.fill = cs;
        gs.fillPattern = undefined;
        gs.fillInk = colourInks(cs, undefined);
        gs.fillHival = hival;
      } else {
        gs.stroke = cs;
        gs.strokePattern = undefined;
        gs.strokeInk = colourInks(cs, undefined);
        gs.strokeHival = hival;
      }
    },
    colour(f, paint, args, _s, _e, _op, named) {
      const gs = f.gs;
      const n = args[args.length - 1];
      if (named && isName(n)) {
        const pattern = resolve(f.scan.context, f.scan.resource(f.resources, 'Pattern', n.name));
        if (paint === 'fill') gs.fillPattern = pattern;
        else gs.strokePattern = pattern;
      }
      const ink = (named && isName(n)) || colourInks(gs[paint], numbers(args));
      if (paint === 'fill') gs.fillInk = ink;
      else gs.strokeInk = ink;
      f.c.colours.checkIndex(gs, paint === 'fill', args);
    },
  }),
  [
    ['gs'],
    (f, [n]) => {
      if (!isName(n)) return;
      f.c.transparency.extGState(dictOf(resolve(f.scan.context, f.scan.resource(f.resources, 'ExtGState', n.name))), f.gs);
      f.c.transparency.screenExtGState(n.name, f.resources, f.gs, f.via, f.active);
    },
  ],
  [
    ['Tf'],
    (f, [n, size]) => {
      if (isName(n)) f.gs.font = { name: n.name, resources: f.resources };
      if (isNum(size)) f.gs.fontSize = size;
    },
  ],
  [
    ['BT'],
    (f) => {
      f.tm = IDENTITY;
      f.tlm = IDENTITY;
      f.lastText = null;
    },
  ],
  [
    ['ET'],
    (f) => {
      f.lastText = null;
    },
  ],
  [['Tc'], textState('charSpacing')],
  [['Tw'], textState('wordSpacing')],
  [
    ['Tz'],
    (f, [scale]) => {
      if (isNum(scale)) f.gs.hScale = scale / 100;
    },
  ],
  [['TL'], textState('leading')],
  [['Ts'], textState('rise')],
  [
    ['Td', 'TD'],
    (f, [tx, ty], _s, _e, op) => {
      if (!isNum(tx) || !isNum(ty)) return;
      if (op === 'TD') f.gs.leading = -ty;
      moveText(f, tx, ty);
    },
  ],
  [['T*'], (f) => moveText(f, 0, -f.gs.leading)],
  [
    ['Tm'],
    (f, args) => {
      const m = matrixOperand(args);
      if (!m) return;
      f.tm = m;
      f.tlm = m;
    },
  ],
  [
    ['Tr'],
    (f, [mode]) => {
      if (isNum(mode)) f.gs.textRender = mode;
    },
  ],
  [['sh'], shade],
  [
    ['Do'],
    (f, [n]) => {
      if (f.gs.maskMicros) f.scan.cost.again(f.gs.maskMicros);
      if (isName(n)) f.scan.runner.doXObject(n.name, f.resources, f.gs, f.via, f.active);
    },
  ],
  [PAINT_OPS, paint],
);
