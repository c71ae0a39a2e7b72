/**
 * The fax path (a page that is one CCITT image, decoded a row at a time by libtiff and averaged
 * down by libvips) must draw what poppler draws, for pages made by real producers: img2pdf from a
 * Group 4 TIFF (libtiff's coding, through PIL), and pikepdf pages around libtiff's Modified Huffman,
 * Group 3 and Group 4 data and Ghostscript's 2-D Group 3 (CCITTFaxEncode), with every polarity
 * (/BlackIs1, /Decode [1 0]) and under /Rotate. A page over
 * the pdf.js render budget (OCRmyPDF's hugemono.pdf: 35,000 × 35,000 px, which MuPDF, poppler and
 * Ghostscript draw in 20–31 MB) is drawn, no longer refused as pdf-too-complex.
 *
 * Stated tolerance: mean absolute difference per channel (0–255) from pdftoppm at the same size
 * ≤ 4 (the readers smooth the black edges differently; measured 0.3–1.5).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/index.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { localExecutor } from '../../../src/pool/local.js';
import { TaskFailure } from '../../../src/pool/pool.js';
import { ccittPlan } from '../../../src/raster/image-plan.js';
import { sha256Hex } from '../../../src/source/read.js';
import { rssGrowthDuring } from '../../helpers/rss.js';

const PY = '/usr/bin/python3';
const PRODUCER = 'test/unit/raster/producers/ccitt_pages.py';
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccitt-path-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function make(kind: string, size = 1600): { path: string; bytes: Uint8Array } {
  const path = join(dir, `${kind}-${size}.pdf`);
  execFileSync(PY, [PRODUCER, path, kind, String(size)], { timeout: 120_000 });
  return { path, bytes: new Uint8Array(readFileSync(path)) };
}

function task(bytes: Uint8Array, maxPx = 300) {
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return { docId: `${sha256Hex(bytes)}:1:${maxPx}`, bytes: shared, page: 1, maxPx, format: 'png' as const, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 };
}

async function rgb(png: Uint8Array | Buffer, width?: number, height?: number) {
  const img = sharp(png);
  const { data, info } = await (width ? img.resize(width, height, { fit: 'fill' }) : img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel between our preview and pdftoppm's drawing at its size. */
async function fromPoppler(path: string, preview: Uint8Array): Promise<number> {
  const ours = await rgb(preview);
  const out = join(dir, 'poppler');
  execFileSync('pdftoppm', ['-scale-to-x', String(ours.width), '-scale-to-y', String(ours.height), '-png', '-singlefile', path, out]);
  const theirs = await rgb(readFileSync(`${out}.png`), ours.width, ours.height);
  let sum = 0;
  for (let i = 0; i < ours.data.length; i++) sum += Math.abs(ours.data[i]! - theirs.data[i]!);
  return sum / ours.data.length;
}

describe('pages that are one CCITT image are drawn from their fax data', () => {
  for (const kind of ['img2pdf', 'mh', 'g3', 'gs-k4', 'gs-k4-aligned', 'decode', 'negative', 'rotated']) {
    it(`${kind}: as poppler draws it`, async () => {
      const { path, bytes } = make(kind);
      const plan = ccittPlan((await inspectPdf(bytes)).pages[0]!);
      expect(plan).not.toBeNull();
      const r = await localExecutor.render({ ...task(bytes), plan });
      expect(r.facts.method).toBe('image');
      expect(await fromPoppler(path, r.preview!)).toBeLessThan(4);
      // The picture's own marks, so that a page drawn all white or all black cannot pass: the band
      // on the left (on top once turned) is black, or white on the negative page.
      const { data, width } = await rgb(r.preview!);
      const at = (x: number, y: number) => data[(y * width + x) * 3]!;
      const [bandX, bandY, clearX, clearY] = kind === 'rotated' ? [150, 20, 280, 150] : [20, 150, 150, 20];
      expect(at(bandX, bandY)).toBe(kind === 'negative' ? 255 : 0);
      expect(at(clearX, clearY)).toBe(kind === 'negative' ? 0 : 255);
    });
  }

  it('leaves Group 3 without EOLs or byte alignment (TIFF cannot say so) to pdf.js, which draws it', async () => {
    const { path, bytes } = make('gs-k0-noeol', 400);
    const plan = ccittPlan((await inspectPdf(bytes)).pages[0]!);
    expect(plan, 'the structure alone cannot tell the coding').not.toBeNull();
    const r = await localExecutor.render({ ...task(bytes), plan });
    expect(r.facts.method).not.toBe('image');
    expect(await fromPoppler(path, r.preview!)).toBeLessThan(4);
  });

  it('corrupt fax data: the page goes to pdf.js within the budget, and fails with the reason over it', async () => {
    const { bytes } = make('corrupt', 400);
    const plan = ccittPlan((await inspectPdf(bytes)).pages[0]!);
    const within = await localExecutor.render({ ...task(bytes), plan });
    expect(within.facts.method).not.toBe('image');
    const error = await localExecutor.render({ ...task(bytes), plan, maxPdfjsImagePixels: 1000, largestImagePixels: 160_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailure);
    expect((error as TaskFailure).message).toMatch(/its image could not be read \(its CCITT data could not be decoded .*\), and decoding it whole would exceed the memory budget/);
  });
});

describe('CCITT pages over the pdf.js budget', () => {
  it('/Columns other than /Width: not planned from the fax data, and over the budget as pdf.js would allocate it', async () => {
    const { path, bytes } = make('columns', 400);
    expect(ccittPlan((await inspectPdf(bytes)).pages[0]!)).toBeNull();
    const report = await preflight(path, { sku: 'T-SHIRT-M' }, { pool: false, maxRenderImagePixels: 100_000 });
    expect(report.findings.find((f) => f.code === 'pdf-too-complex')?.message).toMatch(/draws images of 320,000 pixels/);
  });

  it('an 8,000 × 8,000 px img2pdf scan (64 megapixels, over the 48 of the budget) is drawn and judged, not refused', async () => {
    const { path } = make('img2pdf', 8000);
    const report = await preflight(path, { sku: 'T-SHIRT-M' }, { pool: false, previewFormat: 'png' });
    const codes = report.findings.map((f) => f.code);
    expect(codes).not.toContain('pdf-too-complex');
    expect(codes).not.toContain('page-render-failed');
    const raster = report.pages[0]!.raster!;
    expect(raster.method).toBe('image');
    // Black over the left quarter and the bottom right block: 3/8 of the page inked.
    expect(raster.inkCoverage).toBeGreaterThan(0.35);
    expect(raster.inkCoverage).toBeLessThan(0.4);
  }, 120_000);

  it('a 24,000 × 24,000 px scan (576 megapixels, 576 MB at a byte per pixel) is drawn without holding the image', async () => {
    const { bytes } = make('g4', 24000);
    const plan = ccittPlan((await inspectPdf(bytes)).pages[0]!);
    expect(plan).not.toBeNull();
    const { result: r, growth } = await rssGrowthDuring(() => localExecutor.render({ ...task(bytes, 1200), plan, maxPdfjsImagePixels: 48_000_000, largestImagePixels: 576_000_000 }));
    expect(r.facts.method).toBe('image');
    expect([r.facts.widthPx, r.facts.heightPx]).toEqual([1200, 1200]);
    // Loose: the decoded image alone would be 576 MB at a byte per pixel; the path holds a few rows.
    expect(growth).toBeLessThan(200 * 1024 * 1024);
  }, 180_000);
});
