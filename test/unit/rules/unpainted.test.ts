/**
 * page-unpainted-area on reportlab pages that leave parts transparent, against the geometry and
 * MuPDF's render on a transparent background: the share is counted on the unpainted pixels inside
 * the trim, not on grid cells that straddle the trim line and carry the bare bleed into the panel.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';

const dir = mkdtempSync(join(tmpdir(), 'unpainted-'));
beforeAll(() => {
  execFileSync('/usr/bin/python3', [join(__dirname, 'producers', 'unpainted_cases.py'), dir]);
});

/** MuPDF's share of transparent pixels inside the trim (10 mm in on a 560 × 750 mm page), at the preview's scale. */
async function mupdfShare(name: string): Promise<number> {
  const png = execFileSync('mutool', ['draw', '-q', '-F', 'png', '-c', 'rgba', '-h', '1200', '-o', '-', join(dir, `${name}.pdf`), '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const px = info.width / 560;
  const [x0, y0, x1, y1] = [10 * px, 10 * px, info.width - 10 * px, info.height - 10 * px].map(Math.round);
  let empty = 0;
  for (let y = y0!; y < y1!; y++) for (let x = x0!; x < x1!; x++) if (data[(y * info.width + x) * 4 + 3]! < 8) empty++;
  return empty / ((x1! - x0!) * (y1! - y0!));
}

async function check(name: string) {
  const report = await preflight(join(dir, `${name}.pdf`), { sku: 'T-SHIRT-M' }, { pool: false });
  return { share: report.pages[0]!.raster!.unpaintedShare, found: report.findings.find((f) => f.code === 'page-unpainted-area') };
}

describe('unpainted share inside the trim, to the pixel', () => {
  it('a design that stops at the trim and leaves its bleed bare leaves nothing of the panel unpainted', async () => {
    const { share, found } = await check('bare-bleed');
    expect(await mupdfShare('bare-bleed')).toBeLessThan(0.001);
    expect(share).toBeLessThan(0.002);
    expect(found).toBeUndefined();
  });

  it.each([
    ['hole-60', 3600 / (540 * 730), false],
    ['hole-80', 6400 / (540 * 730), true],
  ] as const)('%s: the hole’s share as the geometry and MuPDF give it; reported only above 1 %%', async (name, geometry, reported) => {
    const { share, found } = await check(name);
    const mupdf = await mupdfShare(name);
    expect(Math.abs(mupdf - geometry)).toBeLessThan(0.0005);
    expect(Math.abs(share - geometry)).toBeLessThan(0.0005);
    expect(found !== undefined).toBe(reported);
  });
});
