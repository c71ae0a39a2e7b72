/**
 * check → fix → check on files from other producers: each fix removes its finding and adds none,
 * and renders before and after (turned or scaled as the fix intends) match within a tolerance, so
 * a fix is proved not to damage the design.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, degrees } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { fix } from '../../../src/flow/fix.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { localExecutor } from '../../../src/pool/local.js';
import { preflight } from '../../../src/flow/preflight.js';
import { loadProfiles } from '../../../src/profile/load.js';
import { ProfileRegistry } from '../../../src/profile/registry.js';
import { sha256Hex } from '../../../src/source/read.js';

const pool = new PreflightPool({ maxThreads: 2 });
afterAll(() => pool.destroy());
const corpus = (f: string) => new Uint8Array(readFileSync(`test/corpus/files/${f}`));
const codes = (r: { findings: { code: string }[] }) => new Set(r.findings.map((f) => f.code));

/** A page rendered by pdf.js at `px` on its longest side, as raw RGB. */
async function render(bytes: Uint8Array, page = 1, px = 240) {
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const r = await localExecutor.render({ docId: sha256Hex(bytes), bytes: shared, page, maxPx: px, format: 'png', plan: null, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 });
  const raw = await sharp(r.preview!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: raw.data, width: raw.info.width, height: raw.info.height, png: r.preview! };
}

async function meanDiff(a: { data: Buffer; width: number; height: number }, b: { data: Buffer; width: number; height: number }) {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}

/** A registry with one product whose layer sizes we choose (the reportlab t-shirt has asymmetric pages). */
async function customProduct(sizes: [number, number][]) {
  const base = (await loadProfiles()).get('t-shirt')!;
  const layers = sizes.map((_, i) => ({ id: `l${i + 1}`, name: `L${i + 1}`, sewnEdges: ['top', 'right', 'bottom', 'left'] as ('top' | 'right' | 'bottom' | 'left')[] }));
  const trim = Object.fromEntries(sizes.map(([w, h], i) => [`l${i + 1}`, { widthMm: w - 20, heightMm: h - 20 }]));
  return ProfileRegistry.from([{ profile: { ...base, id: 'custom', layers, variants: [{ id: 'X', skus: ['CUSTOM-X'], trim }] } }]);
}

describe('fix: geometry', () => {
  const tshirt = corpus('reportlab-tshirt-M-exact.pdf');
  const sizes: [number, number][] = [
    [560, 750],
    [560, 750],
    [460, 260],
    [460, 260],
  ];

  it('bakes /Rotate into the content: the page looks the same and /Rotate is 0', async () => {
    const doc = await PDFDocument.load(tshirt);
    doc.getPages().forEach((p) => p.setRotation(degrees(90)));
    const rotated = await doc.save();
    const profiles = await customProduct(sizes.map(([w, h]) => [h, w]));
    const r = await fix(rotated, { sku: 'CUSTOM-X' }, {}, { profiles, pool });
    expect([...codes(r.before)]).toContain('page-rotate-set');
    expect(codes(r.after!).has('page-rotate-set')).toBe(false);
    expect(r.after!.pages.every((p) => p.rotate === 0)).toBe(true);
    expect(r.after!.verdict).toBe('pass');
    expect(await meanDiff(await render(rotated), await render(r.bytes!))).toBeLessThan(2);
  });

  it('turns a sideways page the way it is told, and refuses to guess', async () => {
    const profiles = await customProduct(sizes.map(([w, h]) => [h, w]));
    const refused = await fix(tshirt, { sku: 'CUSTOM-X' }, {}, { profiles, pool });
    expect(refused.refused.map((x) => x.code)).toContain('page-orientation-mismatch');
    // The library's fix names its option (the fix command says --rotate: test/e2e/cli.test.ts).
    expect(refused.refused[0]!.reason).toMatch(/the option rotate: 'cw' or 'ccw'/);
    const r = await fix(tshirt, { sku: 'CUSTOM-X' }, { rotate: 'cw' }, { profiles, pool });
    expect(codes(r.after!).has('page-orientation-mismatch')).toBe(false);
    expect(r.after!.verdict).toBe('pass');
    const before = await render(tshirt);
    const turned = await sharp(before.data, { raw: { width: before.width, height: before.height, channels: 3 } })
      .rotate(90)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(await meanDiff({ data: turned.data, width: turned.info.width, height: turned.info.height }, await render(r.bytes!))).toBeLessThan(4);
  });

  it('scales a page of the right proportions to its layer', async () => {
    const profiles = await customProduct(sizes.map(([w, h]) => [w * 2, h * 2]));
    const r = await fix(tshirt, { sku: 'CUSTOM-X' }, {}, { profiles, pool });
    expect(codes(r.before).has('page-scale-mismatch')).toBe(true);
    expect(codes(r.after!).has('page-scale-mismatch')).toBe(false);
    expect(r.after!.pages[0]).toMatchObject({ widthMm: 1120, heightMm: 1500 });
    expect(await meanDiff(await render(tshirt), await render(r.bytes!))).toBeLessThan(4);
  });

  it('fits a page of other proportions only when told how', async () => {
    const file = corpus('cairo-curtains-beyond-tolerance.pdf');
    const refused = await fix(file, { sku: 'CURTAINS-140X260' }, {}, { pool });
    // Page 1 is 22 mm too wide; page 2 lacks the bleed at top and bottom (page-bleed-missing, held for approval).
    expect(refused.refused.filter((x) => x.code === 'page-size-mismatch')).toHaveLength(1);
    expect(refused.refused.filter((x) => x.code === 'page-bleed-missing' && /held for approval/.test(x.reason))).toHaveLength(1);
    // Nothing else to fix: nothing written, and the finding stands in the report before.
    expect(refused).toMatchObject({ bytes: null, after: null });
    expect(codes(refused.before).has('page-size-mismatch')).toBe(true);
    const r = await fix(file, { sku: 'CURTAINS-140X260' }, { fit: 'stretch', approve: ['page-bleed-missing'] }, { pool });
    expect(codes(r.after!).has('page-size-mismatch')).toBe(false);
    expect(r.changes.find((c) => c.code === 'page-bleed-missing')?.action).toMatch(/0 mm left and right, 20 mm top and bottom/);
    expect(r.after!.verdict).toBe('pass');
  });

  it('fixes pikepdf files turned by /Rotate 90 and 270', async () => {
    const r90 = await fix(corpus('pikepdf-curtains-rotate90.pdf'), { sku: 'CURTAINS-140X260' }, {}, { pool });
    expect(r90.after!.verdict).toBe('pass');
    const r270 = await fix(corpus('pikepdf-curtains-rotate270-sideways.pdf'), { sku: 'CURTAINS-140X260' }, { rotate: 'ccw' }, { pool });
    expect(r270.after!.verdict).toBe('pass');
    expect(r270.changes.map((c) => c.code).sort()).toEqual(['page-orientation-mismatch', 'page-orientation-mismatch', 'page-rotate-set', 'page-rotate-set']);
  });
});

describe('fix: colour and pixels', () => {
  it.each([
    ['img2pdf-tanktop-cmyk-jpeg.pdf', 20],
    ['imagemagick-tanktop-cmyk-jpeg.pdf', 20],
    ['pikepdf-tanktop-icc-cmyk.pdf', 20],
    ['pikepdf-tanktop-indexed-cmyk.pdf', 20],
    ['img2pdf-tanktop-gray.pdf', 3],
    ['pikepdf-tanktop-calgray.pdf', 3],
    ['pikepdf-tanktop-separation.pdf', 25],
    ['pikepdf-tanktop-devicen.pdf', 25],
    ['gs-tanktop-cmyk-vector.pdf', 25],
    ['gs-tanktop-spot-vector.pdf', 25],
    ['reportlab-tanktop-cmyk-spot.pdf', 25],
  ])('%s: colour-space-not-rgb gone, nothing new, render within %i levels', async (file, tolerance) => {
    const bytes = corpus(file);
    const before = await preflight(bytes, { sku: 'TANKTOP-M' }, { pool });
    const r = await fix(bytes, { sku: 'TANKTOP-M' }, { approve: 'all' }, { pool });
    expect(codes(before).has('colour-space-not-rgb')).toBe(true);
    expect(codes(r.after!).has('colour-space-not-rgb')).toBe(false);
    for (const c of codes(r.after!)) expect([...codes(before)], `${file}: new finding ${c}`).toContain(c);
    for (const page of [1, 2]) expect(await meanDiff(await render(bytes, page), await render(r.bytes!, page))).toBeLessThanOrEqual(tolerance);
  });

  it("holds a colour conversion the product's approval list names until it is approved, as checkAndFix does", async () => {
    const bytes = corpus('img2pdf-tanktop-cmyk-jpeg.pdf');
    const held = await fix(bytes, { sku: 'TANKTOP-M' }, {}, { pool });
    expect(held.bytes).toBeNull();
    expect(held.refused.filter((r) => r.code === 'colour-space-not-rgb').map((r) => r.reason)).toEqual([
      expect.stringMatching(/^held for approval: .*the option approve: \['colour-space-not-rgb'\]/),
      expect.stringMatching(/^held for approval/),
    ]);
    // The fix command says it with its flag.
    const inFlags = await fix(bytes, { sku: 'TANKTOP-M' }, { instructions: 'cli' }, { pool, raster: false });
    expect(inFlags.refused.find((r) => r.code === 'colour-space-not-rgb')?.reason).toMatch(/--approve colour-space-not-rgb/);
    const approved = await fix(bytes, { sku: 'TANKTOP-M' }, { approve: ['colour-space-not-rgb'] }, { pool });
    expect(codes(approved.after!).has('colour-space-not-rgb')).toBe(false);
  });

  it('downsamples images over 15,000 px', async () => {
    const r = await fix(corpus('img2pdf-tanktop-image-too-large.pdf'), { sku: 'TANKTOP-M' }, {}, { pool });
    expect(codes(r.after!).has('image-too-large')).toBe(false);
    expect(r.after!.pages[0]!.images[0]).toMatchObject({ widthPx: 15000, heightPx: 19 });
  });

  it('recompresses images until the file is under the size cap, or says it cannot', async () => {
    const bytes = corpus('img2pdf-tanktop-cmyk-jpeg.pdf');
    const r = await fix(bytes, { sku: 'TANKTOP-M' }, { approve: 'all' }, { pool, limits: { maxFileBytes: 15_000 } });
    expect(r.changes.some((c) => c.code === 'file-too-large')).toBe(true);
    expect(r.bytes!.length).toBeLessThanOrEqual(15_000);
    expect(codes(r.after!).has('file-too-large')).toBe(false);
    const tiny = await fix(bytes, { sku: 'TANKTOP-M' }, { approve: 'all' }, { pool, limits: { maxFileBytes: 2_000 } });
    expect(tiny.refused.find((x) => x.code === 'file-too-large')!.reason).toMatch(/still .* kB after recompressing/);
  });

  it('refuses files it cannot fix, writing nothing', async () => {
    for (const f of ['broken-truncated.pdf', 'qpdf-encrypted-user-password.pdf', 'broken-png-renamed.pdf']) {
      const r = await fix(corpus(f), { sku: 'TANKTOP-M' }, {}, { pool });
      expect(r.bytes, f).toBeNull();
      expect(r.refused).toHaveLength(1);
    }
  });
});

describe('fix: page order (a reportlab t-shirt reordered by qpdf as sleeve, sleeve, front, back)', () => {
  const shuffled = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-order-'));
    const out = join(dir, 'shuffled.pdf');
    execFileSync('qpdf', ['test/corpus/files/reportlab-tshirt-M-exact.pdf', '--pages', '.', '3,4,1,2', '--', out]);
    return new Uint8Array(readFileSync(out));
  };

  it('--reorder puts the pages in layer order and the fixed file passes', async () => {
    const bytes = shuffled();
    const before = await preflight(bytes, { sku: 'T-SHIRT-M' }, { pool, raster: false });
    expect([...codes(before)]).toEqual(['page-order-mismatch']);
    const r = await fix(bytes, { sku: 'T-SHIRT-M' }, { reorder: true, outPath: 'fixed.pdf' }, { pool });
    expect(r.changes.map((c) => c.action)).toEqual([expect.stringContaining('put the pages in the order 3, 4, 1, 2')]);
    expect(r.after!.verdict).toBe('pass');
    expect(r.after!.file.path).toBe('fixed.pdf');
    // The pages are the original file's pages, in its order again: same renders.
    const exact = corpus('reportlab-tshirt-M-exact.pdf');
    for (const p of [1, 3]) expect(await meanDiff(await render(r.bytes!, p), await render(exact, p))).toBeLessThan(1);
  });

  it('the policy reorders as checkAndFix does; a policy that does not is refused with the order to give; an explicit --pages is honoured and checked', async () => {
    const bytes = shuffled();
    const byPolicy = await fix(bytes, { sku: 'T-SHIRT-M' }, {}, { pool });
    expect(byPolicy.changes.map((c) => c.code)).toEqual(['page-order-mismatch']);
    expect(byPolicy.after!.verdict).toBe('pass');
    const refused = await fix(bytes, { sku: 'T-SHIRT-M' }, {}, { pool, policy: { 'page-order-mismatch': 'reject' } });
    expect(refused.bytes).toBeNull();
    expect(refused.refused[0]).toMatchObject({ code: 'page-order-mismatch', reason: expect.stringContaining('reorder: true (pages 3, 4, 1, 2)') });
    const inFlags = await fix(bytes, { sku: 'T-SHIRT-M' }, { instructions: 'cli' }, { pool, raster: false, policy: { 'page-order-mismatch': 'reject' } });
    expect(inFlags.refused[0]).toMatchObject({ code: 'page-order-mismatch', reason: expect.stringContaining('--reorder (pages 3, 4, 1, 2)') });
    const explicit = await fix(bytes, { sku: 'T-SHIRT-M' }, { pages: [3, 4, 1, 2] }, { pool });
    expect(explicit.after!.verdict).toBe('pass');
    await expect(fix(bytes, { sku: 'T-SHIRT-M' }, { pages: [1, 1, 2, 3] }, { pool })).rejects.toThrow(/each of the file's 4 pages once/);
  });

  it('writes nothing when nothing was fixed', async () => {
    const r = await fix(corpus('reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }, {}, { pool });
    expect(r).toMatchObject({ bytes: null, changes: [], after: null });
  });
});
