/**
 * image-upscaled from the pixels: ImageMagick makes a detailed picture (fractal plasma with grain)
 * at test time, enlarges it with two filters, blurs it, compresses it hard and draws a smooth
 * gradient; img2pdf puts them on pages. Enlargements must be found with their factor (±25 %);
 * the blurred, compressed and smooth pictures must not be. (bench/quality.mjs measures the same
 * on natural photographs.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { bandTop, measureJpegDetail, detailRequests, readableForDetail, windowLeft } from '../../../src/raster/image-detail.js';
import { decideDetail, estimateDetail, hasSignal, lumaOf } from '../../../src/raster/detail.js';

const dir = mkdtempSync(join(tmpdir(), 'detail-'));
const policy = join(dir, 'magick');

function magick(...args: string[]) {
  execFileSync('/usr/bin/convert', args, { env: { ...process.env, MAGICK_CONFIGURE_PATH: policy } });
}

beforeAll(() => {
  mkdirSync(policy);
  writeFileSync(join(policy, 'policy.xml'), '<policymap><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="memory" value="2GiB"/></policymap>');
  const native = join(dir, 'native.png');
  magick('-seed', '7', '-size', '768x768', 'plasma:fractal', '-attenuate', '0.4', '+noise', 'Gaussian', '-colorspace', 'sRGB', native);
  magick(native, '-quality', '92', join(dir, 'native.jpg'));
  magick(native, '-filter', 'Catrom', '-resize', '200%', '-quality', '92', join(dir, 'up2.jpg'));
  magick(native, '-filter', 'Lanczos', '-resize', '400%', '-quality', '92', join(dir, 'up4.jpg'));
  magick(native, '-filter', 'Lanczos', '-resize', '300%', '-quality', '92', join(dir, 'up3.jpg'));
  magick(native, '-gaussian-blur', '0x2', '-quality', '92', join(dir, 'blur2.jpg'));
  magick(native, '-quality', '40', join(dir, 'q40.jpg'));
  magick('-size', '1024x768', 'gradient:#3060c0-#f0d080', '-quality', '92', join(dir, 'gradient.jpg'));
  // A 2× enlargement below 764 rows of plain sky: its top band shows no detail at all.
  magick(native, '-filter', 'Catrom', '-resize', '200%', '-background', '#87ceeb', '-gravity', 'south', '-extent', '1536x2300', '-quality', '92', join(dir, 'sky-up2.jpg'));
}, 120_000);

async function detail(name: string) {
  const bytes = new Uint8Array(readFileSync(join(dir, `${name}.jpg`)));
  const meta = await sharp(bytes).metadata();
  return measureJpegDetail(bytes, { ref: '1 0 R', widthPx: meta.width!, heightPx: meta.height! }, 1e9);
}

describe('enlargement from the pixels', () => {
  it.each([
    ['up2', 2],
    ['up3', 3],
    ['up4', 4],
  ] as const)('%s is found, factor %i ± 25 %', async (name, factor) => {
    const d = await detail(name);
    expect(d?.factor, name).not.toBeNull();
    expect(Math.abs(d!.factor! / factor - 1)).toBeLessThanOrEqual(0.25);
  });

  it.each(['native', 'blur2', 'q40', 'gradient'])('%s is not an enlargement', async (name) => {
    const d = await detail(name);
    expect(d).not.toBeNull();
    expect(d!.factor, `${name}: evidence ${d!.evidence}`).toBeNull();
  });

  it('a tile too small to tell gives no verdict; noise is native', () => {
    expect(estimateDetail(lumaOf(new Uint8Array(40 * 40 * 3), 40, 40, 3)).factor).toBeNull();
    const noise = Uint8Array.from({ length: 256 * 256 }, (_, i) => (i * 2654435761) >>> 24);
    expect(estimateDetail(lumaOf(noise, 256, 256, 1)).factor).toBeNull();
  });

  it('low-frequency coherence of a smooth picture (beyond 5.3×, below its own threshold) is no JPEG block family', () => {
    // Scores per candidate bin (α = j / 128): an enlargement by 4 peaks at 32; a smooth picture's
    // few low-frequency pairs reach 0.42 at 15–19, which includes the grid point 1/8 (j = 16).
    const scores = (at: Record<number, number>) => {
      const score = new Float64Array(90);
      for (const [j, v] of Object.entries(at)) score[Number(j)] = v;
      return { score, partner: Int32Array.from({ length: 90 }, (_, j) => j), signal: new Uint8Array(90).fill(1) };
    };
    const smoothLow = { 15: 0.42, 16: 0.42, 17: 0.42, 18: 0.4, 19: 0.38 };
    const peak = { 31: 0.44, 32: 0.45, 33: 0.44 };
    expect(decideDetail(scores({ ...smoothLow, ...peak })).factor).toBe(4);
    // The same coherence at another grid point (3/8) that needs no more than 0.3 is JPEG's family.
    expect(decideDetail(scores({ ...peak, 47: 0.41, 48: 0.42, 49: 0.41 })).factor).toBeNull();
  });

  it('a peak must stand out of its neighbours; low frequencies below their threshold do not hide it', () => {
    const scores = (at: (j: number) => number) => ({
      score: Float64Array.from({ length: 90 }, (_, j) => at(j)),
      partner: Int32Array.from({ length: 90 }, (_, j) => j),
      signal: new Uint8Array(90).fill(1),
    });
    // A smooth picture's coherence, high at low frequencies (0.69 at 15, below 0.75 there) and
    // falling off, with a narrow peak at 2× (64) on a floor of 0.1: the peak is the enlargement.
    const smooth = (j: number) => Math.max(0.1, 0.69 - 0.03 * (j - 15));
    expect(decideDetail(scores((j) => (Math.abs(j - 64) <= 1 ? 0.42 : smooth(j)))).factor).toBeCloseTo(2, 1);
    // The same 0.42 at the top of a broad bump (0.01 less per bin away) is the picture, not a cycle frequency.
    expect(decideDetail(scores((j) => Math.max(0.1, 0.42 - 0.01 * Math.abs(j - 55)))).factor).toBeNull();
  });

  it("a 1.5× peak beside JPEG's 5/8 trace stands out of its floor: the trace's skirt is no part of it", () => {
    // A 1.5× enlargement saved as JPEG (bench:quality's c03, pil-bicubic at q75): its own peak at
    // bin 85 (0.31), JPEG's block trace at 5/8 (bin 80) and its skirt at 77–83 (0.14–0.25); the
    // bins above 88 lie past the scan. Taking the skirt into the floor (median 0.23) buried the peak.
    const at: Record<number, number> = { 77: 0.14, 78: 0.19, 79: 0.23, 80: 0.25, 81: 0.24, 82: 0.23, 83: 0.24, 84: 0.29, 85: 0.31, 86: 0.3, 87: 0.26, 88: 0.21 };
    const score = Float64Array.from({ length: 90 }, (_, j) => at[j] ?? 0.12);
    const found = decideDetail({ score, partner: Int32Array.from({ length: 90 }, (_, j) => j), signal: new Uint8Array(90).fill(1) });
    expect(found.factor).toBeCloseTo(1.5, 1);
    // The same peak on a floor of its own height is no enlargement.
    const flat = Float64Array.from({ length: 90 }, (_, j) => (j >= 84 && j <= 87 ? at[j]! : 0.25));
    expect(decideDetail({ score: flat, partner: Int32Array.from({ length: 90 }, (_, j) => j), signal: new Uint8Array(90).fill(1) }).factor).toBeNull();
  });

  it('a 1.5× peak below the threshold (JPEG took part of it) is an enlargement only in a picture band-limited as the enlargement leaves it', () => {
    // A 1.5× enlargement saved as JPEG (bench/quality-jpeg-set.mjs): its peak at bins 85–86 reaches
    // 0.27, below the usual 0.3, on a floor of 0.12.
    const at: Record<number, number> = { 84: 0.22, 85: 0.27, 86: 0.27, 87: 0.22, 88: 0.15 };
    const score = Float64Array.from({ length: 90 }, (_, j) => at[j] ?? 0.12);
    const partner = Int32Array.from({ length: 90 }, (_, j) => j);
    const signal = new Uint8Array(90).fill(1);
    // The derivative's power per bin (of 128): the enlargement's stops at 1/3 cycle per pixel.
    const limited = Float64Array.from({ length: 64 }, (_, k) => (k <= 43 ? 1 : 0.01));
    const found = decideDetail({ score, partner, signal, spectrum: limited });
    expect(found.factor).toBeCloseTo(1.5, 1);
    expect(found.evidence).toBeCloseTo(0.27, 2);
    // A native picture's detail goes on past the cut-off (a fifth of the power below it): no enlargement.
    const native = Float64Array.from({ length: 64 }, () => 1);
    expect(decideDetail({ score, partner, signal, spectrum: native }).factor).toBeNull();
    // Nor without the spectrum, nor with a peak below 0.25.
    expect(decideDetail({ score, partner, signal }).factor).toBeNull();
    const weak = Float64Array.from(score, (v, j) => (j === 85 || j === 86 ? 0.24 : v));
    expect(decideDetail({ score: weak, partner, signal, spectrum: limited }).factor).toBeNull();
  });

  it('detail near the cut-off is judged over both directions together, and must be there in each', () => {
    expect(hasSignal(3.6, 2.6)).toBe(true);
    expect(hasSignal(2.9, 2.9)).toBe(false);
    expect(hasSignal(12, 0.8)).toBe(false);
  });

  it('the band analysed is the first textured one from the top, judged on the preview', () => {
    // A 100 × 400 overview of a 4,000-row image: flat sky above row 160 (1,600 in the image), texture below.
    const overview = { data: Uint8Array.from({ length: 100 * 400 }, (_, i) => (Math.floor(i / 100) < 160 ? 200 : (i * 7919) % 251)), width: 100, height: 400, channels: 1 };
    const top = bandTop(overview, 4000, 512);
    expect(top).toBeGreaterThanOrEqual(1600 - 512);
    expect(top).toBeLessThanOrEqual(1600);
    expect(bandTop(null, 4000, 512)).toBe(0);
  });

  it('the window is the most textured one of the band on the preview, on the JPEG block grid', () => {
    // A 400 × 100 overview of a 4,000 × 1,000 image: flat left of column 250 (2,500 in the image), texture right of it.
    const overview = { data: Uint8Array.from({ length: 400 * 100 }, (_, i) => (i % 400 < 250 ? 90 : (i * 7919) % 251)), width: 400, height: 100, channels: 1 };
    const left = windowLeft(overview, 4000, 1000, 0, 512);
    expect(left % 16).toBe(0);
    expect(left).toBeGreaterThanOrEqual(2500);
    expect(left + 512).toBeLessThanOrEqual(4000);
    expect(windowLeft(overview, 400, 1000, 0, 512)).toBe(0);
  });

  it('images whose pixels can be read, whatever their filters, large enough are measured, largest placed first, at most four', () => {
    const img = (ref: string, w: number, filters = ['DCTDecode'], area = 1, bitsPerComponent: number | null = 8) => ({
      ref,
      inline: false,
      filters,
      widthPx: w,
      heightPx: w,
      bitsPerComponent,
      imageMask: false,
      placedWidthPt: area,
      placedHeightPt: area,
    });
    const picked = detailRequests([
      img('1 0 R', 100),
      img('2 0 R', 800, ['FlateDecode'], 7),
      img('3 0 R', 800, undefined, 5),
      img('4 0 R', 900, ['ASCII85Decode', 'DCTDecode'], 9),
      img('4 0 R', 900, undefined, 9),
      img('5 0 R', 400, ['JBIG2Decode'], 20),
      img('6 0 R', 500, ['FlateDecode'], 30, 1),
      img('7 0 R', 600, ['CCITTFaxDecode'], 40),
      img('8 0 R', 600, ['LZWDecode'], 3, 16),
      img('9 0 R', 600, ['JPXDecode'], 2, null),
    ]);
    expect(picked.map((p) => p.ref)).toEqual(['4 0 R', '2 0 R', '3 0 R', '8 0 R']);
  });

  it('readableForDetail: JPEG and JPEG 2000 behind wrapping filters, 8- and 16-bit row data; not masks, bilevel codecs or 1–4-bit data', () => {
    const i = (filters: string[], bitsPerComponent: number | null = 8, more = {}) => readableForDetail({ filters, bitsPerComponent, imageMask: false, widthPx: 10, heightPx: 10, ...more });
    expect(i(['ASCII85Decode', 'DCTDecode'])).toBe(true);
    expect(i(['FlateDecode', 'DCTDecode'])).toBe(true);
    expect(i(['JPXDecode'], null)).toBe(true);
    expect(i([], 16)).toBe(true);
    expect(i(['RunLengthDecode'])).toBe(true);
    expect(i(['FlateDecode'], 4)).toBe(false);
    expect(i(['JBIG2Decode'], 1)).toBe(false);
    expect(i(['DCTDecode', 'FlateDecode'])).toBe(false);
    expect(i(['DCTDecode'], 8, { coded: { widthPx: 20, heightPx: 10 } })).toBe(false);
    expect(i(['FlateDecode'], 8, { imageMask: true })).toBe(false);
  });
});

describe('in a check', () => {
  const page = (name: string) => {
    const pdf = join(dir, `${name}.pdf`);
    // img2pdf places the JPEG as it is (no re-encoding) on a 200 × 200 cm duvet page.
    execFileSync('img2pdf', ['--pagesize', '2040mmx2040mm', '--fit', 'fill', '-o', pdf, join(dir, `${name}.jpg`)]);
    return pdf;
  };

  it('an enlarged photo page gets image-upscaled with placed and detail resolution; its native original does not', async () => {
    const up = await preflight(page('up4'), { product: 'duvet-cover', variant: '200x200' }, { limits: { minPpi: 30, minPpiError: 10 } });
    const f = up.findings.find((x) => x.code === 'image-upscaled');
    expect(f).toMatchObject({ severity: 'warning', page: 1, details: { printedPpi: 38.2 } });
    expect(f!.message).toMatch(/placed at 38\.2 ppi, it carries detail of about (9\.\d|10(\.\d)?) ppi \(upscaled about (3\.[89]|4(\.[01])?)×/);
    expect(up.pages[0]!.images[0]!.upscaleFactor).toBeCloseTo(4, 0);
    const native = await preflight(page('native'), { product: 'duvet-cover', variant: '200x200' });
    expect(native.findings.map((x) => x.code)).not.toContain('image-upscaled');
  });

  it('an image that does not cover its page is measured where the drawing shows its detail, not at its plain top', async () => {
    // img2pdf with a 150 mm border: the page is no longer its one image, so the page's drawing is
    // cut where the image lands to steer the measurement below the sky.
    const pdf = join(dir, 'sky-up2.pdf');
    execFileSync('img2pdf', ['--pagesize', '2040mmx2040mm', '--border', '150mm', '--fit', 'into', '-o', pdf, join(dir, 'sky-up2.jpg')]);
    const report = await preflight(pdf, { product: 'duvet-cover', variant: '200x200' }, { limits: { minPpi: 30, minPpiError: 10 } });
    expect(report.pages[0]!.images[0]!.upscaleFactor).toBeCloseTo(2, 1);
    expect(report.findings.map((x) => x.code)).toContain('image-upscaled');
  });

  it('a hard-compressed JPEG gets image-jpeg-quality with its print size', async () => {
    const report = await preflight(page('q40'), { product: 'duvet-cover', variant: '200x200' }, { raster: false });
    const f = report.findings.find((x) => x.code === 'image-jpeg-quality');
    expect(f).toMatchObject({ severity: 'warning', details: { quality: 40, exact: true, printedWidthMm: 2040 } });
    expect(f!.message).toContain('8-pixel compression blocks print 21.3 mm wide');
    expect(report.pages[0]!.images[0]!.jpegQuality).toBe(40);
  });
});
