/**
 * Text in CJK fonts that are not embedded (reportlab's Adobe Asian fonts, as pdfminer's kampo.pdf
 * and PdfPig's Type0_CJK_Font.pdf set theirs): MuPDF draws it with its own CJK faces, Ghostscript
 * and poppler with a system face where one is installed, PDFium empty boxes. pdf.js draws it with
 * the system CJK face (cjk-face.ts; CI installs fonts-droid-fallback) and the preview says which;
 * without one it says the text is not drawn — not that a substitute drew it. A page of such text
 * alone is not blank.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { systemCjkFace } from '../../../src/raster/cjk-face.js';
import { knownApproximation, pageRenderer } from '../../../src/raster/renderer.js';

const dir = mkdtempSync(join(tmpdir(), 'cjk-'));
const PRODUCER = `
import sys
from reportlab.pdfgen import canvas
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
for f in ('HeiseiMin-W3', 'STSong-Light', 'HYSMyeongJo-Medium'):
    pdfmetrics.registerFont(UnicodeCIDFont(f))
c = canvas.Canvas(sys.argv[1] + '/cjk.pdf', pagesize=(400, 300))
c.setFont('HeiseiMin-W3', 36); c.drawString(30, 220, '日本語のテキスト')
c.setFont('STSong-Light', 36); c.drawString(30, 150, '中文文本测试')
c.setFont('HYSMyeongJo-Medium', 36); c.drawString(30, 80, '한국어 텍스트')
c.showPage()
c.setFont('Helvetica', 36); c.drawString(30, 150, 'Latin in Helvetica')
c.setFont('STSong-Light', 36); c.drawString(30, 80, '中文')
c.showPage()
c.save()
`;

beforeAll(() => {
  execFileSync('/usr/bin/python3', ['-c', PRODUCER, dir]);
});

describe('CJK text in fonts that are not embedded', () => {
  it('the fonts are known as CJK from their encoding CMaps (UniJIS-UCS2-H, UniGB-UCS2-H, UniKS-UCS2-H)', async () => {
    const facts = await inspectPdf(new Uint8Array(readFileSync(join(dir, 'cjk.pdf'))));
    const fonts = facts.pages[0]!.fonts ?? [];
    expect(fonts.map((f) => [f.baseFont, f.embedded, f.cjk ?? false])).toEqual(
      expect.arrayContaining([
        ['HeiseiMin-W3', false, true],
        ['STSong-Light', false, true],
        ['HYSMyeongJo-Medium', false, true],
      ]),
    );
    expect(facts.pages[1]!.fonts?.find((f) => f.baseFont === 'Helvetica')?.cjk).toBeUndefined();
  });

  it('the preview says which system face drew the CJK text (and Latin text in a missing font is drawn with a substitute); a page of CJK text alone is not blank', async () => {
    const face = systemCjkFace();
    expect(face, 'a CJK face (Debian fonts-droid-fallback: .ci/run installs it)').not.toBeNull();
    const report = await preflight(join(dir, 'cjk.pdf'), { sku: 'T-SHIRT-M' }, { pool: false });
    expect(report.pages.map((p) => p.raster?.method)).toEqual(['pdfjs', 'pdfjs']);
    const [first, second] = report.pages.map((p) => p.raster?.approximate ?? '');
    expect(first).toContain(`text in CJK fonts not embedded (HeiseiMin-W3, STSong-Light, HYSMyeongJo-Medium) is drawn with the system face ${face!.family}`);
    expect(first).not.toContain('is drawn with a substitute font');
    expect(second).toContain('(Helvetica) is drawn with a substitute font');
    expect(second).toContain('text in CJK font not embedded (STSong-Light) is drawn with the system face');
    const codes = report.findings.filter((f) => f.page === 1).map((f) => f.code);
    expect(codes).not.toContain('page-blank');
    expect(codes).toContain('font-not-embedded');
  });

  it.each([
    ['pdf.js with a face', 'pdfjs', true, 'is drawn with the system face Droid Sans Fallback (DroidSansFallbackFull.ttf)'],
    ['pdf.js without a face', 'pdfjs', false, 'is not drawn (no face with its characters here'],
    ['PDFium, face or not', 'pdfium', true, 'is not drawn (no face with its characters here'],
  ] as const)('the page note: %s', (_n, engine, withFace, says) => {
    const page = { fonts: [{ name: 'F1', baseFont: 'STSong-Light', subtype: 'Type0', embedded: false, cjk: true }], images: [], colours: [] } as never;
    const face = withFace ? { family: 'Droid Sans Fallback', file: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf' } : null;
    expect(knownApproximation(page, engine, face)).toContain(`text in CJK font not embedded (STSong-Light) ${says}`);
  });

  it('goes to pdf.js when a CJK face is installed, else to PDFium', () => {
    const page = { fonts: [{ name: 'F1', baseFont: 'STSong-Light', subtype: 'Type0', embedded: false, cjk: true }], images: [], colours: [] } as never;
    expect(pageRenderer(page, { cjkFace: true })).toBe('pdfjs');
    expect(pageRenderer(page, { cjkFace: false })).toBe('pdfium');
    expect(pageRenderer({ fonts: [], images: [], colours: [] } as never, { cjkFace: true })).toBe('pdfium');
  });
});
