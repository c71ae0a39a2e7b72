/**
 * JPEG quality from the quantisation tables, checked against the settings real encoders were
 * given: ImageMagick (`convert -quality`), PIL (`quality=`) and sharp/libvips — all of the libjpeg
 * family, so the estimate must be exact — in colour and grey, baseline and progressive.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { estimateJpegQuality, jpegQuality, jpegQuantTables, scaledTable } from '../../../src/pdf/jpeg-quality.js';
import { codedImageSize, codedJpegQuality } from '../../../src/pdf/image-header.js';

const dir = mkdtempSync(join(tmpdir(), 'jpeg-quality-'));

/** A small photo-like picture: gradients and noise, so every coefficient matters. */
async function picture(): Promise<Buffer> {
  const w = 96;
  const h = 64;
  const raw = Buffer.alloc(w * h * 3);
  let seed = 7;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = ((i / 3) % w) * 2 + (seed % 40);
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

describe('jpeg quality from the DQT tables', () => {
  const qualities = [5, 20, 35, 50, 63, 75, 85, 92, 97, 100];

  it.each(qualities)('ImageMagick -quality %i (colour and grey, progressive too)', async (q) => {
    const png = join(dir, 'in.png');
    await sharp(await picture()).toFile(png);
    for (const extra of [[], ['-colorspace', 'gray'], ['-interlace', 'JPEG']]) {
      const out = join(dir, `im-${q}.jpg`);
      execFileSync('/usr/bin/convert', [png, ...extra, '-quality', String(q), out]);
      expect(jpegQuality(readFileSync(out)), `${q} ${extra.join(' ')}`).toEqual({ quality: q, exact: true, tables: 'libjpeg' });
    }
  });

  it.each(qualities)('PIL quality=%i', async (q) => {
    const png = join(dir, 'in-pil.png');
    await sharp(await picture()).toFile(png);
    const out = join(dir, `pil-${q}.jpg`);
    execFileSync('/usr/bin/python3', ['-c', `from PIL import Image; Image.open(${JSON.stringify(png)}).save(${JSON.stringify(out)}, quality=${q})`]);
    expect(jpegQuality(readFileSync(out))).toEqual({ quality: q, exact: true, tables: 'libjpeg' });
  });

  it.each(qualities)('sharp quality %i', async (q) => {
    const jpeg = await sharp(await picture())
      .jpeg({ quality: q })
      .toBuffer();
    expect(jpegQuality(jpeg)).toEqual({ quality: q, exact: true, tables: 'libjpeg' });
  });

  it.each(qualities)('sharp with mozjpeg quality %i: exact on mozjpeg’s own tables (a libjpeg fit read quality 60 as 55)', async (q) => {
    const jpeg = await sharp(await picture())
      .jpeg({ quality: q, mozjpeg: true })
      .toBuffer();
    // At 100 every table is all ones, whoever scaled it.
    expect(jpegQuality(jpeg)).toEqual({ quality: q, exact: true, tables: q === 100 ? 'libjpeg' : 'mozjpeg' });
  });

  it.each([1, 2, 4, 5, 6, 7, 8])('mozjpeg base table %i (sharp’s quantisationTable) at qualities 30, 60 and 90', async (table) => {
    for (const q of [30, 60, 90]) {
      const jpeg = await sharp(await picture())
        .jpeg({ quality: q, quantisationTable: table })
        .toBuffer();
      const found = jpegQuality(jpeg)!;
      expect(found, `${table} ${q}`).toMatchObject({ exact: true, tables: 'mozjpeg' });
      // The flat table (all 16) is the same at several settings (3 from 90 to 92): within 2 of the setting.
      expect(Math.abs(found.quality - q), `${table} ${q}`).toBeLessThanOrEqual(table === 1 ? 2 : 0);
    }
  });

  it('tables of another encoder fit the nearest libjpeg quality, flagged as not exact', () => {
    // A table 1.3× libjpeg's quality-80 luminance table (not any libjpeg setting).
    const luma = scaledTable(LUMA_FOR_TEST, 80).map((v) => Math.round(v * 1.3));
    const estimate = estimateJpegQuality(new Map([[0, luma]]));
    expect(estimate?.exact).toBe(false);
    expect(estimate!.quality).toBeGreaterThanOrEqual(70);
    expect(estimate!.quality).toBeLessThan(80);
  });

  it('reads tables only up to the first scan, and nothing from data that is not a JPEG', () => {
    expect(jpegQuantTables(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(jpegQuantTables(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeNull();
    // A DQT segment that claims more than there is: no crash, no table.
    expect(jpegQuantTables(new Uint8Array([0xff, 0xd8, 0xff, 0xdb, 0, 67, 0, 1, 2]))).toBeNull();
  });

  it('is read from an image stream as the PDF stores it (a JPEG, or a JPEG wrapped in Flate)', async () => {
    const jpeg = await sharp(await picture())
      .jpeg({ quality: 42 })
      .toBuffer();
    expect(codedJpegQuality(jpeg, ['DCTDecode'])).toEqual({ quality: 42, exact: true, tables: 'libjpeg' });
    expect(codedJpegQuality(deflateSync(jpeg), ['FlateDecode', 'DCTDecode'])).toEqual({ quality: 42, exact: true, tables: 'libjpeg' });
    expect(codedJpegQuality(jpeg, ['JPXDecode'])).toBeNull();
    expect(codedImageSize(jpeg, ['DCTDecode'])).toMatchObject({ format: 'jpeg', widthPx: 96, heightPx: 64 });
  });
});

/** T.81 K.1, natural order (the same numbers as the module's, written out again here on purpose). */
const LUMA_FOR_TEST = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
  49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
