/**
 * The Flate fast path (a page that is one Flate image too big for pdf.js is inflated and reduced
 * row by row) must look like pdf.js's render of the same page. Files come from img2pdf (PNG input:
 * Flate with PNG row predictors), RGB and gray; stated tolerance: mean absolute difference per
 * channel ≤ 3 (0–255), as for turned JPEG pages (resampling differs at edges).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { localExecutor } from '../../../src/pool/local.js';
import { preflight } from '../../../src/preflight.js';
import { flatePlan } from '../../../src/raster/flate-path.js';
import { sha256Hex } from '../../../src/source/read.js';

async function img2pdfPage(channels: 'srgb' | 'b-w', extra: string[] = []): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'pp-flate-'));
  const w = 600;
  const h = 400;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <rect width="${w}" height="${h}" fill="#e8d080"/><rect width="200" height="120" fill="#d02020"/>
    <rect y="330" width="${w}" height="70" fill="#2040c0"/><circle cx="420" cy="170" r="80" fill="#20a040"/></svg>`;
  let img = sharp(Buffer.from(svg)).removeAlpha();
  if (channels === 'b-w') img = img.toColourspace('b-w');
  writeFileSync(join(dir, 'a.png'), await img.png().toBuffer());
  execFileSync('img2pdf', [join(dir, 'a.png'), ...extra, '-o', join(dir, 'a.pdf')]);
  return new Uint8Array(readFileSync(join(dir, 'a.pdf')));
}

async function bothWays(bytes: Uint8Array) {
  const facts = await inspectPdf(bytes);
  const plan = flatePlan(facts.pages[0]!);
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const task = { docId: sha256Hex(bytes), bytes: shared, page: 1, maxPx: 300, format: 'png' as const, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 };
  const fast = await localExecutor.render({ ...task, plan });
  const slow = await localExecutor.render({ ...task, plan: null });
  const raw = async (png: Uint8Array) => sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const a = await raw(fast.preview!);
  const b = await raw(slow.preview!);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return { plan, facts, fast, slow, meanDiff: sum / a.data.length, sizes: [a.info.width, a.info.height, b.info.width, b.info.height] };
}

describe('the Flate fast path', () => {
  it.each([
    ['RGB', 'srgb' as const],
    ['gray', 'b-w' as const],
  ])('draws an img2pdf %s page like pdf.js', async (_, channels) => {
    const r = await bothWays(await img2pdfPage(channels));
    expect(r.facts.pages[0]!.images[0]!.filters).toEqual(['FlateDecode']);
    expect(r.plan).toMatchObject({ kind: 'flate', components: channels === 'srgb' ? 3 : 1, widthPx: 600, heightPx: 400 });
    expect(r.fast.facts.method).toBe('image');
    expect(r.slow.facts.method).toBe('pdfjs');
    expect(r.sizes.slice(0, 2)).toEqual(r.sizes.slice(2));
    expect(r.meanDiff).toBeLessThanOrEqual(3);
  });

  it('draws a turned page (/Rotate 90 from img2pdf) like pdf.js', async () => {
    const r = await bothWays(await img2pdfPage('srgb', ['--rotation=90']));
    expect(r.fast.facts.method).toBe('image');
    expect(r.sizes.slice(0, 2)).toEqual(r.sizes.slice(2));
    expect(r.meanDiff).toBeLessThanOrEqual(3);
  });

  it('is used only for pages over the render budget, so they are rendered within it', async () => {
    const bytes = await img2pdfPage('srgb');
    const within = await preflight(bytes, { sku: 'TANKTOP-M' }, { pool: false });
    // Within the budget the page goes to a renderer (PDFium or pdf.js, raster/renderer.ts), not the Flate path.
    expect(['pdfjs', 'pdfium']).toContain(within.pages[0]!.raster!.method);
    const over = await preflight(bytes, { sku: 'TANKTOP-M' }, { pool: false, maxRenderImagePixels: 100_000 });
    expect(over.pages[0]!.raster!.method).toBe('image');
    expect(over.findings.map((f) => f.code)).not.toContain('pdf-too-complex');
  });
});
