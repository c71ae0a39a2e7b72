import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PreflightError } from '../../src/errors.js';
import { preflight, preflightWithPreviews } from '../../src/index.js';
import { loadProfiles } from '../../src/profile/load.js';

const good = 'test/corpus/files/reportlab-tshirt-M-exact.pdf';

describe('preflight() API', () => {
  it('accepts a path or bytes, and the same bytes give the same findings', async () => {
    const a = await preflight(good, { sku: 'T-SHIRT-M' });
    const b = await preflight(new Uint8Array(readFileSync(good)), { product: 't-shirt', variant: 'm' }, { path: 'x.pdf' });
    expect(a.verdict).toBe('pass');
    expect(b.file).toEqual({ ...a.file, path: 'x.pdf' });
    expect(b.findings).toEqual(a.findings);
    expect(b.pages).toEqual(a.pages);
  });

  it.each([
    ['an unknown SKU', good, { sku: 'X-1' }, {}, 'ERR_UNKNOWN_SKU'],
    ['an unknown product', good, { product: 'pillow', variant: 'M' }, {}, 'ERR_UNKNOWN_PRODUCT'],
    ['a missing file', 'nope/missing.pdf', { sku: 'T-SHIRT-M' }, {}, 'ERR_INPUT_UNREADABLE'],
    ['a folder', 'test', { sku: 'T-SHIRT-M' }, {}, 'ERR_INPUT_UNREADABLE'],
    ['a bad target', good, { sku: '' }, {}, 'ERR_INVALID_ARGUMENT'],
    ['a bad option', good, { sku: 'T-SHIRT-M' }, { limits: { minPpi: -3 } }, 'ERR_INVALID_ARGUMENT'],
    ['an unknown option', good, { sku: 'T-SHIRT-M' }, { colour: true }, 'ERR_INVALID_ARGUMENT'],
    ['a missing profiles folder', good, { sku: 'T-SHIRT-M' }, { profiles: '/nonexistent' }, 'ERR_PROFILE_INVALID'],
  ])('throws a typed error for %s', async (_n, input, target, options, code) => {
    const error = await preflight(input, target as never, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreflightError);
    expect((error as PreflightError).code).toBe(code);
  });

  it('turns a non-PDF into a finding, not an exception', async () => {
    const r = await preflight(new TextEncoder().encode('hello'), { sku: 'T-SHIRT-M' });
    expect(r.verdict).toBe('fail');
    expect(r.findings.map((f) => f.code)).toEqual(['file-not-pdf']);
  });

  it('honours per-call limits and severities, and a loaded registry', async () => {
    const registry = await loadProfiles();
    const strict = await preflight(good, { sku: 'T-SHIRT-M' }, { profiles: registry, limits: { minPpi: 200 } });
    expect(strict.verdict).toBe('warn');
    expect(strict.rules['image-low-resolution']).toBe(4);
    const quiet = await preflight(good, { sku: 'T-SHIRT-M' }, { limits: { minPpi: 200 }, severities: { 'image-low-resolution': 'off' } });
    expect(quiet.verdict).toBe('pass');
  });

  it("keeps the profile's other limits when a call overrides one", async () => {
    const registry = await loadProfiles();
    const base = registry.get('curtains')!;
    const loose = { ...base, id: 'loose-curtains', limits: { ...base.limits, toleranceMm: 30 }, variants: base.variants.map((v) => ({ ...v, skus: [`LOOSE-${v.skus[0]}`] })) };
    const { ProfileRegistry } = await import('../../src/profile/registry.js');
    const custom = ProfileRegistry.from([{ profile: loose }]);
    // 1462 × 2640 mm is 22 mm too wide: within this profile's 30 mm tolerance.
    const file = 'test/corpus/files/cairo-curtains-beyond-tolerance.pdf';
    const r = await preflight(file, { sku: 'LOOSE-CURTAINS-140X260' }, { profiles: custom, raster: false, limits: { minPpi: 200 } });
    expect(r.limits.toleranceMm).toBe(30);
    expect(r.findings.filter((f) => f.page === 1)).toEqual([]);
  });

  it('rejects at once when aborted', async () => {
    const error = await preflight(good, { sku: 'T-SHIRT-M' }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((error as PreflightError).code).toBe('ERR_ABORTED');
  });
});

describe('the render plan: a page that is no layer is drawn only for its preview', () => {
  // qpdf puts Ghostscript's two duvet pages twice into one file: pages 3 and 4 are no layer.
  const four = join(mkdtempSync(join(tmpdir(), 'pp-plan-')), 'four.pdf');
  execFileSync('qpdf', ['--empty', '--pages', 'test/corpus/files/gs-duvet-exact.pdf', 'test/corpus/files/gs-duvet-exact.pdf', '--', four]);
  const drawn = (pages: { raster: unknown }[]) => pages.map((p) => p.raster !== null);

  it('preflight() draws the layer pages only; previews of every page draw all four', async () => {
    const report = await preflight(four, { sku: 'DUVET-COVER-200X200' });
    expect(drawn(report.pages)).toEqual([true, true, false, false]);
    const withPreviews = await preflightWithPreviews(four, { sku: 'DUVET-COVER-200X200' });
    expect(drawn(withPreviews.report.pages)).toEqual([true, true, true, true]);
    expect([...withPreviews.previews.keys()].sort()).toEqual([1, 2, 3, 4]);
    const layers = await preflightWithPreviews(four, { sku: 'DUVET-COVER-200X200' }, { previewPages: 'layers' });
    expect(drawn(layers.report.pages)).toEqual([true, true, false, false]);
    expect([...layers.previews.keys()].sort()).toEqual([1, 2]);
    // The verdict and its findings do not depend on the pages drawn for previews.
    expect(layers.report.findings.map((f) => [f.code, f.page])).toEqual(report.findings.map((f) => [f.code, f.page]));
  }, 60_000);

  it('JPEG previews are kept in memory (a visual report); a folder of previews is PNG or WebP, which the report names', async () => {
    const jpeg = await preflightWithPreviews(four, { sku: 'DUVET-COVER-200X200' }, { previewFormat: 'jpeg', previewPages: 'layers' });
    for (const p of jpeg.previews.values()) {
      expect(p.format).toBe('jpeg');
      expect([...p.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    }
    const refused = await preflightWithPreviews(four, { sku: 'DUVET-COVER-200X200' }, { previewFormat: 'jpeg', previewDir: mkdtempSync(join(tmpdir(), 'pp-jpeg-')) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PreflightError);
    expect((refused as Error).message).toMatch(/previewFormat: previewFormat jpeg is for previews kept in memory/);
  }, 60_000);
});

describe('structure read in the pool or, with pool: false, in this thread', () => {
  it.each(['reportlab-tshirt-M-exact.pdf', 'pikepdf-curtains-rotate90.pdf', 'qpdf-tshirt-M-object-streams.pdf', 'broken-truncated.pdf'])('gives the same report either way: %s', async (name) => {
    const file = `test/corpus/files/${name}`;
    const sku = name.includes('curtains') ? 'CURTAINS-140X245' : 'T-SHIRT-M';
    const a = await preflight(file, { sku }, { pool: false });
    const b = await preflight(file, { sku });
    expect(a.findings).toEqual(b.findings);
    expect(a.pages).toEqual(b.pages);
    expect(a.pdf).toEqual(b.pdf);
  });
});
