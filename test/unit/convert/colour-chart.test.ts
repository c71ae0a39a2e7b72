/**
 * A CMYK test chart, as vector fills and as a lossless CMYK image, converted by `fix` and read back
 * from a render: every patch within ΔE 2 (CIE76) of lcms's own conversion of the same CMYK values
 * (sharp, directly, from the chain's default CMYK profile: cmyk-profile.ts). This proves the plumbing — TIFF wrapping, channel order, PDF operators,
 * image re-encoding — adds no colour error of its own.
 */
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cmykColoursToRgb } from '../../../src/raster/colour.js';
import { defaultCmykProfile } from '../../../src/raster/cmyk-profile.js';
import { rawToTiff } from '../../../src/raster/tiff.js';
import { fix } from '../../../src/flow/fix.js';
import { localExecutor } from '../../../src/pool/local.js';
import { sha256Hex } from '../../../src/source/read.js';
// @ts-expect-error plain ESM helper without types
import { stream, writePdf } from '../../hostile/pdf-writer.mjs';

const CHART: [number, number, number, number][] = [
  [0, 0, 0, 0],
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 0, 0, 1],
  [1, 1, 0, 0],
  [0, 1, 1, 0],
  [1, 0, 1, 0],
  [0.5, 0, 0, 0],
  [0, 0.5, 0, 0],
  [0, 0, 0.5, 0],
  [0, 0, 0, 0.5],
  [0.6, 0.4, 0.4, 1],
  [0.05, 0.3, 0.4, 0.02],
  [0.1, 0.8, 0.6, 0.05],
  [0.9, 0.2, 0.1, 0.3],
  [0.2, 0.2, 0.2, 0.2],
  [0.7, 0.1, 0.9, 0.1],
  [0.3, 0.6, 0, 0.1],
  [0, 0.25, 0.9, 0],
];
const COLS = 5;
const CELL = 60;

function srgbToLab([r, g, b]: number[]): [number, number, number] {
  const lin = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const [R, G, B] = [r!, g!, b!].map((v) => lin(v / 255));
  const X = (0.4124 * R! + 0.3576 * G! + 0.1805 * B!) / 0.95047;
  const Y = 0.2126 * R! + 0.7152 * G! + 0.0722 * B!;
  const Z = (0.0193 * R! + 0.1192 * G! + 0.9505 * B!) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}
const deltaE = (a: number[], b: number[]) => Math.hypot(...srgbToLab(a).map((v, i) => v - srgbToLab(b)[i]!));

function chartPdf(kind: 'vector' | 'image'): Uint8Array {
  const rows = Math.ceil(CHART.length / COLS);
  const w = COLS * CELL;
  const h = rows * CELL;
  if (kind === 'vector') {
    const ops = CHART.map(([c, m, y, k], i) => `${c} ${m} ${y} ${k} k ${(i % COLS) * CELL} ${h - (Math.floor(i / COLS) + 1) * CELL} ${CELL} ${CELL} re f`).join('\n');
    return pdf(w, h, ops, '', []);
  }
  const px = new Uint8Array(COLS * rows * 4);
  CHART.forEach((c, i) => c.forEach((v, j) => (px[i * 4 + j] = Math.round(v * 255))));
  const image = stream(`/Type /XObject /Subtype /Image /Width ${COLS} /Height ${rows} /BitsPerComponent 8 /ColorSpace /DeviceCMYK /Filter /FlateDecode`, deflateSync(px));
  return pdf(w, h, `q ${w} 0 0 ${h} 0 0 cm /Im Do Q`, '/XObject << /Im 5 0 R >>', [image]);
}

function pdf(w: number, h: number, content: string, resources: string, extra: unknown[]): Uint8Array {
  // Two pages: tanktop M has two layers; both carry the chart.
  const page = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents 4 0 R /Resources << ${resources} >> >>`;
  const second = 5 + extra.length;
  return writePdf(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [3 0 R ${second} 0 R] /Count 2 >>`, page, stream('', content), ...extra, page]);
}

async function patches(bytes: Uint8Array): Promise<number[][]> {
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const rows = Math.ceil(CHART.length / COLS);
  const r = await localExecutor.render({
    docId: sha256Hex(bytes),
    bytes: shared,
    page: 1,
    maxPx: COLS * CELL,
    format: 'png',
    plan: null,
    maxInputPixels: 1e9,
    maxPdfjsImagePixels: 1e9,
    largestImagePixels: 0,
  });
  const raw = await sharp(r.preview!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return CHART.map((_, i) => {
    const x = (i % COLS) * CELL + CELL / 2;
    const y = Math.floor(i / COLS) * CELL + CELL / 2;
    const at = (y * raw.info.width + x) * 3;
    return [raw.data[at]!, raw.data[at + 1]!, raw.data[at + 2]!];
  }).slice(0, rows * COLS);
}

describe('CMYK → sRGB within ΔE 2 of lcms', async () => {
  const reference = (await cmykColoursToRgb(CHART)).map((c) => c.map((v) => v * 255));
  const direct = await sharp(rawToTiff(Uint8Array.from(CHART.flat().map((v) => Math.round(v * 255))), CHART.length, 1, 'cmyk', defaultCmykProfile()))
    .toColourspace('srgb')
    .raw()
    .toBuffer();

  it('the reference itself is sharp converting the chart directly', () => {
    reference.forEach((c, i) => c.forEach((v, j) => expect(Math.abs(v - direct[i * 3 + j]!)).toBeLessThanOrEqual(1)));
  });

  it.each(['vector', 'image'] as const)('%s chart', async (kind) => {
    const r = await fix(chartPdf(kind), { sku: 'TANKTOP-M' }, { approve: 'all' }, { pool: false, raster: false });
    expect(r.changes.some((c) => c.code === 'colour-space-not-rgb')).toBe(true);
    const got = await patches(r.bytes!);
    got.forEach((rgb, i) => {
      const dE = deltaE(rgb, reference[i]!);
      expect(dE, `patch ${i} cmyk ${CHART[i]} → ${rgb} vs ${reference[i]!.map(Math.round)}`).toBeLessThanOrEqual(2);
    });
  });
});
