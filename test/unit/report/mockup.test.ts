/**
 * Mockups for every part of the 8 shipped products: a page of one colour, drawn on its part, shows
 * that colour inside the part's shape, the faint page (what is cut away) outside it and in the
 * bleed, and the cut line where the trim is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ProfileSchema } from '../../../src/profile/schema.js';
import { layerSpecs } from '../../../src/profile/registry.js';
import { PANEL_SHAPES, type PanelShape } from '../../../src/profile/shapes.js';
import { layerMockups, mockupGeometry, renderMockup, placeOutline } from '../../../src/report/mockup.js';

const DESIGN = { r: 30, g: 120, b: 200 };
/** A point of each shape's trim box outside the shape (where the piece is cut away), in unit coordinates. */
const OUTSIDE: Partial<Record<PanelShape, [number, number]>> = {
  'body-front': [0.5, 0.03],
  'body-back': [0.02, 0.02],
  'tank-front': [0.5, 0.05],
  'tank-back': [0.05, 0.05],
  'sleeve-short': [0.03, 0.1],
  'sleeve-long': [0.03, 0.05],
  'hood-left': [0.03, 0.05],
  'hood-right': [0.97, 0.05],
  pocket: [0.05, 0.05],
  'leg-front-left': [0.95, 0.1],
  'leg-front-right': [0.05, 0.1],
  'leg-back-left': [0.95, 0.1],
  'leg-back-right': [0.05, 0.1],
  'shorts-front-left': [0.95, 0.2],
  'shorts-front-right': [0.05, 0.2],
  'shorts-back-left': [0.95, 0.2],
  'shorts-back-right': [0.05, 0.2],
};

async function pixel(png: Uint8Array, x: number, y: number): Promise<{ r: number; g: number; b: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (Math.round(y) * info.width + Math.round(x)) * info.channels;
  return { r: data[i]!, g: data[i + 1]!, b: data[i + 2]! };
}
const distance = (a: { r: number; g: number; b: number }, b: { r: number; g: number; b: number }) => Math.max(Math.abs(a.r - b.r), Math.abs(a.g - b.g), Math.abs(a.b - b.b));

const page = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: DESIGN } })
    .webp({ lossless: true })
    .toBuffer();

describe('mockups of the 8 shipped products', () => {
  const files = readdirSync('profiles').filter((f) => f.endsWith('.json'));
  it('covers 8 products and every shape they name', () => {
    expect(files).toHaveLength(8);
    const shapes = new Set(files.flatMap((f) => (JSON.parse(readFileSync(`profiles/${f}`, 'utf8')) as { layers: { shape: string }[] }).layers.map((l) => l.shape)));
    for (const s of shapes) expect(PANEL_SHAPES).toContain(s);
  });

  for (const file of files) {
    it(`${file}: each part drawn on its shape, with the page faint outside it and in the bleed`, async () => {
      const profile = ProfileSchema.parse(JSON.parse(readFileSync(`profiles/${file}`, 'utf8')));
      const variant = profile.variants[Math.floor(profile.variants.length / 2)]!;
      const layers = layerSpecs(profile, variant);
      const previews = new Map<number, { bytes: Uint8Array }>();
      for (const l of layers) {
        const s = 600 / Math.max(l.pageWidthMm, l.pageHeightMm);
        previews.set(l.index + 1, { bytes: new Uint8Array(await page(Math.round(l.pageWidthMm * s), Math.round(l.pageHeightMm * s))) });
      }
      const report = {
        limits: profile.limits as never,
        findings: [],
        pages: layers.map((l) => ({ index: l.index + 1, layer: l.id })) as never,
      };
      const mockups = await layerMockups(report, previews, { layers, profile });
      expect([...mockups.keys()]).toEqual(layers.map((l) => l.index + 1));
      for (const l of layers) {
        const m = mockups.get(l.index + 1)!;
        const shape = profile.layers[l.index]!.shape!;
        const meta = await sharp(m.bytes).metadata();
        expect(meta.format).toBe('png');
        expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(520);
        expect([meta.width, meta.height]).toEqual([m.widthPx, m.heightPx]);
        const g = mockupGeometry({ trimWidthMm: l.trimWidthMm, trimHeightMm: l.trimHeightMm, bleedMm: profile.limits.bleedMm, safeMarginMm: l.safeMarginMm ?? null, shape });
        const at = (u: number, v: number) => pixel(m.bytes, g.trim.x + u * g.trim.width, g.trim.y + v * g.trim.height);
        // Inside the part: the design's colour (a soft light from above shades it a little).
        expect(distance(await at(0.5, 0.6), DESIGN), `${file} ${l.id} inside`).toBeLessThan(40);
        // In the bleed, cut away: the page, faint.
        const bleed = await pixel(m.bytes, g.page.x + 1.5 + (g.trim.x - g.page.x) / 2, g.page.y + g.page.height / 2);
        expect(distance(bleed, DESIGN), `${file} ${l.id} bleed`).toBeGreaterThan(60);
        const outside = OUTSIDE[shape];
        if (outside) expect(distance(await at(...outside), DESIGN), `${file} ${l.id} outside ${shape}`).toBeGreaterThan(60);
      }
    });
  }

  it('a shape placed in a box stays in it, and mirrored parts mirror each other', () => {
    const box = { x: 10, y: 20, width: 100, height: 200 };
    for (const shape of PANEL_SHAPES) {
      const nums = placeOutline(shape, box)
        .match(/-?\d+(?:\.\d+)?/g)!
        .map(Number);
      for (let i = 0; i < nums.length; i += 2) {
        expect(nums[i]).toBeGreaterThanOrEqual(10);
        expect(nums[i]).toBeLessThanOrEqual(110);
        expect(nums[i + 1]).toBeGreaterThanOrEqual(20);
        expect(nums[i + 1]).toBeLessThanOrEqual(220);
      }
    }
    const xs = (shape: PanelShape) =>
      placeOutline(shape, { x: 0, y: 0, width: 1000, height: 1000 })
        .match(/-?\d+(?:\.\d+)?/g)!
        .map(Number)
        .filter((_, i) => i % 2 === 0);
    for (const [left, right] of [
      ['hood-left', 'hood-right'],
      ['leg-front-left', 'leg-front-right'],
      ['shorts-back-left', 'shorts-back-right'],
    ] as const) {
      const mirrored = xs(right).map((x) => 1000 - x);
      xs(left).forEach((x, i) => expect(Math.abs(x - mirrored[i]!), `${left} point ${i}`).toBeLessThan(0.2));
    }
  });

  it('a mockup is the preview placed: a page of two halves keeps them on the part', async () => {
    const left = { r: 200, g: 30, b: 30 };
    const bytes = await sharp({ create: { width: 600, height: 400, channels: 3, background: DESIGN } })
      .composite([
        {
          input: await sharp({ create: { width: 300, height: 400, channels: 3, background: left } })
            .png()
            .toBuffer(),
          left: 0,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    const layer = { trimWidthMm: 580, trimHeightMm: 380, bleedMm: 10, safeMarginMm: 10, shape: 'panel' as const };
    const png = await renderMockup({ bytes: new Uint8Array(bytes) }, layer);
    const g = mockupGeometry(layer);
    expect(distance(await pixel(png, g.trim.x + g.trim.width * 0.25, g.trim.y + g.trim.height / 2), left)).toBeLessThan(40);
    expect(distance(await pixel(png, g.trim.x + g.trim.width * 0.75, g.trim.y + g.trim.height / 2), DESIGN)).toBeLessThan(40);
  });
});
