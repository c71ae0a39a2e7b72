/**
 * What drawing a page costs a renderer (src/pdf/render-cost.ts), as the content scanner estimates
 * it: operators, path points and glyphs each cost a little; fills, strokes, glyphs, images and
 * shadings cost the pixels they cover, clipped to the page and the clip, each time they are
 * painted; a page over the limit is too complex, its inspection stops and it is not rendered.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { PathBox } from '../../../src/pdf/marks.js';
import { RenderCost } from '../../../src/pdf/render-cost.js';
// @ts-expect-error plain ESM helper without types
import { onePage, stream } from '../../hostile/pdf-writer.mjs';

const PAGE: [number, number, number, number] = [0, 0, 400, 400];
const IDENTITY = [1, 0, 0, 1, 0, 0] as const;
const box = (...points: Array<[number, number]>) => {
  const b = new PathBox();
  for (const [x, y] of points) b.add([...IDENTITY], x, y);
  return b;
};

describe('RenderCost', () => {
  it('charges operators, path points and glyphs, each a little', () => {
    const c = new RenderCost(PAGE);
    c.operator();
    c.points(4);
    c.glyphs(10, null, null);
    expect(c.operations).toBe(15);
    expect(c.micros).toBe(2 + 4 * 1 + 10 * 2 + 3);
  });

  it('charges what a paint covers, clipped to the page and to the clip, at most the page each time', () => {
    const half = new RenderCost(PAGE);
    half.fill(box([0, 0], [400, 200]), null);
    expect(half.coverage).toBeCloseTo(0.5);
    const clipped = new RenderCost(PAGE);
    clipped.fill(box([-1e6, -1e6], [1e6, 1e6]), [0, 0, 100, 100]);
    expect(clipped.coverage).toBeCloseTo(1 / 16);
    const huge = new RenderCost(PAGE);
    huge.fill(box([-1e9, -1e9], [1e9, 1e9]), null);
    expect(huge.coverage).toBe(1);
  });

  it('weighs an image or a shading over the page a hundred times a fill, glyphs four times', () => {
    const cost = (paint: (c: RenderCost) => void) => {
      const c = new RenderCost(PAGE);
      paint(c);
      return c.micros;
    };
    const fill = cost((c) => c.fill([...PAGE], null));
    expect(cost((c) => c.image([...PAGE], null)) / fill).toBeGreaterThan(90);
    expect(cost((c) => c.shading(null, null)) / fill).toBeGreaterThan(90);
    expect(cost((c) => c.glyphs(0, [...PAGE], null)) / fill).toBeGreaterThan(3.5);
  });

  it('charges a stroke by its length, a hairline too', () => {
    const c = new RenderCost(PAGE);
    c.stroke(box([0, 0], [0, 400]), 0, null);
    expect(c.strokeLength).toBeCloseTo(1);
    expect(c.micros).toBeGreaterThan(250);
    expect(c.describe()).toMatch(/strokes 1 times as long as the page/);
  });
});

describe('a page over the render cost', () => {
  const page = (content: string, scan: object = {}, extra: Partial<{ resources: string; more: unknown[] }> = {}) =>
    inspectPdf(onePage({ content: stream('/Filter /FlateDecode', deflateSync(Buffer.from(content))), resources: extra.resources ?? '', extra: extra.more ?? [] }), { scan }).then((f) => f.pages[0]!);

  it('is too complex and not inspected further, with what made it so', async () => {
    const hairlines = `0 w\n${Array.from({ length: 2_000 }, (_, i) => `${i % 400} 0 m ${i % 400} 400 l S`).join('\n')}`;
    const over = await page(hairlines, { maxRenderMs: 100 });
    expect(over.tooComplex).toBe(true);
    expect(over.notes.join(' ')).toMatch(
      /drawing it would take a renderer 0 s or more \(operators, path points and glyphs: [\d,]+; strokes \d+ times as long as the page\), more than the 0\.1 s a page may take: inspection stopped/,
    );
    const fine = await page(hairlines, { maxRenderMs: 10_000 });
    expect(fine.tooComplex).toBe(false);
    expect(fine.renderWork!.estimatedMs).toBeGreaterThan(400);
    expect(fine.renderWork!.operations).toBe(1 + 2_000 * 5);
  });

  it('counts a form each time it is drawn, and an image over the page at the cost of a hundred fills', async () => {
    const form = stream('/Type /XObject /Subtype /Form /BBox [0 0 400 400]', '0 0 400 400 re f');
    const forms = await page('/Fm Do\n'.repeat(50), {}, { resources: '/XObject << /Fm 5 0 R >>', more: [form] });
    const fills = await page('0 0 400 400 re f\n'.repeat(50));
    expect(forms.renderWork!.estimatedMs).toBeGreaterThanOrEqual(fills.renderWork!.estimatedMs);
    const image = stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceRGB', new Uint8Array(12));
    const images = await page('q 400 0 0 400 0 0 cm /Im Do Q\n'.repeat(300), { maxRenderMs: 10_000 }, { resources: '/XObject << /Im 5 0 R >>', more: [image] });
    expect(images.tooComplex).toBe(true);
    expect(images.notes.join(' ')).toMatch(/images and shadings covering the page 2\d\d times/);
  });

  it('counts a transparency group each time it is drawn, for the time and for pdf.js’s buffers', async () => {
    const group = stream('/Type /XObject /Subtype /Form /BBox [0 0 400 200] /Group << /S /Transparency >>', '0 0 1 rg 0 0 400 200 re f');
    const p = await page('/Fm Do\n'.repeat(40), {}, { resources: '/XObject << /Fm 5 0 R >>', more: [group] });
    expect(p.renderWork!.groups).toBeCloseTo(20);
    const plain = stream('/Type /XObject /Subtype /Form /BBox [0 0 400 200]', '0 0 1 rg 0 0 400 200 re f');
    expect((await page('/Fm Do\n'.repeat(40), {}, { resources: '/XObject << /Fm 5 0 R >>', more: [plain] })).renderWork!.groups).toBe(0);
  });

  it('charges a soft mask again for every object painted through it', async () => {
    const mask = stream('/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Group << /S /Transparency /CS /DeviceGray >>', `0.5 g ${'0 0 400 400 re f\n'.repeat(50)}`);
    const resources = '/ExtGState << /GS0 << /SMask << /S /Luminosity /G 5 0 R >> >> /GS1 << /SMask /None >> >>';
    const through = await page(`/GS0 gs\n${'0 0 10 10 re f\n'.repeat(100)}`, {}, { resources, more: [mask] });
    const after = await page(`/GS0 gs /GS1 gs\n${'0 0 10 10 re f\n'.repeat(100)}`, {}, { resources, more: [mask] });
    // 100 objects through a mask of 50 fills over the page (25 ms each time), against none.
    expect(through.renderWork!.estimatedMs - after.renderWork!.estimatedMs).toBeGreaterThan(100 * 20);
  });

  it('charges a function evaluated at every pixel: a function-based shading, a DeviceN image’s tint transform', async () => {
    const calculator = (steps: number) => stream('/FunctionType 4 /Domain [0 1 0 1] /Range [0 1 0 1 0 1]', `{ ${'0.5 mul '.repeat(steps)} dup dup }`);
    const shading = (steps: number) =>
      page('/Sh sh', {}, { resources: '/Shading << /Sh << /ShadingType 1 /ColorSpace /DeviceRGB /Matrix [400 0 0 400 0 0] /Function 5 0 R >> >>', more: [calculator(steps)] });
    const [cheap, dear] = [await shading(10), await shading(100)];
    expect(dear.renderWork!.estimatedMs).toBeGreaterThan(5 * cheap.renderWork!.estimatedMs);
    expect((await shading(2_000)).tooComplex).toBe(true);
    const image = (space: string) =>
      page(
        'q 400 0 0 400 0 0 cm /Im Do Q',
        {},
        {
          resources: '/XObject << /Im 5 0 R >>',
          more: [
            stream(`/Type /XObject /Subtype /Image /Width 1000 /Height 1000 /BitsPerComponent 8 /ColorSpace ${space}`, new Uint8Array(0)),
            stream('/FunctionType 4 /Domain [0 1 0 1 0 1] /Range [0 1 0 1 0 1 0 1]', `{ ${'0.9 mul '.repeat(1_000)} }`),
          ],
        },
      );
    // Three colorants: the transform at each of a million pixels; one (Separation): a table of 256.
    expect((await image('[/DeviceN [/A /B /C] /DeviceCMYK 6 0 R]')).tooComplex).toBe(true);
    expect((await image('[/Separation /A /DeviceCMYK 6 0 R]')).tooComplex).toBe(false);
  });

  it('counts the glyphs text shows, not the runs', async () => {
    const font = ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
    const one = await page(`BT /F1 10 Tf ${'(a) Tj '.repeat(100)} ET`, {}, { resources: '/Font << /F1 5 0 R >>', more: font });
    const long = await page(`BT /F1 10 Tf (${'a'.repeat(100)}) Tj ET`, {}, { resources: '/Font << /F1 5 0 R >>', more: font });
    expect(one.renderWork!.operations - long.renderWork!.operations).toBe(99);
  });
});
