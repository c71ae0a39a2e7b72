/**
 * The colour collector: which colour spaces painting uses (fills, strokes, text, stencil masks,
 * shadings and patterns), what the renderer is given for them (screened), tiling patterns' cells,
 * and colours set outside their Indexed palette.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { ColourSpaceFacts, ColourUse } from '../facts.js';
import type { Matrix } from '../../model/geometry.js';
import { IDENTITY, multiply } from '../matrix.js';
import { PDFArray, PDFRawStream, dictOf, get, getDict, getNumber, items, numberOf, resolve } from '../objects.js';
import type { Operand } from '../lexer.js';
import { grouped } from '../../util/text.js';
import type { PageScan } from './page-scan.js';
import { initialState, matrixOf, numbers, type GState } from './state.js';

export class ColourCollector {
  readonly colours = new Map<string, ColourUse>();
  /** The last colour recorded: runs repeat it. */
  private lastColour: { use: ColourUse['use']; space: ColourSpaceFacts; entry: ColourUse } | undefined;
  private readonly patternsSeen = new Set<PDFObject>();
  readonly tiling = { cells: 0, smallestStepPt: Number.POSITIVE_INFINITY };
  private meshElements = 0;

  constructor(private readonly scan: PageScan) {}

  /** A fill or stroke painted in the colour space in force (a pattern: the pattern's colours). */
  paint(use: 'fill' | 'stroke', gs: GState, resources: PDFDict | undefined, via: string[], active: Set<PDFObject>) {
    const cs = use === 'fill' ? gs.fill : gs.stroke;
    if (cs.family === 'Pattern') {
      const pattern = use === 'fill' ? gs.fillPattern : gs.strokePattern;
      if (pattern) this.usePattern(pattern, cs, use, resources, via, active);
      return;
    }
    this.record(use, cs, via);
  }

  /** A colour space painted with once more (not while screening: what glyphs and soft masks draw is not listed). */
  record(use: ColourUse['use'], colourSpace: ColourSpaceFacts, via: string[]) {
    if (this.scan.screening) return;
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

  /** A shading painted (by `sh`, a shading pattern or a stencil through one): screened, its colour space recorded. */
  useShading(shading: PDFObject, resources: PDFDict | undefined, via: string[], use: ColourUse['use'] = 'shading') {
    const cost = this.scan.screen.shading(shading, (cs) => this.scan.colourSpaces.describe(cs, resources).components);
    if (cost.reason) this.scan.refuse(cost.reason);
    this.meshElements += cost.meshElements;
    if (cost.meshElements && this.meshElements > this.scan.limits.maxMeshElements) {
      this.scan.refuse(
        `its mesh shadings take about ${grouped(this.meshElements)} pieces to draw (triangle vertices, and the pieces renderers cut patches into; more than ${grouped(this.scan.limits.maxMeshElements)})`,
      );
    }
    const cs = this.scan.colourSpaces.describe(get(this.scan.context, dictOf(shading), 'ColorSpace'), resources);
    this.record(use, cs, via);
  }

  /**
   * A pattern painted: a shading pattern's shading; a tiling pattern's cells counted and its cell's
   * content run once per page (screened only, for an uncoloured one), guarded against itself.
   */
  usePattern(patternObj: PDFObject, cs: ColourSpaceFacts, use: 'fill' | 'stroke' | 'stencil', resources: PDFDict | undefined, via: string[], active: Set<PDFObject>) {
    const ctx = this.scan.context;
    const pattern = dictOf(patternObj);
    if (!pattern) return;
    const type = getNumber(ctx, pattern, 'PatternType');
    if (type === 2) {
      const shading = get(ctx, pattern, 'Shading');
      if (dictOf(shading)) this.useShading(shading!, resources, via, use === 'stencil' ? 'stencil' : 'shading');
      return;
    }
    const paintType = getNumber(ctx, pattern, 'PaintType');
    const matrix = multiply(matrixOf(ctx, pattern) ?? IDENTITY, this.scan.patternBase);
    this.tilingUse(pattern, matrix);
    // Uncoloured tiling pattern: painted in the underlying space of [/Pattern base]; its cell is
    // still drawn by a renderer, so what it draws is screened (not recorded).
    if (paintType === 2 && cs.base) this.record(use, cs.base, via);
    if (active.has(patternObj)) {
      // A renderer draws a cell of it with itself, and so on: it never finishes.
      this.scan.refuse('a tiling pattern paints with itself, directly or through other patterns or forms');
      return;
    }
    // Scanned once per page. Its matrix maps to the page's default space (or the pattern's it is
    // used in), not to the current CTM.
    if (this.patternsSeen.has(patternObj) || !(patternObj instanceof PDFRawStream)) return;
    this.patternsSeen.add(patternObj);
    if (via.length >= this.scan.limits.maxFormDepth) {
      this.scan.notes.add(`pattern nesting deeper than ${this.scan.limits.maxFormDepth} or cyclic: not followed`);
      return;
    }
    const data = this.scan.read(patternObj, 'pattern');
    if (!data) return;
    const inner = getDict(ctx, pattern, 'Resources') ?? resources;
    const outerBase = this.scan.patternBase;
    active.add(patternObj);
    this.scan.patternBase = matrix;
    this.scan.inPattern++;
    try {
      const run = () => this.scan.runner.run(data, inner, initialState(matrix), [...via, 'pattern'], active);
      if (paintType === 2) this.scan.screenRun(run);
      else run();
    } finally {
      this.scan.inPattern--;
      this.scan.patternBase = outerBase;
      active.delete(patternObj);
    }
  }

  /**
   * A tiling pattern painted once more: how many of its cells would cover the page (a renderer
   * such as PDFium draws each), and how small a cell is on the page (one far below a pixel makes
   * pdf.js work for ever). Steps of 0 are the cell's box, as renderers take them.
   */
  private tilingUse(pattern: PDFDict, matrix: Matrix) {
    const ctx = this.scan.context;
    const bbox = get(ctx, pattern, 'BBox');
    const box = bbox instanceof PDFArray ? items(ctx, bbox).map((v) => numberOf(v) ?? 0) : [];
    const step = (key: string, i: number) => Math.abs(getNumber(ctx, pattern, key) ?? 0) || Math.abs((box[i + 2] ?? 0) - (box[i] ?? 0));
    const scale = Math.sqrt(Math.abs(matrix[0] * matrix[3] - matrix[1] * matrix[2]));
    const x = step('XStep', 0) * scale;
    const y = step('YStep', 1) * scale;
    const cells = x > 0 && y > 0 ? this.scan.pageArea / (x * y) : Number.POSITIVE_INFINITY;
    this.tiling.cells += cells;
    this.tiling.smallestStepPt = Math.min(this.tiling.smallestStepPt, Math.min(x, y));
  }

  /**
   * Function steps a renderer evaluates per pixel of a shading: a function-based shading's (type 1),
   * and a mesh shading's whose colours come from a function (types 4–7); axial and radial shadings
   * sample theirs a few hundred times, whatever their size.
   */
  shadingSteps(shading: PDFObject | undefined): number {
    const dict = dictOf(resolve(this.scan.context, shading));
    if (!dict) return 0;
    const type = getNumber(this.scan.context, dict, 'ShadingType') ?? 0;
    const fn = get(this.scan.context, dict, 'Function');
    return fn && (type === 1 || type >= 4) ? this.scan.screen.evaluationSteps(fn) : 0;
  }

  /** Counts an index outside the Indexed palette in force (`sc`/`scn` and their stroke forms). */
  checkIndex(gs: GState, fill: boolean, args: Operand[]): void {
    const space = fill ? gs.fill : gs.stroke;
    const hival = fill ? gs.fillHival : gs.strokeHival;
    if (space.family !== 'Indexed' || hival === undefined) return;
    const index = numbers(args)[0];
    if (index !== undefined && (index < 0 || index > hival)) this.scan.hazards.indexedOutOfRange++;
  }

  /** The hival of the Indexed colour space a `cs`/`CS` names ([/Indexed base hival lookup]). */
  indexedHival(name: string, resources: PDFDict | undefined): number | undefined {
    const cs = resolve(this.scan.context, this.scan.resource(resources, 'ColorSpace', name));
    if (!(cs instanceof PDFArray)) return undefined;
    const hival = numberOf(resolve(this.scan.context, cs.get(2)));
    return hival !== undefined && Number.isFinite(hival) ? Math.trunc(hival) : undefined;
  }

  /** A named colour space the renderer will build (tint transforms, ICC profile, lookup table). */
  screenColourSpace(name: string, resources: PDFDict | undefined) {
    const obj = this.scan.resource(resources, 'ColorSpace', name);
    const reason = obj ? this.scan.screen.colourSpace(obj) : null;
    if (reason) this.scan.refuse(reason);
  }
}
