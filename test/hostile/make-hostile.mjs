#!/usr/bin/env node
/**
 * The hostile corpus: files made to break a PDF reader, generated deterministically (seeded) at
 * test time — nothing big is committed. Each case names the finding codes of which at least one
 * must appear. `node test/hostile/make-hostile.mjs DIR` writes them out for a look.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { concat, onePage, stream, writePdf } from './pdf-writer.mjs';
import { checkClasses } from './check-classes-33.mjs';

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

/** Deflates `total` bytes of spaces (or of `unit` repeated) without holding them in memory at once. */
async function deflateRepeated(total, chunkSize = 16 * 1024 * 1024, unit) {
  const chunk = unit ? Buffer.alloc(chunkSize, unit) : Buffer.alloc(chunkSize, 0x20);
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
    ...Array.from({ length: pages }, () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents ${contentObj} 0 R /Resources << /XObject << /Im ${imageObj} 0 R >> >> >>`),
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
  add(
    'random-bytes.pdf',
    Uint8Array.from({ length: 4096 }, () => Math.floor(rand() * 256)),
    ['file-not-pdf'],
    '4 KB of noise',
  );
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
  add('nested-array-10000.pdf', onePage({ catalogExtra: `/Junk ${'['.repeat(10_000)}${']'.repeat(10_000)}` }), ['pdf-damaged', 'pdf-too-complex'], 'an array nested 10,000 deep');
  add(
    'javascript-and-launch.pdf',
    onePage({
      catalogExtra: '/OpenAction << /S /JavaScript /JS (app.alert\\("hello"\\)) >> /Names << /JavaScript 6 0 R >>',
      pageExtra: '/Annots [5 0 R]',
      extra: ['<< /Type /Annot /Subtype /Link /Rect [0 0 100 100] /A << /S /Launch /F (cmd.exe) >> >>', '<< /Names [(x) << /S /JavaScript /JS (this.print\\(\\)) >>] >>'],
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
        stream(
          '',
          Uint8Array.from({ length: 300 }, () => Math.floor(rand() * 256)),
        ),
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
  // Drawn inside the page, not covering it: the Flate fast path does not take it, pdf.js would decode it whole.
  add(
    'flate-image-14999px-8-pages.pdf',
    pagesDrawing(8, flate14999, 'q 300 0 0 300 50 50 cm /Im Do Q'),
    ['pdf-too-complex'],
    'a 14,999 × 14,999 px Flate image (under the size limit), drawn on 8 pages',
  );
  // Covering the page, the Flate fast path streams it: its data stops after 23 rows, and pdf.js may not take it.
  add('flate-image-14999px-truncated-covering-page.pdf', pagesDrawing(1, flate14999), ['page-render-failed'], 'a 14,999 × 14,999 px Flate image covering the page whose data holds 23 rows');
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
  add(
    'operators-6-million.pdf',
    onePage({ content: stream('/Filter /FlateDecode', ops) }),
    ['pdf-too-complex', 'pdf-timeout'],
    `6 million operators (the cap is 5 million per page) in a ${ops.length}-byte stream`,
  );
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
  for (const c of await budgetCases(bomb)) cases.push(c);
  for (const c of await checkClasses()) cases.push(c);
  return cases;
}

/**
 * Issue 28: classes nobody named before, each of which got past a bound that guarded one path but
 * not the decoding itself — filters other than Flate, object and cross-reference streams, what a
 * renderer is given (fonts, functions, JBIG2, CCITT, Type 3 glyphs, shadings, patterns), parser
 * tokens, and structures whose cost grows faster than their size. `bomb` is 1 GiB of spaces
 * deflated twice (a few KB).
 */
export async function budgetCases(bomb) {
  const cases = [];
  const add = (name, bytes, expect, why) => cases.push({ name, bytes, expect, why, issue: 28 });
  const doubleFlate = '/Filter [/FlateDecode /FlateDecode]';
  const content = (text) => stream('/Filter /FlateDecode', deflateSync(Buffer.from(text, 'latin1')));

  // Filters other than Flate, each behind Flate so that a few KB of file decode to gigabytes.
  const runLength = await deflateRepeated(32 * 1024 * 1024, 1 << 20, Buffer.from([0x81, 0x20])); // 128 spaces per 2 bytes: 2 GiB
  add(
    'content-runlength-bomb.pdf',
    onePage({ content: stream('/Filter [/FlateDecode /RunLengthDecode]', runLength) }),
    ['pdf-too-complex'],
    `content behind RunLengthDecode: ${runLength.length} bytes that decode to 2 GiB`,
  );
  const lzw = deflateSync(lzwRunOfSpaces(300), { level: 9 });
  add('content-lzw-bomb.pdf', onePage({ content: stream('/Filter [/FlateDecode /LZWDecode]', lzw) }), ['pdf-too-complex'], `content behind LZWDecode: ${lzw.length} bytes that decode to 2 GiB`);
  const a85 = await deflateRepeated(64 * 1024 * 1024, 1 << 20, Buffer.from('z'));
  add('content-ascii85-z-bomb.pdf', onePage({ content: stream('/Filter [/FlateDecode /ASCII85Decode]', a85) }), ['pdf-too-complex'], 'content behind ASCII85Decode whose "z"s give 256 MiB of zeros');
  let chained = Buffer.from('0 0 1 rg 0 0 400 400 re f');
  for (let i = 0; i < 50; i++) chained = deflateSync(chained);
  add(
    'flate-chain-50-shared-200-pages.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${Array.from({ length: 200 }, (_, i) => `${i + 4} 0 R`).join(' ')}] /Count 200 /MediaBox [0 0 400 400] >>`,
      stream(`/Filter [${'/FlateDecode '.repeat(50)}]`, chained),
      ...Array.from({ length: 200 }, () => '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>'),
    ]),
    ['pdf-too-complex'],
    'a content stream behind 50 Flate filters, shared by 200 pages',
  );
  add(
    'predictor-columns-2e9.pdf',
    onePage({ content: stream('/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 2000000000 /Colors 64 /BitsPerComponent 16 >>', deflateSync(Buffer.from('0 0 1 rg 0 0 400 400 re f'))) }),
    ['page-size-mismatch'],
    'a PNG predictor whose rows would be 256 GB long (nothing to undo; only the size is wrong)',
  );

  // Streams the parser decodes: object and cross-reference streams.
  add('object-stream-bomb.pdf', onePage({ extra: [stream(`/Type /ObjStm /N 2 /First 8 ${doubleFlate}`, bomb)] }), ['pdf-too-complex'], 'an object stream of a few KB that inflates to 1 GiB');
  const firstObject = `(${'A'.repeat(1 << 20)})`;
  const offsets = Array.from({ length: 50_000 }, (_, i) => `${i + 100} 0`).join(' ');
  const objstm = Buffer.from(`${offsets} ${firstObject}`, 'latin1');
  add(
    'object-stream-50000-objects-at-one-offset.pdf',
    onePage({ extra: [stream(`/Type /ObjStm /N 50000 /First ${offsets.length + 1} /Filter /FlateDecode`, deflateSync(objstm))] }),
    ['pdf-too-complex'],
    '50,000 objects of one object stream that all start at its 1 MiB string',
  );
  add('xref-stream-bomb.pdf', xrefStreamFile({ dict: `/W [1 4 2] ${doubleFlate}`, data: bomb }), ['pdf-too-complex'], 'a cross-reference stream of a few KB that inflates to 1 GiB');
  add(
    'xref-stream-size-3e14.pdf',
    xrefStreamFile({ size: '300000000000000' }),
    ['pdf-repaired'],
    'a 6 KB file whose cross-reference stream declares /Size 300000000000000 (as a real test file of a PDF library does)',
  );
  add(
    'xref-stream-widths-0-0-0.pdf',
    xrefStreamFile({ size: '300000000000000', dict: '/W [0 0 0]', data: Buffer.alloc(0) }),
    ['pdf-repaired'],
    'a cross-reference stream whose /W [0 0 0] makes every row empty, with /Size 300000000000000',
  );

  // Parser tokens and containers.
  add('name-10mb-in-object.pdf', onePage({ catalogExtra: `/Junk /${'N'.repeat(10 << 20)}` }), ['pdf-too-complex'], 'a 10 MB name token in the catalog');
  add('name-10mb-in-content.pdf', onePage({ content: content(`/${'N'.repeat(10 << 20)} Do`) }), ['pdf-too-complex'], 'a 10 MB name token in the page content');
  add(
    'form-named-1mb.pdf',
    onePage({
      content: `/${'F'.repeat(1 << 20)} Do`,
      resources: `/XObject << /${'F'.repeat(1 << 20)} 5 0 R >>`,
      extra: [stream('/Type /XObject /Subtype /Form /BBox [0 0 10 10]', '0 0 1 rg 0 0 10 10 re f')],
    }),
    ['pdf-too-complex'],
    'a form XObject whose resource name is 1 MB long',
  );
  add(
    'operands-20-million-in-open-array.pdf',
    onePage({ content: content(`[${'1 '.repeat(20_000_000)}`) }),
    ['pdf-too-complex'],
    'a page whose operands (an array never closed) flood the stack before any operator',
  );
  add('array-5-million-items.pdf', onePage({ catalogExtra: `/Junk [${'1 '.repeat(5_000_000)}]` }), ['pdf-too-complex'], 'an array of 5 million numbers in the catalog');
  add(
    'dict-1-million-names.pdf',
    onePage({ catalogExtra: `/Junk << ${Array.from({ length: 1_000_000 }, (_, i) => `/K${i} 1`).join(' ')} >>` }),
    ['pdf-too-complex'],
    'a dictionary of a million distinct names',
  );
  const unterminated = Array.from({ length: 40_000 }, () => '<< /Length 9999 0 R >>\nstream\nABCDEFGH\nendobj');
  add(
    'unterminated-streams-40000.pdf',
    writePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] >>', ...unterminated, stream('', 'end')]),
    ['page-blank', 'pdf-repaired', 'pdf-damaged'],
    '40,000 streams without endstream (each would be searched for to the end of the file)',
  );
  add(
    'junk-16mb-between-objects.pdf',
    concat([onePage({}).subarray(0, -6), enc.encode(`\n${'1 2 '.repeat(4 << 20)}\n%%EOF\n`)]),
    ['pdf-repaired', 'page-size-mismatch'],
    '16 MB of digits between the objects and the end of the file',
  );
  add(
    'rc4-overlapping-object-streams.pdf',
    rc4OverlappingObjectStreams(5000),
    ['pdf-encrypted', 'pdf-repaired', 'pdf-damaged', 'pdf-too-complex'],
    'an RC4-encrypted file with 5,000 object streams, each of which runs to the end of the file',
  );

  // What a renderer is given.
  add(
    'jbig2-globals-bomb.pdf',
    pagesDrawing(
      1,
      stream('/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 /ImageMask true /Filter /JBIG2Decode /DecodeParms << /JBIG2Globals 6 0 R >>', jbig2PageInfo(64, 64)),
      undefined,
      [stream(doubleFlate, bomb)],
    ),
    ['pdf-too-complex'],
    'a JBIG2 image whose /JBIG2Globals inflate to 1 GiB',
  );
  add(
    'jbig2-page-claims-100000px.pdf',
    pagesDrawing(1, stream('/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 /ImageMask true /Filter /JBIG2Decode', jbig2PageInfo(100_000, 100_000))),
    ['image-too-large'],
    'a JBIG2 image declared 64 px whose page segment says 100,000 × 100,000',
  );
  add(
    'ccitt-1e8-columns.pdf',
    pagesDrawing(
      1,
      stream(
        '/Type /XObject /Subtype /Image /Width 100 /Height 100 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 100000000 /Rows 100 >>',
        Buffer.alloc(64, 0xaa),
      ),
    ),
    ['image-too-large'],
    'a CCITT image of 100,000,000 columns',
  );
  add(
    'dct-behind-lzw-30000px.pdf',
    pagesDrawing(
      1,
      stream('/Type /XObject /Subtype /Image /Width 100 /Height 100 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter [/LZWDecode /DCTDecode]', lzwLiteral(await jpegClaiming(30_000, 30_000))),
    ),
    ['image-too-large'],
    'a JPEG behind LZWDecode declared 100 px whose header says 30,000 × 30,000',
  );
  const font = (file) => [
    '<< /Type /Font /Subtype /Type1 /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [] /FontDescriptor 6 0 R >>',
    `<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /${file} 7 0 R >>`,
    stream(`/Subtype /Type1C ${doubleFlate}`, bomb),
  ];
  add(
    'fontfile3-bomb.pdf',
    onePage({ content: 'BT /F1 24 Tf 50 200 Td (Hello) Tj ET', resources: '/Font << /F1 5 0 R >>', extra: font('FontFile3') }),
    ['pdf-too-complex'],
    'a FontFile3 program of a few KB that inflates to 1 GiB',
  );
  add(
    'type4-function-bomb.pdf',
    onePage({
      content: '/CS0 cs 1 scn 0 0 400 400 re f',
      resources: '/ColorSpace << /CS0 [/Separation /Gold /DeviceCMYK 5 0 R] >>',
      extra: [stream(`/FunctionType 4 /Domain [0 1] /Range [0 1 0 1 0 1 0 1] ${doubleFlate}`, bomb)],
    }),
    ['pdf-too-complex'],
    'a spot colour whose Type 4 tint transform program inflates to 1 GiB',
  );
  add(
    'sampled-function-3.6e9-samples.pdf',
    onePage({
      content: '/Sh0 sh',
      resources: '/Shading << /Sh0 << /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 400 0] /Function 5 0 R >> >>',
      extra: [stream('/FunctionType 0 /Domain [0 1 0 1] /Range [0 1 0 1 0 1] /Size [60000 20000] /BitsPerSample 8', Buffer.alloc(64))],
    }),
    ['pdf-too-complex'],
    'a shading whose sampled function declares 3.6 billion samples',
  );
  add(
    'icc-profile-bomb.pdf',
    onePage({ content: '/CS0 cs 1 0 0 scn 0 0 400 400 re f', resources: '/ColorSpace << /CS0 [/ICCBased 5 0 R] >>', extra: [stream(`/N 3 ${doubleFlate}`, bomb)] }),
    ['pdf-too-complex'],
    'an ICC profile of a few KB that inflates to 1 GiB',
  );
  add(
    'type3-glyph-draws-14000px-image.pdf',
    onePage({
      content: 'BT /T3 24 Tf 50 200 Td (a) Tj ET',
      resources: '/Font << /T3 5 0 R >>',
      extra: [
        '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a 6 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] /Resources << /XObject << /Im 7 0 R >> >> >>',
        stream('', '1000 0 0 0 1000 1000 d1 q 1000 0 0 1000 0 0 cm /Im Do Q'),
        stream('/Type /XObject /Subtype /Image /Width 14000 /Height 14000 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode', deflateSync(Buffer.alloc(1 << 16, 0x80))),
      ],
    }),
    ['pdf-too-complex'],
    'a Type 3 glyph that draws a 14,000 × 14,000 px image',
  );
  add(
    'soft-mask-group-draws-20000px-image.pdf',
    onePage({
      content: '/GS0 gs 0 0 1 rg 0 0 400 400 re f',
      resources: '/ExtGState << /GS0 << /SMask << /S /Luminosity /G 5 0 R >> >> >>',
      extra: [
        stream('/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Group << /S /Transparency /CS /DeviceGray >> /Resources << /XObject << /Im 6 0 R >> >>', 'q 400 0 0 400 0 0 cm /Im Do Q'),
        stream('/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode', deflateSync(Buffer.alloc(1 << 16, 0x80))),
      ],
    }),
    ['pdf-too-complex'],
    'a soft mask whose group draws a 20,000 × 20,000 px image',
  );
  add(
    'mesh-shading-1-million-triangles.pdf',
    onePage({ content: '/Sh0 sh', resources: '/Shading << /Sh0 5 0 R >>', extra: [meshShading(1_000_000)] }),
    ['pdf-too-complex'],
    'a free-form mesh shading of 1,000,000 triangles',
  );
  const tiling = (step, body, more = '') => stream(`/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 1 1] /XStep ${step} /YStep ${step} /Resources << ${more} >>`, body);
  add(
    'tiling-pattern-step-1e-6.pdf',
    onePage({ content: '/Pattern cs /P0 scn 0 0 400 400 re f', resources: '/Pattern << /P0 5 0 R >>', extra: [tiling('0.000001', '0 0 1 rg 0 0 1 1 re f')] }),
    ['pdf-too-complex'],
    'a tiling pattern whose step is 0.000001 pt: 1.6 × 10^17 cells on the page',
  );
  add(
    'tiling-pattern-paints-itself.pdf',
    onePage({ content: '/Pattern cs /P0 scn 0 0 400 400 re f', resources: '/Pattern << /P0 5 0 R >>', extra: [tiling('10', '/Pattern cs /P0 scn 0 0 10 10 re f', '/Pattern << /P0 5 0 R >>')] }),
    ['pdf-too-complex'],
    'a tiling pattern whose cell paints with the pattern itself',
  );
  const spots = 5_000;
  add(
    'separations-5000.pdf',
    onePage({
      content: content(Array.from({ length: spots }, (_, i) => `/CS${i} cs 1 scn ${i % 400} 0 1 400 re f`).join('\n')),
      resources: `/ColorSpace << ${Array.from({ length: spots }, (_, i) => `/CS${i} [/Separation /Spot${i} /DeviceCMYK 5 0 R]`).join(' ')} >>`,
      extra: ['<< /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [0 1 1 0] /N 1 >>'],
    }),
    ['colour-space-not-rgb'],
    'a page naming 5,000 separations',
  );

  // Structures whose cost grows faster than their size.
  const depth = 40;
  add(
    'optional-content-expression-2-to-the-40.pdf',
    ocFile([`<< /Type /OCMD /VE 9 0 R >>`, ...Array.from({ length: depth }, (_, i) => (i === depth - 1 ? '[/Not 7 0 R]' : `[/And ${i + 10} 0 R ${i + 10} 0 R]`))]),
    ['pdf-too-complex'],
    'an optional-content visibility expression that names each part twice, 40 levels deep (2^40 evaluations)',
  );
  const groups = 100_000;
  add(
    'optional-content-100000-groups-used-100000-times.pdf',
    ocFile(
      [`<< /Type /OCMD /OCGs [${Array.from({ length: groups }, (_, i) => `${i + 9} 0 R`).join(' ')}] /P /AllOn >>`, ...Array.from({ length: groups }, (_, i) => `<< /Type /OCG /Name (G${i}) >>`)],
      100_000,
    ),
    ['pdf-too-complex'],
    'an optional-content membership of 100,000 groups, named by 100,000 marked-content sequences',
  );
  const heavy = deflateSync(Buffer.from('0 0 m 1 1 l S\n'.repeat(75_000)));
  const pages = 1000;
  add(
    'heavy-form-shared-by-1000-pages.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ')}] /Count ${pages} /MediaBox [0 0 400 400] /Resources << /XObject << /Fm 4 0 R >> >> >>`,
      stream('', '/Fm Do'),
      stream('/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Filter /FlateDecode', heavy),
      ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>'),
    ]),
    ['pdf-too-complex'],
    'one form of 225,000 operators drawn by each of 1,000 pages',
  );
  return cases;
}

/**
 * LZW codes (early change 1) for `cycles` tables' worth of spaces: each table gives 7.4 MB, and a
 * clear code starts the next. Extra clear codes make each table a whole number of bytes, so the
 * data repeats byte for byte and Flate shrinks it to almost nothing.
 */
export function lzwRunOfSpaces(cycles) {
  const bits = new BitWriter();
  const cycleBits = 9 + 9 + lzwTableBits();
  const extraClears = (8 - (cycleBits % 8)) % 8; // each clear code is 9 bits: ≡ 1 (mod 8)
  for (let c = 0; c < cycles; c++) {
    let width = 9;
    for (let k = 0; k <= extraClears; k++) bits.write(256, width); // clear
    bits.write(0x20, width);
    let next = 258;
    for (let code = 258; code < 4096; code++) {
      // The decoder defines `next` as it reads this code, then widens when next + 1 reaches 2^width.
      bits.write(code, width);
      next++;
      if (next + 1 >= 1 << width && width < 12) width++;
    }
  }
  bits.write(257, 12); // end of data
  return bits.done();
}

/** Data as LZW literal codes (9 bits each), with a clear code often enough that the code width never grows. */
function lzwLiteral(data) {
  const bits = new BitWriter();
  bits.write(256, 9);
  for (let i = 0; i < data.length; i++) {
    if (i % 200 === 199) bits.write(256, 9);
    bits.write(data[i], 9);
  }
  bits.write(257, 9);
  return bits.done();
}

/** Bits of the codes 258…4095 of one LZW table, at the widths the decoder reads them. */
function lzwTableBits() {
  let width = 9;
  let total = 0;
  for (let next = 258; next < 4096; ) {
    total += width;
    next++;
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  return total;
}

class BitWriter {
  constructor() {
    this.out = [];
    this.acc = 0;
    this.n = 0;
  }
  write(value, width) {
    for (let b = width - 1; b >= 0; b--) {
      this.acc = (this.acc << 1) | ((value >> b) & 1);
      if (++this.n === 8) {
        this.out.push(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
  }
  done() {
    if (this.n) this.out.push(this.acc << (8 - this.n));
    return Buffer.from(this.out);
  }
}

/** An embedded JBIG2 stream of one page information segment (§7.4.7: no file header). */
function jbig2PageInfo(width, height) {
  const seg = Buffer.alloc(11 + 19);
  seg.writeUInt32BE(0, 0); // segment number
  seg[4] = 48; // page information
  seg[5] = 0; // no referred-to segments
  seg[6] = 1; // page 1
  seg.writeUInt32BE(19, 7);
  seg.writeUInt32BE(width, 11);
  seg.writeUInt32BE(height, 15);
  return seg;
}

/** A free-form triangle mesh (type 4) of `triangles` triangles as one strip: 8 bytes per vertex. */
function meshShading(triangles) {
  const vertices = triangles + 2;
  const data = Buffer.alloc(vertices * 8);
  for (let i = 0; i < vertices; i++) {
    const o = i * 8;
    data[o] = i < 3 ? 0 : 1;
    data.writeUInt16BE((i * 37) % 65536, o + 1);
    data.writeUInt16BE((i % 2) * 65535, o + 3);
    data[o + 5] = i % 256;
    data[o + 6] = (i * 7) % 256;
    data[o + 7] = 128;
  }
  return stream('/ShadingType 4 /ColorSpace /DeviceRGB /BitsPerCoordinate 16 /BitsPerComponent 8 /BitsPerFlag 8 /Decode [0 400 0 400 0 1 0 1 0 1] /Filter /FlateDecode', deflateSync(data));
}

/**
 * A file whose last cross-reference section is a stream (no xref table): catalog, page tree, a page
 * with text, a font and content as a real producer writes them, then the stream with `size`,
 * `dict` entries and `data` (default: correct rows for the objects).
 */
function xrefStreamFile({ size, dict = '/W [1 4 2]', data } = {}) {
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('', `BT /F1 24 Tf 40 200 Td (${'Cross-reference stream test. '.repeat(150)}) Tj ET`),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const head = enc.encode('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const parts = [head];
  let offset = head.length;
  const offsets = [];
  bodies.forEach((b, i) => {
    const chunk = concat([enc.encode(`${i + 1} 0 obj\n`), typeof b === 'string' ? enc.encode(b) : b, enc.encode('\nendobj\n')]);
    offsets.push(offset);
    parts.push(chunk);
    offset += chunk.length;
  });
  const rows = Buffer.alloc(7 * (bodies.length + 2));
  rows.writeUInt8(0, 0);
  offsets.forEach((o, i) => {
    rows.writeUInt8(1, 7 * (i + 1));
    rows.writeUInt32BE(o, 7 * (i + 1) + 1);
  });
  rows.writeUInt8(1, 7 * (bodies.length + 1));
  rows.writeUInt32BE(offset, 7 * (bodies.length + 1) + 1);
  const body = data ?? deflateSync(rows);
  const xref = stream(`/Type /XRef /Size ${size ?? bodies.length + 2} /Root 1 0 R ${data ? '' : '/Filter /FlateDecode '}${dict}`, body);
  parts.push(concat([enc.encode(`${bodies.length + 1} 0 obj\n`), xref, enc.encode(`\nendobj\nstartxref\n${offset}\n%%EOF\n`)]));
  return concat(parts);
}

/**
 * A document with optional content: content marked with the membership dictionary (object 5) —
 * `count` times — whose groups and expressions are `objects` (numbered from 5).
 */
function ocFile(objects, count = 1) {
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [7 0 R] /D << /ON [7 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /Properties << /MC0 5 0 R >> >> >>',
    stream('/Filter /FlateDecode', deflateSync(Buffer.from('/OC /MC0 BDC 0 0 1 rg 0 0 400 400 re f EMC\n'.repeat(count)))),
    objects[0],
    '<< /Type /OCG /Name (unused) >>',
    '<< /Type /OCG /Name (Layer) >>',
    '<< /Type /OCG /Name (spare) >>',
    ...objects.slice(1),
  ]);
}

/**
 * RC4 (revision 2, 40-bit key, empty user password) around `count` object streams whose /Length is
 * a reference to nothing, so that each runs to the only `endstream`, at the end of the file.
 */
function rc4OverlappingObjectStreams(count) {
  const pad = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
  const owner = Buffer.alloc(32, 0x41);
  const id = Buffer.alloc(16, 0x42);
  const p = Buffer.alloc(4);
  p.writeInt32LE(-4);
  const key = createHash('md5')
    .update(Buffer.concat([pad, owner, p, id]))
    .digest()
    .subarray(0, 5);
  const user = rc4(key, pad);
  const hex = (b) => `<${b.toString('hex')}>`;
  return writePdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] >>',
      `<< /Filter /Standard /V 1 /R 2 /O ${hex(owner)} /U ${hex(user)} /P -4 >>`,
      ...Array.from({ length: count }, () => '<< /Type /ObjStm /N 1 /First 4 /Length 99999 0 R >>\nstream\n5 0 (data)'),
      stream('', 'end'),
    ],
    { trailer: `/Encrypt 4 0 R /ID [${hex(id)} ${hex(id)}]` },
  );
}

function rc4(key, data) {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
    out[k] = data[k] ^ s[(s[i] + s[j]) & 0xff];
  }
  return out;
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
