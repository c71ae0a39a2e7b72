/**
 * `font-unusable` from the fonts themselves (src/pdf/font/): embedded programs made at test time by
 * reportlab (TrueType, Type 1) and Ghostscript (CFF), each damaged in one known way by pikepdf
 * (producers/font_cases.py), judged without drawing a page — and checked against MuPDF, whose
 * FreeType refuses the same fonts and glyphs. A hinting program that calls a function nobody
 * defined (pdf.js: "TT: …") is no reason: the glyphs draw.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentFacts } from '../../../src/pdf/facts.js';
import { FontBudgetExceeded, WorkBudget } from '../../../src/pdf/font/bytes.js';
import { checkCff } from '../../../src/pdf/font/cff.js';
import { checkSfnt } from '../../../src/pdf/font/sfnt.js';
import { checkType1 } from '../../../src/pdf/font/type1.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { captureWarnings, openWithPdfjs } from '../../../src/raster/pdfjs.js';
import { renderWithPdfjs } from '../../../src/raster/render.js';
import { checkFontsReadable } from '../../../src/rules/check-fonts.js';
import { context } from '../../helpers/facts.js';
// @ts-expect-error plain ESM helper without types
import { cffFont, trueTypeFont, trueTypePage, type1Font } from '../../hostile/check-classes-33.mjs';

let dir: string;
const facts = new Map<string, DocumentFacts>();
const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const FILES = ['ttf.pdf', 'ttf-hinting.pdf', 'ttf-truncated.pdf', 'ttf-bad-glyph.pdf', 'cff.pdf', 'cff-bad-glyph.pdf', 't1.pdf', 't1-no-eexec.pdf', 'type3.pdf', 'type0-no-descendant.pdf'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pp-fonts-'));
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'producers', 'font_cases.py'), dir], { stdio: 'pipe' });
  for (const f of FILES) facts.set(f, await inspectPdf(read(f)));
}, 120_000);

const program = (file: string, page = 0) => facts.get(file)!.pages[page]!.fonts.find((f) => f.program)!.program!;
const unusablePages = async (file: string) => checkFontsReadable(await context(facts.get(file)!)).map((d) => d.page);

describe('embedded font programs, read without drawing', () => {
  it.each([
    ['ttf.pdf', 'TrueType'],
    ['ttf-hinting.pdf', 'TrueType'],
    ['cff.pdf', 'CFF'],
    ['t1.pdf', 'Type1'],
  ] as const)('%s: a sound %s program, every glyph drawable', async (file, format) => {
    const p = program(file);
    expect(p).toMatchObject({ format, failedGlyphs: 0, problem: null, unchecked: null });
    expect(p.glyphs).toBeGreaterThan(8);
    expect(await unusablePages(file)).toEqual([]);
  });

  it.each([
    ['ttf-truncated.pdf', /head table lies outside the data/],
    ['t1-no-eexec.pdf', /no eexec section/],
    ['type0-no-descendant.pdf', /descendant font .* is not a font dictionary/],
  ])('%s cannot be parsed: font-unusable', async (file, why) => {
    expect(program(file).problem).toMatch(why);
    const [finding] = checkFontsReadable(await context(facts.get(file)!));
    expect(finding).toMatchObject({ code: 'font-unusable', page: 1 });
    expect(finding!.actual).toMatch(why);
  });

  it.each([
    ['ttf-bad-glyph.pdf', /contour end points are out of order/],
    ['cff-bad-glyph.pdf', /calls local subroutine 107, which does not exist/],
  ])('%s: glyphs that cannot be decoded are counted and named', async (file, why) => {
    const p = program(file);
    expect(p.problem).toBeNull();
    expect(p.failedGlyphs).toBeGreaterThan(0);
    expect(p.firstFailure).toMatch(why);
    expect(await unusablePages(file)).toEqual([1]);
  });

  it('judges a Type 3 font by the codes each page shows', async () => {
    expect([0, 1, 2].map((i) => program('type3.pdf', i).failedGlyphs)).toEqual([0, 1, 1]);
    expect(program('type3.pdf', 1).firstFailure).toBe('there is no glyph procedure for /b');
    expect(program('type3.pdf', 2).firstFailure).toBe("code 99 has no glyph name in the font's encoding");
    expect(await unusablePages('type3.pdf')).toEqual([2, 3]);
  });

  it('a hinting program calling an undefined function is no reason, though pdf.js warns about it', async () => {
    const doc = await openWithPdfjs(read('ttf-hinting.pdf'));
    const { warnings } = await captureWarnings(() => renderWithPdfjs(doc, 1, 200));
    await doc.destroy();
    // The warning the old check took for an unusable font (issue 27's false font-unusable).
    expect(warnings.some((w) => w.startsWith('TT: '))).toBe(true);
    expect(await unusablePages('ttf-hinting.pdf')).toEqual([]);
  });

  it('agrees with MuPDF (FreeType) on every file: it complains about a font exactly where we find one unusable', async () => {
    const disagree: string[] = [];
    for (const file of FILES) {
      const mu = spawnSync('mutool', ['draw', '-q', '-r', '36', '-F', 'pgm', '-o', '/dev/null', join(dir, file)], { encoding: 'utf8' });
      const complains = /FT_New_Memory_Face|FT_Load_Glyph|cannot render glyph|unknown cid font type/.test(mu.stderr);
      const ours = (await unusablePages(file)).length > 0;
      if (complains !== ours) disagree.push(`${file}: MuPDF ${complains ? 'complains' : 'is silent'}, we ${ours ? 'report' : 'do not'}`);
    }
    expect(disagree).toEqual([]);
  });
});

describe('the program checks on whole fonts', () => {
  const budget = () => new WorkBudget(50_000_000);

  it('reads a full TrueType font (DejaVu Sans, thousands of glyphs) and a full Type 1 font (URW) as sound', () => {
    const ttf = checkSfnt(new Uint8Array(readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf')), budget());
    expect(ttf.tally).toMatchObject({ failed: 0, firstFailure: null });
    expect(ttf.tally.glyphs).toBeGreaterThan(5000);
    const t1 = checkType1(new Uint8Array(readFileSync('/usr/share/fonts/type1/urw-base35/NimbusSans-Regular.t1')), budget());
    expect(t1.tally).toMatchObject({ failed: 0, firstFailure: null });
    expect(t1.tally.glyphs).toBeGreaterThan(500);
  });

  it('says when a TrueType program has no cmap table (pdf.js draws no text of a simple font without one: issue14297.pdf)', () => {
    const ttf = new Uint8Array(readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'));
    expect(checkSfnt(ttf, budget()).noCmap).toBeUndefined();
    const stripped = checkSfnt(withoutTable(ttf, 'cmap'), budget());
    expect(stripped.noCmap).toBe(true);
    expect(stripped.tally).toMatchObject({ failed: 0, firstFailure: null });
  });

  it('stops at the work budget instead of judging (a font too costly to check is left unchecked)', () => {
    const data = new Uint8Array(readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'));
    expect(() => checkSfnt(data, new WorkBudget(10_000))).toThrow(FontBudgetExceeded);
  });

  it('fails a CFF glyph pushing more than 48 operands, as FreeType does', () => {
    // A minimal CFF: header, Name, Top DICT (CharStrings at 40), String and Global Subr INDEXes empty.
    const glyphs = [[14], [...Array.from({ length: 49 }, () => 139), 14], [139, 139, 21, 14]];
    const charStrings = cffIndex(glyphs);
    const top = [29, 0, 0, 0, 0, 17]; // CharStrings offset, patched below
    const head = [1, 0, 4, 1, ...cffIndex([[0x41]]), ...cffIndex([top]), ...cffIndex([]), ...cffIndex([])];
    const at = head.length;
    const bytes = Uint8Array.from([...head, ...charStrings]);
    const topAt = bytes.indexOf(29, 4);
    new DataView(bytes.buffer).setInt32(topAt + 1, at);
    const r = checkCff(bytes, budget());
    expect(r.tally).toMatchObject({ glyphs: 3, failed: 1 });
    expect(r.tally.firstFailure).toBe('glyph 1: more than 48 operands are pushed');
  });
});

describe('glyphs a renderer would never finish', () => {
  const budget = () => new WorkBudget(20_000_000);
  const ttf = (options: object) => new Uint8Array(trueTypeFont(options));
  const mutool = (bytes: Uint8Array) => {
    const file = join(mkdtempSync(join(tmpdir(), 'pp-font-hazard-')), 'f.pdf');
    writeFileSync(file, bytes);
    return spawnSync('mutool', ['draw', '-q', '-r', '36', '-F', 'pgm', '-o', '/dev/null', file], { encoding: 'utf8' }).stderr;
  };

  it('fails composite glyphs that form a cycle, at once, as FreeType does', () => {
    const started = performance.now();
    const r = checkSfnt(
      ttf({
        composites: [
          [3, 3],
          [4, 4],
          [2, 2],
        ],
      }),
      budget(),
    );
    expect(r.tally).toMatchObject({ failed: 3 });
    expect(r.tally.firstFailure).toMatch(/refer back to glyph 2, which they are part of \(a cycle\)/);
    expect(r.hazard).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(
      mutool(
        trueTypePage(
          trueTypeFont({
            composites: [
              [3, 3],
              [4, 4],
              [2, 2],
            ],
          }),
        ),
      ),
    ).toMatch(/FT_Load_Glyph\(Cycle,2,.*invalid composite glyph/);
  });

  it('reads each glyph once: glyphs made of the next one twice, 30 deep, fail (too many points, as in FreeType) and are a hazard', () => {
    const composites = Array.from({ length: 30 }, (_, i) => (i === 29 ? [1, 1] : [i + 3, i + 3]));
    const r = checkSfnt(ttf({ composites }), budget());
    expect(r.tally.failed).toBe(16);
    expect(r.tally.firstFailure).toMatch(/more than 65,535 points/);
    expect(r.hazard).toMatch(/made of more than 100,000 component glyphs/);
    expect(mutool(trueTypePage(trueTypeFont({ composites })))).toMatch(/FT_Load_Glyph\(Cycle,2,.*array allocation size too large/);
    // The same, 10 deep: 1,024 outlines, a sound font.
    const shallow = checkSfnt(ttf({ composites: Array.from({ length: 10 }, (_, i) => (i === 9 ? [1, 1] : [i + 3, i + 3])) }), budget());
    expect(shallow.tally.failed).toBe(0);
    expect(shallow.hazard).toBeUndefined();
  });

  it('walks a chain of 60,000 composites without running out of stack, and fails those nested past 32', () => {
    const composites = Array.from({ length: 60_000 }, (_, i) => (i === 59_999 ? [1] : [i + 3]));
    const r = checkSfnt(ttf({ composites }), budget());
    expect(r.tally.failed).toBe(60_000 - 32);
    expect(r.tally.firstFailure).toMatch(/nest more than 32 deep/);
  });

  it('sees a hazard in .notdef, which is drawn for every code a font lacks', () => {
    const composites = Array.from({ length: 30 }, (_, i) => (i === 29 ? [1, 1] : [i + 3, i + 3]));
    const r = checkSfnt(ttf({ composites: [[1]], notdef: [2, 2], numGlyphs: undefined }), budget());
    expect(r.hazard).toBeUndefined();
    const hazardous = checkSfnt(new Uint8Array(trueTypeFont({ composites, notdef: [2, 2] })), budget());
    expect(hazardous.hazard).toMatch(/component glyphs/);
  });

  it.each([
    ['CFF', () => checkCff(new Uint8Array(cffFont({ glyphs: 3 })), budget())],
    ['Type 1', () => checkType1(new Uint8Array((type1Font() as { bytes: Buffer }).bytes), budget())],
  ])('%s: subroutines calling each other 30 times, 10 deep, fail the glyph and are a hazard (FreeType gives up too)', (_kind, check) => {
    const started = performance.now();
    const r = check();
    expect(r.tally.failed).toBe(3);
    expect(r.tally.firstFailure).toMatch(/takes more than 100,000 steps to draw/);
    expect(r.tally.hazard).toMatch(/a renderer would work on it for minutes/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('the same subroutines, 2 calls 5 deep, draw (MuPDF draws them too)', () => {
    expect(checkCff(new Uint8Array(cffFont({ glyphs: 3, fanOut: 2, depth: 5 })), budget()).tally).toMatchObject({ failed: 0 });
    expect(checkType1(new Uint8Array((type1Font({ fanOut: 2, depth: 5 }) as { bytes: Buffer }).bytes), budget()).tally).toMatchObject({ failed: 0 });
  });

  it('keeps a page whose font is a hazard from every renderer, and says which font', async () => {
    const composites = Array.from({ length: 30 }, (_, i) => (i === 29 ? [1, 1] : [i + 3, i + 3]));
    const page = (await inspectPdf(trueTypePage(trueTypeFont({ composites })))).pages[0]!;
    expect(page.tooComplex).toBe(true);
    expect(page.notes.join(' ')).toMatch(/font \/F1: glyph \d+ is made of more than 100,000 component glyphs/);
  });
});

function cffIndex(items: number[][]): number[] {
  if (items.length === 0) return [0, 0];
  const out = [items.length >> 8, items.length & 0xff, 4];
  let offset = 1;
  for (const item of [[], ...items]) {
    offset += item.length;
    out.push((offset >>> 24) & 0xff, (offset >>> 16) & 0xff, (offset >>> 8) & 0xff, offset & 0xff);
  }
  for (const item of items) out.push(...item);
  return out;
}

/** The sfnt `data` without its table `tag` (the directory rewritten, the other tables kept as they are). */
function withoutTable(data: Uint8Array, tag: string): Uint8Array {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint16(4);
  const entries = Array.from({ length: count }, (_, i) => 12 + 16 * i).filter((at) => String.fromCharCode(...data.subarray(at, at + 4)) !== tag);
  const parts: Uint8Array[] = [];
  let at = 12 + 16 * entries.length;
  const directory = new Uint8Array(at);
  directory.set(data.subarray(0, 12));
  new DataView(directory.buffer).setUint16(4, entries.length);
  entries.forEach((entry, i) => {
    const offset = view.getUint32(entry + 8);
    const length = view.getUint32(entry + 12);
    directory.set(data.subarray(entry, entry + 8), 12 + 16 * i);
    new DataView(directory.buffer).setUint32(12 + 16 * i + 8, at);
    new DataView(directory.buffer).setUint32(12 + 16 * i + 12, length);
    const padded = new Uint8Array(length + (-length & 3));
    padded.set(data.subarray(offset, offset + length));
    parts.push(padded);
    at += padded.length;
  });
  return new Uint8Array(Buffer.concat([directory, ...parts]));
}
