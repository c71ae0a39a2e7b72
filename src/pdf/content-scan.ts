/**
 * Scans a page's content streams without decoding any image: follows the graphics state (q Q cm),
 * draws of image XObjects, Form XObjects (recursively, guarded against cycles and depth) and inline
 * images, and which colour spaces painting operators use for fills, strokes, text, shadings and
 * patterns.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { Appearance } from './annotations.js';
import { ColourSpaceResolver, unknownColourSpace } from './colour-space.js';
import type { ColourSpaceFacts, ColourUse, FontUse, ImageFacts, MaskFacts, Matrix, Rect } from './facts.js';
import { ContentSyntaxError, isName, isNum, lexContent, type Operand } from './lexer.js';
import { IDENTITY, apply, isFiniteMatrix, multiply, transformedBox, unitSquareBox } from './matrix.js';
import { MarkCollector, clipBox, type PageMarks, type TextMark } from './marks.js';
import { fontMetrics, showOperands, type FontMetrics } from './text-metrics.js';
import {
  PDFArray,
  PDFName,
  PDFRawStream,
  dictOf,
  get,
  getBool,
  getDict,
  getName,
  getNumber,
  items,
  rectOf,
  nameOf,
  numberOf,
  refLabel,
  resolve,
  PDFRef,
} from './objects.js';
import { codedImageSize, codedJpegQuality } from './image-header.js';
import { StreamDecodeError, StreamTooLargeError, filtersOf, fullFilterName, joinContentStreams, type StreamReader } from './streams.js';
import { jpxColourSpace } from './jpx.js';
import type { OptionalContent } from './optional-content.js';
import { ppiOf } from './units.js';
import { grouped } from '../util/text.js';

export interface ScanLimits {
  /** Deepest Form XObject / pattern nesting followed. */
  maxFormDepth: number;
  /** Deepest q nesting kept. */
  maxStateDepth: number;
  /** Most operators interpreted per page, forms included. */
  maxOperators: number;
  /**
   * Most bytes decoded per page: all its content streams, Form XObjects and patterns together
   * (a stream listed twice counts twice). A page over it is too complex and never rendered.
   */
  maxDecodedBytes: number;
  /** Most image draws per page (inline images included). */
  maxImageDraws: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxFormDepth: 32,
  maxStateDepth: 512,
  maxOperators: 5_000_000,
  maxDecodedBytes: 128 * 1024 * 1024,
  maxImageDraws: 10_000,
};


export interface ScanResult {
  images: ImageFacts[];
  colours: ColourUse[];
  fonts: FontUse[];
  notes: string[];
  /** Structural errors found while scanning (a Form XObject that draws itself…). */
  damage: string[];
  /** True when a limit stopped the scan (the page is too complex to inspect fully). */
  tooComplex: boolean;
  /** Where text, lines, shapes and images are painted (bounded; marks.ts). */
  marks: PageMarks;
}

interface GState {
  ctm: Matrix;
  fill: ColourSpaceFacts;
  stroke: ColourSpaceFacts;
  fillPattern: PDFObject | undefined;
  strokePattern: PDFObject | undefined;
  textRender: number;
  /** The font selected by Tf and the resources it was looked up in. */
  font: { name: string; resources: PDFDict | undefined } | undefined;
  /** Line width (w, or /LW of an ExtGState), in user space units. */
  lineWidth: number;
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

const GRAY: ColourSpaceFacts = { family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' };
const RGB: ColourSpaceFacts = { family: 'DeviceRGB', model: 'rgb', components: 3, label: 'DeviceRGB' };
const CMYK: ColourSpaceFacts = { family: 'DeviceCMYK', model: 'cmyk', components: 4, label: 'DeviceCMYK' };

const FILL_OPS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);
const STROKE_OPS = new Set(['S', 's', 'B', 'B*', 'b', 'b*']);
const TEXT_SHOW_OPS = new Set(['Tj', 'TJ', "'", '"']);
/** Operators that change the graphics or text state; the rest paint or draw. */
const STATE_OPS = new Set(['q', 'Q', 'cm', 'g', 'G', 'rg', 'RG', 'k', 'K', 'cs', 'CS', 'sc', 'SC', 'scn', 'SCN', 'Tf', 'Tr', 'gs', 'w', 'BT', 'ET', 'Td', 'TD', 'Tm', 'T*', 'Tc', 'Tw', 'Tz', 'TL', 'Ts']);
/** Operators that end a path: they paint it (or not, `n`) and apply a pending clip. */
const PATH_END_OPS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'S', 's', 'n']);

class LimitReached extends Error {}

export class ContentScanner {
  private readonly images: ImageFacts[] = [];
  private readonly colours = new Map<string, ColourUse>();
  private readonly notes = new Set<string>();
  private readonly damage = new Set<string>();
  private readonly fonts = new Map<PDFObject, FontUse>();
  private operators = 0;
  private tooComplex = false;
  private readonly patternsSeen = new Set<PDFObject>();
  /** Bytes decoded for this page so far, against limits.maxDecodedBytes. */
  private decodedBytes = 0;
  /** Forms and patterns decoded once per page, however often they are drawn. */
  private readonly decoded = new Map<PDFObject, Uint8Array>();
  private readonly imageInfo = new Map<PDFObject, ReturnType<ContentScanner['xobjectInfo']>>();
  private pageResources: PDFDict | undefined;
  private readonly jpxSpaces = new Map<PDFDict, ColourSpaceFacts>();
  /** Image XObject dictionaries → their streams, for the JPEG 2000 header. */
  private readonly streamOf = new Map<PDFDict, PDFRawStream>();
  private marks = new MarkCollector(null);
  /** Inside a tiling pattern's cell: its content is drawn wherever the pattern fills, so no marks. */
  private inPattern = 0;
  private readonly metrics = new Map<PDFObject, FontMetrics>();

  constructor(
    private readonly context: PDFContext,
    private readonly colourSpaces: ColourSpaceResolver,
    private readonly readStream: StreamReader,
    private readonly userUnit: number,
    private readonly limits: ScanLimits = DEFAULT_SCAN_LIMITS,
    /** Hidden optional content is skipped: it prints nothing. Without it, all content counts. */
    private readonly optionalContent?: OptionalContent,
  ) {}

  /**
   * Scans the page's /Contents with its /Resources, then the appearance streams of its printable
   * annotations, which print on top of the page.
   */
  scanPage(contents: PDFObject | undefined, resources: PDFDict | undefined, appearances: readonly Appearance[] = [], pageBox: Rect | null = null): ScanResult {
    this.pageResources = resources;
    this.marks = new MarkCollector(pageBox);
    // /Contents is a stream, an array of streams, or a reference to either (ISO 32000-2 §7.7.3.3).
    const resolved = resolve(this.context, contents);
    const streams = resolved instanceof PDFArray ? items(this.context, resolved) : [resolved];
    const parts: Uint8Array[] = [];
    for (const s of streams) {
      if (!s) continue;
      const data = this.read(s, 'page content', true);
      if (data) parts.push(data);
    }
    try {
      this.run(joinContentStreams(parts), resources, initialState(IDENTITY), [], new Set());
      for (const a of appearances) {
        this.runForm(a.stream, a.label, resources, initialState(a.placement), [], new Set(), false);
      }
    } catch (error) {
      if (!(error instanceof LimitReached)) throw error;
    }
    return this.result();
  }

  /**
   * A named resource. A form without the entry falls back to the page's resources, as poppler and
   * pdf.js do for old files whose forms inherit them (PDF 1.1).
   */
  private resource(resources: PDFDict | undefined, category: string, name: string): PDFObject | undefined {
    const ctx = this.context;
    return getDict(ctx, resources, category)?.get(PDFName.of(name)) ?? getDict(ctx, this.pageResources, category)?.get(PDFName.of(name));
  }

  private hidden(oc: PDFObject | undefined): boolean {
    return oc !== undefined && this.optionalContent !== undefined && this.optionalContent.isHidden(oc);
  }

  private result(): ScanResult {
    return {
      images: this.images,
      colours: [...this.colours.values()],
      fonts: [...this.fonts.values()],
      notes: [...this.notes].sort(),
      damage: [...this.damage].sort(),
      tooComplex: this.tooComplex,
      marks: this.marks.result(),
    };
  }

  /**
   * Decodes a content stream, form or pattern within what is left of the page's budget. Page
   * content is copied into one buffer, so each listing counts; a form drawn twice is decoded once.
   */
  private read(obj: PDFObject, what: string, copied = false): Uint8Array | undefined {
    if (!(obj instanceof PDFRawStream)) {
      this.notes.add(`${what} is not a stream`);
      return undefined;
    }
    const max = this.limits.maxDecodedBytes;
    const known = this.decoded.get(obj);
    if (known && !copied) return known;
    const left = max - this.decodedBytes;
    const overBudget = () => {
      this.tooComplex = true;
      this.notes.add(`${what}: the page's content streams decode to more than ${formatBytes(max)} together (a decompression bomb?); the page is not rendered`);
      return undefined;
    };
    if (known) {
      if (known.length > left) return overBudget();
      this.decodedBytes += known.length;
      return known;
    }
    if (left <= 0) return overBudget();
    try {
      const data = this.readStream(obj, { maxBytes: left });
      if (data.length > left) return overBudget();
      this.decodedBytes += data.length;
      this.decoded.set(obj, data);
      return data;
    } catch (error) {
      if (error instanceof StreamTooLargeError) {
        if (left < max) return overBudget();
        this.tooComplex = true;
        this.notes.add(`${what}: ${error.message} (a decompression bomb?); the page is not rendered`);
      } else if (error instanceof StreamDecodeError) this.notes.add(`${what} cannot be decoded: ${error.message}`);
      else throw error;
      return undefined;
    }
  }

  private run(bytes: Uint8Array, resources: PDFDict | undefined, start: GState, via: string[], active: Set<PDFObject>): void {
    const stack: GState[] = [];
    let gs = { ...start };
    const ctx = this.context;
    // Marked-content sequences open here; `hiddenDepth` counts those in hidden optional content.
    const marked: boolean[] = [];
    let hiddenDepth = 0;
    // Text object (BT … ET): the text matrix and the start of its line; the last run, to merge with.
    let tm: Matrix = IDENTITY;
    let tlm: Matrix = IDENTITY;
    let lastText: TextMark | null = null;
    // The path being built, as a box in default user space, and whether it becomes a clip.
    let path: Rect | null = null;
    let pendingClip = false;
    const extend = (x: number, y: number) => {
      const [px, py] = apply(gs.ctm, x, y);
      if (!Number.isFinite(px) || !Number.isFinite(py)) return;
      if (!path) path = [px, py, px, py];
      else {
        if (px < path[0]) path[0] = px;
        if (py < path[1]) path[1] = py;
        if (px > path[2]) path[2] = px;
        if (py > path[3]) path[3] = py;
      }
    };
    const moveText = (tx: number, ty: number) => {
      tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
      tm = tlm;
    };
    const onOperator = (op: string, args: Operand[], opStart: number, opEnd: number) => {
      if (++this.operators > this.limits.maxOperators) {
        this.tooComplex = true;
        this.notes.add(`more than ${this.limits.maxOperators} operators: inspection stopped`);
        throw new LimitReached();
      }
      switch (op) {
        case 'BMC':
        case 'BDC': {
          const hide = op === 'BDC' && this.markedHidden(args, resources);
          if (marked.length < this.limits.maxStateDepth) {
            marked.push(hide);
            if (hide) hiddenDepth++;
          }
          return;
        }
        case 'EMC':
          if (marked.pop()) hiddenDepth--;
          return;
      }
      // Hidden optional content changes the graphics state but paints nothing.
      if (hiddenDepth > 0 && !STATE_OPS.has(op)) return;
      switch (op) {
        case 'q':
          if (stack.length < this.limits.maxStateDepth) stack.push({ ...gs });
          else this.notes.add(`graphics state nested deeper than ${this.limits.maxStateDepth}`);
          return;
        case 'Q':
          gs = stack.pop() ?? gs;
          return;
        case 'cm': {
          const m = args.slice(-6);
          if (m.length === 6 && m.every(isNum) && isFiniteMatrix(m as number[])) gs.ctm = multiply(m as Matrix, gs.ctm);
          return;
        }
        case 'g':
          gs.fill = GRAY;
          return;
        case 'G':
          gs.stroke = GRAY;
          return;
        case 'rg':
          gs.fill = RGB;
          return;
        case 'RG':
          gs.stroke = RGB;
          return;
        case 'k':
          gs.fill = CMYK;
          return;
        case 'K':
          gs.stroke = CMYK;
          return;
        case 'cs':
        case 'CS': {
          const n = args[args.length - 1];
          const cs = isName(n) ? this.colourSpaces.describe(n.name, resources) : unknownColourSpace('no name given');
          if (op === 'cs') {
            gs.fill = cs;
            gs.fillPattern = undefined;
          } else {
            gs.stroke = cs;
            gs.strokePattern = undefined;
          }
          return;
        }
        case 'scn':
        case 'SCN': {
          const n = args[args.length - 1];
          if (isName(n)) {
            const pattern = resolve(ctx, this.resource(resources, 'Pattern', n.name));
            if (op === 'scn') gs.fillPattern = pattern;
            else gs.strokePattern = pattern;
          }
          return;
        }
        case 'Tf': {
          const n = args[0];
          if (isName(n)) gs.font = { name: n.name, resources };
          if (isNum(args[1])) gs.fontSize = args[1];
          return;
        }
        case 'w':
          if (isNum(args[0]) && args[0] >= 0) gs.lineWidth = args[0];
          return;
        case 'gs': {
          const n = args[0];
          const lw = isName(n) ? getNumber(ctx, dictOf(resolve(ctx, this.resource(resources, 'ExtGState', n.name))), 'LW') : undefined;
          if (lw !== undefined && lw >= 0) gs.lineWidth = lw;
          return;
        }
        case 'BT':
          tm = IDENTITY;
          tlm = IDENTITY;
          lastText = null;
          return;
        case 'ET':
          lastText = null;
          return;
        case 'Tc':
          if (isNum(args[0])) gs.charSpacing = args[0];
          return;
        case 'Tw':
          if (isNum(args[0])) gs.wordSpacing = args[0];
          return;
        case 'Tz':
          if (isNum(args[0])) gs.hScale = args[0] / 100;
          return;
        case 'TL':
          if (isNum(args[0])) gs.leading = args[0];
          return;
        case 'Ts':
          if (isNum(args[0])) gs.rise = args[0];
          return;
        case 'Td':
        case 'TD':
          if (isNum(args[0]) && isNum(args[1])) {
            if (op === 'TD') gs.leading = -args[1];
            moveText(args[0], args[1]);
          }
          return;
        case 'T*':
          moveText(0, -gs.leading);
          return;
        case 'Tm': {
          const m = args.slice(-6);
          if (m.length === 6 && m.every(isNum) && isFiniteMatrix(m as number[])) {
            tm = m as Matrix;
            tlm = tm;
          }
          return;
        }
        case 'm':
        case 'l':
          if (isNum(args[0]) && isNum(args[1])) extend(args[0], args[1]);
          return;
        case 'c':
        case 'v':
        case 'y':
          for (let i = 0; i + 1 < args.length; i += 2) if (isNum(args[i]) && isNum(args[i + 1])) extend(args[i] as number, args[i + 1] as number);
          return;
        case 're':
          if (args.length >= 4 && args.slice(0, 4).every(isNum)) {
            const [x, y, w, h] = args as number[];
            extend(x!, y!);
            extend(x! + w!, y! + h!);
            extend(x!, y! + h!);
            extend(x! + w!, y!);
          }
          return;
        case 'h':
          return;
        case 'W':
        case 'W*':
          pendingClip = true;
          return;
        case 'Tr': {
          const mode = args[0];
          if (isNum(mode)) gs.textRender = mode;
          return;
        }
        case 'sh': {
          const n = args[0];
          if (!isName(n)) return;
          if (gs.clip && !this.inPattern) this.marks.shape({ box: [...gs.clip], kind: 'shading' });
          const shading = dictOf(resolve(ctx, this.resource(resources, 'Shading', n.name)));
          if (shading) this.useShading(shading, resources, via);
          return;
        }
        case 'Do': {
          const n = args[0];
          if (isName(n)) this.doXObject(n.name, resources, gs, via, active);
          return;
        }
        default:
          if (FILL_OPS.has(op)) this.paint('fill', gs, resources, via, active);
          if (STROKE_OPS.has(op)) this.paint('stroke', gs, resources, via, active);
          if (PATH_END_OPS.has(op)) {
            if (path && !this.inPattern) this.pathMarks(op, path, gs);
            if (pendingClip && path) gs.clip = clipBox(path, gs.clip) ?? [path[0], path[1], path[0], path[1]];
            path = null;
            pendingClip = false;
          }
          if (TEXT_SHOW_OPS.has(op)) {
            if (op === "'" || op === '"') {
              if (op === '"' && isNum(args[0]) && isNum(args[1])) {
                gs.wordSpacing = args[0];
                gs.charSpacing = args[1];
              }
              moveText(0, -gs.leading);
            }
            const run = this.showText(bytes, opStart, opEnd, gs, tm);
            if (run) {
              tm = multiply([1, 0, 0, 1, run.advance, 0], tm);
              if (run.mark && !this.inPattern) lastText = this.addText(run.mark, lastText);
            }
            const mode = gs.textRender;
            // Invisible text (mode 3, e.g. an OCR layer) prints nothing: its font does not matter.
            if (gs.font && mode !== 3 && mode !== 7) this.useFont(gs.font.name, gs.font.resources);
            if (mode === 0 || mode === 2 || mode === 4 || mode === 6) this.paint('fill', gs, resources, via, active);
            if (mode === 1 || mode === 2 || mode === 5 || mode === 6) this.paint('stroke', gs, resources, via, active);
          }
      }
    };
    try {
      lexContent(
        bytes,
        onOperator,
        (inline) => {
          if (hiddenDepth === 0) this.inlineImage(inline.dict, resources, gs, via, active, bytes.subarray(inline.dataStart, inline.dataEnd));
        },
        (dict) => this.inlineDataLength(dict, resources),
      );
    } catch (error) {
      if (!(error instanceof ContentSyntaxError)) throw error;
      this.notes.add(`content stream is malformed: ${error.message}`);
      // Nesting or operand counts beyond the limits are an attack on parsers, not a typo.
      if (/nesting|operands/.test(error.message)) this.tooComplex = true;
    }
  }

  /** A painted path's marks: a stroke with its width after the CTM, a fill as a shape. */
  private pathMarks(op: string, path: Rect, gs: GState) {
    if (op === 'n') return;
    const [a, b, c, d] = gs.ctm;
    const u = this.userUnit;
    if (STROKE_OPS.has(op)) {
      const { min, max } = singularValues(a, b, c, d);
      const half = (gs.lineWidth * max) / 2;
      const box = clipBox([path[0] - half, path[1] - half, path[2] + half, path[3] + half], gs.clip);
      if (box) this.marks.stroke({ box, widthPt: gs.lineWidth * min * u });
    }
    if (FILL_OPS.has(op)) {
      const box = clipBox([...path], gs.clip);
      if (box) this.marks.shape({ box, kind: 'path' });
    }
  }

  /**
   * A text-showing operator's run: its advance in text space (to move the text matrix) and its
   * mark — the glyph boxes through the text matrix and CTM, the em height, ASCII text when the
   * font's codes are ASCII. Invisible text (Tr 3 and 7) advances without a mark.
   */
  private showText(bytes: Uint8Array, start: number, end: number, gs: GState, tm: Matrix): { advance: number; mark: TextMark | null } | null {
    if (!gs.font) return null;
    const metrics = this.fontMetricsOf(gs.font.name, gs.font.resources);
    const size = gs.fontSize;
    const th = gs.hScale;
    let x = 0;
    let minX = 0;
    let maxX = 0;
    let text = '';
    for (const item of showOperands(bytes, start, end)) {
      if (typeof item === 'number') {
        x -= (item / 1000) * size * th;
      } else {
        const n = metrics.codeBytes;
        for (let i = 0; i + n - 1 < item.length; i += n) {
          const code = n === 2 ? (item[i]! << 8) | item[i + 1]! : item[i]!;
          x += (metrics.advance(code) * size + gs.charSpacing + (n === 1 && code === 32 ? gs.wordSpacing : 0)) * th;
          if (metrics.ascii && text.length < 60) text += code >= 32 && code < 127 ? String.fromCharCode(code) : '';
        }
      }
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
    }
    if (gs.textRender === 3 || gs.textRender === 7 || maxX - minX <= 0 || size === 0) return { advance: x, mark: null };
    const m = multiply(tm, gs.ctm);
    const y0 = gs.rise + metrics.descent * size;
    const y1 = gs.rise + metrics.ascent * size;
    const box = clipBox(transformedBox(m, [minX, Math.min(y0, y1), maxX, Math.max(y0, y1)]), gs.clip);
    const sizePt = Math.abs(size) * metrics.em * Math.hypot(m[2], m[3]) * this.userUnit;
    return { advance: x, mark: box && Number.isFinite(sizePt) ? { box, sizePt, text: text.trim() } : null };
  }

  /** Adds a text run, or extends the previous run of the same line and size. */
  private addText(mark: TextMark, last: TextMark | null): TextMark {
    if (last && Math.abs(last.sizePt - mark.sizePt) <= 0.01 * mark.sizePt) {
      const em = (mark.sizePt / this.userUnit) * 1.2;
      const sameLine = Math.abs(last.box[1] - mark.box[1]) < 0.2 * em && Math.abs(last.box[3] - mark.box[3]) < 0.2 * em;
      if (sameLine && mark.box[0] <= last.box[2] + em && mark.box[2] >= last.box[0] - em) {
        last.box = [Math.min(last.box[0], mark.box[0]), Math.min(last.box[1], mark.box[1]), Math.max(last.box[2], mark.box[2]), Math.max(last.box[3], mark.box[3])];
        if (last.text.length < 60 && mark.text) last.text = `${last.text}${last.text ? ' ' : ''}${mark.text}`.slice(0, 60);
        return last;
      }
    }
    this.marks.text(mark);
    return mark;
  }

  private fontMetricsOf(name: string, resources: PDFDict | undefined): FontMetrics {
    const font = resolve(this.context, this.resource(resources, 'Font', name));
    const key = font ?? PDFName.of(`missing ${name}`);
    let m = this.metrics.get(key);
    if (!m) {
      m = fontMetrics(this.context, dictOf(font));
      this.metrics.set(key, m);
    }
    return m;
  }

  /** BDC /OC /name: the named OCG or OCMD in the resources' /Properties. */
  private markedHidden(args: Operand[], resources: PDFDict | undefined): boolean {
    const [tag, props] = args;
    if (!isName(tag) || tag.name !== 'OC' || !isName(props)) return false;
    return this.hidden(this.resource(resources, 'Properties', props.name));
  }

  private paint(use: 'fill' | 'stroke', gs: GState, resources: PDFDict | undefined, via: string[], active: Set<PDFObject>) {
    const cs = use === 'fill' ? gs.fill : gs.stroke;
    if (cs.family === 'Pattern') {
      const pattern = use === 'fill' ? gs.fillPattern : gs.strokePattern;
      if (pattern) this.usePattern(pattern, cs, use, resources, via, active);
      return;
    }
    this.record(use, cs, via);
  }

  private useFont(name: string, resources: PDFDict | undefined) {
    const ctx = this.context;
    const entry = this.resource(resources, 'Font', name);
    const font = resolve(ctx, entry);
    const dict = dictOf(font);
    if (!font || !dict) {
      this.notes.add(`font /${name} is missing from the resources`);
      return;
    }
    if (this.fonts.has(font)) return;
    const subtype = getName(ctx, dict, 'Subtype') ?? null;
    let descriptorOwner = dict;
    if (subtype === 'Type0') {
      const descendants = get(ctx, dict, 'DescendantFonts');
      const first = descendants instanceof PDFArray ? dictOf(items(ctx, descendants)[0]) : undefined;
      if (first) descriptorOwner = first;
    }
    const descriptor = getDict(ctx, descriptorOwner, 'FontDescriptor');
    const embedded = subtype === 'Type3' || ['FontFile', 'FontFile2', 'FontFile3'].some((k) => get(ctx, descriptor, k) !== undefined);
    this.fonts.set(font, { name, ref: refLabel(entry instanceof PDFRef ? entry : undefined), baseFont: getName(ctx, dict, 'BaseFont') ?? null, subtype, embedded });
  }

  private record(use: ColourUse['use'], colourSpace: ColourSpaceFacts, via: string[]) {
    const key = `${use}\u0000${colourSpace.label}`;
    const hit = this.colours.get(key);
    if (hit) hit.count++;
    else this.colours.set(key, { use, colourSpace, count: 1, via: [...via] });
  }

  private useShading(shading: PDFDict, resources: PDFDict | undefined, via: string[], use: ColourUse['use'] = 'shading') {
    const cs = this.colourSpaces.describe(get(this.context, shading, 'ColorSpace'), resources);
    this.record(use, cs, via);
  }

  private usePattern(
    patternObj: PDFObject,
    cs: ColourSpaceFacts,
    use: 'fill' | 'stroke' | 'stencil',
    resources: PDFDict | undefined,
    via: string[],
    active: Set<PDFObject>,
  ) {
    const ctx = this.context;
    const pattern = dictOf(patternObj);
    if (!pattern) return;
    const type = getNumber(ctx, pattern, 'PatternType');
    if (type === 2) {
      const shading = getDict(ctx, pattern, 'Shading');
      if (shading) this.useShading(shading, resources, via, use === 'stencil' ? 'stencil' : 'shading');
      return;
    }
    const paintType = getNumber(ctx, pattern, 'PaintType');
    if (paintType === 2) {
      // Uncoloured tiling pattern: painted in the underlying space of [/Pattern base].
      if (cs.base) this.record(use, cs.base, via);
      return;
    }
    // Coloured tiling pattern: scan its content once per page. Its matrix maps to the page's
    // default space, not to the current CTM.
    if (this.patternsSeen.has(patternObj) || !(patternObj instanceof PDFRawStream)) return;
    this.patternsSeen.add(patternObj);
    if (active.has(patternObj) || via.length >= this.limits.maxFormDepth) {
      this.notes.add(`pattern nesting deeper than ${this.limits.maxFormDepth} or cyclic: not followed`);
      return;
    }
    const data = this.read(patternObj, 'pattern');
    if (!data) return;
    const matrix = matrixOf(ctx, pattern) ?? IDENTITY;
    const inner = getDict(ctx, pattern, 'Resources') ?? resources;
    active.add(patternObj);
    this.inPattern++;
    try {
      this.run(data, inner, initialState(matrix), [...via, 'pattern'], active);
    } finally {
      this.inPattern--;
    }
    active.delete(patternObj);
  }

  private doXObject(name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>) {
    const ctx = this.context;
    const raw = this.resource(resources, 'XObject', name);
    const ref = raw instanceof PDFRef ? raw : undefined;
    const xobj = resolve(ctx, raw);
    const dict = dictOf(xobj);
    if (!dict) {
      this.notes.add(`XObject /${name} is missing`);
      return;
    }
    if (this.hidden(dict.get(PDFName.of('OC')))) return;
    const subtype = getName(ctx, dict, 'Subtype');
    if (subtype === 'Image') {
      if (xobj instanceof PDFRawStream) this.streamOf.set(dict, xobj);
      this.addImage(dict, refLabel(ref), name, false, resources, gs, via, active, xobj);
      return;
    }
    if (subtype !== 'Form' || !xobj) return;
    this.runForm(xobj, name, resources, gs, via, active, true);
  }

  /**
   * Runs a Form XObject's content: `gs.ctm` is where the form is drawn, and the form's /Matrix
   * comes first. `named` forms are labelled /Name in notes; annotation appearances by their label.
   */
  private runForm(
    xobj: PDFObject,
    name: string,
    resources: PDFDict | undefined,
    gs: GState,
    via: string[],
    active: Set<PDFObject>,
    named: boolean,
  ) {
    const ctx = this.context;
    const dict = dictOf(xobj)!;
    const label = named ? `Form XObject /${name}` : name;
    if (active.has(xobj)) {
      this.damage.add(`${label} draws itself, directly or through other forms (a cycle)`);
      return;
    }
    if (via.length >= this.limits.maxFormDepth) {
      this.tooComplex = true;
      this.notes.add(`Form XObjects nested deeper than ${this.limits.maxFormDepth}: not followed further`);
      return;
    }
    const data = this.read(xobj, label);
    if (!data) return;
    const matrix = matrixOf(ctx, dict) ?? IDENTITY;
    const inner = getDict(ctx, dict, 'Resources') ?? resources;
    const ctm = multiply(matrix, gs.ctm);
    // A form is clipped to its /BBox.
    const bbox = rectOf(ctx, get(ctx, dict, 'BBox'));
    const clip = bbox ? (clipBox(transformedBox(ctm, bbox), gs.clip) ?? [0, 0, 0, 0]) : gs.clip;
    active.add(xobj);
    this.run(data, inner, { ...gs, ctm, clip: clip as Rect | null }, [...via, name], active);
    active.delete(xobj);
  }

  private addImage(
    dict: PDFDict | Map<string, Operand>,
    ref: string | null,
    name: string | null,
    inline: boolean,
    resources: PDFDict | undefined,
    gs: GState,
    via: string[],
    active: Set<PDFObject>,
    stream?: PDFObject,
    inlineData?: Uint8Array,
  ) {
    if (this.images.length >= this.limits.maxImageDraws) {
      this.tooComplex = true;
      this.notes.add(`the page draws images more than ${grouped(this.limits.maxImageDraws)} times: inspection stopped, the page is not rendered`);
      throw new LimitReached();
    }
    const info = inline ? this.inlineInfo(dict as Map<string, Operand>, resources, inlineData) : this.cachedInfo(dict as PDFDict, resources, stream);
    if (info.imageMask) {
      // A stencil mask paints the fill colour; a pattern fill paints the pattern's colours.
      if (gs.fill.family !== 'Pattern') this.record('stencil', gs.fill, via);
      else if (gs.fillPattern) this.usePattern(gs.fillPattern, gs.fill, 'stencil', resources, via, active);
      else this.record('stencil', gs.fill.base ?? gs.fill, via);
    }
    if (!this.inPattern) {
      const shown = clipBox(unitSquareBox(gs.ctm), gs.clip);
      if (shown) this.marks.shape({ box: shown, kind: 'image' });
    }
    const [a, b, c, d] = gs.ctm;
    const placedWidthPt = Math.hypot(a, b) * this.userUnit;
    const placedHeightPt = Math.hypot(c, d) * this.userUnit;
    const ppi = (px: number, pt: number) => (pt > 1e-9 ? ppiOf(px, pt) : null);
    this.images.push({
      ref,
      name,
      inline,
      via: [...via],
      ...info,
      ctm: [...gs.ctm] as Matrix,
      bbox: unitSquareBox(gs.ctm),
      placedWidthPt,
      placedHeightPt,
      ppiX: ppi(info.widthPx, placedWidthPt),
      ppiY: ppi(info.heightPx, placedHeightPt),
    });
  }

  private cachedInfo(dict: PDFDict, resources: PDFDict | undefined, stream: PDFObject | undefined) {
    let info = this.imageInfo.get(dict);
    if (!info) {
      info = this.xobjectInfo(dict, resources, stream);
      this.imageInfo.set(dict, info);
    }
    return info;
  }

  /** An image's /SMask or /Mask stream: its declared and coded size (it is decoded like an image). */
  private maskOf(dict: PDFDict): MaskFacts | null {
    const ctx = this.context;
    for (const kind of ['SMask', 'Mask'] as const) {
      const raw = dict.get(PDFName.of(kind));
      const mask = resolve(ctx, raw);
      if (!(mask instanceof PDFRawStream)) continue; // a name (/None) or a colour-key array
      return {
        kind,
        ref: refLabel(raw instanceof PDFRef ? raw : undefined),
        widthPx: Math.max(0, Math.trunc(getNumber(ctx, mask.dict, 'Width') ?? 0)),
        heightPx: Math.max(0, Math.trunc(getNumber(ctx, mask.dict, 'Height') ?? 0)),
        coded: codedImageSize(mask.contents, filtersOf(ctx, mask.dict).map(fullFilterName)),
      };
    }
    return null;
  }

  private xobjectInfo(dict: PDFDict, resources: PDFDict | undefined, stream: PDFObject | undefined) {
    const ctx = this.context;
    const imageMask = getBool(ctx, dict, 'ImageMask') === true;
    const filters = filtersOf(ctx, dict).map(fullFilterName);
    const csObj = get(ctx, dict, 'ColorSpace');
    let colourSpace: ColourSpaceFacts | null = null;
    if (!imageMask) {
      colourSpace = csObj
        ? this.colourSpaces.describe(csObj, resources)
        : filters.includes('JPXDecode')
          ? this.jpxColourSpace(dict)
          : unknownColourSpace('no /ColorSpace');
    }
    return {
      widthPx: Math.max(0, Math.trunc(getNumber(ctx, dict, 'Width') ?? 0)),
      heightPx: Math.max(0, Math.trunc(getNumber(ctx, dict, 'Height') ?? 0)),
      bitsPerComponent: imageMask ? 1 : (intOrNull(getNumber(ctx, dict, 'BitsPerComponent'))),
      filters,
      colourSpace,
      imageMask,
      hasSMask: !!get(ctx, dict, 'SMask') && !nameOf(get(ctx, dict, 'SMask')),
      coded: stream instanceof PDFRawStream ? codedImageSize(stream.contents, filters) : null,
      mask: this.maskOf(dict),
      jpegQuality: stream instanceof PDFRawStream ? codedJpegQuality(stream.contents, filters) : null,
    };
  }

  /** A JPEG 2000 image without /ColorSpace carries its space in its own header (colr box or SIZ). */
  private jpxColourSpace(dict: PDFDict): ColourSpaceFacts {
    let cs = this.jpxSpaces.get(dict);
    if (!cs) {
      const stream = this.streamOf.get(dict);
      let header: Uint8Array | undefined;
      try {
        header = stream ? this.readStream(stream, { untilImageFilter: true }) : undefined;
      } catch (error) {
        if (!(error instanceof StreamDecodeError)) throw error;
      }
      cs = (header && jpxColourSpace(header)) ?? unknownColourSpace('the JPEG 2000 header cannot be read');
      this.jpxSpaces.set(dict, cs);
    }
    return cs;
  }

  private inlineInfo(dict: Map<string, Operand>, resources: PDFDict | undefined, data?: Uint8Array) {
    const v = (long: string, short: string) => dict.get(long) ?? dict.get(short);
    const imageMask = v('ImageMask', 'IM') === true;
    const f = v('Filter', 'F');
    const filters = (Array.isArray(f) ? f : f === undefined ? [] : [f])
      .map((x) => (isName(x) ? fullFilterName(x.name) : '?'));
    const cs = v('ColorSpace', 'CS');
    let colourSpace: ColourSpaceFacts | null = null;
    if (!imageMask) colourSpace = this.inlineColourSpace(cs, resources);
    const num = (x: Operand | undefined) => (isNum(x) ? Math.max(0, Math.trunc(x)) : 0);
    return {
      widthPx: num(v('Width', 'W')),
      heightPx: num(v('Height', 'H')),
      bitsPerComponent: imageMask ? 1 : isNum(v('BitsPerComponent', 'BPC')) ? Math.trunc(v('BitsPerComponent', 'BPC') as number) : null,
      filters,
      colourSpace,
      imageMask,
      hasSMask: false,
      coded: data ? codedImageSize(data, filters) : null,
      mask: null,
      jpegQuality: data ? codedJpegQuality(data, filters) : null,
    };
  }

  private inlineColourSpace(cs: Operand | undefined, resources: PDFDict | undefined): ColourSpaceFacts {
    if (isName(cs)) return this.colourSpaces.describe(cs.name, resources, true);
    if (Array.isArray(cs) && isName(cs[0])) {
      // [/I /RGB 255 <…>] or [/Indexed /DeviceCMYK …]
      const family = cs[0].name;
      if ((family === 'I' || family === 'Indexed') && cs[1] !== undefined) {
        const base = this.inlineColourSpace(cs[1], resources);
        return { family: 'Indexed', model: base.model, components: 1, label: `Indexed over ${base.label}`, base };
      }
      return this.colourSpaces.describe(family, resources, true);
    }
    return unknownColourSpace('no /ColorSpace');
  }

  private inlineImage(dict: Map<string, Operand>, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>, data: Uint8Array) {
    if (++this.operators > this.limits.maxOperators) {
      this.tooComplex = true;
      throw new LimitReached();
    }
    this.addImage(dict, null, null, true, resources, gs, via, active, undefined, data);
  }

  /** Exact data length of an unfiltered inline image, so binary data containing "EI" is skipped. */
  private inlineDataLength(dict: Map<string, Operand>, resources: PDFDict | undefined): number | null {
    const v = (long: string, short: string) => dict.get(long) ?? dict.get(short);
    const filter = v('Filter', 'F');
    if (filter !== undefined && !(Array.isArray(filter) && filter.length === 0)) {
      const explicit = v('Length', 'L');
      return isNum(explicit) ? explicit : null;
    }
    const info = this.inlineInfo(dict, resources);
    const comps = info.imageMask ? 1 : (info.colourSpace?.components ?? 0);
    const bpc = info.bitsPerComponent ?? 8;
    if (!comps || !info.widthPx || !info.heightPx) return null;
    return Math.ceil((info.widthPx * comps * bpc) / 8) * info.heightPx;
  }
}

function initialState(ctm: Matrix): GState {
  return {
    ctm,
    fill: GRAY,
    stroke: GRAY,
    fillPattern: undefined,
    strokePattern: undefined,
    textRender: 0,
    font: undefined,
    lineWidth: 1,
    clip: null,
    fontSize: 0,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
  };
}

/** The smallest and largest scale a 2 × 2 matrix applies to any direction. */
export function singularValues(a: number, b: number, c: number, d: number): { min: number; max: number } {
  const s = a * a + b * b + c * c + d * d;
  const det = a * d - b * c;
  const root = Math.sqrt(Math.max(0, s * s - 4 * det * det));
  return { min: Math.sqrt(Math.max(0, (s - root) / 2)), max: Math.sqrt((s + root) / 2) };
}

function matrixOf(context: PDFContext, dict: PDFDict): Matrix | undefined {
  const m = get(context, dict, 'Matrix');
  if (!(m instanceof PDFArray) || m.size() !== 6) return undefined;
  const values = items(context, m).map(numberOf);
  return values.every((x) => x !== undefined) && isFiniteMatrix(values as number[]) ? (values as Matrix) : undefined;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MiB` : `${n} bytes`;
}

function intOrNull(n: number | undefined): number | null {
  return n === undefined ? null : Math.trunc(n);
}
