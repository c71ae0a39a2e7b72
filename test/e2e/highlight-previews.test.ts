/**
 * Soft-masked highlights as the oracles draw them (issue 46; pdf.js issue13520.pdf): a dark shading
 * drawn with Screen through a luminosity mask lightens the artwork a little, and a shape drawn with
 * Screen or Multiply inside a non-isolated group blends with what lies behind the group. pdf.js drew
 * both as dark blobs (it composed masked objects with Normal and drew every group as if isolated):
 * 25 and 38 levels a channel off poppler on these files. Each file is made at test time by a real
 * producer — cairo (Screen through cairo_mask, a Multiply marker) and pikepdf (Illustrator's shapes:
 * groups through a mask with /BC and /TR, a Screen group through a mask, an Acrobat Highlight
 * annotation) — and each preview the CLI writes is compared, pixel by pixel, with poppler's render;
 * MuPDF's figure is printed beside it (MuPDF ignores a soft mask's transfer function).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pp-highlight-previews-'));
const producers = join(import.meta.dirname, 'producers');
/** Preview size (longest side) of the 300 × 200 pt pages: 144 dpi. */
const SIZE = 600;
const DPI = (72 * SIZE) / 300;

function previews(pdf: string, name: string): string[] {
  const out = join(dir, `${name}-previews`);
  try {
    execFileSync(
      process.execPath,
      ['bin/print-preflight.js', 'check', pdf, '--product', 'duvet-cover', '--variant', '200x200', '--previews', out, '--preview-format', 'png', '--preview-size', String(SIZE), '--json'],
      {
        stdio: 'pipe',
      },
    );
  } catch (error) {
    if ((error as { status?: number }).status !== 1) throw error; // 1: the check fails (the page size)
  }
  const page = (f: string) => Number(f.match(/page-(\d+)/)?.[1]);
  return readdirSync(out)
    .filter((f) => f.endsWith('.png'))
    .sort((a, b) => page(a) - page(b))
    .map((f) => join(out, f));
}

/** Mean absolute difference of each channel (R, G, B) between two renders of the same size. */
async function meanDifference(a: string, b: string): Promise<number[]> {
  const [x, y] = await Promise.all([a, b].map((f) => sharp(f).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  expect([y!.info.width, y!.info.height]).toEqual([x!.info.width, x!.info.height]);
  const sum = [0, 0, 0];
  for (let i = 0; i < x!.data.length; i++) sum[i % 3]! += Math.abs(x!.data[i]! - y!.data[i]!);
  return sum.map((s) => s / (x!.data.length / 3));
}

const cases = [
  ['cairo: Screen through a luminosity mask, a Multiply marker', 'highlights_cairo.py', 'cairo', 1],
  ['pikepdf: Illustrator groups through masks with /BC and /TR, an Acrobat Highlight annotation, a translucent Multiply group', 'highlights_pikepdf.py', 'pikepdf', 2],
] as const;

describe('soft-masked highlights in previews', () => {
  it.each(cases)(
    "%s: within 12 levels a channel of poppler's render",
    async (_title, script, name, pages) => {
      const pdf = join(dir, `${name}.pdf`);
      execFileSync('/usr/bin/python3', [join(producers, script), pdf]);
      const ours = previews(pdf, name);
      expect(ours).toHaveLength(pages);
      for (const [i, preview] of ours.entries()) {
        const p = String(i + 1);
        execFileSync('pdftoppm', ['-f', p, '-l', p, '-r', String(DPI), '-png', '-singlefile', pdf, join(dir, `${name}-${p}-poppler`)]);
        execFileSync('mutool', ['draw', '-q', '-r', String(DPI), '-o', join(dir, `${name}-${p}-mupdf.png`), pdf, p]);
        const poppler = await meanDifference(preview, join(dir, `${name}-${p}-poppler.png`));
        const mupdf = await meanDifference(preview, join(dir, `${name}-${p}-mupdf.png`));
        const say = (v: number[]) => v.map((d) => d.toFixed(1)).join('/');
        console.log(`${name} page ${p}: mean difference a channel (R/G/B) from poppler ${say(poppler)}, from MuPDF ${say(mupdf)}`);
        for (const d of poppler) expect(d, `page ${p}: poppler ${say(poppler)}, MuPDF ${say(mupdf)}`).toBeLessThanOrEqual(12);
      }
    },
    120_000,
  );
});
