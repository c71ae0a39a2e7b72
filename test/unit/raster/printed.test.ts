/**
 * What prints is what the preview shows (issue 27), on files reportlab and pikepdf make at test
 * time (producers/printed_cases.py), with Ghostscript's print rendering (-dPrinted) as the oracle:
 * form fields drawn from their appearances when they print, every image colour space the report
 * names drawn, blend modes as the spec says, a knockout group said to be approximate, an image no
 * renderer can decode never called blank, and broken page objects that keep their place.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../../src/pool/pool.js';
import { preflightWithPreviews } from '../../../src/flow/preflight.js';
import { renderHtml } from '../../../src/report/html.js';
import type { Report } from '../../../src/report/schema.js';
import { renderText } from '../../../src/report/text.js';
import { analysePixels } from '../../../src/raster/pixels.js';
import { comparePixels, ghostscriptPage, isClose, previewPixels } from '../../realworld/pixels.js';

let dir: string;
const pool = new PreflightPool({ maxThreads: 2, taskTimeoutMs: 120_000 });
afterAll(() => pool.destroy());

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pp-printed-'));
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'producers', 'printed_cases.py'), dir], { stdio: 'pipe' });
}, 120_000);

const check = (name: string) => preflightWithPreviews(join(dir, name), { sku: 'T-SHIRT-M' }, { pool, previewFormat: 'png', previewSize: 600 });
const codes = (report: Report, page = 1) => report.findings.filter((f) => f.page === page).map((f) => f.code);

/** Our preview of page 1 against Ghostscript's print rendering at the same size. */
async function againstGhostscript(name: string, report: Report, previews: Map<number, { bytes: Uint8Array }>, page = 1) {
  const ours = await previewPixels(previews.get(page)!.bytes);
  const box = report.pages[page - 1]!.boxes.media;
  const gs = await ghostscriptPage(join(dir, name), page, ours.width, ours.height, box[2] - box[0], box[3] - box[1]);
  expect(gs, `Ghostscript draws ${name}`).not.toBeNull();
  return comparePixels(ours, gs!);
}

describe('form fields print from their appearance streams', () => {
  it('draws printable fields as Ghostscript prints them, so the page is not blank', async () => {
    const { report, previews } = await check('widgets.pdf');
    expect(report.pages[0]!.raster?.method).toBe('pdfjs');
    expect(codes(report)).not.toContain('page-blank');
    const agreement = await againstGhostscript('widgets.pdf', report, previews);
    expect(isClose(agreement), JSON.stringify(agreement)).toBe(true);
    expect(agreement.missing).toBeLessThan(0.0005);
  }, 120_000);

  it('leaves out fields without the Print flag, as the spec says paper does', async () => {
    const [printed, unprinted] = await Promise.all([check('widgets.pdf'), check('widgets-noprint.pdf')]);
    const ink = (r: { report: Report }) => r.report.pages[0]!.raster!.inkCoverage;
    // The field text and the check mark are only on the printed one (the borders are page content).
    expect(ink(printed) - ink(unprinted)).toBeGreaterThan(0.004);
  }, 120_000);
});

describe('every image colour space the report names is drawn', () => {
  it.each([
    ['image-devicen.pdf', 'DeviceN'],
    ['image-devicen-nchannel.pdf', 'DeviceN'],
    ['image-separation.pdf', 'Separation'],
    ['image-lab.pdf', 'Lab'],
    ['image-icc-cmyk-alternate.pdf', 'ICCBased'],
    ['image-icc-gray-alternate.pdf', 'ICCBased'],
  ])(
    '%s (%s): a gradient, as Ghostscript prints it',
    async (name, family) => {
      const { report, previews } = await check(name);
      expect(report.pages[0]!.images[0]!.colourFamily).toBe(family);
      expect(report.pages[0]!.raster!.inkCoverage).toBeGreaterThan(0.5);
      expect(codes(report)).not.toContain('page-blank');
      const agreement = await againstGhostscript(name, report, previews);
      expect(isClose(agreement), JSON.stringify(agreement)).toBe(true);
    },
    120_000,
  );

  it('calls a page whose image no renderer can decode page-render-failed, never blank', async () => {
    const { report } = await check('undecodable-image.pdf');
    expect(report.pages[0]!.raster!.inkCoverage).toBe(0);
    expect(codes(report)).toContain('page-render-failed');
    expect(codes(report)).not.toContain('page-blank');
    expect(report.pages[0]!.raster!.approximate).toMatch(/image could not be decoded/);
  }, 120_000);
});

describe('what PDFium draws otherwise goes to pdf.js, decided from the structure', () => {
  it('clamps fill colours outside the Indexed palette as Ghostscript does (PDFium leaves those shapes out)', async () => {
    const { report, previews } = await check('indexed-out-of-range.pdf');
    expect(report.pages[0]!.raster?.method).toBe('pdfjs');
    const agreement = await againstGhostscript('indexed-out-of-range.pdf', report, previews);
    expect(isClose(agreement), JSON.stringify(agreement)).toBe(true);
    expect(agreement.missing).toBe(0);
  }, 120_000);

  it('draws on after an inline image with corrupt data, and says the image itself is uncertain', async () => {
    const { report, previews } = await check('damaged-inline-image.pdf');
    expect(report.pages[0]!.raster?.method).toBe('pdfjs');
    expect(report.pages[0]!.raster?.approximate).toMatch(/inline image has corrupt data/);
    // The blue bar after the image is drawn (PDFium loses it: about 43 % of the page).
    const agreement = await againstGhostscript('damaged-inline-image.pdf', report, previews);
    expect(agreement.missing, JSON.stringify(agreement)).toBeLessThan(0.002);
  }, 120_000);

  it('never calls a page blank whose printing form field neither engine draws: page-render-failed, said on the page', async () => {
    const { report } = await check('field-without-appearance.pdf');
    // Ghostscript prints the button's grey background.
    const gs = await ghostscriptPage(join(dir, 'field-without-appearance.pdf'), 1, 300, 200, 300, 200);
    expect(gs && analysePixels(gs).inkCoverage).toBeGreaterThan(0.1);
    expect(codes(report)).not.toContain('page-blank');
    expect(codes(report)).toContain('page-render-failed');
    expect(report.pages[0]!.raster?.approximate).toMatch(/form field without an appearance stream is not drawn/);
  }, 120_000);
});

describe('transparency', () => {
  it('draws a Difference blend in the colours Ghostscript prints (pdf.js; PDFium blends it wrongly)', async () => {
    const { report, previews } = await check('blend-difference.pdf');
    expect(report.pages[0]!.raster?.method).toBe('pdfjs');
    const agreement = await againstGhostscript('blend-difference.pdf', report, previews);
    expect(agreement.mean).toBeLessThan(1);
  }, 120_000);

  it('says on the page that a knockout group is drawn approximately (no engine we have implements knockout)', async () => {
    const { report, previews } = await check('knockout.pdf');
    expect(report.pages[0]!.raster?.approximate).toMatch(/knockout/);
    expect(renderText(report)).toContain('preview approximate: a knockout transparency group');
    expect(renderHtml(report, previews)).toContain('approximate: a knockout transparency group');
    // And the difference is real: Ghostscript knocks the overlap out.
    expect((await againstGhostscript('knockout.pdf', report, previews)).mean).toBeGreaterThan(1);
  }, 120_000);
});

describe('page numbers never shift', () => {
  const npages = (name: string) => Number(spawnSync('qpdf', ['--show-npages', join(dir, name)], { encoding: 'utf8' }).stdout.trim());
  const mupdf = (name: string) => Number(/^Pages:\s+(\d+)/m.exec(spawnSync('mutool', ['info', join(dir, name)], { encoding: 'utf8' }).stdout)?.[1]);
  const widths = (report: Report) => report.pages.map((p) => Math.round((p.widthMm / 25.4) * 72));

  it('reads a page object with a stray token and no endobj leniently, and the page it swallowed, as qpdf and MuPDF count them', async () => {
    const { report } = await check('swallowed-page.pdf');
    expect(report.pdf.pageCount).toBe(5);
    expect(report.pdf.pageCount).toBe(npages('swallowed-page.pdf'));
    expect(report.pdf.pageCount).toBe(mupdf('swallowed-page.pdf'));
    // Page i is 300 + 20 i pt wide and draws a bar of 40 i pt: every page is its own.
    expect(widths(report)).toEqual([320, 340, 360, 380, 400]);
    const ink = report.pages.map((p) => p.raster!.inkCoverage);
    for (let i = 1; i < 5; i++) expect(ink[i]!).toBeGreaterThan(ink[i - 1]!);
    expect(report.findings.find((f) => f.code === 'pdf-repaired')?.actual).toMatch(/page 3: its page object \(5 0 R\) has syntax errors/);
    expect(report.findings.some((f) => f.code === 'page-damaged')).toBe(false);
  }, 120_000);

  it('keeps a page whose object is missing in its place, with its own finding', async () => {
    const { report } = await check('missing-page.pdf');
    expect(report.pdf.pageCount).toBe(npages('missing-page.pdf'));
    expect(report.pdf.pageCount).toBe(mupdf('missing-page.pdf'));
    expect(report.findings.filter((f) => f.code === 'page-damaged').map((f) => [f.page, f.actual])).toEqual([[2, 'its object (999 0 R) does not exist']]);
    // Pages 3–5 keep their numbers: pdf.js cannot reach them (it stops counting at page 2), PDFium draws them.
    expect(widths(report).slice(2)).toEqual([360, 380, 400]);
    expect(report.pages.map((p) => p.raster?.method ?? null)).toEqual(['pdfium', null, 'pdfium', 'pdfium', 'pdfium']);
    expect(codes(report, 2)).not.toContain('page-blank');
  }, 120_000);

  it('gives pdf.js the page object the tree walk found, or not the page at all', async () => {
    const { openWithPdfjs } = await import('../../../src/raster/pdfjs.js');
    const { renderWithPdfjs, PageMismatchError } = await import('../../../src/raster/render.js');
    const doc = await openWithPdfjs(new Uint8Array(readFileSync(join(dir, 'five-pages.pdf'))));
    await expect(renderWithPdfjs(doc, 2, 100, '4 0 R')).resolves.toMatchObject({ width: 100 });
    await expect(renderWithPdfjs(doc, 2, 100, '5 0 R')).rejects.toBeInstanceOf(PageMismatchError);
    await expect(renderWithPdfjs(doc, 6, 100)).rejects.toBeInstanceOf(PageMismatchError);
    await doc.destroy();
  }, 60_000);
});
