/**
 * What one page's scan shares between its interpreter and its collectors: the file's resolvers,
 * budget and renderer screen, the page's limits and what it has spent of them, its notes, and the
 * machinery that stops it (LimitReached, refusals to render).
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { ColourSpaceResolver } from '../colour-space.js';
import type { Matrix } from '../../model/geometry.js';
import { IDENTITY } from '../matrix.js';
import { MarkCollector, MarkTally } from '../marks.js';
import { PDFName, PDFRawStream, getDict } from '../objects.js';
import { DecodeBudget, formatBytes } from '../decode-budget.js';
import { RendererScreen } from '../screen.js';
import { RenderCost } from '../render-cost.js';
import { StreamDecodeError, StreamTooLargeError, type StreamReader } from '../streams.js';
import type { OptionalContent } from '../optional-content.js';
import type { FontPrograms } from '../font/program.js';
import { grouped } from '../../util/text.js';
import { LimitReached, type ScanLimits } from './limits.js';
import type { GState } from './state.js';

/** How collectors have the interpreter run content they find (patterns, glyph procedures, soft masks, forms). */
export interface ContentRunner {
  run(bytes: Uint8Array, resources: PDFDict | undefined, start: GState, via: string[], active: Set<PDFObject>): void;
  /**
   * Runs a Form XObject's content: `gs.ctm` is where the form is drawn, and the form's /Matrix
   * comes first. `named` forms are labelled /Name in notes; annotation appearances by their label.
   */
  runForm(xobj: PDFObject, name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>, named: boolean): void;
  doXObject(name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>): void;
}

/** The file-wide things a page's scan uses (fresh ones when absent). */
export interface SharedScan {
  budget?: DecodeBudget | undefined;
  screen?: RendererScreen | undefined;
  fontPrograms?: FontPrograms | undefined;
}

export class PageScan {
  readonly notes = new Set<string>();
  readonly damage = new Set<string>();
  tooComplex = false;
  /** Operators interpreted on this page (forms included), against limits.maxOperators. */
  operators = 0;
  readonly budget: DecodeBudget;
  readonly screen: RendererScreen;
  readonly fontPrograms: FontPrograms | undefined;
  /** Set once the interpreter is built: it runs what collectors find. */
  runner!: ContentRunner;
  pageResources: PDFDict | undefined;
  /** Above zero while Type 3 glyphs or soft-mask groups run: only what a renderer would decode counts, nothing is recorded. */
  screening = 0;
  /** Glyph procedures and soft-mask groups already screened on this page. */
  readonly screened = new Set<PDFObject>();
  /** Inside a tiling pattern's cell: its content is drawn wherever the pattern fills, so no marks (and no ink of its own). */
  inPattern = 0;
  /** Where a pattern's matrix maps to: the page's default space, or the pattern's it is painted in. */
  patternBase: Matrix = IDENTITY;
  /** The page's area in default user space (pt²), for tiling cell counts. */
  pageArea = 612 * 792;
  /** Where the page paints, mark by mark (bounded), and the area it inks. */
  marks = new MarkCollector(null);
  ink = new MarkTally(undefined);
  /** What drawing the page costs a renderer, estimated as it is read. */
  cost = new RenderCost(null);
  readonly hazards = { indexedOutOfRange: 0, damagedInlineImages: 0 };
  stateTooDeep = false;
  markedTooDeep = false;
  /** Bytes decoded for this page so far, against limits.maxDecodedBytes. */
  private decodedBytes = 0;
  /** Forms and patterns decoded once per page, however often they are drawn. */
  private readonly decoded = new Map<PDFObject, Uint8Array>();
  private ocSteps = 0;
  private ocRefused = false;

  constructor(
    readonly context: PDFContext,
    readonly colourSpaces: ColourSpaceResolver,
    readonly readStream: StreamReader,
    readonly userUnit: number,
    readonly limits: ScanLimits,
    /** Hidden optional content is skipped: it prints nothing. Without it, all content counts. */
    private readonly optionalContent: OptionalContent | undefined,
    shared: SharedScan,
  ) {
    this.budget = shared.budget ?? new DecodeBudget();
    this.screen = shared.screen ?? new RendererScreen(context, readStream);
    this.fontPrograms = shared.fontPrograms;
  }

  /**
   * A named resource. A form without the entry falls back to the page's resources, as poppler and
   * pdf.js do for old files whose forms inherit them (PDF 1.1).
   */
  resource(resources: PDFDict | undefined, category: string, name: string): PDFObject | undefined {
    const ctx = this.context;
    return getDict(ctx, resources, category)?.get(PDFName.of(name)) ?? getDict(ctx, this.pageResources, category)?.get(PDFName.of(name));
  }

  /** Whether optional content (/OC) is hidden; each decision costs a renderer steps, counted. */
  hidden(oc: PDFObject | undefined): boolean {
    if (oc === undefined || this.optionalContent === undefined) return false;
    this.ocSteps += this.optionalContent.rendererCost(oc);
    if (this.ocSteps > this.limits.maxOptionalContentSteps && !this.ocRefused) {
      this.ocRefused = true;
      this.refuse(
        `deciding which optional content is visible takes a renderer more than ${grouped(this.limits.maxOptionalContentSteps)} steps (membership expressions or group lists, evaluated at every use)`,
      );
    }
    return this.optionalContent.isHidden(oc);
  }

  /** One more operator: past limits.maxOperators the scan stops. */
  countOperator(note: boolean): void {
    if (++this.operators > this.limits.maxOperators) {
      this.tooComplex = true;
      if (note) this.notes.add(`more than ${this.limits.maxOperators} operators: inspection stopped`);
      throw new LimitReached();
    }
  }

  /**
   * Decodes a content stream, form or pattern within what is left of the page's budget. Page
   * content is copied into one buffer, so each listing counts; a form drawn twice is decoded once.
   */
  read(obj: PDFObject, what: string, copied = false): Uint8Array | undefined {
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

  /** Past the render-cost limit: the page is too complex to draw, and its inspection stops here. */
  checkRenderCost(): void {
    const ms = this.cost.micros / 1000;
    if (ms <= this.limits.maxRenderMs) return;
    const c = this.cost;
    this.refuse(
      `drawing it would take a renderer ${grouped(Math.round(ms / 1000))} s or more (${c.describe()}), more than the ${grouped(this.limits.maxRenderMs / 1000)} s a page may take: inspection stopped`,
    );
    throw new LimitReached();
  }

  /** Something a renderer would be given is over its budget: the page is kept from the renderer. */
  refuse(reason: string): void {
    this.tooComplex = true;
    this.notes.add(`${reason}; the page is not rendered`);
  }

  /** Runs content a renderer draws but the page's facts do not list (glyph procedures, soft-mask groups). */
  screenRun(fn: () => void): void {
    this.screening++;
    try {
      fn();
    } finally {
      this.screening--;
    }
  }
}
