/**
 * The Flate fast path (inflate in chunks, undo the predictor row by row, area-average into the
 * preview) must look like pdf.js's render of the same page, for files made by real producers:
 * img2pdf from PNGs (8 and 16 bit, RGB and gray — it copies the PNG's IDAT, PNG predictors and
 * all), ImageMagick's own PDF writer, and pikepdf pages drawing a Flate image in all eight
 * orientations under every /Rotate, with no predictor, TIFF predictor 2 and every PNG row filter.
 *
 * Stated tolerance (mean absolute difference per channel, 0–255, preview 300 px): ≤ 2 for the
 * producers' pages and ≤ 3 for turned and mirrored pictures (pdf.js smooths a reduced image
 * differently from a box filter at sharp edges; measured 0.3–1.2).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { localExecutor } from '../../../src/pool/local.js';
import { TaskFailure } from '../../../src/pool/pool.js';
import { imagePlan } from '../../../src/raster/image-plan.js';
import { BoxReducer, RowDecoder, flatePlan } from '../../../src/raster/flate-path.js';
import { sha256Hex } from '../../../src/source/read.js';
import { preflight } from '../../../src/index.js';
import { rssGrowthDuring } from '../../helpers/rss.js';

const PY = '/usr/bin/python3';
const MAGICK = '/usr/bin/convert'; // /usr/local/bin/convert is not ImageMagick
const PRODUCER = 'test/unit/raster/producers/flate_pages.py';
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flate-path-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function task(bytes: Uint8Array, page: number, maxPx = 300) {
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return { docId: `${sha256Hex(bytes)}:${page}:${maxPx}`, bytes: shared, page, maxPx, format: 'png' as const, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 };
}

/** The page rendered by the Flate path and by pdf.js, and their mean absolute difference. */
async function bothWays(bytes: Uint8Array, page = 1) {
  const facts = await inspectPdf(bytes);
  const plan = flatePlan(facts.pages[page - 1]!);
  const t = task(bytes, page);
  const fast = await localExecutor.render({ ...t, plan });
  const slow = await localExecutor.render({ ...t, plan: null });
  const raw = async (png: Uint8Array) => sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const a = await raw(fast.preview!);
  const b = await raw(slow.preview!);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return { plan, fast, slow, sizeA: [a.info.width, a.info.height], sizeB: [b.info.width, b.info.height], meanDiff: sum / a.data.length };
}

function magick(args: string[]) {
  execFileSync(MAGICK, args, { env: { ...process.env, MAGICK_CONFIGURE_PATH: join(process.cwd(), 'test/corpus/magick') } });
}

/** A 600 × 400 test picture as PNG from ImageMagick: a gradient, a red corner, a green disc. */
function testPng(name: string, depth: 8 | 16, gray: boolean): string {
  const out = join(dir, name);
  const args = ['-size', '600x400', 'gradient:#e8d080-#2040c0', '-fill', '#d02020', '-draw', 'rectangle 0,0 200,120'];
  args.push('-fill', '#20a040', '-draw', 'circle 420,170 420,240', '-alpha', 'off');
  if (gray) args.push('-colorspace', 'Gray');
  magick([...args, '-depth', String(depth), out]);
  return out;
}

describe('row decoding and box reduction', () => {
  it('undoes every PNG row filter and the TIFF predictor', () => {
    // Two rows of 3 RGB pixels: filtered by hand.
    const rows: Uint8Array[] = [];
    const png = new RowDecoder({ widthPx: 2, heightPx: 3, components: 1, bitsPerComponent: 8, predictor: 15 }, (r) => rows.push(Uint8Array.from(r)));
    // Row 1 Sub: 10, +5 → 10, 15. Row 2 Up: +1, +2 → 11, 17. Row 3 Paeth: a=0,b=11,c=0 → p=11, pick b: 3+11; then a=14,b=17,c=11 → p=20, pa=6, pb=3, pc=9 → b: 1+17.
    png.push(Uint8Array.from([1, 10, 5, 2, 1, 2]));
    png.push(Uint8Array.from([4, 3, 1, 9, 9]));
    expect(rows.map((r) => [...r])).toEqual([
      [10, 15],
      [11, 17],
      [14, 18],
    ]);
    expect(png.done()).toBe(true);
    const tiff: number[][] = [];
    const t16 = new RowDecoder({ widthPx: 2, heightPx: 1, components: 1, bitsPerComponent: 16, predictor: 2 }, (r) => tiff.push([...r]));
    t16.push(Uint8Array.from([0x01, 0xff, 0x00, 0x02]));
    expect(tiff).toEqual([[0x01, 0xff, 0x02, 0x01]]);
    expect(() => new RowDecoder({ widthPx: 1, heightPx: 1, components: 1, bitsPerComponent: 8, predictor: 15 }, () => undefined).push(Uint8Array.from([7, 0]))).toThrow(/unknown PNG filter type 7/);
  });

  it('averages areas exactly, also for sizes that do not divide', () => {
    // 3 × 1 → 2 × 1: the middle pixel is shared half and half.
    const r = new BoxReducer(3, 1, 1, 2, 1);
    r.addRow(Uint8Array.from([0, 100, 200]));
    expect([...r.finish().data]).toEqual([33, 167]);
    // 4 × 4 → 2 × 2 with 16-bit samples (65535 = 255).
    const s = new BoxReducer(2, 2, 1, 1, 1, 16);
    s.addRow(Uint8Array.from([0xff, 0xff, 0, 0]));
    s.addRow(Uint8Array.from([0xff, 0xff, 0xff, 0xff]));
    expect([...s.finish().data]).toEqual([191]);
    const inverted = new BoxReducer(1, 1, 3, 1, 1);
    inverted.addRow(Uint8Array.from([0, 55, 255]));
    expect([...inverted.finish(true).data]).toEqual([255, 200, 0]);
  });
});

describe('Flate path matches pdf.js', () => {
  it.each([
    ['img2pdf', 8, false],
    ['img2pdf', 8, true],
    ['img2pdf', 16, false],
    ['img2pdf', 16, true],
    ['ImageMagick', 8, false],
    ['ImageMagick', 8, true],
  ] as const)('%s page from a %i-bit PNG (gray %s)', async (producer, depth, gray) => {
    const png = testPng(`p${depth}${gray ? 'g' : 'c'}.png`, depth, gray);
    const pdf = join(dir, `${producer}-${depth}-${gray}.pdf`);
    if (producer === 'img2pdf') execFileSync('img2pdf', [png, '-o', pdf]);
    else magick([png, '-compress', 'zip', `PDFA:${pdf}`]);
    const r = await bothWays(new Uint8Array(readFileSync(pdf)));
    expect(r.plan, 'the page qualifies for the Flate path').not.toBeNull();
    expect(r.fast.facts.method).toBe('image');
    expect(r.slow.facts.method).toBe('pdfjs');
    expect(r.sizeA).toEqual(r.sizeB);
    if (process.env.SHOW_DIFF) console.log(producer, depth, gray, r.meanDiff.toFixed(2));
    expect(r.meanDiff).toBeLessThanOrEqual(2);
  });

  it('img2pdf page agrees with pdftoppm too', async () => {
    const png = testPng('pp.png', 8, false);
    const pdf = join(dir, 'pp.pdf');
    execFileSync('img2pdf', [png, '-o', pdf]);
    const bytes = new Uint8Array(readFileSync(pdf));
    const fast = await localExecutor.render({ ...task(bytes, 1), plan: flatePlan((await inspectPdf(bytes)).pages[0]!) });
    expect(fast.facts.method).toBe('image');
    const a = await sharp(fast.preview!).removeAlpha().raw().toBuffer();
    // 450 × 300 pt page, 300 px wide: 48 ppi.
    execFileSync('pdftoppm', ['-png', '-r', '48', '-singlefile', pdf, join(dir, 'pp')]);
    const b = await sharp(join(dir, 'pp.png')).removeAlpha().resize(300, 200, { fit: 'fill' }).raw().toBuffer();
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
    expect(sum / a.length).toBeLessThanOrEqual(3);
  });

  // pikepdf pages: 8 CTMs × 4 /Rotate values each.
  it.each([
    [1, 8, 3, '0 1'],
    [15, 8, 3, '0 1'],
    [2, 8, 3, '0 1'],
    [15, 16, 3, '0 1'],
    [2, 16, 1, '0 1'],
    [15, 8, 1, '1 0'],
  ] as const)('pikepdf: predictor %i, %i bit, %i components, /Decode [%s], in every orientation', async (predictor, bits, components, decode) => {
    const pdf = join(dir, `o-${predictor}-${bits}-${components}-${decode.replace(' ', '')}.pdf`);
    execFileSync(PY, [PRODUCER, pdf, 'oriented', String(predictor), String(bits), String(components), decode]);
    const bytes = new Uint8Array(readFileSync(pdf));
    for (let page = 1; page <= 32; page++) {
      const r = await bothWays(bytes, page);
      expect(r.plan, `page ${page}`).not.toBeNull();
      expect(r.fast.facts.method, `page ${page}`).toBe('image');
      expect(r.sizeA, `page ${page}`).toEqual(r.sizeB);
      expect(r.meanDiff, `page ${page}`).toBeLessThanOrEqual(3);
    }
  });

  it('leaves JPEG pages to the JPEG path and Indexed / masked images to pdf.js', async () => {
    const jpg = new Uint8Array(readFileSync('test/corpus/files/img2pdf-duvet-half-scale.pdf'));
    const page = (await inspectPdf(jpg)).pages[0]!;
    expect(imagePlan(page)).not.toBeNull();
    expect(flatePlan(page)).toBeNull();
    const palette = join(dir, 'palette.png');
    magick(['-size', '300x200', 'gradient:#e03030-#3060e0', '+dither', '-colors', '16', `PNG8:${palette}`]);
    const indexed = join(dir, 'indexed.pdf');
    execFileSync('img2pdf', [palette, '-o', indexed]);
    const facts = await inspectPdf(new Uint8Array(readFileSync(indexed)));
    expect(facts.pages[0]!.images[0]!.colourSpace?.family).toBe('Indexed');
    expect(flatePlan(facts.pages[0]!)).toBeNull();
  });
});

describe('spot and DeviceN images are drawn through their tint transform, as the readers draw them', () => {
  /** Mean colour of each fifth of a preview, left to right. */
  async function fifths(png: Uint8Array | Buffer): Promise<number[][]> {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return [0, 1, 2, 3, 4].map((f) => {
      const sum = [0, 0, 0];
      let n = 0;
      for (let y = 0; y < info.height; y++) {
        for (let x = Math.floor((f * info.width) / 5); x < Math.floor(((f + 1) * info.width) / 5); x++, n++) for (let c = 0; c < 3; c++) sum[c]! += data[(y * info.width + x) * 3 + c]!;
      }
      return sum.map((v) => v / n);
    });
  }

  for (const kind of ['devicen', 'nchannel', 'separation']) {
    it(`${kind}: inked as MuPDF inks it (itext's deviceN8bitDeviceCMYK was drawn white by PDFium and pdf.js, and judged page-blank)`, async () => {
      const pdf = join(dir, `inks-${kind}.pdf`);
      execFileSync(PY, [PRODUCER, pdf, 'inks', kind]);
      const report = await preflight(pdf, { product: 't-shirt', variant: 'M' }, { pool: false });
      expect(report.findings.map((f) => f.code)).not.toContain('page-blank');
      expect(report.pages[0]!.raster!.inkCoverage).toBeGreaterThan(0.9);
      const bytes = new Uint8Array(readFileSync(pdf));
      const ours = await localExecutor.render({ ...task(bytes, 1, 300), plan: flatePlan((await inspectPdf(bytes)).pages[0]!) });
      expect(ours.facts.method).toBe('image');
      const mupdf = execFileSync('mutool', ['draw', '-q', '-F', 'png', '-w', '300', '-o', '-', pdf, '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
      const [a, b] = [await fifths(ours.preview!), await fifths(mupdf)];
      // Uncalibrated CMYK here, MuPDF's own conversion there: the same hues, within 40 of 255 per channel.
      for (let f = 0; f < 5; f++) for (let c = 0; c < 3; c++) expect(Math.abs(a[f]![c]! - b[f]![c]!)).toBeLessThan(40);
    });
  }
});

describe('an enlarged Flate image keeps hard pixels unless it asks for /Interpolate', () => {
  /** A 6 × 4 px image of flat blocks (pikepdf, PNG predictor), drawn over a 300 × 200 pt page: 50× enlarged. */
  async function tinyImagePage(interpolate: boolean | undefined) {
    const pdf = join(dir, `tiny-${interpolate}.pdf`);
    execFileSync(PY, [PRODUCER, pdf, 'tiny', interpolate === undefined ? '-' : String(interpolate)]);
    return bothWays(new Uint8Array(readFileSync(pdf)));
  }
  const colours = async (png: Uint8Array) => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const set = new Set<number>();
    for (let i = 0; i < data.length; i += info.channels) set.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    return set.size;
  };

  it('draws hard pixels without /Interpolate, as pdf.js does', async () => {
    const r = await tinyImagePage(undefined);
    expect(r.fast.facts.method).toBe('image');
    expect(await colours(r.fast.preview!)).toBeLessThanOrEqual(2);
    expect(r.meanDiff).toBeLessThanOrEqual(3);
  });

  it('smooths with /Interpolate true', async () => {
    const r = await tinyImagePage(true);
    expect(r.fast.facts.method).toBe('image');
    expect(await colours(r.fast.preview!)).toBeGreaterThan(20);
  });
});

describe('Flate path bounds', () => {
  it('renders a 12,000 × 12,000 RGB page (432 MB decoded) without holding the image', async () => {
    const pdf = join(dir, 'big.pdf');
    execFileSync(PY, [PRODUCER, pdf, 'big', '12000'], { timeout: 120_000 });
    const bytes = new Uint8Array(readFileSync(pdf));
    const plan = flatePlan((await inspectPdf(bytes)).pages[0]!);
    expect(plan).not.toBeNull();
    const { result: r, growth } = await rssGrowthDuring(() => localExecutor.render({ ...task(bytes, 1, 1200), plan, maxPdfjsImagePixels: 48_000_000, largestImagePixels: 144_000_000 }));
    expect(r.facts.method).toBe('image');
    expect([r.facts.widthPx, r.facts.heightPx]).toEqual([1200, 1200]);
    // Top band is (0, 255, 128); the diagonal stripe darkens the first rows' left edge.
    const { data } = await sharp(r.preview!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * 1200 + x) * 3, (y * 1200 + x) * 3 + 3)];
    expect(px(600, 20)).toEqual([0, 255, 128]);
    expect(px(600, 1190)).toEqual([210, 45, 128]);
    if (process.env.SHOW_DIFF) console.log('rss growth MB', (growth / 2 ** 20).toFixed(0));
    // Loose: the decoded image alone would be 432 MB; the path holds the preview and a few rows.
    expect(growth).toBeLessThan(200 * 1024 * 1024);
  }, 180_000);

  it('a corrupt Flate stream falls back to pdf.js, or fails the page when pdf.js may not take it', async () => {
    const pdf = join(dir, 'corrupt.pdf');
    execFileSync(PY, [PRODUCER, pdf, 'corrupt']);
    const bytes = new Uint8Array(readFileSync(pdf));
    const plan = flatePlan((await inspectPdf(bytes)).pages[0]!);
    expect(plan).not.toBeNull();
    const within = await localExecutor.render({ ...task(bytes, 1), plan });
    expect(within.facts.method).toBe('pdfjs');
    const error = await localExecutor.render({ ...task(bytes, 1), plan, maxPdfjsImagePixels: 1000, largestImagePixels: 120_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailure);
    expect((error as TaskFailure).message).toMatch(/its image could not be read \(its Flate data is corrupt .*\), and decoding it whole would exceed the memory budget/);
  });
});

describe('pages over the pdf.js budget are rendered from their Flate image', () => {
  it('a page the Flate path cannot read is over the budget (colour-key mask) or failed with the reason (corrupt data)', async () => {
    const keyed = join(dir, 'keyed.pdf');
    execFileSync(PY, [PRODUCER, keyed, 'colour-key']);
    expect(flatePlan((await inspectPdf(new Uint8Array(readFileSync(keyed)))).pages[0]!), 'the structure alone looks streamable').not.toBeNull();
    const small = { pool: false as const, maxRenderImagePixels: 10 };
    const a = await preflight(keyed, { sku: 'TANKTOP-M' }, small);
    expect(a.findings.find((f) => f.code === 'pdf-too-complex')?.message).toMatch(/draws images of 24 pixels/);
    expect(a.pages[0]!.raster).toBeNull();
    // Within the budget the colour-key page goes to a full renderer (PDFium or pdf.js, by
    // raster/renderer.ts's rule), which honours the mask; never to the image path.
    const b = await preflight(keyed, { sku: 'TANKTOP-M' }, { pool: false });
    expect(['pdfjs', 'pdfium']).toContain(b.pages[0]!.raster?.method);
    const corrupt = join(dir, 'corrupt-2.pdf');
    execFileSync(PY, [PRODUCER, corrupt, 'corrupt']);
    const c = await preflight(corrupt, { sku: 'TANKTOP-M' }, small);
    expect(c.findings.find((f) => f.code === 'page-render-failed')?.message).toMatch(/its image could not be read \(its Flate data is corrupt/);
  });

  it('a 200 × 200 cm img2pdf duvet page at 100 ppi (62 MP) is rendered and its pixels judged', async () => {
    // 7874 px at 100 ppi = 200 cm: red, with a white band 400 px (≈ 100 mm) wide on the left.
    const png = join(dir, 'duvet.png');
    await sharp({ create: { width: 7874, height: 7874, channels: 3, background: '#e03030' } })
      .composite([{ input: { create: { width: 400, height: 7874, channels: 3, background: '#ffffff' } }, left: 0, top: 0 }])
      .removeAlpha()
      .png()
      .toFile(png);
    const pdf = join(dir, 'duvet.pdf');
    execFileSync('img2pdf', ['--imgsize', '100dpix100dpi', png, '-o', pdf]);
    const report = await preflight(pdf, { sku: 'DUVET-COVER-200X200' }, { pool: false });
    const codes = report.findings.map((f) => f.code);
    expect(codes).not.toContain('pdf-too-complex');
    expect(codes).not.toContain('page-render-failed');
    const raster = report.pages[0]!.raster!;
    expect(raster.method).toBe('image');
    expect(raster.edgeGapMm.left).toBeGreaterThan(95);
    expect(raster.edgeGapMm.left).toBeLessThan(105);
    expect(raster.edgeGapMm.right).toBe(0);
    expect(codes).toContain('page-edge-gap');
  }, 180_000);
});
