/**
 * The stream filters under the decode budget. Correctness is judged by a decoder nobody on the
 * project wrote — qpdf's (`--filtered-stream-data`) — on streams made by ImageMagick (RunLength),
 * reportlab (ASCII85 over Flate) and an LZW encoder written here (qpdf reads LZW; no producer on
 * this machine writes it). Bounds: every filter stops at the stream's limit and at the file's
 * budget while it decodes (a bomb of gigabytes answers at once), a spent budget stays spent, a
 * prefix is decoded only as far as it is wanted, and chains and predictors cannot be made to
 * allocate what the data does not hold.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, DecodeBudget } from '../../../src/pdf/decode-budget.js';
import { PDFRawStream } from '../../../src/pdf/objects.js';
import { parsePdf } from '../../../src/pdf/parse.js';
import { StreamTooLargeError, decodeFilters, decodeStream } from '../../../src/pdf/streams.js';
import { lzwEncode } from '../../helpers/filters.js';
// @ts-expect-error plain ESM helper without types
import { stream, writePdf } from '../../hostile/pdf-writer.mjs';
// @ts-expect-error plain ESM helper without types
import { lzwRunOfSpaces } from '../../hostile/make-hostile.mjs';

const dir = mkdtempSync(join(tmpdir(), 'pp-streams-'));
const MiB = 1024 * 1024;

/** The stream objects of a file, decoded by qpdf. */
function qpdfDecoded(file: string, objects: number[]): Map<number, Buffer> {
  return new Map(objects.map((o) => [o, execFileSync('qpdf', [`--show-object=${o}`, '--filtered-stream-data', '--decode-level=all', file])]));
}

async function oursDecoded(file: string, objects: number[]): Promise<Map<number, Uint8Array>> {
  const context = await parsePdf(new Uint8Array(readFileSync(file)));
  const out = new Map<number, Uint8Array>();
  for (const [ref, obj] of context.enumerateIndirectObjects()) {
    if (objects.includes(ref.objectNumber) && obj instanceof PDFRawStream) out.set(ref.objectNumber, decodeStream(context, obj, { maxBytes: 64 * MiB }));
  }
  return out;
}

/** Text with long repeats and a binary tail: table growth to 12-bit codes, resets, every width. */
function sample(size: number): Uint8Array {
  const text = Buffer.from('0 0 1 rg 10 10 200 300 re f BT /F1 12 Tf (Hello, print) Tj ET\n'.repeat(Math.ceil(size / 60))).subarray(0, size);
  let x = 7;
  for (let i = size >> 1; i < size; i += 3) text[i] = x = (x * 1103515245 + 12345) & 0xff;
  return text;
}

describe('filters agree with qpdf', () => {
  it('LZW: our decoder gives what qpdf gives, across code widths and table resets', async () => {
    // The last: a repeated content line cut where the final code makes the decoder widen its codes
    // before it reads EOD (the encoder must write EOD at the new width; found by the fuzz test).
    const edge = Buffer.from('q 1 0 0 1 5 5 cm 0 0 m 10 10 l S Q\n'.repeat(400)).subarray(0, 9_400);
    const data = [sample(50), sample(5_000), sample(200_000), edge];
    const file = join(dir, 'lzw.pdf');
    writeFileSync(file, writePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>', ...data.map((d) => stream('/Filter /LZWDecode', lzwEncode(d)))]));
    const objects = [3, 4, 5, 6];
    const [theirs, ours] = [qpdfDecoded(file, objects), await oursDecoded(file, objects)];
    for (const [i, o] of objects.entries()) {
      expect(Buffer.from(ours.get(o)!).equals(theirs.get(o)!), `object ${o}`).toBe(true);
      expect(ours.get(o)!.length).toBe(data[i]!.length);
    }
  });

  it('RunLength written by ImageMagick, ASCII85 over Flate written by reportlab', async () => {
    const magickDir = join(process.cwd(), 'test/corpus/magick');
    const rle = join(dir, 'rle.pdf');
    execFileSync('/usr/bin/convert', ['-size', '97x61', 'gradient:#d02020-#2040c0', '-compress', 'rle', `PDFA:${rle}`], { env: { ...process.env, MAGICK_CONFIGURE_PATH: magickDir } });
    const a85 = join(dir, 'a85.pdf');
    const png = join(dir, 'picture.png');
    execFileSync('/usr/bin/convert', ['-size', '97x61', 'gradient:#20a040-#e8d080', png]);
    const script = [
      'import sys',
      'from reportlab.pdfgen import canvas',
      'c = canvas.Canvas(sys.argv[1], pageCompression=0)',
      'c.drawImage(sys.argv[2], 0, 0, 100, 60)',
      'c.showPage()',
      'c.save()',
    ].join('\n');
    execFileSync('/usr/bin/python3', ['-c', script, a85, png]);
    for (const file of [rle, a85]) {
      const text = readFileSync(file).toString('latin1');
      const streams = [...text.matchAll(/(\d+) 0 obj\s*<<[^>]*\/Filter\s*\[?\s*\/(RunLengthDecode|ASCII85Decode)/g)].map((m) => Number(m[1]));
      expect(streams.length, file).toBeGreaterThan(0);
      const [theirs, ours] = [qpdfDecoded(file, streams), await oursDecoded(file, streams)];
      for (const o of streams) expect(Buffer.from(ours.get(o)!).equals(theirs.get(o)!), `${file} object ${o}`).toBe(true);
    }
  });
});

describe('predictors as renderers undo them', () => {
  /** `rows` rows of `rowLength` random bytes, each behind a PNG filter type (0–4, in turn), or raw for TIFF. */
  const rowsOf = (rows: number, rowLength: number, png: boolean, seed: number) => {
    let x = seed;
    const out: number[] = [];
    for (let r = 0; r < rows; r++) {
      if (png) out.push(r % 5);
      for (let i = 0; i < rowLength; i++) out.push((x = (x * 1103515245 + 12345) >>> 0) >>> 24);
    }
    return Buffer.from(out);
  };
  // [predictor, colors, bits per component, columns]: the usual ones, and /Colors far past 64 (once clamped here).
  const layouts: Array<[number, number, number, number]> = [
    [12, 1, 8, 40],
    [15, 3, 8, 17],
    [11, 5, 16, 9],
    [14, 64, 8, 3],
    [13, 4096, 8, 1],
    [14, 4096, 1, 3],
    [2, 3, 8, 21],
    [2, 700, 16, 2],
  ];

  it('PNG and TIFF predictors give what qpdf gives, whatever /Colors says', async () => {
    const file = join(dir, 'predictors.pdf');
    const bodies = layouts.map(([predictor, colors, bpc, columns], i) => {
      const rowLength = Math.ceil((colors * bpc * columns) / 8);
      return stream(
        `/Filter /FlateDecode /DecodeParms << /Predictor ${predictor} /Colors ${colors} /BitsPerComponent ${bpc} /Columns ${columns} >>`,
        deflateSync(rowsOf(7, rowLength, predictor >= 10, i + 1)),
      );
    });
    writeFileSync(file, writePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>', ...bodies]));
    const objects = layouts.map((_, i) => i + 3);
    const [theirs, ours] = [qpdfDecoded(file, objects), await oursDecoded(file, objects)];
    for (const [i, o] of objects.entries()) expect(Buffer.from(ours.get(o)!).equals(theirs.get(o)!), `layout ${layouts[i]!.join(' ')}`).toBe(true);
  });

  it('a last row cut short gives the bytes it has; overflowing rows give nothing; a row is charged whole', () => {
    const content = Buffer.from('0 0 1 rg 0 0 400 400 re f');
    // One row of 4,096 bytes (/Colors 4096) of which 25 are there: a renderer draws those 25.
    const short = decodeFilters(deflateSync(Buffer.concat([Buffer.from([0]), content])), ['FlateDecode'], [{ predictor: 12, colors: 4096, columns: 1 }], { maxBytes: MiB });
    expect(Buffer.from(short).toString()).toBe(content.toString());
    // A predictor value renderers do not know (PDFium reads 3–9 as none) leaves the data as it is.
    expect(Buffer.from(decodeFilters(deflateSync(content), ['FlateDecode'], [{ predictor: 5, colors: 4096 }], { maxBytes: MiB })).toString()).toBe(content.toString());
    // Rows a renderer allocates whole: 8 MiB for 26 bytes of data is over a 1 MiB stream limit.
    expect(() => decodeFilters(deflateSync(Buffer.concat([Buffer.from([0]), content])), ['FlateDecode'], [{ predictor: 12, colors: 4096, columns: 2048 }], { maxBytes: MiB })).toThrow(
      StreamTooLargeError,
    );
  });
});

describe('bounds while decoding', () => {
  const runs = (pairs: number) => Buffer.alloc(pairs * 2, Buffer.from([0x81, 0x20])); // 128 bytes per 2
  const decode = (data: Uint8Array, filters: string[], maxBytes: number, budget?: DecodeBudget) => decodeFilters(data, filters, [], { maxBytes, budget });

  it.each([
    ['FlateDecode over FlateDecode', deflateSync(deflateSync(Buffer.alloc(64 * MiB, 0x20))), ['FlateDecode', 'FlateDecode']],
    ['RunLengthDecode', runs(1 << 20), ['RunLengthDecode']],
    ['LZWDecode', lzwRunOfSpaces(4), ['LZWDecode']],
    ['ASCII85Decode (z)', Buffer.alloc(8 * MiB, 0x7a), ['ASCII85Decode']],
  ])('%s stops at the stream limit, with an error naming it', (_name, data, filters) => {
    expect(() => decode(data, filters, MiB)).toThrow(new StreamTooLargeError('stream decodes to more than 1 MiB'));
    // Under the limit it decodes, and gives what the data holds.
    expect(decode(data, filters, 128 * MiB).length).toBeGreaterThan(MiB);
  });

  it('charges every stage to the file budget, stops there, and stays spent', () => {
    const budget = new DecodeBudget({ maxFileDecodedBytes: 3 * MiB });
    const data = runs(8192); // 1 MiB decoded
    decode(data, ['RunLengthDecode'], 64 * MiB, budget);
    decode(data, ['RunLengthDecode'], 64 * MiB, budget);
    expect(budget.spent.decoded).toBe(2 * MiB);
    expect(() => decode(runs(16384), ['RunLengthDecode'], 64 * MiB, budget)).toThrow(BudgetExceededError);
    // The next stream, however small, is refused too: nothing swallows a spent budget for good.
    expect(() => decode(runs(1), ['RunLengthDecode'], 64 * MiB, budget)).toThrow(/decode to more than 3 MiB together/);
  });

  it('decodes a prefix only as far as it is wanted, without an error', () => {
    const bomb = deflateSync(deflateSync(Buffer.alloc(64 * MiB, 0x41)));
    for (const [data, filters] of [
      [bomb, ['FlateDecode', 'FlateDecode']],
      [runs(1 << 20), ['RunLengthDecode']],
      [lzwRunOfSpaces(4), ['LZWDecode']],
    ] as const) {
      const budget = new DecodeBudget();
      const head = decodeFilters(data, [...filters], [], { maxBytes: 1000, prefix: 1000, budget });
      // Up to 1,000 bytes: a Flate prefix ends where the next input byte would pass it, and one byte
      // of a bomb's data holds several 258-byte matches.
      expect(head.length, filters.join(' ')).toBeLessThanOrEqual(1000);
      expect(head.length, filters.join(' ')).toBeGreaterThan(0);
      expect(
        head.every((b) => b === head[0]),
        filters.join(' '),
      ).toBe(true);
      // Each stage decoded about the prefix, not the bomb.
      expect(budget.spent.decoded).toBeLessThan((64 * 1024 * 1024) / 16);
    }
  });

  it('refuses a chain longer than the limit, and predictors cannot allocate what the data does not hold', () => {
    let chained: Buffer = Buffer.from('0 0 1 rg');
    for (let i = 0; i < 9; i++) chained = deflateSync(chained);
    expect(() => decode(chained, Array(9).fill('FlateDecode'), MiB, new DecodeBudget())).toThrow(/9 filters in a chain \(more than 8/);
    expect(Buffer.from(decode(chained, Array(9).fill('FlateDecode'), MiB, new DecodeBudget({ maxFilters: 9 }))).toString()).toBe('0 0 1 rg');
    // /Columns 2,000,000,000 of 64 16-bit colours: rows of 256 GB; the data holds none.
    const predicted = decodeFilters(deflateSync(Buffer.alloc(100)), ['FlateDecode'], [{ predictor: 12, columns: 2e9, colors: 64, bitsPerComponent: 16 }], { maxBytes: MiB });
    expect(predicted.length).toBe(0);
  });
});
