/**
 * Whether each embedded font can be drawn, read from the font itself: its program is decoded once
 * per document (within a size limit) and parsed by the checker for what its bytes are — TrueType or
 * OpenType (sfnt.ts), CFF (cff.ts), Type 1 (type1.ts) — whatever the PDF key it hangs from, as
 * renderers do (FreeType opens a font by its content). A Type 3 font is judged by the codes a page
 * shows with it: each must lead to a glyph procedure. No page is drawn and nothing here depends
 * on which renderer draws the page: `font-unusable` means "this font cannot be drawn".
 */
import type { FontProgram } from '../facts.js';
import { N, PDFArray, PDFRawStream, dictOf, get, getDict, getName, items, nameOf, numberOf, resolve, type PDFContext, type PDFDict, type PDFObject } from '../objects.js';
import { StreamDecodeError, StreamTooLargeError, type StreamReader } from '../streams.js';
import { FontBudgetExceeded, FontFormatError, WorkBudget, type GlyphTally } from './bytes.js';
import { checkCff } from './cff.js';
import { checkSfnt, looksLikeSfnt } from './sfnt.js';
import { checkType1, looksLikeType1 } from './type1.js';
import { grouped } from '../../util/text.js';

export interface FontProgramLimits {
  /** Largest decoded program checked (a full CJK font is 5–20 MB). */
  maxProgramBytes: number;
  /** Most program bytes decoded for one document, all fonts together. */
  maxDocumentBytes: number;
  /** Glyph work (operators and points) allowed per program; the rest is left unchecked. */
  maxGlyphWork: number;
}

export const DEFAULT_FONT_LIMITS: FontProgramLimits = {
  maxProgramBytes: 32 * 1024 * 1024,
  maxDocumentBytes: 256 * 1024 * 1024,
  maxGlyphWork: 20_000_000,
};

/** Glyph work per program byte past which a program that used up its budget is a hazard, not just large. */
const STEPS_PER_BYTE = 50;

/** Glyph names that draw nothing: a Type 3 font without their procedure loses no ink. */
const BLANK_GLYPHS = new Set(['space', 'uni0020', 'nbspace', 'uni00A0', 'nonbreakingspace', '.notdef']);

/** Checks each font dictionary's program once per document; one per inspection. */
export class FontPrograms {
  private readonly byProgram = new Map<PDFObject, FontProgram>();
  private readonly type3Fonts = new Map<PDFDict, Type3Glyphs | null>();
  private decodedBytes = 0;

  constructor(
    private readonly context: PDFContext,
    private readonly readStream: StreamReader,
    private readonly limits: FontProgramLimits = DEFAULT_FONT_LIMITS,
  ) {}

  /**
   * What the font's program allows: null when the font carries none (not embedded: the
   * font-not-embedded check speaks for it). A Type 0 font is judged by its descendant.
   */
  check(font: PDFDict): FontProgram | null {
    const ctx = this.context;
    const subtype = getName(ctx, font, 'Subtype');
    if (subtype === 'Type3') {
      const glyphs = this.type3(font);
      return glyphs
        ? { format: 'Type3', glyphs: glyphs.count, failedGlyphs: 0, problem: null, firstFailure: null, unchecked: null }
        : { ...failed('it has no glyph procedures (/CharProcs)'), format: 'Type3' };
    }
    let owner = font;
    if (subtype === 'Type0') {
      const descendants = get(ctx, font, 'DescendantFonts');
      const first = descendants instanceof PDFArray ? items(ctx, descendants)[0] : dictOf(descendants);
      const descendant = dictOf(first);
      if (!descendant) return failed(`its descendant font (/DescendantFonts) is ${first === undefined ? 'missing' : 'not a font dictionary'}, so no glyph can be found`);
      owner = descendant;
    }
    const descriptor = getDict(ctx, owner, 'FontDescriptor');
    const key = (['FontFile', 'FontFile2', 'FontFile3'] as const).find((k) => get(ctx, descriptor, k) !== undefined);
    if (!key) return null;
    const stream = get(ctx, descriptor, key)!;
    return this.cached(stream, () => this.program(stream, key));
  }

  private cached(key: PDFObject, make: () => FontProgram): FontProgram {
    let facts = this.byProgram.get(key);
    if (!facts) this.byProgram.set(key, (facts = make()));
    return facts;
  }

  private program(stream: PDFObject, key: string): FontProgram {
    if (!(stream instanceof PDFRawStream)) return failed(`its /${key} is not a stream`);
    const left = this.limits.maxDocumentBytes - this.decodedBytes;
    const max = Math.min(this.limits.maxProgramBytes, left);
    if (max <= 0) return unchecked(`the document's fonts decode to more than ${mb(this.limits.maxDocumentBytes)} together`);
    let data: Uint8Array;
    try {
      data = this.readStream(stream, { maxBytes: max });
    } catch (error) {
      if (error instanceof StreamTooLargeError) return unchecked(`the program decodes to more than ${mb(max)}`);
      if (error instanceof StreamDecodeError) return failed(`its program's data cannot be decoded (${error.message})`);
      throw error;
    }
    this.decodedBytes += data.length;
    if (data.length === 0) return failed('its program is empty');
    const budget = new WorkBudget(this.limits.maxGlyphWork);
    try {
      const checked = looksLikeSfnt(data) ? checkSfnt(data, budget) : looksLikeCff(data) ? checkCff(data, budget) : looksLikeType1(data) ? checkType1(data, budget) : null;
      if (!checked) return failed(`its program is not a font of any kind renderers read (it starts with ${describe(data)})`);
      return {
        ...fromTally(checked.format, checked.tally),
        ...('noCmap' in checked && checked.noCmap ? { noCmap: true as const } : {}),
        ...(('hazard' in checked && checked.hazard) || checked.tally.hazard ? { hazard: (('hazard' in checked && checked.hazard) || checked.tally.hazard)! } : {}),
      };
    } catch (error) {
      if (error instanceof FontFormatError) return failed(`its program cannot be parsed: ${error.message}`);
      if (error instanceof FontBudgetExceeded) {
        // A large font (a CJK one holds tens of thousands of glyphs) may take that long; a small
        // one only by subroutines calling each other again and again — and pdf.js reads every glyph
        // of a CFF or Type 1 font when it loads it.
        if (data.length * STEPS_PER_BYTE < this.limits.maxGlyphWork) {
          return {
            ...unchecked(`its glyphs take more than ${this.limits.maxGlyphWork} steps to check`),
            hazard: `its glyphs take more than ${grouped(this.limits.maxGlyphWork)} steps to draw from a program of ${grouped(data.length)} bytes (subroutines calling each other again and again)`,
          };
        }
        return unchecked(`its glyphs take more than ${this.limits.maxGlyphWork} steps to check`);
      }
      throw error;
    }
  }

  /** A Type 3 font's glyphs by code, read once per document; null when it has no /CharProcs. */
  type3(font: PDFDict): Type3Glyphs | null {
    let glyphs = this.type3Fonts.get(font);
    if (glyphs === undefined) this.type3Fonts.set(font, (glyphs = type3Glyphs(this.context, font)));
    return glyphs;
  }
}

/**
 * A Type 3 font's code → glyph: the name its encoding gives each code, and whether a glyph
 * procedure stands behind it. Without /BaseEncoding a code the /Differences do not name has no
 * glyph (MuPDF draws nothing, pdf.js looks it up in StandardEncoding and finds no procedure).
 */
export interface Type3Glyphs {
  /** Glyph procedures in /CharProcs. */
  count: number;
  /** The glyph name the font's encoding gives a code, if any. */
  glyphName(code: number): string | undefined;
  /** Why the code draws nothing when it should draw ink, or null when it draws (or is blank). */
  failure(code: number): string | null;
}

function type3Glyphs(ctx: PDFContext, font: PDFDict): Type3Glyphs | null {
  const procs = getDict(ctx, font, 'CharProcs');
  if (!procs) return null;
  const encoding = getDict(ctx, font, 'Encoding');
  const hasBase = get(ctx, encoding, 'BaseEncoding') !== undefined;
  const names: (string | undefined)[] = new Array(256);
  const differences = get(ctx, encoding, 'Differences');
  let code = 0;
  for (const item of differences instanceof PDFArray ? items(ctx, differences) : []) {
    const n = numberOf(item);
    if (n !== undefined) code = Math.trunc(n);
    else {
      const name = nameOf(item);
      if (name !== undefined && code >= 0 && code < 256) names[code] = name;
      code++;
    }
  }
  const failures = new Map<number, string | null>();
  return {
    count: procs.keys().length,
    glyphName: (c: number) => names[c],
    failure(c: number) {
      let known = failures.get(c);
      if (known !== undefined) return known;
      const name = names[c];
      if (name === undefined) known = hasBase || c === 32 ? null : `code ${c} has no glyph name in the font's encoding`;
      else if (BLANK_GLYPHS.has(name)) known = null;
      else known = resolve(ctx, procs.get(N(name))) instanceof PDFRawStream ? null : `there is no glyph procedure for /${name}`;
      failures.set(c, known);
      return known;
    },
  };
}

function looksLikeCff(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 1 && data[2]! >= 4 && data[3]! >= 1 && data[3]! <= 4;
}

function fromTally(format: FontProgram['format'], tally: GlyphTally): FontProgram {
  return { format, glyphs: tally.glyphs, failedGlyphs: tally.failed, problem: null, firstFailure: tally.firstFailure, unchecked: null };
}

function failed(problem: string): FontProgram {
  return { format: 'unknown', glyphs: 0, failedGlyphs: 0, problem, firstFailure: null, unchecked: null };
}

function unchecked(why: string): FontProgram {
  return { format: 'unknown', glyphs: 0, failedGlyphs: 0, problem: null, firstFailure: null, unchecked: why };
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function describe(data: Uint8Array): string {
  const head = Buffer.from(data.subarray(0, 8));
  const text = head.toString('latin1');
  return /^[\x20-\x7e]+$/.test(text) ? `"${text}"` : `the bytes ${head.toString('hex').replace(/(..)/g, '$1 ').trim()}`;
}
