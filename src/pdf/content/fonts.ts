/**
 * The font collector: every font text is shown in (once per page), its program as checked, the
 * Type 3 codes shown and which of their glyphs cannot be drawn; and, for the renderer screen, the
 * glyph procedures of Type 3 fonts, run once per page, and what replaying them costs.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { FontUse } from '../facts.js';
import { PDFArray, PDFRawStream, PDFRef, dictOf, get, getDict, getName, items, refLabel, resolve } from '../objects.js';
import { isCjkFont } from '../font-script.js';
import type { Type3Glyphs } from '../font/program.js';
import { forEachCodeShown, markCodesShown, sumCodesShown } from '../font/codes.js';
import type { Matrix } from '../../model/geometry.js';
import type { PageScan } from './page-scan.js';
import { initialState, matrixOf, type GState } from './state.js';

/** What showing text in a font asks of the scan: the Type 3 codes to mark, the operators each Type 3 glyph replays. */
interface FontShown {
  codes?: Uint8Array | undefined;
  procOperations?: Float64Array;
  /** The font, for the sizes its Type 3 glyphs were drawn at. */
  font?: PDFObject;
}

/** A Type 3 font's glyph procedures as the screen measured them, by code. */
interface Type3Procs {
  operations: Float64Array;
  /** Estimated renderer time of one run of each procedure (µs). */
  micros: Float64Array;
}

/**
 * Distinct (size, code) pairs remembered per page; past this many, every glyph shown counts as drawn
 * anew (the estimate only grows).
 */
const MAX_TYPE3_SIZES = 200_000;

export class FontCollector {
  readonly fonts = new Map<PDFObject, FontUse>();
  /** Type 3 fonts used on the page, with the codes shown in them. */
  private readonly type3Codes = new Map<PDFObject, { use: FontUse; glyphs: Type3Glyphs; codes: Uint8Array }>();
  /** The operators of each Type 3 font's glyph procedures, by code (screened once per page). */
  private readonly type3Operations = new Map<PDFObject, Type3Procs>();
  /** Type 3 glyphs drawn so far on the page, by font: `size key:code` (PDFium keeps one bitmap for each). */
  private readonly type3Drawn = new Map<PDFObject, Set<string>>();
  private type3DrawnCount = 0;
  /** The last font selected (by the Tf that selected it): runs repeat it. */
  private lastFont: { key: GState['font'] | null; shown: FontShown } = { key: null, shown: {} };

  constructor(private readonly scan: PageScan) {}

  /**
   * Text shown (bytes start..end of a text-showing operator) in the font in force: the font is
   * recorded, its Type 3 codes marked, and the glyph procedures it replays counted. Invisible text
   * (mode 3, e.g. an OCR layer) prints nothing: its font does not matter.
   */
  shown(gs: GState, bytes: Uint8Array, opStart: number, opEnd: number, tm: Matrix = [1, 0, 0, 1, 0, 0]): void {
    const mode = gs.textRender;
    if (!gs.font || mode === 3 || mode === 7) return;
    // The font a Tf selected: looked up once, however many runs show text in it.
    let shown: FontShown;
    if (!this.scan.screening && this.lastFont.key === gs.font) shown = this.lastFont.shown;
    else {
      shown = this.useFont(gs.font.name, gs.font.resources);
      if (!this.scan.screening) this.lastFont = { key: gs.font, shown };
    }
    if (shown.codes) markCodesShown(bytes, opStart, opEnd, shown.codes);
    // pdf.js runs a Type 3 glyph's procedure again at every glyph it shows.
    if (shown.procOperations) this.scan.cost.replayed(sumCodesShown(bytes, opStart, opEnd, shown.procOperations));
    if (shown.font) this.drawnAtSize(shown.font, gs, tm, bytes, opStart, opEnd);
  }

  /**
   * PDFium draws a Type 3 glyph once per size and copies the bitmap after (its cache is keyed by
   * the glyph's code and the text's matrix, to 1/10,000): each glyph shown at a size not drawn before
   * costs its procedure's run again, and the bitmap's pixels — 20,000 sizes of one glyph took 33 s.
   */
  private drawnAtSize(font: PDFObject, gs: GState, tm: Matrix, bytes: Uint8Array, opStart: number, opEnd: number): void {
    const procs = this.type3Operations.get(font);
    if (!procs) return;
    const size = gs.fontSize;
    const [ca, cb, cc, cd] = gs.ctm;
    // The text rendering matrix's linear part (ISO 32000-2 §9.4.4), without the font's own matrix.
    const a = size * gs.hScale * (tm[0] * ca + tm[1] * cc);
    const b = size * gs.hScale * (tm[0] * cb + tm[1] * cd);
    const c = size * (tm[2] * ca + tm[3] * cc);
    const d = size * (tm[2] * cb + tm[3] * cd);
    const key = [a, b, c, d].map((v) => Math.round(v * 10_000)).join(',');
    let drawn = this.type3Drawn.get(font);
    if (!drawn) {
      drawn = new Set();
      this.type3Drawn.set(font, drawn);
    }
    // The glyph's bitmap: an em square at this size, as a share of the page.
    const emArea = Math.abs(a * d - b * c);
    let micros = 0;
    let bitmaps = 0;
    forEachCodeShown(bytes, opStart, opEnd, (code) => {
      const pair = `${key}:${code}`;
      if (this.type3DrawnCount < MAX_TYPE3_SIZES) {
        if (drawn.has(pair)) return;
        drawn.add(pair);
        this.type3DrawnCount++;
      }
      micros += procs.micros[code]!;
      bitmaps++;
    });
    if (!bitmaps) return;
    this.scan.cost.again(micros);
    this.scan.cost.bitmaps(bitmaps, emArea);
  }

  /**
   * Records the font a text operator shows; returns, for a Type 3 font, the flags of the codes
   * shown with it (its glyphs are judged by code), for the caller to mark, and the operators of
   * each code's glyph procedure.
   */
  private useFont(name: string, resources: PDFDict | undefined): FontShown {
    const shown = this.fontShown(name, resources);
    const font = resolve(this.scan.context, this.scan.resource(resources, 'Font', name));
    const procs = font ? this.type3Operations.get(font) : undefined;
    return procs && font ? { ...shown, procOperations: procs.operations, font } : shown;
  }

  private fontShown(name: string, resources: PDFDict | undefined): FontShown {
    const ctx = this.scan.context;
    const entry = this.scan.resource(resources, 'Font', name);
    const font = resolve(ctx, entry);
    const dict = dictOf(font);
    if (!font || !dict) {
      this.scan.notes.add(`font /${name} is missing from the resources`);
      return {};
    }
    if (this.fonts.has(font)) return { codes: this.type3Codes.get(font)?.codes };
    if (this.scan.screened.has(font)) return {};
    if (this.scan.screening) this.scan.screened.add(font);
    const subtype = getName(ctx, dict, 'Subtype') ?? null;
    const reason = this.scan.screen.font(dict, `/${name}`);
    if (reason) this.scan.refuse(reason);
    if (subtype === 'Type3') this.type3Glyphs(font, dict, name, resources);
    let descriptorOwner = dict;
    if (subtype === 'Type0') {
      const descendants = get(ctx, dict, 'DescendantFonts');
      const first = descendants instanceof PDFArray ? dictOf(items(ctx, descendants)[0]) : undefined;
      if (first) descriptorOwner = first;
    }
    const descriptor = getDict(ctx, descriptorOwner, 'FontDescriptor');
    const embedded = subtype === 'Type3' || ['FontFile', 'FontFile2', 'FontFile3'].some((k) => get(ctx, descriptor, k) !== undefined);
    const program = this.scan.fontPrograms?.check(dict);
    // A font whose glyphs a renderer would work on for minutes keeps the page from every renderer,
    // wherever it is used (a glyph procedure or a soft mask draws text too).
    if (program?.hazard) this.scan.refuse(`font /${name}: ${program.hazard}`);
    if (this.scan.screening) return {};
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
    const glyphs = subtype === 'Type3' ? this.scan.fontPrograms?.type3(dict) : null;
    if (!glyphs) return {};
    const codes = new Uint8Array(256);
    this.type3Codes.set(font, { use, glyphs, codes });
    return { codes };
  }

  /** Type 3 fonts: the glyphs of the codes this page shows that cannot be drawn. */
  judgeType3Codes(): void {
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
    const ctx = this.scan.context;
    const procs = getDict(ctx, dict, 'CharProcs');
    if (!procs) return;
    const inner = getDict(ctx, dict, 'Resources') ?? resources;
    const matrix = matrixOf(ctx, dict, 'FontMatrix') ?? [0.001, 0, 0, 0.001, 0, 0];
    const active = new Set<PDFObject>([font]);
    const operations = new Map<string, number>();
    const micros = new Map<string, number>();
    this.scan.screenRun(() => {
      for (const [key, value] of procs.entries()) {
        const proc = resolve(ctx, value);
        if (!(proc instanceof PDFRawStream) || this.scan.screened.has(proc)) continue;
        this.scan.screened.add(proc);
        const glyph = key.decodeText();
        const data = this.scan.read(proc, `glyph /${glyph} of Type 3 font /${name}`);
        const before = this.scan.cost.operations;
        const beforeMicros = this.scan.cost.micros;
        if (data) this.scan.runner.run(data, inner, initialState(matrix), [`font /${name}`], active);
        operations.set(glyph, this.scan.cost.operations - before);
        micros.set(glyph, this.scan.cost.micros - beforeMicros);
      }
    });
    const glyphs = this.scan.fontPrograms?.type3(dict);
    if (!glyphs) return;
    const byCode: Type3Procs = { operations: new Float64Array(256), micros: new Float64Array(256) };
    for (let code = 0; code < 256; code++) {
      const glyph = glyphs.glyphName(code);
      if (glyph === undefined) continue;
      byCode.operations[code] = operations.get(glyph) ?? 0;
      byCode.micros[code] = micros.get(glyph) ?? 0;
    }
    this.type3Operations.set(font, byCode);
  }
}
