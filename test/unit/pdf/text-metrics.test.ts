/**
 * Font metrics the content scanner places text with (pdf/text-metrics.ts): which codes paint
 * nothing (spaces, by glyph name or by /ToUnicode), and the em of Type 3 fonts.
 */
import { PDFDocument, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/pdf/text-metrics.js';

const TO_UNICODE = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
3 beginbfchar <0003> <0020> <0024> <0041> <0101> <3000> endbfchar
2 beginbfrange <0200> <0202> <2000> <0300> <0301> [<0042> <00A0>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`;

describe('codes that paint nothing', () => {
  it('a composite font: the codes its /ToUnicode maps to a space (bfchar, bfrange with a start or an array)', async () => {
    const doc = await PDFDocument.create();
    const ctx = doc.context;
    const toUnicode = ctx.flateStream(TO_UNICODE);
    const font = ctx.obj({
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: 'X',
      Encoding: 'Identity-H',
      DescendantFonts: [ctx.obj({ Type: 'Font', Subtype: 'CIDFontType2', DW: 600 })],
      ToUnicode: ctx.register(toUnicode),
    });
    const { decodeStream } = await import('../../../src/pdf/streams.js');
    const m = fontMetrics(ctx, font, (s) => decodeStream(ctx, s, { maxBytes: 1 << 20 }));
    expect([0x0003, 0x0101, 0x0200, 0x0201, 0x0202, 0x0301].every((c) => m.blank(c))).toBe(true);
    expect([0x0024, 0x0300, 0x0203, 0x0004].some((c) => m.blank(c))).toBe(false);
    // Without a reader no map is read: nothing is taken for a space.
    expect(fontMetrics(ctx, font).blank(0x0003)).toBe(false);
  });

  it('a simple font: code 32 of its base encoding unless /Differences renames it, and what /Differences names a space', async () => {
    const doc = await PDFDocument.create();
    const ctx = doc.context;
    const plain = ctx.obj({ Type: 'Font', Subtype: 'TrueType', Encoding: 'WinAnsiEncoding' });
    expect([fontMetrics(ctx, plain).blank(32), fontMetrics(ctx, plain).blank(160), fontMetrics(ctx, plain).blank(65)]).toEqual([true, true, false]);
    const renamed = ctx.obj({ Type: 'Font', Subtype: 'TrueType', Encoding: ctx.obj({ Type: 'Encoding', BaseEncoding: 'StandardEncoding', Differences: [32, 'A', 'space'] }) });
    const r = fontMetrics(ctx, renamed);
    expect([r.blank(32), r.blank(33)]).toEqual([false, true]);
  });
});

describe('the em of a Type 3 font', () => {
  const type3 = async (matrix: number[], bbox: number[]) => {
    const doc = await PDFDocument.create();
    const ctx = doc.context;
    const font = ctx.obj({ Type: 'Font', Subtype: 'Type3', FontMatrix: matrix, FontBBox: bbox, CharProcs: {}, FirstChar: 0, LastChar: 0, Widths: [1000] });
    font.set(PDFName.of('Resources'), ctx.obj({}));
    return fontMetrics(ctx, font);
  };
  it('a 1/N matrix is an N-unit em: one unit of font size, whatever N (1,000 or an emoji font’s 2,048)', async () => {
    expect((await type3([0.001, 0, 0, 0.001, 0, 0], [0, -200, 1000, 800])).em).toBe(1);
    expect((await type3([1 / 2048, 0, 0, 1 / 2048, 0, 0], [0, -410, 2048, 1638])).em).toBe(1);
  });
  it('glyphs drawn in other units take their bounding box through the matrix', async () => {
    expect((await type3([0.5, 0, 0, 0.5, 0, 0], [0, 0, 2, 3])).em).toBeCloseTo(1.5);
  });
});
