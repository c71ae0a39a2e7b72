/**
 * Bleed by extension for images: an image made at the trim size (the layer less its bleed) keeps its
 * size and place relative to the trim — it is not scaled by cover up to the layer and cut — and the
 * bleed strips are its own edge pixels, mirrored. Chosen by itself when no fill is asked (by the
 * image's proportions, or by the size its resolution states), or asked as `fit: 'bleed'`. The images
 * are made at test time by ImageMagick and Pillow (a PDF layer by reportlab); the print file is drawn
 * by MuPDF and by Ghostscript and compared with the source image: the trim area in place within
 * 1 mm and close in colour, each bleed strip the trim's edge reflected (not white, not a stretch of
 * the edge), and the check of the file without page-edge-gap, page-size-mismatch or
 * page-bleed-missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../../src/flow/assemble.js';
import { trimDesign } from '../../../src/convert/trim-design.js';
import { drawPage, type Drawing, type Renderer } from '../../helpers/outside-render.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-assemble-bleed-'));
const py = (code: string) => execFileSync('/usr/bin/python3', ['-c', code], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
/** 50.8 dpi: 2 px a mm. */
const DPI = 50.8;
const PX_PER_MM = DPI / 25.4;

/**
 * A design by ImageMagick at `w × h` px: a vertical gradient, stripes 4 mm wide along each edge (at
 * 2 px a mm) in two colours — so a mirrored strip differs from a stretched edge — a disc and a
 * corner square. It states 72 ppi, as most exports do, which makes it no particular size.
 */
function magickDesign(name: string, w: number, h: number): Uint8Array {
  const out = join(dir, name);
  const s = 8;
  execFileSync('/usr/bin/convert', [
    '-size',
    `${w}x${h}`,
    'gradient:#2050a0-#40c080',
    ...['-fill', '#d02020', '-draw', `rectangle 0,0 ${s - 1},${h - 1}`, '-fill', '#f0d020', '-draw', `rectangle ${s},0 ${2 * s - 1},${h - 1}`],
    ...['-fill', '#c020c0', '-draw', `rectangle ${w - s},0 ${w - 1},${h - 1}`, '-fill', '#20c0d0', '-draw', `rectangle ${w - 2 * s},0 ${w - s - 1},${h - 1}`],
    ...['-fill', '#101010', '-draw', `rectangle ${2 * s},0 ${w - 2 * s - 1},${s - 1}`, '-fill', '#f08020', '-draw', `rectangle ${2 * s},${s} ${w - 2 * s - 1},${2 * s - 1}`],
    ...['-fill', '#208020', '-draw', `rectangle ${2 * s},${h - s} ${w - 2 * s - 1},${h - 1}`, '-fill', '#602080', '-draw', `rectangle ${2 * s},${h - 2 * s} ${w - 2 * s - 1},${h - s - 1}`],
    ...['-fill', '#f0c020', '-draw', `circle ${w / 2},${h / 2} ${w / 2},${h / 2 + Math.min(w, h) / 4}`],
    ...['-fill', '#a01050', '-draw', `rectangle ${2 * s},${2 * s} ${2 * s + 60},${2 * s + 60}`],
    ...['-units', 'PixelsPerInch', '-density', '72'],
    out,
  ]);
  return new Uint8Array(readFileSync(out));
}

/** The same kind of design by Pillow, as a JPEG stating `dpi` in JFIF (or a PNG without pHYs). */
function pillowDesign(name: string, w: number, h: number, dpi: number | null): Uint8Array {
  py(
    `from PIL import Image, ImageDraw
w, h, s = ${w}, ${h}, 8
im = Image.new('RGB', (w, h))
d = ImageDraw.Draw(im)
for y in range(h):
    d.line((0, y, w, y), fill=(40, 60 + 120 * y // h, 160 - 80 * y // h))
d.rectangle((0, 0, s - 1, h), fill=(210, 30, 30)); d.rectangle((s, 0, 2 * s - 1, h), fill=(240, 210, 30))
d.rectangle((w - s, 0, w, h), fill=(190, 30, 190)); d.rectangle((w - 2 * s, 0, w - s - 1, h), fill=(30, 190, 210))
d.rectangle((2 * s, 0, w - 2 * s - 1, s - 1), fill=(20, 20, 20)); d.rectangle((2 * s, s, w - 2 * s - 1, 2 * s - 1), fill=(240, 130, 30))
d.rectangle((2 * s, h - s, w - 2 * s - 1, h), fill=(30, 130, 30)); d.rectangle((2 * s, h - 2 * s, w - 2 * s - 1, h - s - 1), fill=(100, 30, 130))
d.ellipse((w // 4, h // 3, 3 * w // 4, 2 * h // 3), fill=(240, 200, 40))
${dpi ? `im.save('${name}', quality=95, subsampling=0, dpi=(${dpi}, ${dpi}))` : `im.save('${name}')`}`,
  );
  return new Uint8Array(readFileSync(join(dir, name)));
}

/** The source image drawn at `DPI` over `wMm × hMm` mm (its pixels stretched to that box). */
async function sourceAt(input: Uint8Array, wMm: number, hMm: number): Promise<Drawing> {
  const width = Math.round(wMm * PX_PER_MM);
  const height = Math.round(hMm * PX_PER_MM);
  const data = await sharp(input).rotate().removeAlpha().resize(width, height, { fit: 'fill' }).raw().toBuffer();
  return { width, height, rgb: new Uint8Array(data) };
}

/** Mean absolute difference per channel of region (x0, y0, w, h) of `a` and the same region of `b` moved by (dx, dy). */
function diffAt(a: Drawing, b: Drawing, region: [number, number, number, number], dx: number, dy: number): number {
  const [x0, y0, w, h] = region;
  let sum = 0;
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const p = (y * a.width + x) * 3;
      const q = ((y + dy) * b.width + x + dx) * 3;
      for (let c = 0; c < 3; c++) sum += Math.abs(a.rgb[p + c]! - b.rgb[q + c]!);
    }
  }
  return sum / (w * h * 3);
}

/** The shift (px) of `made` against `source` placed at (ox, oy) that matches `region` of the source best, and its difference. */
function bestShift(source: Drawing, made: Drawing, ox: number, oy: number, region: [number, number, number, number], reach = 4) {
  let best = { dx: 0, dy: 0, diff: Number.POSITIVE_INFINITY };
  for (let dy = -reach; dy <= reach; dy++) {
    for (let dx = -reach; dx <= reach; dx++) {
      const diff = diffAt(source, made, region, ox + dx, oy + dy);
      if (diff < best.diff) best = { dx, dy, diff };
    }
  }
  return best;
}

const nearWhite = (d: Drawing) => {
  let n = 0;
  for (let i = 0; i < d.rgb.length; i += 3) if (d.rgb[i]! > 235 && d.rgb[i + 1]! > 235 && d.rgb[i + 2]! > 235) n++;
  return n;
};

const px = (d: Drawing, x: number, y: number) => [...d.rgb.subarray((y * d.width + x) * 3, (y * d.width + x) * 3 + 3)];
const dist = (a: number[], b: number[]) => (Math.abs(a[0]! - b[0]!) + Math.abs(a[1]! - b[1]!) + Math.abs(a[2]! - b[2]!)) / 3;

/**
 * Each bleed strip of `d` (bleed `bx`, `by` px) against the trim inside it: the strip's pixel at
 * distance k outside the cut line against the pixel at distance k (and k ± 1) inside it — mirrored
 * — and against the trim's edge pixel — a stretch. Means over each strip, away from the corners.
 */
function strips(d: Drawing, bx: number, by: number) {
  const out: { side: string; mirrored: number; stretched: number }[] = [];
  const sides = [
    { side: 'left', along: [by + 4, d.height - by - 4], at: (k: number, t: number) => [bx - 1 - k, t], inside: (k: number, t: number) => [bx + k, t] },
    { side: 'right', along: [by + 4, d.height - by - 4], at: (k: number, t: number) => [d.width - bx + k, t], inside: (k: number, t: number) => [d.width - bx - 1 - k, t] },
    { side: 'top', along: [bx + 4, d.width - bx - 4], at: (k: number, t: number) => [t, by - 1 - k], inside: (k: number, t: number) => [t, by + k] },
    { side: 'bottom', along: [bx + 4, d.width - bx - 4], at: (k: number, t: number) => [t, d.height - by + k], inside: (k: number, t: number) => [t, d.height - by - 1 - k] },
  ] as const;
  for (const s of sides) {
    const depth = (s.side === 'left' || s.side === 'right' ? bx : by) - 1;
    let mirrored = 0;
    let stretched = 0;
    let n = 0;
    for (let t = s.along[0]; t < s.along[1]; t += 3) {
      const edge = px(d, ...(s.inside(1, t) as [number, number]));
      for (let k = 1; k < depth; k++) {
        const p = px(d, ...(s.at(k, t) as [number, number]));
        mirrored += Math.min(...[k - 1, k, k + 1].map((j) => dist(p, px(d, ...(s.inside(j, t) as [number, number])))));
        stretched += dist(p, edge);
        n++;
      }
    }
    out.push({ side: s.side, mirrored: mirrored / n, stretched: stretched / n });
  }
  return out;
}

describe('trimDesign', () => {
  const shirt = { pageWidthMm: 560, pageHeightMm: 750, trimWidthMm: 540, trimHeightMm: 730 };
  it.each<[string, number, number, number | null, ReturnType<typeof trimDesign>]>([
    ['the trim proportions, no resolution', 1080, 1460, null, { widthMm: 540, heightMm: 730, chosen: 'trim-proportions' }],
    ['the trim proportions within 1 mm', 1080, 1458, null, { widthMm: 540, heightMm: 730, chosen: 'trim-proportions' }],
    ['the trim proportions, a resolution stating another size (72 ppi)', 1080, 1460, 72, { widthMm: 540, heightMm: 730, chosen: 'trim-proportions' }],
    ['off the trim proportions by 2 mm', 1080, 1464, null, null],
    ['the layer proportions', 1120, 1500, null, null],
    ['the trim size by its resolution', 2126, 2874, 100, { widthMm: 540, heightMm: 730, chosen: 'stated-size' }],
    ['a size between the trim and the layer by its resolution', 1299, 1748, 60, { widthMm: 549.91, heightMm: 739.99, chosen: 'stated-size' }],
    ['the layer size by its resolution', 2205, 2953, 100, null],
  ])('%s', (_what, w, h, ppi, expected) => {
    const got = trimDesign(w, h, ppi, shirt);
    if (expected === null) expect(got).toBeNull();
    else expect({ ...got!, widthMm: Math.round(got!.widthMm * 100) / 100, heightMm: Math.round(got!.heightMm * 100) / 100 }).toEqual(expected);
  });

  it('says nothing for a layer without bleed, and for a square trim on a square layer without a stated size', () => {
    expect(trimDesign(1000, 1000, null, { pageWidthMm: 500, pageHeightMm: 500 })).toBeNull();
    expect(trimDesign(2000, 2000, null, { pageWidthMm: 2040, pageHeightMm: 2040, trimWidthMm: 2000, trimHeightMm: 2000 })).toBeNull();
    expect(trimDesign(2000, 2000, 25.4, { pageWidthMm: 2040, pageHeightMm: 2040, trimWidthMm: 2000, trimHeightMm: 2000 })).toMatchObject({ chosen: 'stated-size' });
  });
});

describe('assemble: an image made at the trim size gets its bleed mirrored', () => {
  it('keeps each design at its size and place, mirrors its edges into the bleed, and the check is clean (MuPDF and Ghostscript)', async () => {
    const front = magickDesign('front.png', 1080, 1460); // 540 × 730 mm proportions, states 72 ppi
    const back = pillowDesign('back.jpg', 1299, 1748, 60); // states 550 × 740 mm: 5 mm of bleed missing
    const left = pillowDesign('left.png', 880, 480, null); // 440 × 240 mm proportions, no resolution
    const right = magickDesign('right.png', 920, 520); // the layer's own proportions: cover, as before
    const { bytes, layers, changes, report } = await assemble({ sku: 'T-SHIRT-M' }, [front, back, left, right], { jpegQuality: 92 }, { pool: false });
    expect(layers.map((l) => [l.layer, l.fill, l.bleed?.chosen ?? null])).toEqual([
      ['front', 'bleed', 'trim-proportions'],
      ['back', 'bleed', 'stated-size'],
      ['left-sleeve', 'bleed', 'trim-proportions'],
      ['right-sleeve', 'cover', null],
    ]);
    expect(layers[0]!.bleed).toEqual({ xMm: 10, yMm: 10, widthMm: 540, heightMm: 730, chosen: 'trim-proportions' });
    expect(layers[1]!.bleed!.xMm).toBeCloseTo(5, 1);
    expect(layers[1]!.bleed!.yMm).toBeCloseTo(5, 1);
    expect(report.assembly!.layers[0]!.fill).toBe('bleed');
    expect(changes[0]).toMatch(
      /front: png 1080 × 1460 px[^→]* → 1120 × 1500 px sRGB \(51 ppi, bleed: the image is the design up to the cut line \(the image has the trim's proportions\), placed at its own size, 540 × 730 mm \(the trim\), centred, its pixels kept; the bleed \(10 mm left and right, 10 mm top and bottom\) mirrored from its edges/,
    );
    expect(changes[1]).toMatch(/back: jpeg 1299 × 1748 px → .*the size the image states.*placed at its own size, 549.9 × 740 mm, centred.*\(5 mm left and right, 5 mm top and bottom\)/);
    expect(report.pages.map((p) => [Math.round(p.widthMm * 10) / 10, Math.round(p.heightMm * 10) / 10])).toEqual([
      [560, 750],
      [560, 750],
      [460, 260],
      [460, 260],
    ]);
    // One image a page, over the whole page, at the design's own resolution.
    expect(report.pages[0]!.images).toHaveLength(1);
    expect(report.pages[0]!.images[0]!.widthPx).toBe(1120);
    const codes = report.findings.map((f) => f.code);
    for (const c of ['page-edge-gap', 'page-size-mismatch', 'page-scale-mismatch', 'page-bleed-missing', 'page-unpainted-area', 'page-unpainted']) expect(codes, c).not.toContain(c);

    const cases: { page: number; input: Uint8Array; design: [number, number]; bleed: [number, number] }[] = [
      { page: 1, input: front, design: [540, 730], bleed: [10, 10] },
      { page: 2, input: back, design: [(1299 / 60) * 25.4, (1748 / 60) * 25.4], bleed: [5, 5] },
      { page: 3, input: left, design: [440, 240], bleed: [10, 10] },
    ];
    for (const renderer of ['mupdf', 'ghostscript'] as Renderer[]) {
      for (const c of cases) {
        const made = await drawPage(bytes, c.page, DPI, renderer);
        const source = await sourceAt(c.input, c.design[0], c.design[1]);
        const what = `${renderer} page ${c.page}`;
        expect(nearWhite(made), `${what}: white pixels`).toBe(0);
        // The trim area is the source in place: its top-left and bottom-right quarters each matched
        // best within 1 mm (2 px) of where they belong — place and size within 1 mm — and close in colour.
        const ox = Math.round(((made.width / PX_PER_MM - c.design[0]) / 2) * PX_PER_MM);
        const oy = Math.round(((made.height / PX_PER_MM - c.design[1]) / 2) * PX_PER_MM);
        const qw = Math.floor(source.width / 2) - 8;
        const qh = Math.floor(source.height / 2) - 8;
        for (const region of [
          [4, 4, qw, qh],
          [source.width - qw - 4, source.height - qh - 4, qw, qh],
        ] as [number, number, number, number][]) {
          const best = bestShift(source, made, ox, oy, region);
          expect(Math.abs(best.dx), `${what}: x shift ${JSON.stringify(best)}`).toBeLessThanOrEqual(2);
          expect(Math.abs(best.dy), `${what}: y shift ${JSON.stringify(best)}`).toBeLessThanOrEqual(2);
          expect(best.diff, `${what}: colour difference ${JSON.stringify(best)}`).toBeLessThan(6);
        }
        // Each bleed strip is the trim's edge reflected: close to the mirror image, far from a stretch of the edge pixel.
        for (const s of strips(made, Math.round(c.bleed[0] * PX_PER_MM), Math.round(c.bleed[1] * PX_PER_MM))) {
          expect(s.mirrored, `${what} ${s.side}: ${JSON.stringify(s)}`).toBeLessThan(12);
          expect(s.stretched, `${what} ${s.side}: ${JSON.stringify(s)}`).toBeGreaterThan(3 * s.mirrored + 10);
        }
      }
    }
  }, 240_000);

  it('uses the fill asked for instead (cover scales the trim-size design to the page), and bleed when asked for an image of other proportions', async () => {
    const front = magickDesign('front2.png', 1080, 1460);
    const wide = pillowDesign('wide.jpg', 1200, 900, null);
    const covered = await assemble({ sku: 'T-SHIRT-M' }, [front, front, wide, wide], { fit: 'cover' }, { pool: false, raster: false });
    expect(covered.layers.map((l) => l.fill)).toEqual(['cover', 'cover', 'cover', 'cover']);
    const asked = await assemble(
      { sku: 'T-SHIRT-M' },
      [
        { layer: 'front', input: wide, fit: 'bleed' },
        { layer: 'back', input: front, fit: 'contain' },
        { layer: 'left-sleeve', input: wide },
        { layer: 'right-sleeve', input: front },
      ],
      {},
      { pool: false },
    );
    expect(asked.layers.map((l) => [l.fill, l.bleed?.chosen ?? null])).toEqual([
      ['bleed', 'asked'],
      ['contain', null],
      ['cover', null],
      ['cover', null],
    ]);
    expect(asked.layers[0]!.bleed).toEqual({ xMm: 10, yMm: 10, widthMm: 540, heightMm: 730, chosen: 'asked' });
    // The 4:3 image cut to the trim's proportions (never stretched), its middle on the trim, the bleed mirrored.
    const made = await drawPage(asked.bytes, 1, DPI, 'mupdf');
    expect(nearWhite(made)).toBe(0);
    const cw = Math.round((900 * 540) / 730);
    const cut = await sharp(wide)
      .extract({ left: Math.floor((1200 - cw) / 2), top: 0, width: cw, height: 900 })
      .toBuffer();
    const source = await sourceAt(new Uint8Array(cut), 540, 730);
    const best = bestShift(source, made, 20, 20, [40, 40, source.width - 80, source.height - 80]);
    expect(best.diff, JSON.stringify(best)).toBeLessThan(6);
    for (const s of strips(made, 20, 20).filter((x) => x.side === 'top' || x.side === 'bottom')) expect(s.stretched, JSON.stringify(s)).toBeGreaterThan(3 * s.mirrored + 10);
    expect(asked.report.findings.filter((f) => f.page === 1).map((f) => f.code)).not.toContain('page-edge-gap');
  }, 240_000);

  it('gives a one-page PDF at the trim size its bleed as reflected vector forms, the design at its own size', async () => {
    py(`from reportlab.pdfgen import canvas
MM = 72 / 25.4
c = canvas.Canvas('trim.pdf', pagesize=(440 * MM, 240 * MM))
c.setFillColorRGB(0.1, 0.5, 0.8); c.rect(0, 0, 440 * MM, 240 * MM, stroke=0, fill=1)
c.setFillColorRGB(0.9, 0.2, 0.1); c.rect(0, 0, 20 * MM, 240 * MM, stroke=0, fill=1)
c.setFillColorRGB(0.95, 0.85, 0.1); c.circle(220 * MM, 120 * MM, 60 * MM, stroke=0, fill=1)
c.showPage(); c.save()`);
    const sleeve = new Uint8Array(readFileSync(join(dir, 'trim.pdf')));
    const front = magickDesign('front3.png', 1080, 1460);
    const { bytes, layers, changes, report } = await assemble({ sku: 'T-SHIRT-M' }, [front, front, sleeve, sleeve], {}, { pool: false });
    expect(layers[2]).toMatchObject({ fill: 'bleed', source: 'pdf', bleed: { xMm: 10, yMm: 10, widthMm: 440, heightMm: 240, chosen: 'stated-size' } });
    expect(changes[2]).toMatch(/left-sleeve: one-page PDF placed as vector content \(bleed: the page is the trim; the design 440 × 240 mm at its own size/);
    expect(report.pages[2]!.images).toHaveLength(0); // vector stays vector
    const made = await drawPage(bytes, 3, 25.4, 'mupdf');
    const original = await drawPage(sleeve, 1, 25.4, 'mupdf');
    expect(made.width - original.width).toBe(20);
    expect(diffAt(original, made, [0, 0, original.width, original.height], 10, 10)).toBeLessThan(1);
    expect(nearWhite(made)).toBe(0);
    // The red band at the design's left edge continues into the bleed, mirrored (as a fixed page's
    // bleed is: the reflected forms reach 2 mm under the design, mirror.ts), and the blue beyond it does not.
    for (const x of [1, 5, 9]) expect(px(made, x, 130)[0], `x ${x}`).toBeGreaterThan(150);
    expect(px(made, 35, 130)[0]).toBeLessThan(100);
    expect(report.findings.map((f) => f.code)).not.toContain('page-edge-gap');
  }, 240_000);
});

describe('the bleed fill within the limits', () => {
  it('resamples the design only as the pixel cap or the size cap asks, keeping its place', async () => {
    const front = magickDesign('front6.png', 1080, 1460);
    const sleeve = pillowDesign('sleeve6.png', 880, 480, null);
    // The cap between the image (1,460 px high, within it: an image over the cap is refused, not
    // scaled — flow/layer-probe.ts) and the page it makes with its bleed (1,500 px at 2 px a mm).
    const capped = await assemble({ sku: 'T-SHIRT-M' }, [front, front, sleeve, sleeve], {}, { pool: false, raster: false, limits: { maxImagePixels: 1480 } });
    expect(capped.layers.map((l) => l.fill)).toEqual(['bleed', 'bleed', 'bleed', 'bleed']);
    for (const page of capped.report.pages) expect(Math.max(page.images[0]!.widthPx, page.images[0]!.heightPx)).toBeLessThanOrEqual(1480);
    expect(capped.changes[0]).not.toContain('its pixels kept');
    expect(capped.layers[0]!.bleed).toMatchObject({ xMm: 10, yMm: 10, widthMm: 540, heightMm: 730 });
    const small = await assemble({ sku: 'T-SHIRT-M' }, [front, front, sleeve, sleeve], {}, { pool: false, raster: false, limits: { maxFileBytes: 300_000 } });
    expect(small.bytes.length).toBeLessThanOrEqual(300_000);
    expect(small.layers.map((l) => l.fill)).toEqual(['bleed', 'bleed', 'bleed', 'bleed']);
    const d = await drawPage(small.bytes, 1, 25.4, 'mupdf');
    expect([d.width, d.height]).toEqual([560, 750]);
    expect(nearWhite(d)).toBe(0);
  }, 120_000);
});

describe('a transparent area of a trim-size image', () => {
  it('is measured where the bleed fill puts it: at its own size and place in the trim', async () => {
    const out = join(dir, 'hole.png');
    execFileSync('/usr/bin/convert', ['-size', '1080x1460', 'xc:#2050a0', '-alpha', 'set', '-region', '200x200+100+200', '-alpha', 'transparent', '+region', out]);
    const hole = new Uint8Array(readFileSync(out));
    const { layers, report } = await assemble({ sku: 'T-SHIRT-M' }, [hole, hole, hole, hole], {}, { pool: false, raster: false });
    expect(layers[0]!.fill).toBe('bleed');
    // 200 × 200 px at 2 px a mm: 100 × 100 mm, 50 mm from the trim's left and 100 mm from its top
    // (measured on a 2 mm grid, the resampled edge semi-transparent: within two of its cells).
    const [x, y, w, h] = layers[0]!.transparent!.boxMm;
    for (const [got, want] of [
      [x, 50],
      [y, 100],
      [w, 100],
      [h, 100],
    ] as const)
      expect(Math.abs(got - want), JSON.stringify(layers[0]!.transparent)).toBeLessThanOrEqual(4);
    expect(layers[0]!.transparent!.share).toBeCloseTo((100 * 100) / (540 * 730), 2);
    expect(report.findings.filter((f) => f.code === 'image-transparent-area').map((f) => f.page)).toContain(1);
    // The mirror fill measures it too (its alpha was read as an encoded PNG, and its extension came back as three bands).
    const mirrored = await assemble({ sku: 'T-SHIRT-M' }, [hole, hole, hole, hole], { fit: 'mirror' }, { pool: false, raster: false });
    expect(mirrored.layers[0]!.transparent!.share).toBeGreaterThan(0.02);
    expect(mirrored.layers[0]!.transparent!.share).toBeLessThan(0.04);
  }, 120_000);
});

describe('the one entrance: check() with a source per layer', () => {
  it("assembles a trim-size image with its bleed mirrored, says so in the fixed file's changes, and a layer's fit still wins", async () => {
    const { check } = await import('../../../src/flow/check.js');
    const front = magickDesign('front5.png', 1080, 1460);
    const sleeve = pillowDesign('sleeve5.png', 880, 480, null);
    const out = await check(
      { layers: { front, back: { input: front, fit: 'cover' }, 'left-sleeve': sleeve, 'right-sleeve': sleeve } },
      { sku: 'T-SHIRT-M' },
      { pool: false, raster: false, fix: 'approve', locale: 'en' },
    );
    expect(out.report.assembly?.layers.map((l) => l.fill)).toEqual(['bleed', 'cover', 'bleed', 'bleed']);
    const assembled = out.fixed!.changes.filter((c) => c.code === 'layers-assembled').map((c) => c.action);
    expect(assembled[0]).toMatch(/^assembled front: .*bleed: the image is the design up to the cut line/);
    expect(assembled[1]).toMatch(/^assembled back: .*\(\d+ ppi, cover,/);
    const codes = out.report.findings.filter((f) => f.page !== 2).map((f) => f.code);
    for (const c of ['page-edge-gap', 'page-size-mismatch', 'page-bleed-missing']) expect(codes).not.toContain(c);
  }, 120_000);
});

describe('the bleed on the approval page', () => {
  it('says the fill and marks the mirrored strips as bleed over the print picture, in the page’s language', async () => {
    const { approvalPage } = await import('../../../src/report/customer-pages.js');
    const { registryFrom } = await import('../../../src/profile/load.js');
    const front = magickDesign('front4.png', 1080, 1460);
    const right = magickDesign('right4.png', 920, 520);
    const { report } = await assemble({ sku: 'T-SHIRT-M' }, [front, front, right, right], {}, { pool: false, raster: false });
    const profile = (await registryFrom(undefined)).resolve({ sku: 'T-SHIRT-M' }).profile;
    const picture = {
      bytes: new Uint8Array(
        await sharp({ create: { width: 56, height: 75, channels: 3, background: '#336699' } })
          .png()
          .toBuffer(),
      ),
      format: 'png' as const,
      widthPx: 56,
      heightPx: 75,
    };
    const page = (locale: 'de' | 'en') =>
      approvalPage({
        before: report,
        after: report,
        beforeImages: new Map(),
        afterImages: new Map([1, 2, 3, 4].map((p) => [p, picture])),
        mockups: new Map(),
        record: { fixed: { bytes: report.file.bytes, changes: [] }, approval: { state: 'pending' } },
        profile,
        locale,
        action: '/v1/approvals/x',
      });
    const en = await page('en');
    expect(en).toContain('Your image keeps its size and place up to the cut line; the strip beyond it, printed and then cut away, continues its edges, mirrored.');
    // The front and back are marked: 10 mm of 560 × 750 mm on each side; the sleeves (cover) are not.
    const marks = [...en.matchAll(/<section class="layer" data-page="(\d)"[\s\S]*?<\/section>/g)].map((m) => [Number(m[1]), /class="bleed-marks"/.test(m[0])]);
    expect(marks).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, false],
    ]);
    expect(en).toContain('data-bleed-x="0.017857142857142856" data-bleed-y="0.013333333333333334"');
    expect(en).toMatch(/M17\.86 13\.33V986\.67H982\.14V13\.33Z/);
    expect(en).toContain('Printed, then cut away');
    const de = await page('de');
    expect(de).toContain('Ihr Bild behält Größe und Lage bis zur Schnittlinie');
  }, 120_000);
});
