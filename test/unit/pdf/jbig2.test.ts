/**
 * What a JBIG2 stream's segments declare (src/pdf/jbig2.ts), read as pdf.js reads them and as the
 * standard reads them: every size-bearing segment counts, wherever it lies — after end-of-stripe
 * and end-of-page segments, after a generic region of unknown length, in the globals — and an
 * image whose segments declare too much is kept from the renderer with a reason.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jbig2Claims } from '../../../src/pdf/jbig2.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
// @ts-expect-error plain ESM helper without types
import { jbig2GenericRegion, jbig2PageData, jbig2Segment } from '../../hostile/check-classes-33.mjs';
// @ts-expect-error plain ESM helper without types
import { onePage, stream } from '../../hostile/pdf-writer.mjs';

type Segment = (number: number, type: number, data: Uint8Array, options?: { referred?: number[] }) => Buffer;
const segment = jbig2Segment as Segment;
const pageInfo = jbig2PageData as (w: number, h: number, o?: { striped?: boolean; stripe?: number }) => Buffer;
const region = jbig2GenericRegion as (w: number, h: number, o?: { x?: number; y?: number; data?: Uint8Array }) => Buffer;

const page = (w: number, h: number) => segment(0, 48, pageInfo(w, h));
const claims = (...chunks: Buffer[][]) => jbig2Claims(chunks.map((c) => Buffer.concat(c)));

/** A generic region whose length is left to be found by its end marker (0xFFAC and the rows). */
function unknownLength(number: number, width: number, height: number, markerRows = height): Buffer {
  const rows = Buffer.alloc(4);
  rows.writeUInt32BE(markerRows);
  const s = segment(number, 38, Buffer.concat([region(width, height, { data: Buffer.alloc(8) }), Buffer.from([0xff, 0xac]), rows]));
  s.writeUInt32BE(0xffffffff, 7);
  return s;
}

describe('jbig2Claims: the sizes every segment declares', () => {
  const cases: Array<[string, Buffer[][], { widthPx: number; heightPx: number }]> = [
    ['page information', [[page(1000, 1400)]], { widthPx: 1000, heightPx: 1400 }],
    ['a region larger than its page', [[page(64, 64), segment(1, 38, region(300, 20))]], { widthPx: 300, heightPx: 64 }],
    [
      'a region after an end-of-stripe segment',
      [[segment(0, 48, pageInfo(64, 0xffffffff, { striped: true })), segment(1, 49, Buffer.from([0, 0, 0, 63])), segment(2, 38, region(900, 800, { y: 64 }))]],
      { widthPx: 900, heightPx: 864 },
    ],
    ['a region after an end-of-page segment', [[page(64, 64), segment(1, 50, Buffer.alloc(0)), segment(2, 38, region(5000, 7000))]], { widthPx: 5000, heightPx: 7000 }],
    ['a region after end of file is not read', [[page(64, 64), segment(1, 51, Buffer.alloc(0)), segment(2, 38, region(5000, 7000))]], { widthPx: 64, heightPx: 64 }],
    ['a region after a generic region of unknown length', [[page(64, 64), unknownLength(1, 64, 8), segment(2, 38, region(5000, 7000))]], { widthPx: 5000, heightPx: 7000 }],
    ['a region of unknown length whose end is never found still counts', [[page(64, 64), unknownLength(1, 3000, 450, 400)]], { widthPx: 3000, heightPx: 450 }],
    ['the page information in the globals', [[page(20_000, 100)], [segment(1, 38, region(64, 64))]], { widthPx: 20_000, heightPx: 100 }],
    [
      'a striped page as tall as its end-of-stripe rows',
      [[segment(0, 48, pageInfo(100, 0xffffffff, { striped: true, stripe: 50 })), segment(1, 49, Buffer.from([0, 0, 0x27, 0x0f]))]],
      { widthPx: 100, heightPx: 10_000 },
    ],
    ['a text region (its region information)', [[page(64, 64), segment(1, 6, Buffer.concat([region(4000, 30).subarray(0, 17), Buffer.alloc(6)]))]], { widthPx: 4000, heightPx: 64 }],
    ['a refinement region', [[page(64, 64), segment(1, 42, Buffer.concat([region(64, 9000).subarray(0, 17), Buffer.alloc(2)]))]], { widthPx: 64, heightPx: 9000 }],
  ];
  for (const [name, chunks, size] of cases) {
    it(name, () => expect(claims(...chunks)).toMatchObject(size));
  }

  it('sums the pixels of every bitmap a decoder decodes', () => {
    const many = claims([page(1000, 1000), ...Array.from({ length: 50 }, (_, i) => segment(i + 1, 38, region(1000, 1000)))]);
    expect(many).toMatchObject({ widthPx: 1000, heightPx: 1000, pixels: 51_000_000 });
  });

  it('counts a pattern dictionary’s collective bitmap and a halftone grid in the pixels, not in the image’s size', () => {
    const dict = Buffer.concat([Buffer.from([0, 16, 16]), Buffer.from([0, 0, 0x0f, 0xff]), Buffer.alloc(8)]); // 4,096 patterns of 16 × 16
    const halftone = Buffer.alloc(17 + 1 + 20);
    region(64, 64).copy(halftone, 0, 0, 17);
    halftone.writeUInt32BE(1000, 18);
    halftone.writeUInt32BE(2000, 22);
    const c = claims([page(64, 64), segment(1, 16, dict), segment(2, 22, halftone, { referred: [1] })]);
    expect(c.widthPx).toBe(64);
    // 2 × 4,096 × 256 for the dictionary; 1,000 × 2,000 cells × (12 planes + a 16 × 16 pattern each).
    expect(c.pixels).toBe(64 * 64 + 2 * 4096 * 256 + 64 * 64 + 1000 * 2000 * (12 + 256));
  });

  it('counts the symbols and instances a decoder loops over', () => {
    const symbols = Buffer.alloc(18);
    Buffer.from([3, 0xff, 0xfd, 0xff, 2, 0xfe, 0xfe, 0xfe]).copy(symbols, 2);
    symbols.writeUInt32BE(7, 10);
    symbols.writeUInt32BE(70_000, 14);
    const text = Buffer.alloc(23);
    region(64, 64).copy(text, 0, 0, 17);
    text.writeUInt32BE(5_000_000, 19);
    expect(claims([page(64, 64), segment(1, 0, symbols), segment(2, 6, text, { referred: [1] })])).toMatchObject({ symbols: 70_000, instances: 5_000_000 });
  });

  it('never throws on noise or a header cut short', () => {
    for (const data of [Buffer.alloc(0), Buffer.from([0, 0, 0, 1, 38]), Buffer.alloc(4096, 0xff), page(10, 10).subarray(0, 20)]) {
      expect(() => jbig2Claims([data])).not.toThrow();
    }
  });
});

describe('a JBIG2 image in a page', () => {
  const image = (segments: Buffer[], extra = '', wrap = false) =>
    stream(
      `/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 /ImageMask true /Filter ${wrap ? '[/FlateDecode /JBIG2Decode]' : '/JBIG2Decode'}${extra}`,
      wrap ? deflateSync(Buffer.concat(segments)) : Buffer.concat(segments),
    );
  const facts = (img: Uint8Array, more: Uint8Array[] = []) =>
    inspectPdf(onePage({ content: 'q 400 0 0 400 0 0 cm /Im Do Q', resources: '/XObject << /Im 5 0 R >>', extra: [img, ...more] })).then((f) => f.pages[0]!);

  it('has the size of its globals’ page', async () => {
    const p = await facts(image([segment(1, 38, region(64, 64))], ' /DecodeParms << /JBIG2Globals 6 0 R >>'), [stream('', page(30_000, 64))]);
    expect(p.images[0]!.coded).toMatchObject({ format: 'jbig2', widthPx: 30_000, heightPx: 64 });
  });

  it('is read whole behind Flate, past the first MiB', async () => {
    const p = await facts(image([page(64, 64), segment(1, 38, region(64, 64, { data: Buffer.alloc(2 << 20) })), segment(2, 38, region(20_000, 64))], '', true));
    expect(p.images[0]!.coded).toMatchObject({ widthPx: 20_000 });
  });

  it('is kept from the renderer when its segments declare too much, with the reason', async () => {
    const p = await facts(image([page(4000, 4000), ...Array.from({ length: 10 }, (_, i) => segment(i + 1, 38, region(4000, 4000)))]));
    expect(p.tooComplex).toBe(true);
    expect(p.notes.join(' ')).toMatch(/JBIG2 image’s segments declare bitmaps of 176,000,000 pixels together/);
    const fine = await facts(image([page(4000, 4000), segment(1, 38, region(4000, 4000))]));
    expect(fine.tooComplex).toBe(false);
  });
});
