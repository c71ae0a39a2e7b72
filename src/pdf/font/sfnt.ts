/**
 * TrueType and OpenType programs (FontFile2, FontFile3 /OpenType): the table directory, the tables
 * a renderer needs before it draws anything (head, loca with glyf, or CFF), and every glyph's
 * outline. The rules follow what FreeType — the font engine of MuPDF, PDFium, poppler and
 * Ghostscript — refuses, and no more: a table cut short at the end of the data, a loca table of the
 * wrong length or a glyph whose location lies past the glyf table are tolerated there (the glyph
 * draws as nothing), so they are tolerated here. Hinting programs are not run: their errors change
 * how a glyph is hinted at small sizes, never whether it is drawn.
 */
import { FontBytes, FontFormatError, GlyphError, tallyGlyphs, type GlyphTally, type WorkBudget } from './bytes.js';
import { checkCff } from './cff.js';
import { grouped } from '../../util/text.js';

export interface ProgramCheck {
  format: 'TrueType' | 'OpenType' | 'CFF' | 'Type1';
  tally: GlyphTally;
  /** An sfnt without a cmap table (pdf.js cannot find the glyphs of a simple font in one). */
  noCmap?: boolean;
  /** Why a renderer must not be given the font (it would work on a glyph for minutes), if it must not. */
  hazard?: string;
}

const SFNT_VERSIONS = new Set([0x00010000, 0x74727565 /* true */, 0x4f54544f /* OTTO */]);

/** True when the data starts like an sfnt (TrueType, OpenType or a collection of them). */
export function looksLikeSfnt(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const v = new FontBytes(data).u32(0);
  return SFNT_VERSIONS.has(v) || v === 0x74746366; /* ttcf */
}

interface Table {
  offset: number;
  length: number;
}

/** Checks a TrueType/OpenType program. Throws FontFormatError when it cannot be parsed. */
export function checkSfnt(data: Uint8Array, budget: WorkBudget): ProgramCheck {
  const b = new FontBytes(data);
  let base = 0;
  if (b.u32(0) === 0x74746366) {
    // A collection: renderers take its first font.
    if (b.u32(8, 'the collection font count') < 1) throw new FontFormatError('the font collection holds no font');
    base = b.u32(12, 'the first font of the collection');
  }
  const version = b.u32(base, 'the sfnt version');
  if (!SFNT_VERSIONS.has(version)) throw new FontFormatError(`the sfnt version 0x${version.toString(16)} is not TrueType or OpenType`);
  const numTables = b.u16(base + 4, 'the table count');
  if (numTables === 0) throw new FontFormatError('the table directory is empty');
  b.sub(base + 12, numTables * 16, 'the table directory');
  const tables = new Map<string, Table>();
  for (let i = 0; i < numTables; i++) {
    const at = base + 12 + i * 16;
    const tag = b.tag(at);
    const offset = b.u32(at + 8);
    let length = b.u32(at + 12);
    if (offset > data.length) continue; // FreeType skips such an entry
    if (length > data.length - offset) {
      // Clipping is harmless for the metrics tables; any other table past the end is dropped.
      if (tag !== 'hmtx' && tag !== 'vmtx') continue;
      length = data.length - offset;
    }
    if (!tables.has(tag)) tables.set(tag, { offset, length });
  }
  const head = tables.get('head') ?? tables.get('bhed');
  if (!head) throw new FontFormatError(tables.size < numTables ? 'its head table lies outside the data (the program is cut short)' : 'it has no head table');
  if (head.length < 54) throw new FontFormatError(`its head table is ${head.length} bytes long (54 needed)`);
  const longLoca = b.i16(head.offset + 50) !== 0;

  const cff = tables.get('CFF ') ?? tables.get('CFF2');
  const glyf = tables.get('glyf');
  const maxp = tables.get('maxp');
  const declaredGlyphs = maxp && maxp.length >= 6 ? b.u16(maxp.offset + 4) : null;
  if (!glyf && cff) {
    if (tables.has('CFF2')) return { format: 'OpenType', tally: { glyphs: declaredGlyphs ?? 0, failed: 0, firstFailure: null } };
    return { format: 'OpenType', tally: checkCff(b.sub(cff.offset, cff.length, 'the CFF table'), budget).tally };
  }
  if (!glyf) {
    if (tables.has('EBDT') || tables.has('CBDT') || tables.has('sbix')) return { format: 'TrueType', tally: { glyphs: declaredGlyphs ?? 0, failed: 0, firstFailure: null } };
    // FreeType opens it, with no outlines: every glyph draws as nothing.
    throw new FontFormatError(tables.size < numTables ? 'its glyf table lies outside the data (the program is cut short)' : 'it has no glyph outlines (no glyf or CFF table)');
  }
  const loca = tables.get('loca');
  if (!loca) throw new FontFormatError('it has glyph outlines (glyf) but no loca table to find them');
  const entrySize = longLoca ? 4 : 2;
  const locations = Math.floor(loca.length / entrySize);
  const glyphs = declaredGlyphs ?? Math.max(0, locations - 1);
  const location = (g: number): Table => {
    if (g + 1 >= locations) return { offset: 0, length: 0 };
    const at = loca.offset + g * entrySize;
    const start = longLoca ? b.u32(at) : b.u16(at) * 2;
    let end = longLoca ? b.u32(at + 4) : b.u16(at + 2) * 2;
    // As FreeType reads broken loca data: a glyph starting past glyf is empty; the last may be clipped.
    if (start > glyf.length) return { offset: 0, length: 0 };
    if (end > glyf.length) {
      if (g !== locations - 2) return { offset: 0, length: 0 };
      end = glyf.length;
    }
    return end > start ? { offset: glyf.offset + start, length: end - start } : { offset: 0, length: 0 };
  };
  const outlines = new GlyphOutlines(b, glyphs, location, budget);
  const tally = tallyGlyphs(glyphs, (g) => outlines.check(g));
  // .notdef, drawn for every code a font lacks, and glyphs the loca table holds past the count
  // maxp gives (FreeType refuses them; other readers count them) are looked at for what a renderer
  // would work through, not judged.
  let hazard = outlines.expand(0);
  const present = Math.max(0, locations - 1);
  if (!hazard && present > glyphs) {
    const all = new GlyphOutlines(b, present, location, budget);
    for (let g = glyphs; g < present && !hazard; g++) hazard = all.expand(g);
  }
  return { format: 'TrueType', tally, ...(tables.has('cmap') ? {} : { noCmap: true }), ...(hazard ? { hazard } : {}) };
}

/**
 * Composite glyphs nest at most this deep (FreeType allows 100, and reads maxComponentDepth;
 * fonts in use stay at 1 or 2).
 */
const MAX_COMPONENT_DEPTH = 32;
/** FreeType's outlines hold at most this many points: a composite with more fails to load. */
const MAX_OUTLINE_POINTS = 0xffff;
/**
 * Component glyphs a renderer works through to draw one glyph, each component drawn in full again
 * wherever it is used: pdf.js and FreeType expand a composite without remembering its parts, so
 * glyphs that each use the next one twice, 30 deep, are a billion outlines to draw. Fonts in use
 * have a few per glyph.
 */
const MAX_EXPANDED_COMPONENTS = 100_000;

/** What checking a glyph found, kept so that each glyph is checked once however often it is used. */
interface Outline {
  /** Points of its outline, components expanded. */
  points: number;
  /** Component glyphs drawn to draw it, components of components included (0 for a simple glyph). */
  expanded: number;
  /** Levels of composite glyphs from it down (0 for a simple glyph). */
  depth: number;
  /** Why FreeType cannot draw it, or null. */
  failure: string | null;
}

/** A glyph being read: its components, the next one to read, and what they add up to so far. */
interface Frame {
  glyph: number;
  parts: number[];
  next: number;
  total: Outline;
}

/**
 * The glyphs of a TrueType program, each read once (a composite's components before it, and
 * remembered), walking the components with a stack of its own — a chain of 65,535 composites
 * cannot exhaust the call stack: a cycle of composites is found where it closes; a composite
 * nested too deep or holding too many points fails as it fails in FreeType; and what a renderer
 * that expands composites as it meets them (pdf.js) would work through is counted whatever FreeType
 * thinks of the glyph — past a bound, the font is a hazard for renderers, not just a font with a bad
 * glyph.
 */
class GlyphOutlines {
  private readonly done = new Map<number, Outline>();
  private readonly open = new Set<number>();
  /** Why a renderer must not be given the font, or null. */
  hazard: string | null = null;

  constructor(
    private readonly b: FontBytes,
    private readonly glyphs: number,
    private readonly location: (g: number) => Table,
    private readonly budget: WorkBudget,
  ) {}

  /** Throws GlyphError when the glyph cannot be drawn. */
  check(glyph: number): void {
    const { failure } = this.read(glyph);
    if (failure) throw new GlyphError(failure);
  }

  /** Reads the glyph for what a renderer would work through; the hazard found, or null. */
  expand(glyph: number): string | null {
    try {
      this.read(glyph);
    } catch (error) {
      if (!(error instanceof FontFormatError)) throw error;
    }
    return this.hazard;
  }

  private read(root: number): Outline {
    const known = this.done.get(root);
    if (known) return known;
    const stack: Frame[] = [];
    let finished: Outline | null = null;
    const enter = (glyph: number) => {
      const start = this.start(glyph);
      if ('failure' in start) return start;
      this.open.add(glyph);
      stack.push({ glyph, parts: start.parts, next: 0, total: { points: 0, expanded: 0, depth: 1, failure: null } });
      return null;
    };
    finished = enter(root);
    if (finished) this.done.set(root, finished);
    while (stack.length) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.parts.length) {
        const component = frame.parts[frame.next++]!;
        let part = this.done.get(component);
        // A cycle closes here: FreeType refuses the glyph; a renderer that recurses runs out of
        // stack at once, so nothing is expanded.
        if (!part && this.open.has(component)) part = { points: 0, expanded: 0, depth: 0, failure: `its components refer back to glyph ${component}, which they are part of (a cycle)` };
        if (!part) {
          const leaf = enter(component);
          if (!leaf) continue;
          this.done.set(component, leaf);
          part = leaf;
        }
        this.add(frame, part);
        continue;
      }
      stack.pop();
      this.open.delete(frame.glyph);
      const total = frame.total;
      if (total.depth > MAX_COMPONENT_DEPTH) total.failure ??= `its components nest more than ${MAX_COMPONENT_DEPTH} deep`;
      if (total.points > MAX_OUTLINE_POINTS) total.failure ??= `its components hold more than ${grouped(MAX_OUTLINE_POINTS)} points`;
      this.done.set(frame.glyph, total);
      const parent = stack[stack.length - 1];
      if (parent) this.add(parent, total);
      else finished = total;
    }
    return finished!;
  }

  /** A component's outline added to its composite's; past the expansion bound, the composite stops there. */
  private add(frame: Frame, part: Outline): void {
    const total = frame.total;
    total.points += part.points;
    total.expanded += 1 + part.expanded;
    total.depth = Math.max(total.depth, part.depth + 1);
    total.failure ??= part.failure;
    if (total.expanded > MAX_EXPANDED_COMPONENTS) {
      this.hazard ??= `glyph ${frame.glyph} is made of more than ${grouped(MAX_EXPANDED_COMPONENTS)} component glyphs, its components used again and again (a renderer would work on it for minutes)`;
      total.failure ??= `it is made of more than ${grouped(MAX_EXPANDED_COMPONENTS)} component glyphs`;
      frame.next = frame.parts.length;
    }
  }

  /** A glyph's own data: a simple glyph's outline (or why it fails), or a composite's components. */
  private start(glyph: number): Outline | { parts: number[] } {
    try {
      return this.outline(glyph);
    } catch (error) {
      if (!(error instanceof GlyphError || error instanceof FontFormatError)) throw error;
      return { points: 0, expanded: 0, depth: 0, failure: error.message };
    }
  }

  private outline(glyph: number): Outline | { parts: number[] } {
    const { b, location, budget } = this;
    const { offset, length } = location(glyph);
    if (length === 0) return { points: 0, expanded: 0, depth: 0, failure: null }; // an empty glyph (a space)
    if (length < 10) throw new GlyphError(`its outline is ${length} bytes long, shorter than a glyph header`);
    const end = offset + length;
    const contours = b.i16(offset);
    if (contours < 0) return { parts: this.components(offset + 10, end) };
    // The glyph lies within the glyf table, itself within the data: plain reads below stay inside.
    const d = b.data;
    let p = offset + 10;
    if (contours >= 0xfff || p + 2 * contours + 2 > end) throw new GlyphError(`${contours} contours do not fit in its ${length} bytes`);
    let previous = -1;
    for (let c = 0; c < contours; c++, p += 2) {
      const last = (d[p]! << 8) | d[p + 1]!;
      if (last <= previous) throw new GlyphError('its contour end points are out of order');
      previous = last;
    }
    const points = previous + 1;
    budget.spend(points + 1);
    const instructions = (d[p]! << 8) | d[p + 1]!;
    p += 2;
    if (end - p < instructions) throw new GlyphError(`its ${instructions} bytes of instructions run past the glyph`);
    p += instructions;
    let coordinateBytes = 0;
    for (let n = 0; n < points; ) {
      if (p >= end) throw new GlyphError('its point flags run past the glyph');
      const flag = d[p++]!;
      let repeat = 1;
      if (flag & 0x08) {
        if (p >= end) throw new GlyphError('its point flags run past the glyph');
        repeat += d[p++]!;
        if (n + repeat > points) throw new GlyphError('its point flags repeat past the last point');
      }
      coordinateBytes += repeat * ((flag & 0x02 ? 1 : flag & 0x10 ? 0 : 2) + (flag & 0x04 ? 1 : flag & 0x20 ? 0 : 2));
      n += repeat;
    }
    if (p + coordinateBytes > end) throw new GlyphError('its point coordinates run past the glyph');
    return { points, expanded: 0, depth: 0, failure: null };
  }

  /** A composite glyph's component glyph numbers. */
  private components(start: number, end: number): number[] {
    const { b, budget, glyphs } = this;
    const parts: number[] = [];
    for (let p = start; ; ) {
      if (p + 4 > end) throw new GlyphError('a component runs past the glyph');
      const flags = b.u16(p);
      const component = b.u16(p + 2);
      p += 4 + (flags & 0x0001 ? 4 : 2);
      if (flags & 0x0008) p += 2;
      else if (flags & 0x0040) p += 4;
      else if (flags & 0x0080) p += 8;
      if (p > end) throw new GlyphError('a component runs past the glyph');
      budget.spend(1);
      if (component >= glyphs) throw new GlyphError(`a component refers to glyph ${component}, past the font's ${glyphs} glyphs`);
      parts.push(component);
      if (!(flags & 0x0020)) return parts; // MORE_COMPONENTS
    }
  }
}
