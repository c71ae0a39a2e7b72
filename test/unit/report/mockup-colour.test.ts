/**
 * The mockup's colours are the preview's (issue 48): over the design area of a part (inside the
 * cut, away from the light at the shoulders and the shade at the hem) a mockup stays within a mean
 * ΔE00 of 0.5 and a 95th percentile of 1.5 of the preview it was made from — for the four solids
 * the colour fix makes of the reportlab t-shirt's CMYK layers (as the chain converts them) and for
 * an ImageMagick photo. A grey veil over the whole part had moved a red by ΔE00 3.3, and a
 * 256-colour palette a photo by 1.2.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { compareDrawings } from '../../../src/model/difference.js';
import { mockupGeometry, renderMockup, type MockupLayer } from '../../../src/report/mockup.js';

const MAX_MEAN = 0.5;
const MAX_P95 = 1.5;
const LAYER: MockupLayer = { trimWidthMm: 540, trimHeightMm: 730, bleedMm: 10, safeMarginMm: 10, shape: 'body-front' };

/** Mockup against preview over the design area: 10–90 % of the trim's width, 30–95 % of its height (inside the body's outline). */
async function difference(preview: Buffer, layer: MockupLayer) {
  const png = await renderMockup({ bytes: new Uint8Array(preview) }, layer);
  const g = mockupGeometry(layer);
  const [pageW, pageH, px, py] = [Math.round(g.page.width), Math.round(g.page.height), Math.round(g.page.x), Math.round(g.page.y)];
  // The preview as the mockup places it: stretched onto the layer's page.
  const design = await sharp(preview).resize(pageW, pageH, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
  const mock = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const a: number[] = [];
  const b: number[] = [];
  for (let y = Math.ceil(g.trim.y + g.trim.height * 0.3); y < Math.floor(g.trim.y + g.trim.height * 0.95); y++) {
    for (let x = Math.ceil(g.trim.x + g.trim.width * 0.1); x < Math.floor(g.trim.x + g.trim.width * 0.9); x++) {
      const m = (y * mock.info.width + x) * 3;
      const d = ((y - py) * pageW + (x - px)) * 3;
      a.push(design[d]!, design[d + 1]!, design[d + 2]!);
      b.push(mock.data[m]!, mock.data[m + 1]!, mock.data[m + 2]!);
    }
  }
  expect(a.length).toBeGreaterThan(10_000);
  return compareDrawings({ data: a, channels: 3 }, { data: b, channels: 3 }, a.length / 3);
}

describe('a mockup keeps the colours of the preview it shows (issue 48)', () => {
  // CMYK 0 100 100 0, 1 .6 0 0, 0 0 1 0 and .8 0 1 0 through the chain's default profile (raster/cmyk-profile.ts).
  it.each([
    ['red', [231, 24, 34]],
    ['blue', [0, 100, 176]],
    ['yellow', [255, 240, 0]],
    ['green', [0, 160, 80]],
  ])('a %s solid', async (_name, [r, g, b]) => {
    const preview = await sharp({ create: { width: 400, height: 536, channels: 3, background: { r: r!, g: g!, b: b! } } })
      .webp({ lossless: true })
      .toBuffer();
    const d = await difference(preview, LAYER);
    expect(d.meanDeltaE00, JSON.stringify(d)).toBeLessThanOrEqual(MAX_MEAN);
    expect(d.p95DeltaE00, JSON.stringify(d)).toBeLessThanOrEqual(MAX_P95);
  });

  it('an ImageMagick photo, on a body and on a flat panel', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pp-mockup-')), 'photo.png');
    execFileSync('/usr/bin/convert', ['-seed', '7', '-size', '400x536', 'plasma:red-blue', '-blur', '0x3', file]);
    const preview = await sharp(readFileSync(file)).webp({ quality: 90 }).toBuffer();
    for (const shape of ['body-front', 'panel'] as const) {
      const d = await difference(preview, { ...LAYER, shape });
      console.log(`mockup vs preview, ImageMagick photo on ${shape}: ${JSON.stringify(d)}`);
      expect(d.meanDeltaE00, `${shape}: ${JSON.stringify(d)}`).toBeLessThanOrEqual(MAX_MEAN);
      expect(d.p95DeltaE00, `${shape}: ${JSON.stringify(d)}`).toBeLessThanOrEqual(MAX_P95);
    }
  });
});
