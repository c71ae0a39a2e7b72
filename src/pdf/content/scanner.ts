/**
 * Scans a page's content streams without decoding any image: one interpreter (interpreter.ts, its
 * operator table in scan-operators.ts) follows the graphics state (q Q cm), draws of image
 * XObjects, Form XObjects (recursively, guarded against cycles and depth) and inline images, and
 * its collectors record which colour spaces painting operators use for fills, strokes, text,
 * shadings and patterns, the images and fonts, where the page paints, and what a renderer would be
 * given (screened, with its cost).
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { Appearance } from '../annotations.js';
import type { ColourSpaceResolver } from '../colour-space.js';
import type { Rect } from '../../model/geometry.js';
import { IDENTITY } from '../matrix.js';
import { MarkCollector, MarkTally } from '../marks.js';
import { PDFArray, items, resolve } from '../objects.js';
import { BudgetExceededError } from '../decode-budget.js';
import { RenderCost } from '../render-cost.js';
import { joinContentStreams, type StreamReader } from '../streams.js';
import type { OptionalContent } from '../optional-content.js';
import { ColourCollector } from './colours.js';
import { FontCollector } from './fonts.js';
import { ImageCollector } from './images.js';
import { ContentInterpreter } from './interpreter.js';
import { DEFAULT_SCAN_LIMITS, LimitReached, type ScanLimits, type ScanResult } from './limits.js';
import { PageScan, type SharedScan } from './page-scan.js';
import type { Collectors } from './scan-operators.js';
import { initialState } from './state.js';
import { TextCollector } from './text.js';
import { TransparencyCollector } from './transparency.js';

/**
 * One page's content scan (make one per page).
 *
 * @example
 * const scanner = new ContentScanner(context, colourSpaces, readStream, 1, DEFAULT_SCAN_LIMITS, undefined, { budget });
 * const { images, colours, fonts, tooComplex } = scanner.scanPage(page.get(PDFName.of('Contents')), resources);
 */
export class ContentScanner {
  private readonly scan: PageScan;
  private readonly c: Collectors;
  private readonly interpreter: ContentInterpreter;

  constructor(
    context: PDFContext,
    colourSpaces: ColourSpaceResolver,
    readStream: StreamReader,
    userUnit: number,
    limits: ScanLimits = DEFAULT_SCAN_LIMITS,
    /** Hidden optional content is skipped: it prints nothing. Without it, all content counts. */
    optionalContent?: OptionalContent,
    /** The file's decode budget and renderer screen (shared by its pages; fresh ones when absent), and its font programs (checked once per document; without them, fonts are not checked). */
    shared: SharedScan = {},
  ) {
    const scan = new PageScan(context, colourSpaces, readStream, userUnit, limits, optionalContent, shared);
    const colours = new ColourCollector(scan);
    this.scan = scan;
    this.c = { colours, images: new ImageCollector(scan, colours), fonts: new FontCollector(scan), text: new TextCollector(scan), transparency: new TransparencyCollector(scan) };
    this.interpreter = new ContentInterpreter(scan, this.c);
  }

  /**
   * Scans the page's /Contents with its /Resources, then the appearance streams of its printable
   * annotations, which print on top of the page.
   */
  scanPage(contents: PDFObject | undefined, resources: PDFDict | undefined, appearances: readonly Appearance[] = [], pageBox: Rect | null = null, pageArea?: number): ScanResult {
    const scan = this.scan;
    scan.pageResources = resources;
    scan.marks = new MarkCollector(pageBox);
    if (pageArea !== undefined && pageArea > 0) scan.pageArea = pageArea;
    scan.ink = new MarkTally(pageBox ?? undefined);
    scan.cost = new RenderCost(pageBox);
    // /Contents is a stream, an array of streams, or a reference to either (ISO 32000-2 §7.7.3.3).
    const resolved = resolve(scan.context, contents);
    const streams = resolved instanceof PDFArray ? items(scan.context, resolved) : [resolved];
    const parts: Uint8Array[] = [];
    try {
      for (const s of streams) {
        if (!s) continue;
        const data = scan.read(s, 'page content', true);
        if (data) parts.push(data);
      }
      this.interpreter.run(joinContentStreams(parts), resources, initialState(IDENTITY), [], new Set());
      for (const a of appearances) {
        this.interpreter.runForm(a.stream, a.label, resources, initialState(a.placement), [], new Set(), false);
      }
      scan.checkRenderCost();
    } catch (error) {
      if (error instanceof BudgetExceededError) {
        // The file's budget is spent: the page is not inspected further, nor rendered.
        scan.tooComplex = true;
        scan.notes.add(`not inspected to the end: ${error.message}`);
      } else if (!(error instanceof LimitReached)) throw error;
    }
    return this.result();
  }

  private result(): ScanResult {
    const { scan, c } = this;
    c.fonts.judgeType3Codes();
    const tiling = c.colours.tiling;
    return {
      images: c.images.images,
      colours: [...c.colours.colours.values()],
      fonts: [...c.fonts.fonts.values()],
      notes: [...scan.notes].sort(),
      damage: [...scan.damage].sort(),
      tooComplex: scan.tooComplex,
      tiling: tiling.cells > 0 ? { cells: Math.min(tiling.cells, Number.MAX_VALUE), smallestStepPt: tiling.smallestStepPt } : null,
      marks: { ...scan.marks.result(), ...scan.ink.result() },
      transparency: { blendModes: [...c.transparency.blendModes].sort(), knockoutGroups: c.transparency.knockoutGroups },
      hazards: { ...scan.hazards },
      renderWork: { operations: scan.cost.operations, estimatedMs: Math.round(scan.cost.micros / 1000), groups: Math.round(scan.cost.groups * 100) / 100 },
    };
  }
}
