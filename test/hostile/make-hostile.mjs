#!/usr/bin/env node
/**
 * The hostile corpus: files made to break a PDF reader, generated deterministically (seeded) at
 * test time — nothing big is committed. Each case names the finding codes of which at least one
 * must appear. `node test/hostile/make-hostile.mjs DIR` writes them out for a look.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { onePage, stream, writePdf } from './pdf-writer.mjs';

const enc = new TextEncoder();

/** A small deterministic PRNG (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deflates `total` bytes of spaces without holding them in memory at once. */
async function deflateRepeated(total, chunkSize = 16 * 1024 * 1024) {
  const chunk = Buffer.alloc(chunkSize, 0x20);
  const z = createDeflate({ level: 9 });
  const out = [];
  z.on('data', (d) => out.push(d));
  const done = new Promise((r) => z.on('end', r));
  for (let sent = 0; sent < total; sent += chunkSize) {
    if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await done;
  return Buffer.concat(out);
}

function twoPagesWithImage() {
  const img = deflateSync(Buffer.alloc(64 * 64 * 3, 0x80));
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /XObject << /Im1 6 0 R >> >> >>',
    stream('', 'q 200 0 0 200 100 100 cm /Im1 Do Q 0 0 1 rg 10 10 50 50 re f'),
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 7 0 R >>',
    stream('/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode', img),
    stream('', '1 0 0 rg 0 0 400 400 re f'),
  ]);
}

/** A real JPEG (made by sharp) whose frame header is rewritten to claim `width` × `height`. */
async function jpegClaiming(width, height, { progressive = false } = {}) {
  const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .jpeg({ progressive, quality: 50 })
    .toBuffer();
  const out = Uint8Array.from(jpeg);
  for (let i = 2; i + 8 < out.length; ) {
    const marker = out[i + 1];
    const len = (out[i + 2] << 8) | out[i + 3];
    if (marker === 0xc0 || marker === 0xc2) {
      out[i + 5] = height >> 8;
      out[i + 6] = height & 255;
      out[i + 7] = width >> 8;
      out[i + 8] = width & 255;
      return out;
    }
    i += 2 + len;
  }
  throw new Error('no frame header in the JPEG sharp made');
}

/** A JPEG 2000 codestream with only SOC and a SIZ marker claiming `width` × `height`, 3 components. */
function jpxClaiming(width, height) {
  const siz = Buffer.alloc(2 + 2 + 36 + 3 * 3);
  siz.writeUInt16BE(0xff51, 0);
  siz.writeUInt16BE(38 + 3 * 3, 2); // Lsiz
  siz.writeUInt16BE(0, 4); // Rsiz
  siz.writeUInt32BE(width, 6);
  siz.writeUInt32BE(height, 10);
  siz.writeUInt32BE(width, 22); // tile size
  siz.writeUInt32BE(height, 26);
  siz.writeUInt16BE(3, 38);
  for (let c = 0; c < 3; c++) siz.set([7, 1, 1], 40 + c * 3);
  return Buffer.concat([Buffer.from([0xff, 0x4f]), siz, Buffer.from([0xff, 0xd9])]);
}

/** `pages` pages that each draw image object 3 + pages (covering the page) with `content`. */
function pagesDrawing(pages, image, content = 'q 400 0 0 400 0 0 cm /Im Do Q', more = []) {
  const imageObj = pages + 3;
  const contentObj = pages + 4;
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${pages} >>`,
    ...Array.from(
      { length: pages },
      () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents ${contentObj} 0 R /Resources << /XObject << /Im ${imageObj} 0 R >> >> >>`,
    ),
    image,
    typeof content === 'string' ? stream('', content) : content,
    ...more,
  ]);
}

/** @returns {Promise<{ name: string, bytes: Uint8Array, expect: string[], why: string }[]>} */
export async function hostileCorpus() {
  const rand = prng(20261122);
  const valid = twoPagesWithImage();
  const cases = [];
  const add = (name, bytes, expect, why) => cases.push({ name, bytes, expect, why });

  add('empty.pdf', new Uint8Array(), ['file-not-pdf'], 'no bytes at all');
  add('random-bytes.pdf', Uint8Array.from({ length: 4096 }, () => Math.floor(rand() * 256)), ['file-not-pdf'], '4 KB of noise');
  add('png-renamed.pdf', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array(200).fill(0)]), ['file-not-pdf'], 'a PNG signature');
  add('header-only.pdf', enc.encode('%PDF-1.7\n'), ['pdf-damaged', 'file-not-pdf'], 'a header and nothing else');
  for (const pct of [1, 5, 20, 40, 60, 80, 95, 99]) {
    add(`truncated-${pct}.pdf`, valid.subarray(0, Math.floor((valid.length * pct) / 100)), ['pdf-damaged', 'file-not-pdf'], `cut at ${pct} %`);
  }
  add('broken-xref.pdf', writePdf([...decodeBodies(valid)], { xref: 'broken' }), ['pdf-repaired'], 'xref offsets all wrong (repairable)');
  add('missing-xref.pdf', writePdf([...decodeBodies(valid)], { xref: 'none' }), ['pdf-repaired'], 'no xref, no trailer (repairable)');
  add('stream-length-short.pdf', onePage({ content: stream('', '0 0 1 rg 0 0 400 400 re f', { length: 5 }) }), ['pdf-repaired', 'pdf-damaged'], '/Length shorter than the data');
  add('stream-length-long.pdf', onePage({ content: stream('', '0 0 1 rg 0 0 400 400 re f', { length: 99999 }) }), ['pdf-repaired', 'pdf-damaged'], '/Length past the end of the file');
  add(
    'page-tree-cycle.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] >>',
      '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>',
    ]),
    ['pdf-damaged'],
    'a /Pages node whose kid is its own parent',
  );
  add(
    'forms-draw-each-other.pdf',
    onePage({
      content: '/F1 Do',
      resources: '/XObject << /F1 5 0 R >>',
      extra: [
        stream('/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /F2 6 0 R >> >>', '/F2 Do'),
        stream('/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /F1 5 0 R >> >>', '0 0 1 rg 0 0 5 5 re f /F1 Do'),
      ],
    }),
    ['pdf-damaged'],
    'Form XObjects that draw each other',
  );
  const depth = 100;
  const forms = Array.from({ length: depth }, (_, i) =>
    stream(`/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Resources << /XObject << /F 6 0 R >> >>`.replace('6 0 R', `${i + 6} 0 R`), i === depth - 1 ? '0 1 0 rg 0 0 400 400 re f' : '/F Do'),
  );
  add('nested-forms-100.pdf', onePage({ content: '/F Do', resources: '/XObject << /F 5 0 R >>', extra: forms }), ['pdf-too-complex'], '100 levels of Form XObjects');
  // A deflate bomb: 1 GiB of spaces, deflated twice: a few KB in the file.
  const bomb = deflateSync(await deflateRepeated(1024 * 1024 * 1024));
  add('deflate-bomb.pdf', onePage({ content: stream('/Filter [/FlateDecode /FlateDecode]', bomb) }), ['pdf-too-complex'], `${bomb.length} bytes that inflate to 1 GiB`);
  add(
    'image-claims-100000px.pdf',
    onePage({
      content: 'q 400 0 0 400 0 0 cm /Im Do Q',
      resources: '/XObject << /Im 5 0 R >>',
      extra: [stream('/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode', deflateSync(Buffer.alloc(4096)))],
    }),
    ['image-too-large'],
    'an image that claims 100,000 × 100,000 px in a 4 KB stream',
  );
  const pages = 20_000;
  const kids = Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ');
  add(
    'pages-20000.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${kids}] /Count ${pages} /MediaBox [0 0 400 400] >>`,
      stream('', '0 0 1 rg 0 0 400 400 re f'),
      ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>'),
    ]),
    ['page-count-mismatch'],
    '20,000 pages',
  );
  add(
    'nested-array-10000.pdf',
    onePage({ catalogExtra: `/Junk ${'['.repeat(10_000)}${']'.repeat(10_000)}` }),
    ['pdf-damaged', 'pdf-too-complex'],
    'an array nested 10,000 deep',
  );
  add(
    'javascript-and-launch.pdf',
    onePage({
      catalogExtra: '/OpenAction << /S /JavaScript /JS (app.alert\\("hello"\\)) >> /Names << /JavaScript 6 0 R >>',
      pageExtra: '/Annots [5 0 R]',
      extra: [
        '<< /Type /Annot /Subtype /Link /Rect [0 0 100 100] /A << /S /Launch /F (cmd.exe) >> >>',
        '<< /Names [(x) << /S /JavaScript /JS (this.print\\(\\)) >>] >>',
      ],
    }),
    ['pdf-active-content'],
    'an OpenAction JavaScript, a JavaScript name tree and a Launch link',
  );
  add(
    'font-pdfjs-rejects.pdf',
    onePage({
      content: 'BT /F1 24 Tf 50 200 Td (Hello print) Tj ET',
      resources: '/Font << /F1 5 0 R >>',
      extra: [
        '<< /Type /Font /Subtype /TrueType /BaseFont /Broken /FirstChar 32 /LastChar 126 /FontDescriptor 6 0 R >>',
        '<< /Type /FontDescriptor /FontName /Broken /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>',
        stream('', Uint8Array.from({ length: 300 }, () => Math.floor(rand() * 256))),
      ],
    }),
    ['font-unusable'],
    'an embedded TrueType font made of noise',
  );
  add(
    'garbage-operators.pdf',
    onePage({ content: `q ${'1 2 3 '.repeat(2000)}xyz ] >> ) ( [ /A /B BI /W 9999 ID \x00\x01 EI Q Q Q Q cm cm Do Tf` }),
    ['page-size-mismatch'],
    'a content stream of nonsense operators (only the size is wrong)',
  );

  // Memory budget (issue 12): files of a few KB whose decoding would take gigabytes.
  const progressive = await jpegClaiming(31_622, 31_622, { progressive: true });
  add(
    'progressive-jpeg-31622px-4-pages.pdf',
    pagesDrawing(4, stream('/Type /XObject /Subtype /Image /Width 31622 /Height 31622 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /DCTDecode', progressive)),
    ['image-too-large'],
    'a progressive JPEG whose header claims 31,622 × 31,622 px, drawn on 4 pages (the fast path would keep 6 GB of coefficients)',
  );
  add(
    'jpeg-header-larger-than-declared.pdf',
    pagesDrawing(1, stream('/Type /XObject /Subtype /Image /Width 100 /Height 100 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /DCTDecode', await jpegClaiming(20_000, 20_000))),
    ['image-too-large'],
    'a JPEG declared 100 × 100 px in the PDF whose own header says 20,000 × 20,000 px',
  );
  add(
    'jpx-claims-40000px.pdf',
    pagesDrawing(1, stream('/Type /XObject /Subtype /Image /Width 40000 /Height 40000 /BitsPerComponent 8 /Filter /JPXDecode', jpxClaiming(40_000, 40_000))),
    ['image-too-large'],
    'a JPEG 2000 image claiming 40,000 × 40,000 px',
  );
  const contentBomb = await deflateRepeated(256 * 1024 * 1024);
  add(
    'contents-256mib-listed-8-times.pdf',
    onePage({ content: stream('/Filter /FlateDecode', contentBomb), pageExtra: '/Contents [4 0 R 4 0 R 4 0 R 4 0 R 4 0 R 4 0 R 4 0 R 4 0 R]' }),
    ['pdf-too-complex'],
    `one ${contentBomb.length}-byte stream that inflates to 256 MiB, listed 8 times in /Contents`,
  );
  add(
    'smask-34862x4332-on-2px-image-drawn-20-times.pdf',
    pagesDrawing(
      1,
      stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceRGB /SMask 6 0 R', Buffer.alloc(12, 0x80)),
      'q 400 0 0 400 0 0 cm /Im Do Q '.repeat(20),
      [stream('/Type /XObject /Subtype /Image /Width 34862 /Height 4332 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode', deflateSync(Buffer.alloc(65536)))],
    ),
    ['image-too-large'],
    'a 2 × 2 px image whose soft mask is 34,862 × 4,332 px, drawn 20 times',
  );
  const flate14999 = stream('/Type /XObject /Subtype /Image /Width 14999 /Height 14999 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode', deflateSync(Buffer.alloc(1 << 20)));
  add(
    'flate-image-14999px-8-pages.pdf',
    pagesDrawing(8, flate14999),
    ['page-count-mismatch'],
    'a 14,999 × 14,999 px Flate image (under the size limit) on 8 pages: too big for pdf.js, reduced row by row instead',
  );
  add(
    'flate-image-14999px-with-smask.pdf',
    pagesDrawing(
      1,
      stream('/Type /XObject /Subtype /Image /Width 14999 /Height 14999 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode /SMask 6 0 R', deflateSync(Buffer.alloc(1 << 16))),
      'q 400 0 0 400 0 0 cm /Im Do Q',
      [stream('/Type /XObject /Subtype /Image /Width 14999 /Height 14999 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode', deflateSync(Buffer.alloc(1 << 16)))],
    ),
    ['pdf-too-complex'],
    'a 14,999 × 14,999 px Flate image with a soft mask as large: over the render budget, never rendered',
  );
  add(
    'inline-image-claims-40000px.pdf',
    onePage({ content: 'q 400 0 0 400 0 0 cm BI /W 40000 /H 40000 /CS /RGB /BPC 8 /F /Fl ID \x78\x9c\x03\x00\x00\x00\x00\x01 EI Q' }),
    ['image-too-large'],
    'an inline image claiming 40,000 × 40,000 px',
  );
  const draws = deflateSync(Buffer.from('q 1 0 0 1 0 0 cm /Im Do Q\n'.repeat(150_000)), { level: 9 });
  add(
    'image-drawn-150000-times.pdf',
    pagesDrawing(1, stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceRGB', Buffer.alloc(12, 0x80)), stream('/Filter /FlateDecode', draws)),
    ['pdf-too-complex'],
    `one image drawn 150,000 times by a ${draws.length}-byte content stream`,
  );
  const ops = await deflateRepeatedText('0 0 m\n', 6_000_000);
  add('operators-6-million.pdf', onePage({ content: stream('/Filter /FlateDecode', ops) }), ['pdf-too-complex', 'pdf-timeout'], `6 million operators (the cap is 5 million per page) in a ${ops.length}-byte stream`);
  add(
    'names-with-terminal-escapes.pdf',
    onePage({
      content: 'BT /F1 24 Tf 50 200 Td (Hello) Tj ET',
      resources: '/Font << /F1 5 0 R >>',
      extra: ['<< /Type /Font /Subtype /Type1 /BaseFont /Evil#1B#5D0;owned#07#1B#5B2J#E2#80#AEreversed >>'],
    }),
    ['font-not-embedded'],
    'a font name carrying an OSC title sequence, a clear-screen sequence and a right-to-left override',
  );
  return cases;
}

/** Deflates `text` repeated `times` times, in chunks. */
async function deflateRepeatedText(text, times) {
  const z = createDeflate({ level: 9 });
  const out = [];
  z.on('data', (d) => out.push(d));
  const done = new Promise((r) => z.on('end', r));
  const perChunk = Math.max(1, Math.floor((4 << 20) / text.length));
  const chunk = Buffer.from(text.repeat(perChunk));
  for (let sent = 0; sent < times; sent += perChunk) {
    const part = sent + perChunk <= times ? chunk : Buffer.from(text.repeat(times - sent));
    if (!z.write(part)) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await done;
  return Buffer.concat(out);
}

/** The object bodies of a file written by writePdf (for rewriting it with another xref). */
function* decodeBodies(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  const re = /(\d+) 0 obj\n([\s\S]*?)\nendobj\n/g;
  for (let m = re.exec(text); m; m = re.exec(text)) yield Buffer.from(m[2], 'latin1');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? 'hostile-out';
  mkdirSync(dir, { recursive: true });
  const cases = await hostileCorpus();
  for (const c of cases) writeFileSync(join(dir, c.name), c.bytes);
  console.log(`wrote ${cases.length} files to ${dir}`);
}

