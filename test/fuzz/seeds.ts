/**
 * Seed inputs of each fuzz target, in the target's own input format (targets.ts): the committed
 * corpus (files from Ghostscript, ImageMagick, img2pdf, pikepdf, qpdf, reportlab, cairo), the
 * hostile corpus of test/hostile, content streams decoded from the corpus, filter chains our
 * encoders write, and images sharp writes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { decodeStream } from '../../src/pdf/streams.js';
import { PDFName, PDFRawStream } from '../../src/pdf/pdf-lib.js';
import { loadDocument } from '../../src/pdf/pdf-lib-document.js';
import { DEFAULT_DECODE_LIMITS } from '../../src/pdf/decode-budget.js';
import { encodeChain, type FilterName } from '../helpers/filters.js';
import type { TargetName } from './targets.js';
// @ts-expect-error plain ESM helper without types
import { hostileCorpus } from '../hostile/make-hostile.mjs';

export interface Seed {
  name: string;
  bytes: Uint8Array;
}

const enc = new TextEncoder();
const MAX_SEED = 1024 * 1024;

/** The committed corpus, from the repository root. */
export function corpusFiles(root: string): Seed[] {
  const dir = join(root, 'test/corpus/files');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(dir, name))) }))
    .filter((s) => s.bytes.length <= MAX_SEED);
}

async function hostileFiles(): Promise<Seed[]> {
  const cases = (await hostileCorpus()) as { name: string; bytes: Uint8Array }[];
  // Decompression bombs take seconds each (tens under the fuzzer's instrumentation) by design; the
  // hostile tests hold them, and the campaign spends its time on mutations instead.
  return cases.filter((c) => c.bytes.length <= MAX_SEED && !/bomb/.test(c.name)).map((c) => ({ name: `hostile-${c.name}`, bytes: c.bytes }));
}

/** Content streams (pages' joined, and forms') of the corpus files. */
async function contentStreams(root: string): Promise<Seed[]> {
  const out: Seed[] = [];
  for (const file of corpusFiles(root)) {
    let loaded;
    try {
      loaded = await loadDocument(file.bytes, DEFAULT_DECODE_LIMITS);
    } catch {
      continue;
    }
    const { context } = loaded.doc;
    let n = 0;
    for (const [, obj] of context.enumerateIndirectObjects()) {
      if (!(obj instanceof PDFRawStream)) continue;
      const subtype = obj.dict.get(PDFName.of('Subtype'))?.toString();
      const isContent = subtype === '/Form' || (!subtype && !obj.dict.get(PDFName.of('Type')) && !obj.dict.get(PDFName.of('N')) && !obj.dict.get(PDFName.of('Length1')));
      if (!isContent) continue;
      try {
        const bytes = decodeStream(context, obj, { maxBytes: 256 * 1024 });
        if (bytes.length && /(^|\s)(re|f|S|k|sc|scn|cm|Do|Tj|TJ|q)\s/.test(Buffer.from(bytes.subarray(0, 4096)).toString('latin1'))) out.push({ name: `${file.name}-content-${n++}`, bytes });
      } catch {
        // not decodable here: not a seed
      }
    }
  }
  return out;
}

const HANDMADE_CONTENT = [
  'q 1 0 0 1 10 10 cm 0 0 0 1 k 0 0 100 100 re f Q 0 0 1 0 k 10 10 50 50 re f',
  '/CMYK cs 0.1 0.2 0.3 0.4 sc q /RGB cs 1 0 0 sc 0 0 10 10 re f Q 0 0 0 1 sc 0 0 20 20 re f',
  '/Sep cs 0.5 sc 0 0 100 100 re f /DevN CS 0.2 0.8 SCN 0 0 m 100 100 l S',
  'q q q 0.5 0 0 0.5 0 0 cm /CS1 cs 1 sc 0 0 400 400 re f Q Q Q /CS2 cs 0.5 0.5 scn 0 0 50 50 re f',
  'BT /F1 24 Tf 10 10 Td (Hello) Tj /T3 12 Tf (aaa) Tj ET /Fm1 Do /Im1 Do',
  '/GS1 gs /P1 scn /CS4 cs /P1 scn 0 0 100 100 re f /Sh1 sh /OC /OC1 BDC 0 0 1 0 k 0 0 10 10 re f EMC',
  'BI /W 2 /H 2 /CS /CMYK /BPC 8 ID \x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff EI Q',
  '0.2 0.4 0.6 0.8 K 0 0 m 10 10 l S /CS3 cs 1 sc 0 0 5 5 re f',
];

/** Filter chains our encoders write, in the decoders target's format (count, filter bytes, data). */
function chains(): Seed[] {
  const data = enc.encode('0.1 0.2 0.8 rg 0 0 400 400 re f\n'.repeat(40));
  const ids: Record<FilterName, number> = { FlateDecode: 0, LZWDecode: 1, RunLengthDecode: 2, ASCII85Decode: 3, ASCIIHexDecode: 4 };
  const list: FilterName[][] = [
    ['FlateDecode'],
    ['LZWDecode'],
    ['RunLengthDecode'],
    ['ASCII85Decode'],
    ['ASCIIHexDecode'],
    ['ASCII85Decode', 'FlateDecode'],
    ['ASCIIHexDecode', 'LZWDecode', 'RunLengthDecode'],
    ['FlateDecode', 'FlateDecode', 'FlateDecode'],
  ];
  const out = list.map((chain, i) => ({ name: `chain-${i}-${chain.join('-')}`, bytes: Uint8Array.from([chain.length - 1, ...chain.map((f) => ids[f]), ...encodeChain(chain, data)]) }));
  // With a PNG predictor (Up) on 3-colour rows: filter byte has the parameters bit, then predictor 12 (index 4), colors 3, bpc 8, columns 16.
  const rows = 8;
  const raw: number[] = [];
  for (let y = 0; y < rows; y++) raw.push(2, ...Array.from({ length: 48 }, (_, x) => (x * 5 + y) & 0xff));
  // Filter byte 0x80 + 0 (Flate with parameters: 0x80 % 11 = 7 would be another filter, so 0x80 + 4 →
  // (0x84 % 11) = 0 Flate), then predictor index 4 (12, PNG Up), colors 1 + 2, bpc index 3 (8), columns 16, earlyChange.
  out.push({ name: 'chain-flate-png-up', bytes: Uint8Array.from([0, 0x84, 4, 2, 3, 0, 16, 0, ...encodeChain(['FlateDecode'], Uint8Array.from(raw))]) });
  return out;
}

/** Raw pixels, Flate and JPEG (RGB, CMYK, gray) in the images target's format. */
async function imageSeeds(): Promise<Seed[]> {
  const w = 16;
  const h = 12;
  const header = (space: number, filter: number, bpc = 0, predictor = 0, decode = 0) => [0, w, 0, h, bpc, space, filter, predictor, decode, 0, 0];
  const rgb = Uint8Array.from({ length: w * h * 3 }, (_, i) => (i * 7) & 0xff);
  const cmyk = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 11) & 0xff);
  const jpegRgb = await sharp(Buffer.from(rgb), { raw: { width: w, height: h, channels: 3 } })
    .jpeg()
    .toBuffer();
  const jpegGray = await sharp(Buffer.from(rgb), { raw: { width: w, height: h, channels: 3 } })
    .greyscale()
    .jpeg()
    .toBuffer();
  const jpegCmyk = await sharp(Buffer.from(rgb), { raw: { width: w, height: h, channels: 3 } })
    .toColourspace('cmyk')
    .jpeg()
    .toBuffer();
  return [
    { name: 'image-rgb-raw', bytes: Uint8Array.from([...header(0, 0), ...rgb]) },
    { name: 'image-cmyk-raw', bytes: Uint8Array.from([...header(1, 0), ...cmyk]) },
    { name: 'image-cmyk-flate', bytes: Uint8Array.from([...header(1, 1), ...encodeChain(['FlateDecode'], cmyk)]) },
    { name: 'image-icc4-raw', bytes: Uint8Array.from([...header(4, 0), ...cmyk]) },
    { name: 'image-sep-raw', bytes: Uint8Array.from([...header(7, 0), ...rgb.subarray(0, w * h)]) },
    { name: 'image-devn-raw', bytes: Uint8Array.from([...header(8, 0), ...rgb.subarray(0, w * h * 2)]) },
    { name: 'image-indexed-raw', bytes: Uint8Array.from([...header(5, 0), ...rgb.subarray(0, w * h).map((v) => v & 3)]) },
    { name: 'image-rgb-jpeg', bytes: Uint8Array.from([...header(0, 2), ...jpegRgb]) },
    { name: 'image-gray-jpeg', bytes: Uint8Array.from([...header(2, 2), ...jpegGray]) },
    { name: 'image-cmyk-jpeg', bytes: Uint8Array.from([...header(1, 2), ...jpegCmyk]) },
    { name: 'image-cmyk-jpeg-decode', bytes: Uint8Array.from([...header(1, 2, 0, 0, 2), ...jpegCmyk]) },
  ];
}

async function assembleSeeds(): Promise<Seed[]> {
  const base = sharp({ create: { width: 40, height: 50, channels: 3, background: { r: 200, g: 30, b: 30 } } });
  const formats = await Promise.all([
    base.clone().png().toBuffer(),
    base.clone().jpeg().toBuffer(),
    base.clone().tiff().toBuffer(),
    base.clone().webp().toBuffer(),
    base.clone().toColourspace('cmyk').jpeg().toBuffer(),
  ]);
  return formats.map((b, i) => ({ name: `assemble-${i}`, bytes: Uint8Array.from([...b, i]) }));
}

/** The seeds of a target (its first `limit` when fewer are wanted); `root` is the repository root. */
export async function seedsFor(target: TargetName, root: string, limit = Number.POSITIVE_INFINITY): Promise<Seed[]> {
  switch (target) {
    case 'structure': {
      const corpus = corpusFiles(root);
      return corpus.length >= limit ? corpus : [...corpus, ...(await hostileFiles())];
    }
    case 'content':
    case 'vector':
      return [...HANDMADE_CONTENT.map((c, i) => ({ name: `handmade-${i}`, bytes: Uint8Array.from(Buffer.from(c, 'latin1')) })), ...(await contentStreams(root))];
    case 'decoders':
      return chains();
    case 'fix':
    case 'reorder':
      // The last byte picks the product and the options (targets.ts): two picks per file.
      return corpusFiles(root).flatMap((f) => [0x00, 0x25, 0x86, 0xc7].map((k) => ({ name: `${f.name}-${k.toString(16)}`, bytes: Uint8Array.from([...f.bytes, k]) })));
    case 'images':
      return imageSeeds();
    case 'assemble':
      return assembleSeeds();
  }
}
