/**
 * Transparency said: an image a layer is assembled from with a transparent area inside the trim
 * (a PNG by Pillow: the left third cleared, a semi-transparent band beside it) gets
 * image-transparent-area with its share and where it is, in the customer's language; a chosen
 * background fills it instead (said in the report's assembly, no finding); an opaque image has none.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../../src/flow/assemble.js';
import { MESSAGE_LOCALES } from '../../../src/model/locales.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-alpha-'));

/** 600 × 800 px by Pillow: orange, its left 200 px cleared to transparent, the next 100 px at half alpha. */
function pillowAlpha(): Uint8Array {
  const out = join(dir, 'alpha.png');
  execFileSync('/usr/bin/python3', [
    '-c',
    `from PIL import Image\nim=Image.new('RGBA',(600,800),(224,112,32,255))\nim.paste((0,0,0,0),(0,0,200,800))\nim.paste((224,112,32,128),(200,0,300,800))\nim.save('${out}')`,
  ]);
  return new Uint8Array(readFileSync(out));
}

describe('assemble: transparency said', () => {
  it('finds the transparent third and the semi-transparent band, with its share and place', async () => {
    const png = pillowAlpha();
    const { report, layers } = await assemble({ sku: 'TANKTOP-M' }, [png, png], { fit: 'stretch' }, { pool: false, raster: false, locale: 'de' });
    const found = report.findings.filter((f) => f.code === 'image-transparent-area');
    expect(found.map((f) => [f.page, f.layer, f.severity])).toEqual([
      [1, 'front', 'warning'],
      [2, 'back', 'warning'],
    ]);
    // Stretched over the page: the left half of it is (partly) clear, less the 10 mm of bleed; a sixth of it half clear.
    const pageW = report.pages[0]!.widthMm;
    const trimW = pageW - 20;
    const clearMm = pageW / 2 - 10;
    const d = found[0]!.details!;
    expect(Math.abs((d.widthMm as number) - clearMm), `${d.widthMm} of ${clearMm} mm`).toBeLessThanOrEqual(4);
    expect(Math.abs((d.share as number) - clearMm / trimW)).toBeLessThan(0.01);
    expect(Math.abs((d.semiShare as number) - pageW / 6 / trimW)).toBeLessThan(0.01);
    expect(found[0]!.details!.region).toBe('left');
    expect(found[0]!.details!.xMm).toBe(0);
    expect(found[0]!.customer!.problem).toMatch(/\d+,\d %|\d+ %/);
    expect(found[0]!.customer!.problem).toContain('links');
    expect(layers[0]!.transparent).toMatchObject({ filledWith: null, region: 'left' });
    expect(report.rules['image-transparent-area']).toBe(2);
    expect(report.counts.warning).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('says it in every locale', async () => {
    const png = pillowAlpha();
    const texts = new Set<string>();
    for (const locale of MESSAGE_LOCALES) {
      const { report } = await assemble({ sku: 'TANKTOP-M' }, [png, png], { fit: 'stretch' }, { pool: false, raster: false, locale });
      const f = report.findings.find((x) => x.code === 'image-transparent-area')!;
      expect(f.customer, locale).toBeDefined();
      expect(f.customer!.problem, locale).not.toMatch(/[{}]/);
      texts.add(f.customer!.problem);
    }
    expect(texts.size).toBe(MESSAGE_LOCALES.length);
  }, 240_000);

  it('a chosen background fills it: no finding, the fill said; an opaque image has none', async () => {
    const png = pillowAlpha();
    const filled = await assemble({ sku: 'TANKTOP-M' }, [png, png], { fit: 'stretch', background: '#102030' }, { pool: false, raster: false });
    expect(filled.report.findings.map((f) => f.code)).not.toContain('image-transparent-area');
    expect(filled.layers[0]!.transparent).toMatchObject({ filledWith: '#102030' });
    execFileSync('/usr/bin/convert', ['-size', '300x400', 'xc:#2080c0', join(dir, 'opaque.png')]);
    const opaque = new Uint8Array(readFileSync(join(dir, 'opaque.png')));
    const plain = await assemble({ sku: 'TANKTOP-M' }, [opaque, opaque], {}, { pool: false, raster: false });
    expect(plain.report.findings.map((f) => f.code)).not.toContain('image-transparent-area');
    expect(plain.layers[0]!.transparent ?? null).toBeNull();
  }, 120_000);
});
