import { mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileError, PreflightError } from '../../../src/errors.js';
import { loadProfiles, DEFAULT_PROFILES_DIR } from '../../../src/profile/load.js';
import { FINDING_CODES, type FindingCode } from '../../../src/model/codes.js';
import { FIXES, type FixableCode } from '../../../src/model/policy.js';
import { actionOf } from '../../../src/rules/settle.js';

// Transcribed from shared/PROFILES.md: trim sizes in mm (width x height) per layer group and size.
const SIZES = ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL'];
const APPAREL: Record<string, { bleed: number; groups: [string[], string][] }> = {
  't-shirt': {
    bleed: 10,
    groups: [
      [['front', 'back'], '480x690 510x710 540x730 570x750 600x770 630x790 660x810'],
      [['left-sleeve', 'right-sleeve'], '400x220 420x230 440x240 460x250 480x260 500x270 520x280'],
    ],
  },
  tanktop: { bleed: 10, groups: [[['front', 'back'], '460x680 490x700 520x720 550x740 580x760 610x780 640x800']] },
  sweater: {
    bleed: 10,
    groups: [
      [['front', 'back'], '500x660 530x680 560x700 590x720 620x740 650x760 680x780'],
      [['left-sleeve', 'right-sleeve'], '420x600 440x620 460x640 480x660 500x680 520x700 540x720'],
    ],
  },
  hoodie: {
    bleed: 10,
    groups: [
      [['front', 'back'], '500x660 530x680 560x700 590x720 620x740 650x760 680x780'],
      [['left-sleeve', 'right-sleeve'], '420x600 440x620 460x640 480x660 500x680 520x700 540x720'],
      [['hood-left', 'hood-right'], '340x380 350x390 360x400 370x410 380x420 390x430 400x440'],
      [['pocket'], '420x210 440x220 460x230 480x240 500x250 520x260 540x270'],
    ],
  },
  sweatpants: { bleed: 10, groups: [[['front-left', 'front-right', 'back-left', 'back-right'], '300x1020 315x1040 330x1060 345x1080 360x1100 375x1120 390x1140']] },
  sweatshorts: { bleed: 10, groups: [[['front-left', 'front-right', 'back-left', 'back-right'], '300x500 315x510 330x520 345x530 360x540 375x550 390x560']] },
};
const LAYER_ORDER: Record<string, string[]> = {
  'duvet-cover': ['front', 'back'],
  curtains: ['left', 'right'],
  't-shirt': ['front', 'back', 'left-sleeve', 'right-sleeve'],
  tanktop: ['front', 'back'],
  sweater: ['front', 'back', 'left-sleeve', 'right-sleeve'],
  hoodie: ['front', 'back', 'left-sleeve', 'right-sleeve', 'hood-left', 'hood-right', 'pocket'],
  sweatpants: ['front-left', 'front-right', 'back-left', 'back-right'],
  sweatshorts: ['front-left', 'front-right', 'back-left', 'back-right'],
};
const TEXTILE: Record<string, string[]> = {
  'duvet-cover': ['135x200', '140x200', '155x220', '200x200', '200x220', '240x220', '260x220'],
  curtains: ['140x245', '140x260', '140x280'],
};

const rows: { product: string; variant: string; layer: string; w: number; h: number }[] = [];
for (const [product, variants] of Object.entries(TEXTILE)) {
  for (const v of variants) {
    const [w, h] = v.split('x').map((n) => Number(n) * 10 + 40);
    for (const layer of LAYER_ORDER[product]!) rows.push({ product, variant: v, layer, w: w!, h: h! });
  }
}
for (const [product, { bleed, groups }] of Object.entries(APPAREL)) {
  for (const [layers, sizes] of groups) {
    sizes.split(' ').forEach((s, i) => {
      const [w, h] = s.split('x').map(Number);
      for (const layer of layers) rows.push({ product, variant: SIZES[i]!, layer, w: w! + 2 * bleed, h: h! + 2 * bleed });
    });
  }
}

describe('default profiles (shared/PROFILES.md)', async () => {
  const registry = await loadProfiles();

  it('has exactly the eight products, with their layers in page order', () => {
    expect(
      registry
        .list()
        .map((p) => p.id)
        .sort(),
    ).toEqual(Object.keys(LAYER_ORDER).sort());
    for (const [id, layers] of Object.entries(LAYER_ORDER)) expect(registry.get(id)!.layers.map((l) => l.id)).toEqual(layers);
  });

  it.each(rows)('$product $variant $layer page is $w x $h mm', ({ product, variant, layer, w, h }) => {
    const t = registry.resolve({ product, variant });
    const spec = t.layers.find((l) => l.id === layer)!;
    expect([spec.pageWidthMm, spec.pageHeightMm]).toEqual([w, h]);
  });

  it('has every variant of every product, and no other', () => {
    for (const p of registry.list()) {
      const expected = TEXTILE[p.id] ?? SIZES;
      expect(p.variants.map((v) => v.id)).toEqual(expected);
    }
  });

  it.each([
    ['DUVET-COVER-200X200', 'duvet-cover', '200x200', [2040, 2040]],
    ['CURTAINS-140X260', 'curtains', '140x260', [1440, 2640]],
    ['T-SHIRT-M', 't-shirt', 'M', [560, 750]],
    ['t-shirt-m', 't-shirt', 'M', [560, 750]],
    ['HOODIE-2XL', 'hoodie', '2XL', [670, 780]],
  ])('SKU %s is %s %s', (sku, product, variant, firstPage) => {
    const t = registry.resolve({ sku });
    expect([t.profile.id, t.variant.id]).toEqual([product, variant]);
    expect([t.layers[0]!.pageWidthMm, t.layers[0]!.pageHeightMm]).toEqual(firstPage);
  });

  it('applies the common rules: tolerance 2 mm, 100 ppi minimum, 150 ppi production, 15,000 px, 50 MB', () => {
    for (const p of registry.list()) {
      expect(p.limits).toMatchObject({ toleranceMm: 2, minPpi: 100, productionPpi: 150, maxImagePixels: 15000, maxFileBytes: 50_000_000 });
      expect(p.limits.bleedMm).toBe(TEXTILE[p.id] ? 20 : 10);
      for (const v of p.variants) expect(v.skus[0]).toBe(`${p.id}-${v.id}`.toUpperCase());
    }
  });

  it('policy per product: page order, /Rotate, scale, missing bleed, CMYK, oversized images and files fixed; approval for what changes the print, downsampling only on home textiles', () => {
    for (const p of registry.list()) {
      expect(p.policy, p.id).toEqual({
        'page-order-mismatch': 'fix',
        'page-rotate-set': 'fix',
        'page-scale-mismatch': 'fix',
        'page-bleed-missing': 'fix',
        'colour-space-not-rgb': 'fix',
        'image-too-large': 'fix',
        'file-too-large': 'fix',
      });
      // Fixes that print exactly as before are never put to the customer.
      for (const code of p.approval ?? []) expect(FIXES[code as FixableCode].changesPrint, `${p.id} ${code}`).toBe(true);
      expect(p.approval, p.id).toEqual(
        TEXTILE[p.id]
          ? ['page-orientation-mismatch', 'page-bleed-missing', 'page-size-mismatch', 'colour-space-not-rgb', 'image-too-large', 'file-too-large']
          : ['page-orientation-mismatch', 'page-bleed-missing', 'page-size-mismatch', 'colour-space-not-rgb', 'file-too-large'],
      );
      // 15,000 px over the widest page is under the production resolution on home textiles, over twice it on garments.
      const widest = Math.max(...p.variants.flatMap((v) => Object.values(v.trim).flatMap((t) => [t.widthMm, t.heightMm]))) + 2 * p.limits.bleedMm;
      const ppiAfterDownsampling = p.limits.maxImagePixels / (widest / 25.4);
      expect(ppiAfterDownsampling < p.limits.productionPpi, p.id).toBe(Boolean(TEXTILE[p.id]));
      if (!TEXTILE[p.id]) expect(ppiAfterDownsampling, p.id).toBeGreaterThan(2 * p.limits.productionPpi);
    }
  });

  it('a shipped policy changes no severity: a check that asks for no fix keeps its verdict', () => {
    for (const p of registry.list()) {
      for (const code of Object.keys(FINDING_CODES) as FindingCode[]) {
        const withPolicy = actionOf(code, { severities: p.severities, policy: p.policy });
        const without = actionOf(code, { severities: p.severities });
        expect(withPolicy.severity, `${p.id} ${code}`).toBe(without.severity);
        expect(withPolicy.action, `${p.id} ${code}`).toBe(p.policy?.[code] === 'fix' ? 'fix' : without.action);
      }
    }
  });

  it.each([
    [{ sku: 'NOPE' }, 'ERR_UNKNOWN_SKU'],
    [{ product: 'pillow', variant: 'M' }, 'ERR_UNKNOWN_PRODUCT'],
    [{ product: 't-shirt', variant: '4XL' }, 'ERR_UNKNOWN_VARIANT'],
  ])('unknown target %j throws %s, naming what exists', (target, code) => {
    try {
      registry.resolve(target as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PreflightError);
      expect((e as PreflightError).code).toBe(code);
    }
  });
});

describe('integrator profile folders', () => {
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-profiles-'));
    cpSync(join(DEFAULT_PROFILES_DIR, 'tanktop.json'), join(dir, 'tanktop.json'));
    return dir;
  };

  it('loads a custom folder and a custom SKU', async () => {
    const dir = folder();
    const p = JSON.parse(readFileSync(join(dir, 'tanktop.json'), 'utf8'));
    p.variants[2].skus.push('SHOP-TANK-M-WHITE');
    writeFileSync(join(dir, 'tanktop.json'), JSON.stringify(p));
    const registry = await loadProfiles(dir);
    expect(registry.list().map((x) => x.id)).toEqual(['tanktop']);
    expect(registry.resolve({ sku: 'SHOP-TANK-M-WHITE' }).variant.id).toBe('M');
  });

  it.each([
    ['a negative width', (p: any) => (p.variants[1].trim.front.widthMm = -5), /tanktop\.json: variants\[1\]\.trim\.front\.widthMm/],
    ['a missing layer trim', (p: any) => delete p.variants[0].trim.back, /variants\[0\]\.trim\.back: missing trim size of layer "back"/],
    ['an unknown key', (p: any) => (p.colour = 'red'), /tanktop\.json: .*colour/],
    ['a bad version', (p: any) => (p.version = 'one'), /tanktop\.json: version: must be a semantic version/],
    ['a duplicate layer', (p: any) => p.layers.push({ id: 'front' }), /layer id "front" appears more than once/],
  ])('names the file and the field of %s', async (_what, mutate, message) => {
    const dir = folder();
    const p = JSON.parse(readFileSync(join(dir, 'tanktop.json'), 'utf8'));
    mutate(p);
    writeFileSync(join(dir, 'tanktop.json'), JSON.stringify(p));
    await expect(loadProfiles(dir)).rejects.toThrow(message);
    await expect(loadProfiles(dir)).rejects.toBeInstanceOf(ProfileError);
  });

  it('rejects broken JSON, a missing folder and SKUs claimed twice', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'broken.json'), '{ "id": ');
    await expect(loadProfiles(dir)).rejects.toThrow(/broken\.json: not valid JSON/);
    await expect(loadProfiles(join(dir, 'nope'))).rejects.toThrow(/cannot read the profiles folder/);
    const dup = folder();
    const p = JSON.parse(readFileSync(join(dup, 'tanktop.json'), 'utf8'));
    p.id = 'tanktop-2';
    writeFileSync(join(dup, 'tanktop-2.json'), JSON.stringify(p));
    await expect(loadProfiles(dup)).rejects.toThrow(/SKU "TANKTOP-XS" is already used by tanktop-2 XS/);
  });
});
