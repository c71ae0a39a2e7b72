/**
 * The structure scan's budgets, with small limits so the cases stay small: operators, image draws
 * and decoded bytes per page (a stream listed twice counts twice; a form drawn twice is decoded
 * once), and the sizes images declare in their own headers (JPEG SOF, JPEG 2000), read from files
 * made by sharp (libjpeg) and ImageMagick (OpenJPEG).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { codedImageSize, jpegSize, jpxSize } from '../../../src/pdf/image-header.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
// @ts-expect-error plain ESM helper without types
import { onePage, stream, writePdf } from '../../hostile/pdf-writer.mjs';

const page = (bytes: Uint8Array, scan: object) => inspectPdf(bytes, { scan }).then((f) => f.pages[0]!);

describe('per-page scan budgets', () => {
  it('stops at the operator cap and says so', async () => {
    const p = await page(onePage({ content: '0 0 m\n'.repeat(1_001) }), { maxOperators: 1_000 });
    expect(p.tooComplex).toBe(true);
    expect(p.notes.join(' ')).toMatch(/more than 1000 operators/);
    expect((await page(onePage({ content: '0 0 m\n'.repeat(999) }), { maxOperators: 1_000 })).tooComplex).toBe(false);
  });

  it('stops at the image-draw cap, keeping the draws up to it', async () => {
    const img = stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceRGB', new Uint8Array(12));
    const draws = (n: number) => onePage({ content: 'q 10 0 0 10 0 0 cm /Im Do Q\n'.repeat(n), resources: '/XObject << /Im 5 0 R >>', extra: [img] });
    const over = await page(draws(11), { maxImageDraws: 10 });
    expect(over.tooComplex).toBe(true);
    expect(over.images).toHaveLength(10);
    expect(over.notes.join(' ')).toMatch(/draws images more than 10 times/);
    expect((await page(draws(10), { maxImageDraws: 10 })).tooComplex).toBe(false);
  });

  it('counts every listing of a content stream against the page budget', async () => {
    const content = stream('/Filter /FlateDecode', deflateSync(Buffer.from('0 0 1 rg 0 0 10 10 re f\n'.repeat(25)))); // 600 bytes decoded
    const listed = (n: number) => onePage({ content, pageExtra: `/Contents [${'4 0 R '.repeat(n)}]` });
    expect((await page(listed(1), { maxDecodedBytes: 1_000 })).tooComplex).toBe(false);
    const twice = await page(listed(2), { maxDecodedBytes: 1_000 });
    expect(twice.tooComplex).toBe(true);
    expect(twice.notes.join(' ')).toMatch(/decode to more than 1000 bytes together/);
  });

  it('decodes a form drawn many times once', async () => {
    const form = stream('/Type /XObject /Subtype /Form /BBox [0 0 10 10]', '0 0 1 rg 0 0 10 10 re f\n'.repeat(25));
    const p = await page(onePage({ content: '/Fm Do\n'.repeat(20), resources: '/XObject << /Fm 5 0 R >>', extra: [form] }), { maxDecodedBytes: 1_000 });
    expect(p.tooComplex).toBe(false);
    expect(p.colours[0]!.count).toBe(20 * 25);
  });

  it('records an image’s soft mask and its JPEG’s own size', async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
      .jpeg({ progressive: true })
      .toBuffer();
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /XObject << /Im 5 0 R >> >> >>',
      stream('', 'q 400 0 0 400 0 0 cm /Im Do Q'),
      stream('/Type /XObject /Subtype /Image /Width 40 /Height 30 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /DCTDecode /SMask 6 0 R', jpeg),
      stream('/Type /XObject /Subtype /Image /Width 900 /Height 700 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode', deflateSync(Buffer.alloc(900 * 700))),
    ]);
    const image = (await page(bytes, {})).images[0]!;
    expect(image.coded).toEqual({ format: 'jpeg', widthPx: 40, heightPx: 30, components: 3, progressive: true });
    expect(image.mask).toEqual({ kind: 'SMask', ref: '6 0 R', widthPx: 900, heightPx: 700, coded: null });
  });
});

describe('inline images', () => {
  it('reads the size an inline JPEG declares in its own header', async () => {
    const jpeg = Buffer.from(
      await sharp({ create: { width: 50, height: 20, channels: 3, background: '#123' } })
        .jpeg()
        .toBuffer(),
    );
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(30_000, sof + 5);
    jpeg.writeUInt16BE(30_000, sof + 7);
    const content = Buffer.concat([Buffer.from('q 100 0 0 100 0 0 cm BI /W 2 /H 2 /CS /RGB /BPC 8 /F /DCT ID '), jpeg, Buffer.from('\nEI Q')]);
    const image = (await page(onePage({ content: stream('', content) }), {})).images[0]!;
    expect(image).toMatchObject({ inline: true, widthPx: 2, heightPx: 2, coded: { format: 'jpeg', widthPx: 30_000, heightPx: 30_000 } });
  });
});

describe('image headers', () => {
  it.each([
    [false, 'baseline'],
    [true, 'progressive'],
  ])('reads the frame header of a %s JPEG made by libjpeg (%s)', async (progressive) => {
    for (const channels of [1, 3] as const) {
      let img = sharp({ create: { width: 123, height: 45, channels: 3, background: '#3a6' } });
      if (channels === 1) img = img.greyscale().toColourspace('b-w');
      const jpeg = await img.jpeg({ progressive }).toBuffer();
      expect(jpegSize(jpeg)).toEqual({ format: 'jpeg', widthPx: 123, heightPx: 45, components: channels, progressive });
    }
  });

  it('reads a CMYK JPEG with a large ICC profile before its frame header', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#39c' } })
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer();
    expect(jpegSize(jpeg)).toMatchObject({ widthPx: 64, heightPx: 32, components: 4 });
  });

  it('reads JPEG 2000 files and codestreams made by ImageMagick (OpenJPEG)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-jpx-'));
    execFileSync('/usr/bin/convert', ['-size', '77x33', 'xc:#884422', join(dir, 'a.png')]);
    for (const ext of ['jp2', 'j2k']) {
      execFileSync('/usr/bin/convert', [join(dir, 'a.png'), join(dir, `a.${ext}`)]);
      const data = readFileSync(join(dir, `a.${ext}`));
      expect(jpxSize(data), ext).toMatchObject({ format: 'jpx', widthPx: 77, heightPx: 33 });
      expect(codedImageSize(data, ['JPXDecode']), ext).toMatchObject({ widthPx: 77, heightPx: 33 });
    }
  });

  it('reads the header of a Flate-wrapped JPEG from a prefix, and gives up on anything else', async () => {
    const jpeg = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    expect(codedImageSize(deflateSync(jpeg), ['FlateDecode', 'DCTDecode'])).toMatchObject({ widthPx: 20, heightPx: 10 });
    expect(codedImageSize(jpeg, ['ASCIIHexDecode', 'DCTDecode'])).toBeNull();
    expect(codedImageSize(jpeg, ['FlateDecode'])).toBeNull();
    expect(jpegSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeNull(); // a scan before any frame header
    expect(jpegSize(new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, 17, 8]))).toBeNull(); // cut short
    expect(jpxSize(new Uint8Array(12))).toBeNull();
  });
});
