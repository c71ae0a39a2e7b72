/**
 * Bleed by extension: a t-shirt made by reportlab at the trim size of every layer (front and back
 * 540 × 730 mm, sleeves 440 × 240 mm for T-SHIRT-M) is found `page-bleed-missing` (not scaled),
 * held for approval, and once approved each page becomes its layer's size with the design in its
 * place and at its size — the fixed page's trim area drawn by MuPDF matches the original page —
 * no white edge, vector content still vector, and a check of the fixed file without
 * page-edge-gap, page-size-mismatch or page-bleed-missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fix } from '../../../src/flow/fix.js';
import { check } from '../../../src/flow/check.js';
import { mirrorTiles } from '../../../src/convert/mirror.js';
import { drawPage, type Drawing } from '../../helpers/outside-render.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-bleed-'));
const TRIMS: [number, number][] = [
  [540, 730],
  [540, 730],
  [440, 240],
  [440, 240],
];

/** A reportlab t-shirt at the trim sizes: a field, a band, a disc and a corner square, a different colour per page; optionally /Rotate on page 3. */
function trimShirt(name: string, sizes: [number, number][] = TRIMS): Uint8Array {
  const py = `
import sys
from reportlab.pdfgen import canvas
MM = 72 / 25.4
c = canvas.Canvas(sys.argv[1])
for i, (w, h) in enumerate(${JSON.stringify(sizes)}):
    c.setPageSize((w * MM, h * MM))
    c.setFillColorRGB(0.15 + 0.2 * i, 0.55, 0.85 - 0.15 * i)
    c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
    c.setFillColorRGB(0.95, 0.85, 0.1)
    c.rect(0, h * MM * 0.62, w * MM, h * MM * 0.12, stroke=0, fill=1)
    c.setFillColorRGB(0.8, 0.1, 0.2)
    c.circle(w * MM * 0.3, h * MM * 0.35, min(w, h) * MM * 0.2, stroke=0, fill=1)
    c.rect(0, 0, 30 * MM, 30 * MM, stroke=0, fill=1)
    c.showPage()
c.save()
`;
  const out = join(dir, name);
  execFileSync('/usr/bin/python3', ['-c', py, out]);
  return new Uint8Array(readFileSync(out));
}

/** Mean absolute difference per channel of `a` and the region of `b` at (x, y) of a's size. */
function regionDiff(a: Drawing, b: Drawing, x: number, y: number): number {
  let sum = 0;
  for (let j = 0; j < a.height; j++) {
    for (let i = 0; i < a.width; i++) {
      const p = (j * a.width + i) * 3;
      const q = ((j + y) * b.width + i + x) * 3;
      for (let c = 0; c < 3; c++) sum += Math.abs(a.rgb[p + c]! - b.rgb[q + c]!);
    }
  }
  return sum / (a.width * a.height * 3);
}

const nearWhite = (d: Drawing) => {
  let n = 0;
  for (let i = 0; i < d.rgb.length; i += 3) if (d.rgb[i]! > 235 && d.rgb[i + 1]! > 235 && d.rgb[i + 2]! > 235) n++;
  return n;
};

describe('bleed by extension', () => {
  it('finds a trim-size t-shirt page-bleed-missing and holds the fix for approval', async () => {
    const bytes = trimShirt('held.pdf');
    const { report } = await check(bytes, { sku: 'T-SHIRT-M' }, { raster: false, pool: false });
    const bleed = report.findings.filter((f) => f.code === 'page-bleed-missing');
    expect(bleed.map((f) => [f.page, f.severity])).toEqual([
      [1, 'warning'],
      [2, 'warning'],
      [3, 'error'],
      [4, 'error'],
    ]);
    expect(bleed[0]!.details).toMatchObject({ bleedMm: 10, missingMm: 10, trimWidthMm: 540, trimHeightMm: 730 });
    expect(report.findings.map((f) => f.code)).not.toContain('page-scale-mismatch');
    const held = await fix(bytes, { sku: 'T-SHIRT-M' }, {}, { pool: false });
    expect(held.bytes).toBeNull();
    expect(held.refused.filter((r) => r.code === 'page-bleed-missing' && /held for approval/.test(r.reason))).toHaveLength(4);
  }, 60_000);

  it('after fix, each page is its layer size, the design in place and size, no white edge, and the check is clean', async () => {
    const bytes = trimShirt('shirt.pdf');
    const { bytes: fixed, changes, after } = await fix(bytes, { sku: 'T-SHIRT-M' }, { approve: 'all' }, { pool: false });
    expect(fixed).not.toBeNull();
    expect(changes.map((c) => [c.code, c.page])).toEqual([
      ['page-bleed-missing', 1],
      ['page-bleed-missing', 2],
      ['page-bleed-missing', 3],
      ['page-bleed-missing', 4],
    ]);
    expect(after!.pages.map((p) => [Math.round(p.widthMm * 10) / 10, Math.round(p.heightMm * 10) / 10])).toEqual([
      [560, 750],
      [560, 750],
      [460, 260],
      [460, 260],
    ]);
    const codes = after!.findings.map((f) => f.code);
    for (const c of ['page-edge-gap', 'page-size-mismatch', 'page-scale-mismatch', 'page-bleed-missing', 'page-unpainted-area']) expect(codes, c).not.toContain(c);
    expect(after!.pages.every((p) => p.images.length === 0)).toBe(true); // vector stays vector
    // At 25.4 dpi a mm is a pixel: the 10 mm bleed is 10 px; the fixed page's trim area is the original page.
    for (const page of [1, 3]) {
      const original = await drawPage(bytes, page, 25.4, 'mupdf');
      const made = await drawPage(fixed!, page, 25.4, 'mupdf');
      expect(made.width - original.width).toBe(20);
      expect(made.height - original.height).toBe(20);
      const inPlace = regionDiff(original, made, 10, 10);
      // Shifted by 1 mm (a pixel) it differs clearly: the comparison can tell 1 mm apart.
      const shifted = Math.min(regionDiff(original, made, 11, 10), regionDiff(original, made, 10, 11), regionDiff(original, made, 9, 9));
      expect(inPlace, `page ${page}: in place ${inPlace}, shifted ${shifted}`).toBeLessThan(0.05);
      expect(shifted).toBeGreaterThan(0.1);
      expect(nearWhite(made), `page ${page} white pixels`).toBe(0);
      // The bleed continues the edge, mirrored: the red corner square reaches into the bleed's corner.
      const corner = made.rgb.subarray(((made.height - 3) * made.width + 2) * 3, ((made.height - 3) * made.width + 2) * 3 + 3);
      expect(corner[0]).toBeGreaterThan(150);
      expect(corner[2]).toBeLessThan(100);
    }
  }, 120_000);

  it('adds only what is missing to a page inside the bleed of the trim', async () => {
    const bytes = trimShirt('partial.pdf', [
      [550, 740],
      [540, 730],
      [440, 240],
      [440, 240],
    ]);
    const { bytes: fixed, changes, after } = await fix(bytes, { sku: 'T-SHIRT-M' }, { approve: ['page-bleed-missing'] }, { pool: false });
    expect(changes[0]!.action).toMatch(/5 mm left and right, 5 mm top and bottom/);
    expect(after!.pages[0]!.widthMm).toBeCloseTo(560, 1);
    const original = await drawPage(bytes, 1, 25.4, 'mupdf');
    const made = await drawPage(fixed!, 1, 25.4, 'mupdf');
    expect(regionDiff(original, made, 5, 5)).toBeLessThan(0.05);
  }, 120_000);
});

describe('mirrorTiles', () => {
  it('covers the page with the design and its reflections, and overlaps by what is asked', () => {
    const tiles = mirrorTiles({ x: 10, y: 10, width: 100, height: 50 }, 120, 70);
    expect(tiles).toHaveLength(9);
    expect(tiles[0]).toEqual([1, 0, 0, 1, 10, 10]);
    // Left neighbour: reflected across x = 10.
    expect(tiles).toContainEqual([-1, 0, 0, 1, 10, 10]);
    // With a 2 pt overlap the right neighbour's reflection line moves 1 pt inside the design.
    expect(mirrorTiles({ x: 10, y: 10, width: 100, height: 50 }, 120, 70, 2)).toContainEqual([-1, 0, 0, 1, 10 + 98 + 100, 10]);
    // A design far smaller than the page: rows and columns alternate.
    expect(mirrorTiles({ x: 0, y: 0, width: 10, height: 10 }, 35, 10)).toHaveLength(4);
  });
});

describe('bleed by extension with /Rotate', () => {
  it('bakes the turn of a page stored landscape with /Rotate 90 (pikepdf) and adds the bleed around the upright design', async () => {
    const src = trimShirt('rot-src.pdf', [
      [730, 540],
      [540, 730],
      [440, 240],
      [440, 240],
    ]);
    const out = join(dir, 'rot.pdf');
    execFileSync('/usr/bin/python3', ['-c', `import pikepdf, sys\npdf = pikepdf.open(sys.argv[1])\npdf.pages[0].Rotate = 90\npdf.save(sys.argv[2])`, join(dir, 'rot-src.pdf'), out]);
    const bytes = new Uint8Array(readFileSync(out));
    expect(src.length).toBeGreaterThan(0);
    const { bytes: fixed, changes, after } = await fix(bytes, { sku: 'T-SHIRT-M' }, { approve: 'all' }, { pool: false });
    expect(changes.filter((c) => c.page === 1).map((c) => c.code)).toEqual(['page-rotate-set', 'page-bleed-missing']);
    expect(after!.pages[0]).toMatchObject({ rotate: 0 });
    expect(after!.pages[0]!.widthMm).toBeCloseTo(560, 1);
    const original = await drawPage(bytes, 1, 25.4, 'mupdf');
    const made = await drawPage(fixed!, 1, 25.4, 'mupdf');
    expect([original.width, original.height]).toEqual([540, 730]);
    expect(regionDiff(original, made, 10, 10)).toBeLessThan(0.05);
    expect(nearWhite(made)).toBe(0);
  }, 120_000);
});

describe('bleed by extension on the approval page', () => {
  it('shades the mirrored bleed of each fixed page with the cut line, and says the change', async () => {
    const { approvalPage } = await import('../../../src/report/customer-pages.js');
    const { registryFrom } = await import('../../../src/profile/load.js');
    const bytes = trimShirt('approval.pdf');
    const { report: before } = await check(bytes, { sku: 'T-SHIRT-M' }, { raster: false, pool: false });
    const { bytes: fixed, changes, after } = await fix(bytes, { sku: 'T-SHIRT-M' }, { approve: 'all' }, { pool: false });
    const profile = (await registryFrom(undefined)).resolve({ sku: 'T-SHIRT-M' }).profile;
    // The marks do not depend on the picture's pixels: an empty one stands for the preview.
    const picture = { bytes: new Uint8Array(0), format: 'png' as const, widthPx: 56, heightPx: 75 };
    const html = await approvalPage({
      before,
      after: after!,
      beforeImages: new Map(),
      afterImages: new Map([1, 2, 3, 4].map((p) => [p, picture])),
      mockups: new Map(),
      record: { fixed: { bytes: fixed!.length, changes }, approval: { state: 'pending' } },
      profile,
      locale: 'en',
      action: '/v1/approvals/x',
    });
    const marked = [...html.matchAll(/<section class="layer" data-page="(\d)"[\s\S]*?<\/section>/g)].map((m) => [Number(m[1]), /data-bleed-x="([\d.]+)"/.exec(m[0])?.[1] ?? null]);
    // 10 mm of 560 mm (front, back) and of 460 mm (sleeves) on each side.
    expect(marked).toEqual([
      [1, String(10 / 560)],
      [2, String(10 / 560)],
      [3, String(10 / 460)],
      [4, String(10 / 460)],
    ]);
    expect(html).toContain('We added the 10 mm edge by mirroring your design at its borders');
  }, 120_000);
});
