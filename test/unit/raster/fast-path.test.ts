/**
 * The fast path for image pages must look like pdf.js's render of the same page. Every orientation
 * an image can be drawn in (eight CTMs × four /Rotate values) and every colour space the fast path
 * takes are rendered both ways and compared.
 *
 * Stated tolerance (mean absolute difference per channel, 0–255): the producers' RGB pages ≤ 1
 * (measured 0.12–0.15); turned and mirrored test pictures ≤ 3 (resampling after a turn differs at
 * edges); CMYK pages ≤ 15 (measured 9.4), because pdf.js's CMYK→RGB is an approximation (no ICC in
 * Node) while sharp converts through lcms — there the fast path is the more accurate of the two.
 */
import { readFileSync } from 'node:fs';
import { PDFDocument, PDFName, type PDFArray, type PDFRawStream, degrees, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { orientation } from '../../../src/raster/fast-path.js';
import { imagePlan } from '../../../src/raster/image-plan.js';
import { localExecutor } from '../../../src/pool/local.js';
import { sha256Hex } from '../../../src/source/read.js';

async function bothWays(bytes: Uint8Array, page = 1) {
  const facts = await inspectPdf(bytes);
  const plan = imagePlan(facts.pages[page - 1]!);
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const docId = sha256Hex(bytes);
  const task = { docId, bytes: shared, page, maxPx: 300, format: 'png' as const, maxInputPixels: 1e9, maxPdfjsImagePixels: 1e9, largestImagePixels: 0 };
  const fast = await localExecutor.render({ ...task, plan });
  const slow = await localExecutor.render({ ...task, plan: null });
  const raw = async (png: Uint8Array) => await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const a = await raw(fast.preview!);
  const b = await raw(slow.preview!);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return { plan, fast, slow, sizeA: [a.info.width, a.info.height], sizeB: [b.info.width, b.info.height], meanDiff: sum / a.data.length };
}

/** An asymmetric test picture: a red corner at the top left, a blue bar along the bottom. */
async function testJpeg(channels: 'srgb' | 'cmyk' | 'b-w') {
  const w = 240;
  const h = 160;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <rect width="${w}" height="${h}" fill="#e8d080"/><rect width="80" height="50" fill="#d02020"/>
    <rect y="130" width="${w}" height="30" fill="#2040c0"/><circle cx="170" cy="70" r="30" fill="#20a040"/></svg>`;
  let img = sharp(Buffer.from(svg));
  if (channels === 'cmyk') img = img.toColourspace('cmyk');
  if (channels === 'b-w') img = img.toColourspace('b-w');
  return new Uint8Array(await img.jpeg({ quality: 95 }).toBuffer());
}

describe('image orientation from the CTM', () => {
  it.each([
    [[1, 0], [0, 1], false, 0],
    [[-1, 0], [0, 1], true, 180],
    [[0, 1], [-1, 0], false, 90],
    [[1, 0], [0, -1], true, 0],
    [[0, -1], [1, 0], false, 270],
  ] as const)('u %j, v %j → flip %s, rotate %i', (du, dv, flip, angle) => {
    expect(orientation([...du], [...dv])).toEqual({ flip, angle });
  });
});

describe('fast path matches pdf.js', () => {
  const ctms: [string, (w: number, h: number) => number[]][] = [
    ['upright', (w, h) => [w, 0, 0, h, 0, 0]],
    ['mirrored', (w, h) => [-w, 0, 0, h, w, 0]],
    ['upside down', (w, h) => [w, 0, 0, -h, 0, h]],
    ['turned 180', (w, h) => [-w, 0, 0, -h, w, h]],
    ['turned 90', (w, h) => [0, -h, w, 0, 0, h]],
    ['turned 270', (w, h) => [0, h, -w, 0, w, 0]],
    ['transposed', (w, h) => [0, h, w, 0, 0, 0]],
    ['anti-transposed', (w, h) => [0, -h, -w, 0, w, h]],
  ];
  const cases = ctms.flatMap(([name, ctm]) => [0, 90, 180, 270].map((rotate) => ({ name, ctm, rotate })));

  it.each(cases)('$name image, /Rotate $rotate', async ({ ctm, rotate }) => {
    const pdf = await PDFDocument.create();
    const jpg = await pdf.embedJpg(await testJpeg('srgb'));
    const page = pdf.addPage([300, 200]);
    page.setRotation(degrees(rotate));
    const m = ctm(300, 200);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(m[0]!, m[1]!, m[2]!, m[3]!, m[4]!, m[5]!), drawObject('Img'), popGraphicsState());
    page.node.setXObject(PDFName.of('Img'), jpg.ref);
    const r = await bothWays(await pdf.save());
    expect(r.plan, 'the page qualifies for the fast path').not.toBeNull();
    expect(r.fast.facts.method).toBe('image');
    expect(r.slow.facts.method).toBe('pdfjs');
    expect(r.sizeA).toEqual(r.sizeB);
    expect(r.meanDiff).toBeLessThanOrEqual(3);
  });

  it.each([
    ['img2pdf-duvet-half-scale.pdf', 1],
    ['imagemagick-tanktop-rgb-jpeg.pdf', 1],
    ['img2pdf-tanktop-cmyk-jpeg.pdf', 15],
    ['imagemagick-tanktop-cmyk-jpeg.pdf', 15],
  ])('on %s (mean difference ≤ %i)', async (file, tolerance) => {
    const r = await bothWays(new Uint8Array(readFileSync(`test/corpus/files/${file}`)));
    expect(r.plan).not.toBeNull();
    expect(r.fast.facts.method).toBe('image');
    if (process.env.SHOW_DIFF) console.log(file, r.meanDiff.toFixed(2));
    expect(r.meanDiff).toBeLessThanOrEqual(tolerance);
  });

  it('handles a gray JPEG, and refuses pages that are more than one image', async () => {
    const pdf = await PDFDocument.create();
    const jpg = await pdf.embedJpg(await testJpeg('b-w'));
    const page = pdf.addPage([300, 200]);
    page.drawImage(jpg, { x: 0, y: 0, width: 300, height: 200 });
    const r = await bothWays(await pdf.save());
    expect(r.meanDiff).toBeLessThanOrEqual(3);
    const mixed = await PDFDocument.create();
    const p2 = mixed.addPage([300, 200]);
    p2.drawImage(await mixed.embedJpg(await testJpeg('b-w')), { x: 0, y: 0, width: 300, height: 200 });
    p2.drawRectangle({ x: 10, y: 10, width: 20, height: 20 });
    const facts = await inspectPdf(await mixed.save());
    expect(imagePlan(facts.pages[0]!)).toBeNull();
  });

  it('ignores a CMYK JPEG whose /Decode says the opposite of its Adobe marker (pdf.js renders it)', async () => {
    const pdf = await PDFDocument.create();
    const jpg = await pdf.embedJpg(await testJpeg('cmyk'));
    const page = pdf.addPage([300, 200]);
    page.drawImage(jpg, { x: 0, y: 0, width: 300, height: 200 });
    await pdf.save();
    const stream = pdf.context.lookup(jpg.ref) as unknown as { dict: { set(k: PDFName, v: unknown): void } };
    stream.dict.set(PDFName.of('Decode'), pdf.context.obj([0, 1, 0, 1, 0, 1, 0, 1]) as PDFArray);
    const r = await bothWays(await pdf.save());
    expect(r.fast.facts.method).toBe('pdfjs');
  });
});

describe('an enlarged image keeps hard pixels unless it asks for /Interpolate', () => {
  /** A 6 × 4 px JPEG of flat blocks, drawn over a 300 × 200 pt page (rendered 300 px wide: 50× enlarged). */
  async function tinyImagePage(interpolate: boolean | undefined) {
    const raw = Buffer.alloc(6 * 4 * 3);
    for (let i = 0; i < 24; i++) raw.set(i % 2 ? [230, 40, 30] : [20, 60, 200], i * 3);
    const jpeg = await sharp(raw, { raw: { width: 6, height: 4, channels: 3 } })
      .jpeg({ quality: 100, chromaSubsampling: '4:4:4' })
      .toBuffer();
    const pdf = await PDFDocument.create();
    const img = await pdf.embedJpg(jpeg);
    const page = pdf.addPage([300, 200]);
    page.drawImage(img, { x: 0, y: 0, width: 300, height: 200 });
    if (interpolate !== undefined) {
      await img.embed();
      (pdf.context.lookup(img.ref) as PDFRawStream).dict.set(PDFName.of('Interpolate'), pdf.context.obj(interpolate));
    }
    return bothWays(await pdf.save());
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
    // Nearest neighbour shows only the image's own decoded colours (24 at most).
    expect(await colours(r.fast.preview!)).toBeLessThanOrEqual(24);
    expect(r.meanDiff).toBeLessThanOrEqual(3);
  });

  it('smooths with /Interpolate true', async () => {
    const r = await tinyImagePage(true);
    expect(r.fast.facts.method).toBe('image');
    expect(await colours(r.fast.preview!)).toBeGreaterThan(100);
  });
});
