/**
 * Scans a page's content streams without decoding any image: follows the graphics state (q Q cm),
 * draws of image XObjects, Form XObjects (recursively, guarded against cycles and depth) and inline
 * images, and which colour spaces painting operators use for fills, strokes, text, shadings and
 * patterns.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { Appearance } from './annotations.js';
import { ColourSpaceResolver, unknownColourSpace } from './colour-space.js';
import type { ColourSpaceFacts, ColourUse, FontUse, ImageFacts, MaskFacts, PageMarks, TextMark, Transparency } from './facts.js';
import type { Matrix, Rect } from '../model/geometry.js';
import { ContentSyntaxError, isName, isNum, lexContent, type Operand } from './lexer.js';
import { IDENTITY, isFiniteMatrix, multiply, transformedBox, unitSquareBox } from './matrix.js';
import { MarkCollector, MarkTally, PathBox, clipBox, colourInks } from './marks.js';
import { isCjkFont } from './font-script.js';
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
import { allocatedSize, codedImageSize, codedJpegQuality } from './image-header.js';
import { BudgetExceededError, DecodeBudget, formatBytes } from './decode-budget.js';
import { RendererScreen } from './screen.js';
import { RenderCost } from './render-cost.js';
import { IMAGE_FILTERS, StreamDecodeError, StreamTooLargeError, decodeFilters, filterParamsOf, filtersOf, fullFilterName, joinContentStreams, type StreamReader } from './streams.js';
import { jpxColourSpace } from './jpx.js';
import type { OptionalContent } from './optional-content.js';
import type { FontPrograms, Type3Glyphs } from './font/program.js';
import { markCodesShown, sumCodesShown } from './font/codes.js';
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
  /**
   * Pixels of the images a renderer decodes that the page's image list does not show: images
   * drawn by Type 3 glyphs and in soft-mask groups (the listed ones are budgeted by the caller).
   */
  maxHiddenImagePixels: number;
  /** Mesh-shading elements a renderer works through for the page (vertices of triangle meshes; the pieces patches are cut into, mesh-cost.ts). */
  maxMeshElements: number;
  /**
   * Steps a renderer takes deciding what optional content is visible on the page: every marked
   * sequence and XObject with /OC costs the groups it lists or its expression expanded.
   */
  maxOptionalContentSteps: number;
  /**
   * A renderer's estimated time to draw the page, in ms (render-cost.ts): its operators, path
   * points and glyphs, and the pixels its fills, strokes, glyphs, images and shadings cover. A page
   * over it is too complex: its inspection stops and it is not rendered.
   */
  maxRenderMs: number;
  /**
   * The same for the file's first `renderedPages` pages together (renderers draw one after
   * another): pages past it are too complex and not rendered, so a file of many heavy pages stays
   * within the file's time.
   */
  maxFileRenderMs: number;
  /** The pages the file's render budget counts: those a check renders (`maxRasterPages`, 64 by default). */
  renderedPages: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxFormDepth: 32,
  maxStateDepth: 512,
  maxOperators: 5_000_000,
  maxDecodedBytes: 128 * 1024 * 1024,
  maxImageDraws: 10_000,
  maxHiddenImagePixels: 48_000_000,
  maxMeshElements: 500_000,
  maxOptionalContentSteps: 5_000_000,
  maxRenderMs: 10_000,
  maxFileRenderMs: 12_000,
  renderedPages: 64,
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
  /** Tiling patterns painted: their cells over the page, and the smallest cell step on the page (pt). */
  tiling: { cells: number; smallestStepPt: number } | null;
  /**
   * Where text, lines, shapes and images are painted (bounded), and how much of the visible page
   * the content inks (marks.ts).
   */
  marks: PageMarks;
  /** Blend modes and knockout groups the page uses: renderers differ in how they draw them. */
  transparency: Transparency;
  /**
   * What readers draw differently, counted: colours set outside their Indexed palette (PDFium paints
   * nothing; Ghostscript, MuPDF and pdf.js clamp to the palette), and inline images whose filtered
   * data does not decode to the image (PDFium loses the rest of the content stream after one).
   */
  hazards: { indexedOutOfRange: number; damagedInlineImages: number };
  /** What drawing the page costs a renderer (render-cost.ts). */
  renderWork: { operations: number; estimatedMs: number; groups: number };
}

interface GState {
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
/** Path construction: operand pairs that are points (re: x y w h). */
const PATH_OPS = new Set(['m', 'l', 'c', 'v', 'y', 're']);
/** Blend modes that are plain painting (ISO 32000-2 §11.3.5). */
const NORMAL_BLEND = new Set(['Normal', 'Compatible']);

class LimitReached extends Error {}

/** What showing text in a font asks of the scan: the Type 3 codes to mark, the operators each Type 3 glyph replays. */
interface FontShown {
  codes?: Uint8Array | undefined;
  procOperations?: Float64Array;
}

export class ContentScanner {
  private readonly images: ImageFacts[] = [];
  private readonly colours = new Map<string, ColourUse>();
  private readonly notes = new Set<string>();
  private readonly damage = new Set<string>();
  private readonly fonts = new Map<PDFObject, FontUse>();
  /** Type 3 fonts used on the page, with the codes shown in them. */
  private readonly type3Codes = new Map<PDFObject, { use: FontUse; glyphs: Type3Glyphs; codes: Uint8Array }>();
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
  /** Above zero while Type 3 glyphs or soft-mask groups run: only what a renderer would decode counts, nothing is recorded. */
  private screening = 0;
  /** Images drawn by glyphs and soft-mask groups, each once, and their pixels together. */
  private readonly hiddenImages = new Set<PDFObject | Map<string, Operand>>();
  private hiddenPixels = 0;
  private meshElements = 0;
  private ocSteps = 0;
  private ocRefused = false;
  /** Glyph procedures and soft-mask groups already screened on this page. */
  private readonly screened = new Set<PDFObject>();
  private readonly budget: DecodeBudget;
  private readonly screen: RendererScreen;
  private readonly fontPrograms: FontPrograms | undefined;
  /** Where a pattern's matrix maps to: the page's default space, or the pattern's it is painted in. */
  private patternBase: Matrix = IDENTITY;
  /** The page's area in default user space (pt²), for tiling cell counts. */
  private pageArea = 612 * 792;
  private readonly tiling = { cells: 0, smallestStepPt: Number.POSITIVE_INFINITY };
  /** Where the page paints, mark by mark (bounded), and the area it inks. */
  private marks = new MarkCollector(null);
  private ink = new MarkTally(undefined);
  /** What drawing the page costs a renderer, estimated as it is read. */
  private cost = new RenderCost(null);
  private readonly blendModes = new Set<string>();
  private knockoutGroups = 0;
  private readonly hazards = { indexedOutOfRange: 0, damagedInlineImages: 0 };
  /** Inside a tiling pattern's cell: its content is drawn wherever the pattern fills, so no marks (and no ink of its own). */
  private inPattern = 0;
  private readonly metrics = new Map<PDFObject, FontMetrics>();
  private stateTooDeep = false;
  /** What drawing each soft-mask group costs a renderer, measured when it is screened. */
  private readonly maskMicros = new Map<PDFObject, number>();
  private markedTooDeep = false;
  /** The last colour recorded, and the last font selected (by the Tf that selected it): runs repeat them. */
  private lastColour: { use: ColourUse['use']; space: ColourSpaceFacts; entry: ColourUse } | undefined;
  private lastFont: { key: GState['font'] | null; shown: FontShown } = { key: null, shown: {} };
  /** The operators of each Type 3 font's glyph procedures, by code (screened once per page). */
  private readonly type3Operations = new Map<PDFObject, Float64Array>();
  private lastMetrics: { key: GState['font'] | null; metrics: FontMetrics | undefined } = { key: null, metrics: undefined };

  constructor(
    private readonly context: PDFContext,
    private readonly colourSpaces: ColourSpaceResolver,
    private readonly readStream: StreamReader,
    private readonly userUnit: number,
    private readonly limits: ScanLimits = DEFAULT_SCAN_LIMITS,
    /** Hidden optional content is skipped: it prints nothing. Without it, all content counts. */
    private readonly optionalContent?: OptionalContent,
    /** The file's decode budget and renderer screen (shared by its pages; fresh ones when absent), and its font programs (checked once per document; without them, fonts are not checked). */
    shared: { budget?: DecodeBudget | undefined; screen?: RendererScreen | undefined; fontPrograms?: FontPrograms | undefined } = {},
  ) {
    this.budget = shared.budget ?? new DecodeBudget();
    this.screen = shared.screen ?? new RendererScreen(context, readStream);
    this.fontPrograms = shared.fontPrograms;
  }

  /**
   * Scans the page's /Contents with its /Resources, then the appearance streams of its printable
   * annotations, which print on top of the page.
   */
  scanPage(contents: PDFObject | undefined, resources: PDFDict | undefined, appearances: readonly Appearance[] = [], pageBox: Rect | null = null, pageArea?: number): ScanResult {
    this.pageResources = resources;
    this.marks = new MarkCollector(pageBox);
    if (pageArea !== undefined && pageArea > 0) this.pageArea = pageArea;
    this.ink = new MarkTally(pageBox ?? undefined);
    this.cost = new RenderCost(pageBox);
    // /Contents is a stream, an array of streams, or a reference to either (ISO 32000-2 §7.7.3.3).
    const resolved = resolve(this.context, contents);
    const streams = resolved instanceof PDFArray ? items(this.context, resolved) : [resolved];
    const parts: Uint8Array[] = [];
    try {
      for (const s of streams) {
        if (!s) continue;
        const data = this.read(s, 'page content', true);
        if (data) parts.push(data);
      }
      this.run(joinContentStreams(parts), resources, initialState(IDENTITY), [], new Set());
      for (const a of appearances) {
        this.runForm(a.stream, a.label, resources, initialState(a.placement), [], new Set(), false);
      }
      this.checkRenderCost();
    } catch (error) {
      if (error instanceof BudgetExceededError) {
        // The file's budget is spent: the page is not inspected further, nor rendered.
        this.tooComplex = true;
        this.notes.add(`not inspected to the end: ${error.message}`);
      } else if (!(error instanceof LimitReached)) throw error;
    }
    return this.result();
  }

  /**
   * A named resource. A form without the entry falls back to the page's resources, as poppler and
   * pdf.js do for old files whose forms inherit them (PDF 1.1).
   */
  /** The hival of the Indexed colour space a `cs`/`CS` names ([/Indexed base hival lookup]). */
  private indexedHival(name: string, resources: PDFDict | undefined): number | undefined {
    const cs = resolve(this.context, this.resource(resources, 'ColorSpace', name));
    if (!(cs instanceof PDFArray)) return undefined;
    const hival = numberOf(resolve(this.context, cs.get(2)));
    return hival !== undefined && Number.isFinite(hival) ? Math.trunc(hival) : undefined;
  }

  /** Counts an index outside the Indexed palette in force (`sc`/`scn` and their stroke forms). */
  private checkIndex(gs: GState, fill: boolean, args: Operand[]): void {
    const space = fill ? gs.fill : gs.stroke;
    const hival = fill ? gs.fillHival : gs.strokeHival;
    if (space.family !== 'Indexed' || hival === undefined) return;
    const index = numbers(args)[0];
    if (index !== undefined && (index < 0 || index > hival)) this.hazards.indexedOutOfRange++;
  }

  private resource(resources: PDFDict | undefined, category: string, name: string): PDFObject | undefined {
    const ctx = this.context;
    return getDict(ctx, resources, category)?.get(PDFName.of(name)) ?? getDict(ctx, this.pageResources, category)?.get(PDFName.of(name));
  }

  private hidden(oc: PDFObject | undefined): boolean {
    if (oc === undefined || this.optionalContent === undefined) return false;
    this.ocSteps += this.optionalContent.rendererCost(oc);
    if (this.ocSteps > this.limits.maxOptionalContentSteps && !this.ocRefused) {
      this.ocRefused = true;
      this.refuse(`deciding which optional content is visible takes a renderer more than ${grouped(this.limits.maxOptionalContentSteps)} steps (membership expressions or group lists, evaluated at every use)`);
    }
    return this.optionalContent.isHidden(oc);
  }

  private result(): ScanResult {
    this.judgeType3Codes();
    return {
      images: this.images,
      colours: [...this.colours.values()],
      fonts: [...this.fonts.values()],
      notes: [...this.notes].sort(),
      damage: [...this.damage].sort(),
      tooComplex: this.tooComplex,
      tiling: this.tiling.cells > 0 ? { cells: Math.min(this.tiling.cells, Number.MAX_VALUE), smallestStepPt: this.tiling.smallestStepPt } : null,
      marks: { ...this.marks.result(), ...this.ink.result() },
      transparency: { blendModes: [...this.blendModes].sort(), knockoutGroups: this.knockoutGroups },
      hazards: { ...this.hazards },
      renderWork: { operations: this.cost.operations, estimatedMs: Math.round(this.cost.micros / 1000), groups: Math.round(this.cost.groups * 100) / 100 },
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
      const data = this.readStream(obj, { maxBytes: left, what });
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
    this.budget.chargeInterpreted(bytes.length, via.length ? via.join(' › ') : 'page content');
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
    // The path being built, as a box in default user space (four numbers: a page may build
    // millions of paths), and whether it becomes a clip (W, W*).
    const path = new PathBox();
    let pendingClip = false;
    const endPath = () => {
      const box = pendingClip ? path.rect() : null;
      if (box) gs.clip = clipBox(box, gs.clip) ?? [box[0], box[1], box[0], box[1]];
      pendingClip = false;
      path.reset();
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
      this.budget.chargeOperator();
      this.cost.operator();
      if (this.cost.micros > this.limits.maxRenderMs * 1000) this.checkRenderCost();
      switch (op) {
        case 'BMC':
        case 'BDC': {
          const hide = op === 'BDC' && this.markedHidden(args, resources);
          if (marked.length < this.limits.maxStateDepth) {
            marked.push(hide);
            if (hide) hiddenDepth++;
          } else if (!this.markedTooDeep) {
            // PDFium copies the open sequences onto every object it reads: it ran out of memory on
            // 500,000 of them. Real pages nest a few.
            this.markedTooDeep = true;
            this.refuse(`marked-content sequences are nested more than ${this.limits.maxStateDepth} deep (a renderer keeps every open one with every object)`);
          }
          return;
        }
        case 'EMC':
          if (marked.pop()) hiddenDepth--;
          return;
      }
      // Hidden optional content changes the graphics state but paints nothing.
      if (hiddenDepth > 0 && !STATE_OPS.has(op)) return;
      if (PATH_OPS.has(op)) {
        this.cost.points(extendPath(path, op, args, gs.ctm));
        return;
      }
      switch (op) {
        case 'W':
        case 'W*':
          pendingClip = true;
          return;
        case 'w': {
          const width = args[0];
          if (isNum(width) && width >= 0) gs.lineWidth = width;
          return;
        }
        case 'd':
          gs.dashPeriod = dashPeriod(args[0]);
          return;
        case 'q':
          if (stack.length < this.limits.maxStateDepth) stack.push({ ...gs });
          else if (!this.stateTooDeep) {
            // pdf.js saves its canvas state at every q: a million of them took it more than a minute.
            this.stateTooDeep = true;
            this.refuse(`the graphics state is saved (q) more than ${this.limits.maxStateDepth} times without being restored (a renderer keeps every saved state)`);
          }
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
          gs.fillInk = colourInks(GRAY, numbers(args));
          return;
        case 'G':
          gs.stroke = GRAY;
          gs.strokeInk = colourInks(GRAY, numbers(args));
          return;
        case 'rg':
          gs.fill = RGB;
          gs.fillInk = colourInks(RGB, numbers(args));
          return;
        case 'RG':
          gs.stroke = RGB;
          gs.strokeInk = colourInks(RGB, numbers(args));
          return;
        case 'k':
          gs.fill = CMYK;
          gs.fillInk = colourInks(CMYK, numbers(args));
          return;
        case 'K':
          gs.stroke = CMYK;
          gs.strokeInk = colourInks(CMYK, numbers(args));
          return;
        case 'sc':
        case 'SC':
          if (op === 'sc') gs.fillInk = colourInks(gs.fill, numbers(args));
          else gs.strokeInk = colourInks(gs.stroke, numbers(args));
          this.checkIndex(gs, op === 'sc', args);
          return;
        case 'gs': {
          const n = args[0];
          if (!isName(n)) return;
          this.extGState(dictOf(resolve(ctx, this.resource(resources, 'ExtGState', n.name))), gs);
          this.screenExtGState(n.name, resources, gs, via, active);
          return;
        }
        case 'cs':
        case 'CS': {
          const n = args[args.length - 1];
          if (isName(n)) this.screenColourSpace(n.name, resources);
          const cs = isName(n) ? this.colourSpaces.describe(n.name, resources) : unknownColourSpace('no name given');
          const hival = cs.family === 'Indexed' && isName(n) ? this.indexedHival(n.name, resources) : undefined;
          if (op === 'cs') {
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
          const ink = isName(n) || colourInks(op === 'scn' ? gs.fill : gs.stroke, numbers(args));
          if (op === 'scn') gs.fillInk = ink;
          else gs.strokeInk = ink;
          this.checkIndex(gs, op === 'scn', args);
          return;
        }
        case 'Tf': {
          const n = args[0];
          if (isName(n)) gs.font = { name: n.name, resources };
          if (isNum(args[1])) gs.fontSize = args[1];
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
        case 'h':
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
          // The shading as found (a mesh shading is a stream: its data is screened too).
          const shading = resolve(ctx, this.resource(resources, 'Shading', n.name));
          if (!dictOf(shading)) return;
          this.useShading(shading!, resources, via);
          if (!this.inPattern && gs.fillAlpha > 0 && !gs.masked) this.ink.shade(gs.clip);
          this.cost.shading(gs.clip, gs.clip);
          this.cost.evaluatedOver(gs.clip, gs.clip, this.shadingSteps(shading));
          if (gs.maskMicros) this.cost.again(gs.maskMicros);
          return;
        }
        case 'Do': {
          const n = args[0];
          if (gs.maskMicros) this.cost.again(gs.maskMicros);
          if (isName(n)) this.doXObject(n.name, resources, gs, via, active);
          return;
        }
        default:
          if (gs.maskMicros && (FILL_OPS.has(op) || STROKE_OPS.has(op) || TEXT_SHOW_OPS.has(op))) this.cost.again(gs.maskMicros);
          if (FILL_OPS.has(op)) {
            this.paint('fill', gs, resources, via, active);
            if (!this.inPattern && gs.fillInk && gs.fillAlpha > 0 && !gs.masked) this.ink.fill(path, gs.clip);
            if (gs.fill.family === 'Pattern' && isShadingPattern(this.context, gs.fillPattern)) {
              this.cost.shading(path.rect(), gs.clip);
              this.cost.evaluatedOver(path.rect(), gs.clip, this.shadingSteps(get(this.context, dictOf(gs.fillPattern), 'Shading')));
            }
            else this.cost.fill(path, gs.clip);
          }
          if (STROKE_OPS.has(op)) {
            this.paint('stroke', gs, resources, via, active);
            const width = gs.lineWidth * Math.sqrt(Math.abs(gs.ctm[0] * gs.ctm[3] - gs.ctm[1] * gs.ctm[2]));
            if (!this.inPattern && gs.strokeInk && gs.strokeAlpha > 0 && !gs.masked) this.ink.stroke(path, width, gs.clip);
            this.cost.stroke(path, width, gs.clip, gs.dashPeriod * Math.sqrt(Math.abs(gs.ctm[0] * gs.ctm[3] - gs.ctm[1] * gs.ctm[2])));
          }
          if (PATH_END_OPS.has(op)) {
            const box = path.rect();
            if (box && !this.inPattern) this.pathMarks(op, box, gs);
            endPath();
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
              this.cost.glyphs(run.glyphs, run.box, gs.clip);
              tm = multiply([1, 0, 0, 1, run.advance, 0], tm);
              if (run.mark && !this.inPattern) lastText = this.addText(run.mark, lastText);
            }
            const mode = gs.textRender;
            // Invisible text (mode 3, e.g. an OCR layer) prints nothing: its font does not matter.
            if (gs.font && mode !== 3 && mode !== 7) {
              // The font a Tf selected: looked up once, however many runs show text in it.
              let shown: FontShown;
              if (!this.screening && this.lastFont.key === gs.font) shown = this.lastFont.shown;
              else {
                shown = this.useFont(gs.font.name, gs.font.resources);
                if (!this.screening) this.lastFont = { key: gs.font, shown };
              }
              if (shown.codes) markCodesShown(bytes, opStart, opEnd, shown.codes);
              // pdf.js runs a Type 3 glyph's procedure again at every glyph it shows.
              if (shown.procOperations) this.cost.replayed(sumCodesShown(bytes, opStart, opEnd, shown.procOperations));
            }
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
        {
          maxNesting: 256,
          maxOperands: 4096,
          maxTokenBytes: this.budget.limits.maxTokenBytes,
          maxContainerItems: this.budget.limits.maxContainerItems,
        },
      );
    } catch (error) {
      if (!(error instanceof ContentSyntaxError)) throw error;
      this.notes.add(`content stream is malformed: ${error.message}`);
      // Nesting, operand counts or token lengths beyond the limits are an attack on parsers, not a typo.
      if (/nesting|operands|longer than|items/.test(error.message)) this.tooComplex = true;
    }
  }

  /** The parts of an ExtGState that decide what prints: alpha, line width, blend mode. */
  private extGState(dict: PDFDict | undefined, gs: GState) {
    if (!dict) return;
    const ctx = this.context;
    const ca = getNumber(ctx, dict, 'ca');
    const CA = getNumber(ctx, dict, 'CA');
    const lw = getNumber(ctx, dict, 'LW');
    if (ca !== undefined) gs.fillAlpha = ca;
    if (CA !== undefined) gs.strokeAlpha = CA;
    if (lw !== undefined && lw >= 0) gs.lineWidth = lw;
    const dash = get(ctx, dict, 'D');
    if (dash instanceof PDFArray) {
      const pattern = resolve(ctx, dash.get(0));
      gs.dashPeriod = dashPeriod(pattern instanceof PDFArray ? items(ctx, pattern).map((v) => numberOf(v) ?? Number.NaN) : undefined);
    }
    const smask = resolve(ctx, dict.get(PDFName.of('SMask')));
    if (smask !== undefined) {
      gs.masked = nameOf(smask) !== 'None';
      if (!gs.masked) gs.maskMicros = 0;
    }
    const bm = resolve(ctx, dict.get(PDFName.of('BM')));
    // An array names modes in order of preference; readers use the first they know.
    const mode = bm instanceof PDFArray ? nameOf(resolve(ctx, bm.get(0))) : nameOf(bm);
    if (mode && !NORMAL_BLEND.has(mode)) this.blendModes.add(mode);
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
  private showText(bytes: Uint8Array, start: number, end: number, gs: GState, tm: Matrix): { advance: number; mark: TextMark | null; glyphs: number; box: Rect | null } | null {
    if (!gs.font) return null;
    let metrics: FontMetrics;
    if (this.lastMetrics.key === gs.font) metrics = this.lastMetrics.metrics!;
    else {
      metrics = this.fontMetricsOf(gs.font.name, gs.font.resources);
      this.lastMetrics = { key: gs.font, metrics };
    }
    const size = gs.fontSize;
    const th = gs.hScale;
    let x = 0;
    let minX = 0;
    let maxX = 0;
    let text = '';
    let glyphs = 0;
    let paints = false; // a run of spaces paints nothing: no mark
    for (const item of showOperands(bytes, start, end)) {
      if (typeof item === 'number') {
        x -= (item / 1000) * size * th;
      } else {
        const n = metrics.codeBytes;
        glyphs += Math.floor(item.length / n);
        for (let i = 0; i + n - 1 < item.length; i += n) {
          const code = n === 2 ? (item[i]! << 8) | item[i + 1]! : item[i]!;
          x += (metrics.advance(code) * size + gs.charSpacing + (n === 1 && code === 32 ? gs.wordSpacing : 0)) * th;
          paints ||= !metrics.blank(code);
          if (metrics.ascii && text.length < 60) text += code >= 32 && code < 127 ? String.fromCharCode(code) : '';
        }
      }
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
    }
    if (!paints || maxX - minX <= 0 || size === 0) return { advance: x, mark: null, glyphs, box: null };
    const m = multiply(tm, gs.ctm);
    const y0 = gs.rise + metrics.descent * size;
    const y1 = gs.rise + metrics.ascent * size;
    const box = clipBox(transformedBox(m, [minX, Math.min(y0, y1), maxX, Math.max(y0, y1)]), gs.clip);
    // Invisible text (Tr 3, 7) is still laid out, glyph by glyph, but paints nothing and marks nothing.
    if (gs.textRender === 3 || gs.textRender === 7) return { advance: x, mark: null, glyphs, box: null };
    const sizePt = Math.abs(size) * metrics.em * Math.hypot(m[2], m[3]) * this.userUnit;
    return { advance: x, mark: box && Number.isFinite(sizePt) ? { box, sizePt, text: text.trim() } : null, glyphs, box };
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
      m = fontMetrics(this.context, dictOf(font), (s) => this.readStream(s, { maxBytes: 1 << 20, what: 'a font’s /ToUnicode map' }));
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

  /**
   * Records the font a text operator shows; returns, for a Type 3 font, the flags of the codes
   * shown with it (its glyphs are judged by code), for the caller to mark, and the operators of
   * each code's glyph procedure.
   */
  private useFont(name: string, resources: PDFDict | undefined): FontShown {
    const shown = this.fontShown(name, resources);
    const font = resolve(this.context, this.resource(resources, 'Font', name));
    const procOperations = font ? this.type3Operations.get(font) : undefined;
    return procOperations ? { ...shown, procOperations } : shown;
  }

  private fontShown(name: string, resources: PDFDict | undefined): FontShown {
    const ctx = this.context;
    const entry = this.resource(resources, 'Font', name);
    const font = resolve(ctx, entry);
    const dict = dictOf(font);
    if (!font || !dict) {
      this.notes.add(`font /${name} is missing from the resources`);
      return {};
    }
    if (this.fonts.has(font)) return { codes: this.type3Codes.get(font)?.codes };
    if (this.screened.has(font)) return {};
    if (this.screening) this.screened.add(font);
    const subtype = getName(ctx, dict, 'Subtype') ?? null;
    const reason = this.screen.font(dict, `/${name}`);
    if (reason) this.refuse(reason);
    if (subtype === 'Type3') this.type3Glyphs(font, dict, name, resources);
    let descriptorOwner = dict;
    if (subtype === 'Type0') {
      const descendants = get(ctx, dict, 'DescendantFonts');
      const first = descendants instanceof PDFArray ? dictOf(items(ctx, descendants)[0]) : undefined;
      if (first) descriptorOwner = first;
    }
    const descriptor = getDict(ctx, descriptorOwner, 'FontDescriptor');
    const embedded = subtype === 'Type3' || ['FontFile', 'FontFile2', 'FontFile3'].some((k) => get(ctx, descriptor, k) !== undefined);
    const program = this.fontPrograms?.check(dict);
    // A font whose glyphs a renderer would work on for minutes keeps the page from every renderer,
    // wherever it is used (a glyph procedure or a soft mask draws text too).
    if (program?.hazard) this.refuse(`font /${name}: ${program.hazard}`);
    if (this.screening) return {};
    const use: FontUse = {
      name,
      ref: refLabel(entry instanceof PDFRef ? entry : undefined),
      baseFont: getName(ctx, dict, 'BaseFont') ?? null,
      subtype,
      embedded,
      ...(!embedded && isCjkFont(ctx, dict) ? { cjk: true as const } : {}),
      ...(program !== undefined ? { program } : {}),
    };
    this.fonts.set(font, use);
    const glyphs = subtype === 'Type3' ? this.fontPrograms?.type3(dict) : null;
    if (!glyphs) return {};
    const codes = new Uint8Array(256);
    this.type3Codes.set(font, { use, glyphs, codes });
    return { codes };
  }

  /** Type 3 fonts: the glyphs of the codes this page shows that cannot be drawn. */
  private judgeType3Codes(): void {
    for (const { use, glyphs, codes } of this.type3Codes.values()) {
      if (!use.program) continue;
      let failed = 0;
      let first: string | null = null;
      for (let code = 0; code < 256; code++) {
        if (!codes[code]) continue;
        const why = glyphs.failure(code);
        if (why === null) continue;
        failed++;
        first ??= why;
      }
      use.program = { ...use.program, failedGlyphs: failed, firstFailure: first };
    }
  }

  /**
   * A Type 3 font's glyph procedures, which a renderer runs when it loads the font: each is
   * screened once per page (what they draw is not recorded: glyphs are text, not artwork).
   */
  private type3Glyphs(font: PDFObject, dict: PDFDict, name: string, resources: PDFDict | undefined) {
    const ctx = this.context;
    const procs = getDict(ctx, dict, 'CharProcs');
    if (!procs) return;
    const inner = getDict(ctx, dict, 'Resources') ?? resources;
    const matrix = matrixOf(ctx, dict, 'FontMatrix') ?? [0.001, 0, 0, 0.001, 0, 0];
    const active = new Set<PDFObject>([font]);
    const operations = new Map<string, number>();
    this.screenRun(() => {
      for (const [key, value] of procs.entries()) {
        const proc = resolve(ctx, value);
        if (!(proc instanceof PDFRawStream) || this.screened.has(proc)) continue;
        this.screened.add(proc);
        const glyph = key.decodeText();
        const data = this.read(proc, `glyph /${glyph} of Type 3 font /${name}`);
        const before = this.cost.operations;
        if (data) this.run(data, inner, initialState(matrix), [`font /${name}`], active);
        operations.set(glyph, this.cost.operations - before);
      }
    });
    const glyphs = this.fontPrograms?.type3(dict);
    if (!glyphs) return;
    const byCode = new Float64Array(256);
    for (let code = 0; code < 256; code++) {
      const glyph = glyphs.glyphName(code);
      byCode[code] = glyph === undefined ? 0 : (operations.get(glyph) ?? 0);
    }
    this.type3Operations.set(font, byCode);
  }

  private record(use: ColourUse['use'], colourSpace: ColourSpaceFacts, via: string[]) {
    if (this.screening) return;
    // A page paints in the same colour space many times in a row: the last entry, without a key.
    const last = this.lastColour;
    if (last && last.use === use && last.space === colourSpace) {
      last.entry.count++;
      return;
    }
    const key = `${use}\u0000${colourSpace.label}`;
    let entry = this.colours.get(key);
    if (entry) entry.count++;
    else this.colours.set(key, (entry = { use, colourSpace, count: 1, via: [...via] }));
    this.lastColour = { use, space: colourSpace, entry };
  }

  private useShading(shading: PDFObject, resources: PDFDict | undefined, via: string[], use: ColourUse['use'] = 'shading') {
    const cost = this.screen.shading(shading, (cs) => this.colourSpaces.describe(cs, resources).components);
    if (cost.reason) this.refuse(cost.reason);
    this.meshElements += cost.meshElements;
    if (cost.meshElements && this.meshElements > this.limits.maxMeshElements) {
      this.refuse(`its mesh shadings take about ${grouped(this.meshElements)} pieces to draw (triangle vertices, and the pieces renderers cut patches into; more than ${grouped(this.limits.maxMeshElements)})`);
    }
    const cs = this.colourSpaces.describe(get(this.context, dictOf(shading), 'ColorSpace'), resources);
    this.record(use, cs, via);
  }

  /**
   * Function steps a renderer evaluates per pixel of a shading: a function-based shading's (type 1),
   * and a mesh shading's whose colours come from a function (types 4–7); axial and radial shadings
   * sample theirs a few hundred times, whatever their size.
   */
  private shadingSteps(shading: PDFObject | undefined): number {
    const dict = dictOf(resolve(this.context, shading));
    if (!dict) return 0;
    const type = getNumber(this.context, dict, 'ShadingType') ?? 0;
    const fn = get(this.context, dict, 'Function');
    return fn && (type === 1 || type >= 4) ? this.screen.evaluationSteps(fn) : 0;
  }

  /** Past the render-cost limit: the page is too complex to draw, and its inspection stops here. */
  private checkRenderCost(): void {
    const ms = this.cost.micros / 1000;
    if (ms <= this.limits.maxRenderMs) return;
    const c = this.cost;
    this.refuse(
      `drawing it would take a renderer ${grouped(Math.round(ms / 1000))} s or more (${c.describe()}), more than the ${grouped(this.limits.maxRenderMs / 1000)} s a page may take: inspection stopped`,
    );
    throw new LimitReached();
  }

  /** Something a renderer would be given is over its budget: the page is kept from the renderer. */
  private refuse(reason: string): void {
    this.tooComplex = true;
    this.notes.add(`${reason}; the page is not rendered`);
  }

  /** A named colour space the renderer will build (tint transforms, ICC profile, lookup table). */
  private screenColourSpace(name: string, resources: PDFDict | undefined) {
    const obj = this.resource(resources, 'ColorSpace', name);
    const reason = obj ? this.screen.colourSpace(obj) : null;
    if (reason) this.refuse(reason);
  }

  /**
   * An ExtGState a renderer applies: its transfer functions, and its soft mask — a group the
   * renderer draws in full, so what it draws is screened like page content (nothing recorded).
   */
  private screenExtGState(name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>) {
    const ctx = this.context;
    const dict = dictOf(resolve(ctx, this.resource(resources, 'ExtGState', name)));
    if (!dict) return;
    for (const key of ['TR', 'TR2']) {
      const reason = this.screen.func(get(ctx, dict, key), `the transfer function of graphics state /${name}`);
      if (reason) this.refuse(reason);
    }
    const smask = dictOf(get(ctx, dict, 'SMask'));
    if (!smask) return;
    const reason = this.screen.func(get(ctx, smask, 'TR'), `the soft mask transfer function of graphics state /${name}`);
    if (reason) this.refuse(reason);
    const group = resolve(ctx, smask.get(PDFName.of('G')));
    if (!(group instanceof PDFRawStream)) return;
    if (!this.screened.has(group)) {
      this.screened.add(group);
      const before = this.cost.micros;
      this.screenRun(() => this.runForm(group, `the soft mask of graphics state /${name}`, resources, gs, via, active, false));
      this.maskMicros.set(group, this.cost.micros - before);
    }
    // pdf.js draws the page through a buffer of its own from here; every object painted through
    // the mask has it drawn again (3,000 fills through a mask of 200 took both engines minutes).
    this.cost.group(gs.clip, null);
    gs.maskMicros = this.maskMicros.get(group) ?? 0;
  }

  /** Runs content a renderer draws but the page's facts do not list (glyph procedures, soft-mask groups). */
  private screenRun(fn: () => void) {
    this.screening++;
    try {
      fn();
    } finally {
      this.screening--;
    }
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
      const shading = get(ctx, pattern, 'Shading');
      if (dictOf(shading)) this.useShading(shading!, resources, via, use === 'stencil' ? 'stencil' : 'shading');
      return;
    }
    const paintType = getNumber(ctx, pattern, 'PaintType');
    const matrix = multiply(matrixOf(ctx, pattern) ?? IDENTITY, this.patternBase);
    this.tilingUse(pattern, matrix);
    // Uncoloured tiling pattern: painted in the underlying space of [/Pattern base]; its cell is
    // still drawn by a renderer, so what it draws is screened (not recorded).
    if (paintType === 2 && cs.base) this.record(use, cs.base, via);
    if (active.has(patternObj)) {
      // A renderer draws a cell of it with itself, and so on: it never finishes.
      this.refuse('a tiling pattern paints with itself, directly or through other patterns or forms');
      return;
    }
    // Scanned once per page. Its matrix maps to the page's default space (or the pattern's it is
    // used in), not to the current CTM.
    if (this.patternsSeen.has(patternObj) || !(patternObj instanceof PDFRawStream)) return;
    this.patternsSeen.add(patternObj);
    if (via.length >= this.limits.maxFormDepth) {
      this.notes.add(`pattern nesting deeper than ${this.limits.maxFormDepth} or cyclic: not followed`);
      return;
    }
    const data = this.read(patternObj, 'pattern');
    if (!data) return;
    const inner = getDict(ctx, pattern, 'Resources') ?? resources;
    const outerBase = this.patternBase;
    active.add(patternObj);
    this.patternBase = matrix;
    this.inPattern++;
    try {
      const run = () => this.run(data, inner, initialState(matrix), [...via, 'pattern'], active);
      if (paintType === 2) this.screenRun(run);
      else run();
    } finally {
      this.inPattern--;
      this.patternBase = outerBase;
      active.delete(patternObj);
    }
  }

  /**
   * A tiling pattern painted once more: how many of its cells would cover the page (a renderer
   * such as PDFium draws each), and how small a cell is on the page (one far below a pixel makes
   * pdf.js work for ever). Steps of 0 are the cell's box, as renderers take them.
   */
  private tilingUse(pattern: PDFDict, matrix: Matrix) {
    const ctx = this.context;
    const bbox = get(ctx, pattern, 'BBox');
    const box = bbox instanceof PDFArray ? items(ctx, bbox).map((v) => numberOf(v) ?? 0) : [];
    const step = (key: string, i: number) => Math.abs(getNumber(ctx, pattern, key) ?? 0) || Math.abs((box[i + 2] ?? 0) - (box[i] ?? 0));
    const scale = Math.sqrt(Math.abs(matrix[0] * matrix[3] - matrix[1] * matrix[2]));
    const x = step('XStep', 0) * scale;
    const y = step('YStep', 1) * scale;
    const cells = x > 0 && y > 0 ? this.pageArea / (x * y) : Number.POSITIVE_INFINITY;
    this.tiling.cells += cells;
    this.tiling.smallestStepPt = Math.min(this.tiling.smallestStepPt, Math.min(x, y));
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
    const group = getDict(ctx, dict, 'Group');
    if (getBool(ctx, group, 'K') === true) this.knockoutGroups++;
    if (getName(ctx, group, 'S') === 'Transparency') this.cost.group(clip as Rect | null, null);
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
    if (this.screening) {
      this.hiddenImage(dict, resources, stream, inlineData);
      return;
    }
    if (this.images.length >= this.limits.maxImageDraws) {
      this.tooComplex = true;
      this.notes.add(`the page draws images more than ${grouped(this.limits.maxImageDraws)} times: inspection stopped, the page is not rendered`);
      throw new LimitReached();
    }
    const info = inline ? this.inlineInfo(dict as Map<string, Operand>, resources, inlineData) : this.cachedInfo(dict as PDFDict, resources, stream);
    this.cost.image(unitSquareBox(gs.ctm), gs.clip);
    if (!this.inPattern) {
      if (!info.imageMask) this.ink.image(unitSquareBox(gs.ctm), gs.clip);
      else if (gs.fillInk && gs.fillAlpha > 0 && !gs.masked) this.ink.fill(unitSquareBox(gs.ctm), gs.clip, 0.5);
    }
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

  /** An image drawn by a glyph or in a soft-mask group: its pixels count against the page's render budget. */
  private hiddenImage(dict: PDFDict | Map<string, Operand>, resources: PDFDict | undefined, stream?: PDFObject, inlineData?: Uint8Array) {
    const key = stream ?? dict;
    if (this.hiddenImages.has(key)) return;
    this.hiddenImages.add(key);
    const info = dict instanceof Map ? this.inlineInfo(dict, resources, inlineData) : this.cachedInfo(dict, resources, stream);
    const own = allocatedSize(info);
    const mask = info.mask ? allocatedSize(info.mask) : { widthPx: 0, heightPx: 0 };
    this.hiddenPixels += own.widthPx * own.heightPx + mask.widthPx * mask.heightPx;
    if (this.hiddenPixels > this.limits.maxHiddenImagePixels) {
      this.refuse(`Type 3 glyphs or soft-mask groups draw images of ${grouped(this.hiddenPixels)} pixels (a renderer decodes them whole; more than ${grouped(this.limits.maxHiddenImagePixels)})`);
      throw new LimitReached();
    }
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
        coded: this.codedSize(mask),
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
    if (!imageMask && csObj) {
      const reason = this.screen.colourSpace(csObj);
      if (reason) this.refuse(reason);
      // A DeviceN image's tint transform is evaluated at each of its pixels, once per page.
      const steps = this.screen.pixelSteps(csObj);
      if (steps) this.cost.evaluated(steps * Math.max(0, getNumber(ctx, dict, 'Width') ?? 0) * Math.max(0, getNumber(ctx, dict, 'Height') ?? 0));
    }
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
      coded: stream instanceof PDFRawStream ? this.codedSize(stream) : null,
      mask: this.maskOf(dict),
      jpegQuality: stream instanceof PDFRawStream ? codedJpegQuality(stream.contents, filters, this.budget) : null,
    };
  }

  /**
   * The size an image's data declares (JPEG, JPEG 2000, JBIG2 headers; CCITT /Columns), its
   * header read through any wrapping filters under the file's budget.
   */
  private codedSize(stream: PDFRawStream) {
    const ctx = this.context;
    const filters = filtersOf(ctx, stream.dict).map(fullFilterName);
    if (filters.at(-1) === 'JBIG2Decode') {
      // Every segment counts, in the globals too: the whole data is read, not a header.
      const { claims, reason } = this.screen.jbig2(stream, this.jbig2Globals(stream.dict));
      if (reason) this.refuse(reason);
      return claims && claims.widthPx && claims.heightPx ? { format: 'jbig2' as const, widthPx: claims.widthPx, heightPx: claims.heightPx, components: 1, progressive: false } : null;
    }
    const params = filterParamsOf(ctx, stream.dict, filters.length).at(-1);
    const height = getNumber(ctx, stream.dict, 'Height');
    return codedImageSize(stream.contents, filters, this.budget, { columns: params?.columns, rows: params?.rows, height });
  }

  /** A JBIG2 image's /JBIG2Globals entry (in the JBIG2Decode filter's parameters). */
  private jbig2Globals(dict: PDFDict): PDFObject | undefined {
    const ctx = this.context;
    const filters = filtersOf(ctx, dict).map(fullFilterName);
    const parms = get(ctx, dict, 'DecodeParms') ?? get(ctx, dict, 'DP');
    const own = parms instanceof PDFArray ? dictOf(items(ctx, parms)[filters.indexOf('JBIG2Decode')]) : dictOf(parms);
    return own?.get(PDFName.of('JBIG2Globals'));
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
      coded: data ? this.inlineCoded(data, filters, dict) : null,
      mask: null,
      jpegQuality: data ? codedJpegQuality(data, filters, this.budget) : null,
    };
  }

  private inlineCoded(data: Uint8Array, filters: string[], dict: Map<string, Operand>) {
    const parms = dict.get('DecodeParms') ?? dict.get('DP');
    const own = Array.isArray(parms) ? parms[parms.length - 1] : parms;
    const num = (key: string) => {
      const v = own && typeof own === 'object' && 'dict' in own ? own.dict.get(key) : undefined;
      return isNum(v) ? v : undefined;
    };
    const height = dict.get('Height') ?? dict.get('H');
    return codedImageSize(data, filters, this.budget, { columns: num('Columns'), rows: num('Rows'), height: isNum(height) ? height : undefined });
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
    if (this.inlineDataDamaged(dict, resources, data)) this.hazards.damagedInlineImages++;
  }

  /**
   * Whether an inline image's filtered data is corrupt (its Flate or LZW data does not decode): a
   * reader that finds the image's end by decoding it (PDFium) then reads the rest of the content
   * stream from inside the image data and loses what follows (qpdf damaged-inline-image.pdf);
   * readers that look for `EI` (pdf.js, Ghostscript, MuPDF) draw on. Only the image's own bytes
   * are decoded, up to its size (at most 4 MiB), under the file's budget; images with image filters
   * (JPEG…) or decode parameters are not judged.
   */
  private inlineDataDamaged(dict: Map<string, Operand>, resources: PDFDict | undefined, data: Uint8Array): boolean {
    const f = dict.get('Filter') ?? dict.get('F');
    const filters = (Array.isArray(f) ? f : f === undefined ? [] : [f]).map((x) => (isName(x) ? fullFilterName(x.name) : '?'));
    if (!filters.length || filters.some((x) => x === '?' || IMAGE_FILTERS.has(x)) || dict.has('DecodeParms') || dict.has('DP')) return false;
    const num = (long: string, short: string) => {
      const v = dict.get(long) ?? dict.get(short);
      return isNum(v) && v > 0 ? Math.trunc(v) : 0;
    };
    const info = this.inlineInfo(dict, resources);
    const components = info.imageMask ? 1 : Math.max(1, info.colourSpace?.components ?? 1);
    const bpc = info.imageMask ? 1 : num('BitsPerComponent', 'BPC') || 8;
    const expected = Math.ceil((num('Width', 'W') * components * bpc) / 8) * num('Height', 'H');
    // Inline images are small by intent (the standard suggests 4 KB); a large one is left unjudged
    // rather than decoded whole a second time (renderers decode it under the screen's bounds).
    if (expected <= 0 || expected > MAX_CHECKED_INLINE_BYTES) return false;
    try {
      decodeFilters(data, filters, [], { maxBytes: expected, prefix: expected, budget: this.budget, what: 'an inline image' });
      return false;
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
      return error instanceof StreamDecodeError && !(error instanceof StreamTooLargeError);
    }
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

/** Inline images decoded to check their data (content-scan inlineDataDamaged): at most this many bytes. */
const MAX_CHECKED_INLINE_BYTES = 4 * 1024 * 1024;

function initialState(ctm: Matrix): GState {
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

function numbers(args: Operand[]): number[] {
  return args.filter(isNum);
}

/** Grows the path's box by the points of one construction operator (re: x y w h); returns how many points it added. */
function extendPath(path: PathBox, op: string, args: Operand[], ctm: Matrix): number {
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
function dashPeriod(array: Operand | undefined): number {
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
function isShadingPattern(context: PDFContext, pattern: PDFObject | undefined): boolean {
  return getNumber(context, dictOf(pattern), 'PatternType') === 2;
}

/** The smallest and largest scale a 2 × 2 matrix applies to any direction. */
export function singularValues(a: number, b: number, c: number, d: number): { min: number; max: number } {
  const s = a * a + b * b + c * c + d * d;
  const det = a * d - b * c;
  const root = Math.sqrt(Math.max(0, s * s - 4 * det * det));
  return { min: Math.sqrt(Math.max(0, (s - root) / 2)), max: Math.sqrt((s + root) / 2) };
}

function matrixOf(context: PDFContext, dict: PDFDict, key = 'Matrix'): Matrix | undefined {
  const m = get(context, dict, key);
  if (!(m instanceof PDFArray) || m.size() !== 6) return undefined;
  const values = items(context, m).map(numberOf);
  return values.every((x) => x !== undefined) && isFiniteMatrix(values as number[]) ? (values as Matrix) : undefined;
}

function intOrNull(n: number | undefined): number | null {
  return n === undefined ? null : Math.trunc(n);
}
