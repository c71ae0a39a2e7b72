#!/usr/bin/env node
/**
 * The hostile corpus: files made to break a PDF reader, generated deterministically (seeded) at
 * test time — nothing big is committed. Each case names the finding codes of which at least one
 * must appear. `node test/hostile/make-hostile.mjs DIR` writes them out for a look.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
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
  return cases;
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

