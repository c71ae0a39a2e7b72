/**
 * assemble(): one input per layer — 16-bit PNG with alpha, CMYK JPEG, CMYK TIFF, WebP, a one-page
 * PDF — into pages of the layer's exact size, sRGB, at the production resolution capped at the
 * pixel limit, under the size cap; the output passes the checks that the inputs could decide. A
 * layer PDF is parsed and its content decoded under the decode budget before it is placed.
 */
import { readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../../src/flow/assemble.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { localExecutor } from '../../../src/pool/local.js';
import { sha256Hex } from '../../../src/source/read.js';
import { runLengthEncode } from '../../helpers/filters.js';
// @ts-expect-error plain ESM helper without types
import { onePage, stream } from '../../hostile/pdf-writer.mjs';

const picture = (w: number, h: number) =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#3a7bd5"/><circle cx="${w / 2}" cy="${h / 3}" r="${w / 4}" fill="#f5c542"/><rect y="${h * 0.8}" width="${w}" height="${h * 0.2}" fill="#c0392b"/></svg>`,
    ),
  );

async function inputs() {
  const png16 = new Uint8Array(await picture(1200, 1600).ensureAlpha(0.8).toColourspace('rgb16').png().toBuffer());
  const cmykJpeg = new Uint8Array(await picture(1200, 1600).toColourspace('cmyk').jpeg({ quality: 90 }).toBuffer());
  const cmykTiff = new Uint8Array(await picture(900, 500).toColourspace('cmyk').tiff().toBuffer());
  const webp = new Uint8Array(await picture(900, 500).webp({ quality: 90 }).toBuffer());
  return { png16, cmykJpeg, cmykTiff, webp };
}

const codes = (r: { findings: { code: string }[] }) => new Set(r.findings.map((f) => f.code));
const ORDER_CODES = [
  'page-count-mismatch',
  'page-size-mismatch',
  'page-scale-mismatch',
  'page-orientation-mismatch',
  'colour-space-not-rgb',
  'image-too-large',
  'file-too-large',
  'page-edge-gap',
  'page-blank',
];

describe('assemble', () => {
  it('builds a t-shirt from a 16-bit PNG with alpha, a CMYK JPEG, a CMYK TIFF and a WebP', async () => {
    const i = await inputs();
    const { bytes, changes, report } = await assemble({ sku: 'T-SHIRT-M' }, [i.png16, i.cmykJpeg, i.cmykTiff, i.webp], {}, { pool: false });
    for (const c of ORDER_CODES) expect(codes(report).has(c as never), `${c}: ${report.findings.map((f) => f.message).join(' | ')}`).toBe(false);
    expect(report.pages.map((p) => [p.widthMm, p.heightMm])).toEqual([
      [560, 750],
      [560, 750],
      [460, 260],
      [460, 260],
    ]);
    expect(report.pages.every((p) => p.images.length === 1 && p.images[0]!.colourSpace === 'DeviceRGB')).toBe(true);
    expect(changes[1]).toMatch(/jpeg 1200 × 1600 px, cmyk → .* sRGB/);
    expect(changes[0]).toMatch(/png .*16.*alpha|png .*alpha/);
    // Not upsampled: the 1600 px high PNG stays 1600 px on a 750 mm page (not 150 ppi).
    expect(report.pages[0]!.images[0]!.heightPx).toBeLessThanOrEqual(1600);
    expect(bytes.length).toBeLessThan(50_000_000);
  });

  it('renders the CMYK JPEG layer in its true colours (yellow circle, blue field)', async () => {
    const i = await inputs();
    const { bytes } = await assemble({ sku: 'TANKTOP-M' }, [i.cmykJpeg, i.webp], { fit: 'stretch' }, { pool: false, raster: false });
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const r = await localExecutor.render({
      docId: sha256Hex(bytes),
      bytes: shared,
      page: 1,
      maxPx: 200,
      format: 'png',
      plan: null,
      maxInputPixels: 1e9,
      maxPdfjsImagePixels: 1e9,
      largestImagePixels: 0,
    });
    const raw = await sharp(r.preview!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...raw.data.subarray((y * raw.info.width + x) * 3, (y * raw.info.width + x) * 3 + 3)];
    const [r1, g1, b1] = at(Math.round(raw.info.width / 2), Math.round(raw.info.height / 3));
    expect(r1).toBeGreaterThan(200);
    expect(g1).toBeGreaterThan(150);
    expect(b1).toBeLessThan(120);
    const [r2, , b2] = at(5, Math.round(raw.info.height / 2));
    expect(b2).toBeGreaterThan(r2! + 60);
  });

  it('puts named layers where they belong and fills the rest in order', async () => {
    const i = await inputs();
    const { report } = await assemble({ sku: 'TANKTOP-M' }, [{ layer: 'back', input: i.webp }, i.cmykJpeg], {}, { pool: false, raster: false });
    // front: the 1200 × 1600 JPEG (cover keeps its 1600 px height); back: the 900 × 500 WebP.
    expect(report.pages[0]!.images[0]!.heightPx).toBe(1600);
    expect(report.pages[1]!.images[0]!.heightPx).toBe(500);
  });

  it('places a one-page PDF as vector content, and fits with contain on a background', async () => {
    const i = await inputs();
    const src = await PDFDocument.load(readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf'));
    const one = await PDFDocument.create();
    const [p] = await one.copyPages(src, [0]);
    one.addPage(p!);
    const pdfLayer = await one.save();
    const { report } = await assemble({ sku: 'TANKTOP-M' }, [pdfLayer, i.webp], { fit: 'contain', background: '#00ff00' }, { pool: false });
    expect(report.pages[0]!.fonts.some((f) => f.embedded)).toBe(true);
    expect(report.pages[1]!.raster!.edgeGapMm.top + report.pages[1]!.raster!.edgeGapMm.left).toBe(0); // green bars, not white
  });

  it('caps the pixels at 15,000 per side and recompresses to stay under the size cap', async () => {
    const i = await inputs();
    const big = await assemble({ sku: 'CURTAINS-140X280' }, [i.webp, i.webp], { upsample: true, fit: 'stretch' }, { pool: false, raster: false });
    expect(Math.max(big.report.pages[0]!.images[0]!.widthPx, big.report.pages[0]!.images[0]!.heightPx)).toBe(15000);
    const photo = new Uint8Array(
      await sharp({ create: { width: 1200, height: 1600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 50 } } })
        .jpeg({ quality: 95 })
        .toBuffer(),
    );
    const small = await assemble({ sku: 'TANKTOP-M' }, [photo, photo], {}, { pool: false, raster: false, limits: { maxFileBytes: 1_000_000 } });
    expect(small.changes.some((c) => /recompressed at JPEG quality \d+ to stay under 1 MB/.test(c))).toBe(true);
    expect(small.changes.some((c) => /downsampled the images/.test(c))).toBe(true);
    expect(small.bytes.length).toBeLessThanOrEqual(1_000_000);
  }, 180_000); // two 15,000-px encodes: ~45 s alone on a loaded 2-core machine

  it('refuses the wrong number of layers, unknown layer names and unreadable inputs', async () => {
    const i = await inputs();
    await expect(assemble({ sku: 'T-SHIRT-M' }, [i.webp], {}, { pool: false })).rejects.toThrow(/missing: back, left-sleeve, right-sleeve/);
    await expect(assemble({ sku: 'TANKTOP-M' }, [i.webp, i.webp, i.webp], {}, { pool: false })).rejects.toThrow(InvalidArgumentError);
    await expect(assemble({ sku: 'TANKTOP-M' }, [{ layer: 'sleeve', input: i.webp }, i.webp], {}, { pool: false })).rejects.toThrow(/no layer "sleeve"/);
    await expect(assemble({ sku: 'TANKTOP-M' }, [new Uint8Array([1, 2, 3]), i.webp], {}, { pool: false })).rejects.toThrow(/PNG, JPEG, TIFF, WebP or PDF/);
  });

  it('refuses a layer PDF over the decode budget before pdf-lib decodes it without limit', async () => {
    const i = await inputs();
    // 32 MiB of content behind RunLengthDecode (512 KiB of file): pdf-lib's embedder would inflate it whole.
    const bomb = onePage({ content: stream('/Filter /RunLengthDecode', runLengthEncode(Buffer.alloc(32 * 1024 * 1024, 0x20))) });
    const tight = { pool: false as const, raster: false, decodeLimits: { maxFileDecodedBytes: 4 * 1024 * 1024 } };
    await expect(assemble({ sku: 'TANKTOP-M' }, [bomb, i.webp], {}, tight)).rejects.toThrow(/layer front is too complex to place: .*more than 4 MiB/);
    // Within the budget it is placed as before.
    const { report } = await assemble({ sku: 'TANKTOP-M' }, [bomb, i.webp], {}, { ...tight, decodeLimits: { maxFileDecodedBytes: 256 * 1024 * 1024 } });
    expect(report.pages).toHaveLength(2);
  });
});
