/**
 * pdf.js in Node draws a luminosity soft mask as plain alpha (its Node filter factory has no SVG
 * filters): the masked content shows unmasked, or as a box. soft-mask.ts applies the mask; MuPDF
 * (`mutool draw`) is the oracle for what the page looks like.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { openWithPdfjs } from '../../../src/raster/pdfjs.js';
import { renderWithPdfjs } from '../../../src/raster/render.js';
import { toAlpha } from '../../../src/raster/soft-mask.js';

describe('luminosity soft masks', () => {
  it('masks what the page draws as MuPDF does (pikepdf file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-smask-'));
    const pdf = join(dir, 'smask.pdf');
    execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'producers', 'soft_mask.py'), pdf]);
    const doc = await openWithPdfjs(new Uint8Array(readFileSync(pdf)));
    const px = await renderWithPdfjs(doc, 1, 300);
    await doc.destroy();
    expect([px.width, px.height]).toEqual([300, 200]);
    const at = (x: number, y: number) => [...px.data.subarray((y * px.width + x) * 4, (y * px.width + x) * 4 + 3)];
    expect(at(75, 100)).toEqual([230, 26, 26]); // left half: the mask group is white, the red shows
    expect(at(225, 100)).toEqual([255, 255, 255]); // right half: black backdrop, nothing shows
    const png = join(dir, 'mu.png');
    execFileSync('mutool', ['draw', '-q', '-w', '300', '-h', '200', '-F', 'png', '-o', png, pdf, '1']);
    const mu = await sharp(png).removeAlpha().raw().toBuffer();
    let sum = 0;
    for (let i = 0, j = 0; i < px.data.length; i += 4, j += 3) for (let c = 0; c < 3; c++) sum += Math.abs(px.data[i + c]! - mu[j + c]!);
    expect(sum / mu.length).toBeLessThan(2);
  });

  it.each([
    ['luminosity of white', 'luminosity', [255, 255, 255, 255], null, 255],
    ['luminosity of black', 'luminosity', [0, 0, 0, 255], null, 0],
    ['luminosity of pure red (0.3)', 'luminosity', [255, 0, 0, 255], null, 77],
    ['alpha through a transfer map that inverts', 'alpha', [0, 0, 0, 200], Array.from({ length: 256 }, (_, i) => 255 - i), 55],
  ] as const)('%s', (_n, kind, rgba, map, alpha) => {
    const out = toAlpha(new Uint8ClampedArray(rgba), { kind, map });
    expect([...out]).toEqual([0, 0, 0, alpha]);
  });
});
