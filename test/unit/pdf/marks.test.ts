/**
 * How much of the page its content inks (`ink` and `images` of pdf/marks.ts), estimated by the
 * content scan, and the rule built on it: an empty raster of a page whose content paints is a
 * rendering failure, never a blank page.
 */
import { describe, expect, it } from 'vitest';
import type { ColourSpaceFacts } from '../../../src/pdf/facts.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { colourInks } from '../../../src/pdf/marks.js';
import { checkPageBlank, checkPageRender, emptyButPaints } from '../../../src/rules/check-page-pixels.js';
import { context, doc, page } from '../../helpers/facts.js';

/** A one-page PDF (200 × 100 pt) with `content` and an ExtGState /G1 = `gs`, written by hand. */
function pdf(content: string, gs = '<< >>', cropBox = ''): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  const obj = (s: string) => {
    offsets.push(out.length);
    out += s;
  };
  obj('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  obj('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n');
  obj(`3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] ${cropBox} /Contents 4 0 R /Resources << /ExtGState << /G1 ${gs} >> >> >> endobj\n`);
  obj(`4 0 obj << /Length ${content.length} >> stream\n${content}\nendstream endobj\n`);
  const xref = out.length;
  out += `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const marks = async (content: string, gs?: string, cropBox?: string) => (await inspectPdf(pdf(content, gs, cropBox))).pages[0]!.marks!;

describe('the ink a page should leave', () => {
  it.each([
    ['a black half-page fill', '0 g 0 0 100 100 re f', 0.5],
    ['the same fill in white (DeviceGray 1)', '1 g 0 0 100 100 re f', 0],
    ['white in RGB, then in CMYK', '1 1 1 rg 0 0 100 100 re f 0 0 0 0 k 0 0 100 100 re f', 0],
    ['a CMYK fill of 3 % cyan', '0.03 0 0 0 k 0 0 200 100 re f', 1],
    ['a fill outside the page', '0 g 300 0 100 100 re f', 0],
    ['a fill half off the page', '0 g 150 0 100 100 re f', 0.25],
    ['a fill clipped away (W n to a box elsewhere)', 'q 300 300 10 10 re W n 0 g 0 0 200 100 re f Q', 0],
    ['a fill clipped to a quarter', 'q 0 0 100 50 re W n 0 g 0 0 200 100 re f Q', 0.25],
    ['after the clip is popped again', 'q 0 0 10 10 re W n Q 0 g 0 0 200 100 re f', 1],
    ['a fully transparent fill (/ca 0)', '/G1 gs 0 g 0 0 200 100 re f', 0, '<< /ca 0 >>'],
    ['a fill through a soft mask (what shows cannot be told)', '/G1 gs 0 g 0 0 200 100 re f', 0, '<< /SMask << /S /Luminosity /G 5 0 R >> >>'],
    ['DeviceGray 0.5 after white', '1 g 0 0 100 100 re f 0.5 g 100 0 100 100 re f', 0.5],
    ['a 2 pt stroke along a 100 pt line', '0 G 2 w 0 50 m 100 50 l S', 0.01],
    ['text (not counted: a string of spaces paints nothing)', 'BT /F1 12 Tf 10 10 Td (Hello) Tj ET', 0],
    ['a fill on a page cropped to its other half', '0 g 0 0 100 100 re f', 0, undefined, '/CropBox [100 0 200 100]'],
  ])('%s: %f of the page', async (_name, content, share, gs?: string, crop?: string) => {
    expect((await marks(content, gs, crop)).ink).toBeCloseTo(share, 3);
  });

  it('counts images apart (an image may be white)', async () => {
    const m = await marks('q 100 0 0 100 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \xff EI Q');
    expect(m).toMatchObject({ ink: 0, images: 0.5 });
  });

  it('knows which colour values print', () => {
    const gray: ColourSpaceFacts = { family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' };
    const sep: ColourSpaceFacts = { family: 'Separation', model: 'spot', components: 1, label: 'Separation', colorants: ['Gold'] };
    const none: ColourSpaceFacts = { ...sep, colorants: ['None'] };
    const lab: ColourSpaceFacts = { family: 'Lab', model: 'lab', components: 3, label: 'Lab' };
    expect([colourInks(gray, [1]), colourInks(gray, [0.97]), colourInks(gray, undefined)]).toEqual([false, true, true]);
    expect([colourInks(sep, [0]), colourInks(sep, [0.5]), colourInks(sep, undefined), colourInks(none, [1])]).toEqual([false, true, true, false]);
    expect([colourInks(lab, [100, 0, 0]), colourInks(lab, [100, 30, 0]), colourInks(lab, [50, 0, 0])]).toEqual([false, true, true]);
  });
});

describe('an empty raster of a page whose content paints is not a blank page', () => {
  /** Marks of a page that inks `ink` of its area with vector painting (no marks listed). */
  const inks = (ink: number) => ({ texts: [], strokes: [], shapes: [], dropped: 0, ink, images: 0 });
  const raster = (inkCoverage: number, approximate?: string) =>
    new Map([
      [
        1,
        {
          index: 1,
          widthPx: 10,
          heightPx: 10,
          method: 'pdfium' as const,
          ms: 1,
          warnings: [],
          inkCoverage,
          edgeGapPx: { top: 0, right: 0, bottom: 0, left: 0 },
          ...(approximate ? { approximate } : {}),
        },
      ],
    ]);
  const facts = (ink: number) => doc([page(1, 2040, 2040, { marks: inks(ink) })]);

  it.each([
    ['nothing painted, nothing drawn', 0, 0, undefined, 'page-blank'],
    ['a fill of 20 % of the page, nothing drawn', 0.2, 0, undefined, 'page-render-failed'],
    ['a fill of 0.03 % (under four times the threshold): a speck, as renderers may round away', 0.0003, 0, undefined, 'page-blank'],
    ['an image pdf.js could not decode', 0, 0, 'an image could not be decoded and is missing from the preview (Unable to decode image)', 'page-render-failed'],
    ['a fill of 20 %, drawn', 0.2, 0.2, undefined, null],
  ])('%s → %s', async (_name, ink, drawn, approximate, expected) => {
    const ctx = { ...(await context(facts(ink))), raster: raster(drawn, approximate) };
    const found = [...checkPageBlank(ctx), ...checkPageRender(ctx)].map((d) => d.code);
    expect(found).toEqual(expected ? [expected] : []);
  });

  it('says what the content paints', () => {
    expect(emptyButPaints({ inkCoverage: 0 }, { marks: inks(0.2) }, 0.0001)).toBe('rendering drew nothing, but its content paints about 20 % of the page in colours that print');
  });
});
