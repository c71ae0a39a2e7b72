/**
 * Japanese text in fonts that are not embedded (reportlab's Adobe Asian fonts HeiseiMin-W3 and
 * HeiseiKakuGo-W5), previewed as Ghostscript and poppler draw it: with the system CJK face
 * (cjk-face.ts; CI installs Debian's fonts-droid-fallback, Ghostscript's face there). Before, PDFium
 * drew empty boxes. The preview the CLI writes is compared with poppler's render: its ink lies where
 * poppler's does, and poppler's where ours does (within 2 px), and the page says which face drew it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { systemCjkFace } from '../../src/raster/cjk-face.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-cjk-previews-'));
const SIZE = 800; // longest side of the 400 × 300 pt page: 144 dpi
const DPI = (72 * SIZE) / 400;

const PRODUCER = `
import sys
from reportlab.pdfgen import canvas
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
for f in ('HeiseiMin-W3', 'HeiseiKakuGo-W5'):
    pdfmetrics.registerFont(UnicodeCIDFont(f))
c = canvas.Canvas(sys.argv[1], pagesize=(400, 300))
c.setFont('HeiseiMin-W3', 40); c.drawString(30, 200, '日本語のテキスト')
c.setFont('HeiseiKakuGo-W5', 32); c.drawString(30, 110, '東京都の天気は晴れ')
c.showPage()
c.save()
`;

/** Dark pixels (luma below half) of a render, as a mask. */
async function ink(file: string): Promise<{ mask: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(file).removeAlpha().greyscale().raw().toBuffer({ resolveWithObject: true });
  return { mask: Uint8Array.from(data, (v) => (v < 128 ? 1 : 0)), width: info.width, height: info.height };
}

/** Share of `a`'s ink pixels with ink of `b` within `r` pixels. */
function covered(a: Uint8Array, b: Uint8Array, width: number, height: number, r: number): number {
  let hits = 0;
  let total = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!a[y * width + x]) continue;
      total++;
      search: for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < height && xx >= 0 && xx < width && b[yy * width + xx]) {
            hits++;
            break search;
          }
        }
    }
  return total ? hits / total : 0;
}

describe('CJK text in fonts that are not embedded, in previews', () => {
  it('is drawn with the system CJK face where poppler draws it, and the page names the face', async () => {
    const face = systemCjkFace();
    expect(face, 'a CJK face (Debian fonts-droid-fallback: .ci/run installs it)').not.toBeNull();
    const pdf = join(dir, 'japanese.pdf');
    execFileSync('/usr/bin/python3', ['-c', PRODUCER, pdf]);
    const out = join(dir, 'previews');
    let json = '';
    try {
      json = execFileSync(
        process.execPath,
        ['bin/print-preflight.js', 'check', pdf, '--product', 'duvet-cover', '--variant', '200x200', '--previews', out, '--preview-format', 'png', '--preview-size', String(SIZE), '--json'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ).toString();
    } catch (error) {
      if ((error as { status?: number }).status !== 1) throw error; // 1: the check fails (the page size)
      json = String((error as { stdout?: Buffer }).stdout);
    }
    const page = JSON.parse(json).pages[0].raster;
    expect(page.method).toBe('pdfjs');
    expect(page.approximate).toContain(`is drawn with the system face ${face!.family}`);
    expect(page.approximate).not.toContain('is not drawn');
    const files = readdirSync(out).filter((f) => f.endsWith('.png'));
    expect(files).toHaveLength(1);
    execFileSync('pdftoppm', ['-r', String(DPI), '-png', '-singlefile', pdf, join(dir, 'poppler')]);
    const ours = await ink(join(out, files[0]!));
    const poppler = await ink(join(dir, 'poppler.png'));
    expect([ours.width, ours.height]).toEqual([poppler.width, poppler.height]);
    const recall = covered(poppler.mask, ours.mask, ours.width, ours.height, 2);
    const precision = covered(ours.mask, poppler.mask, ours.width, ours.height, 2);
    console.log(`poppler's ink covered by ours ${(recall * 100).toFixed(1)} %, ours by poppler's ${(precision * 100).toFixed(1)} %`);
    expect(recall).toBeGreaterThan(0.9);
    expect(precision).toBeGreaterThan(0.9);
  }, 120_000);
});
