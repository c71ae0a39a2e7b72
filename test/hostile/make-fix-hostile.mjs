#!/usr/bin/env node
/**
 * Hostile files for the transforms (issue 33): small files whose checks are cheap but whose fixes —
 * a colour conversion, a downsampling, a page-tree rebuild — would take the process down if a fix
 * decoded them whole or walked them recursively. Generated deterministically at test time; nothing
 * is committed. Each names what `check` must find in it (one of `expect`), so the fix is asked for.
 * `node test/hostile/make-fix-hostile.mjs DIR` writes them out for a look.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { onePage, stream, writePdf } from './pdf-writer.mjs';
import { prng } from './make-hostile.mjs';

/** Deflates `total` bytes of `fill` (or of a repeating pattern) without holding them at once. */
export async function deflated(total, make = (n) => Buffer.alloc(n, 0)) {
  const z = createDeflate({ level: 9 });
  const out = [];
  z.on('data', (d) => out.push(d));
  const done = new Promise((r) => z.on('end', r));
  const chunk = 8 * 1024 * 1024;
  for (let sent = 0; sent < total; sent += chunk) {
    if (!z.write(make(Math.min(chunk, total - sent)))) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await done;
  return Buffer.concat(out);
}

/** A page (TANKTOP-M size does not matter: the fixes asked for are colour and pixels) drawing one image covering it. */
export const imagePage = (image, { size = [400, 400], extra = [] } = {}) =>
  onePage({ content: `q ${size[0]} 0 0 ${size[1]} 0 0 cm /Im Do Q`, resources: '/XObject << /Im 5 0 R >>', extra: [image, ...extra], size });

/** A real CMYK JPEG (sharp) whose frame header is rewritten to claim `width` × `height`, its scan cut short. */
async function truncatedCmykJpeg(width, height) {
  const jpeg = Uint8Array.from(
    await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 30, g: 120, b: 200 } } })
      .toColourspace('cmyk')
      .jpeg({ quality: 80 })
      .toBuffer(),
  );
  for (let i = 2; i + 8 < jpeg.length; ) {
    const marker = jpeg[i + 1];
    const len = (jpeg[i + 2] << 8) | jpeg[i + 3];
    if (marker === 0xc0 || marker === 0xc2) {
      jpeg[i + 5] = height >> 8;
      jpeg[i + 6] = height & 255;
      jpeg[i + 7] = width >> 8;
      jpeg[i + 8] = width & 255;
      return jpeg.subarray(0, Math.floor(jpeg.length * 0.8));
    }
    i += 2 + len;
  }
  throw new Error('no frame header in the JPEG sharp made');
}

/** @returns {Promise<{ name: string, bytes: Uint8Array, expect: string[], why: string }[]>} */
export async function fixHostileCorpus() {
  const rand = prng(20261125);
  const cases = [];
  const add = (name, bytes, expect, why) => cases.push({ name, bytes, expect, why });

  // 1. A 16-bit CMYK Flate image: 5,500 × 5,500 × 4 × 2 = 242 MB of samples from a few hundred KB.
  const cmyk16 = await deflated(5500 * 5500 * 8);
  add(
    'fix-cmyk-16bit-flate-5500px.pdf',
    imagePage(stream('/Type /XObject /Subtype /Image /Width 5500 /Height 5500 /BitsPerComponent 16 /ColorSpace /DeviceCMYK /Filter /FlateDecode', cmyk16)),
    ['colour-space-not-rgb'],
    `a 16-bit CMYK Flate image of 242 MB in ${cmyk16.length} bytes`,
  );

  // 2. 1-bit Indexed over CMYK, 45,000 px square: expanded to CMYK it would be 8 GB.
  const indexed = await deflated(Math.ceil(45000 / 8) * 45000, (n) => Buffer.alloc(n, 0xa5));
  add(
    'fix-indexed-1bit-45000px.pdf',
    imagePage(stream('/Type /XObject /Subtype /Image /Width 45000 /Height 45000 /BitsPerComponent 1 /ColorSpace [/Indexed /DeviceCMYK 1 <00000000FF00FF00>] /Filter /FlateDecode', indexed)),
    ['image-too-large', 'colour-space-not-rgb'],
    `a 1-bit Indexed CMYK image of 45,000 × 45,000 px in ${indexed.length} bytes`,
  );

  // 3. A truncated CMYK JPEG whose header says 65,500 × 65,500.
  add(
    'fix-cmyk-jpeg-65500px-truncated.pdf',
    imagePage(stream('/Type /XObject /Subtype /Image /Width 65500 /Height 65500 /BitsPerComponent 8 /ColorSpace /DeviceCMYK /Filter /DCTDecode', await truncatedCmykJpeg(65500, 65500))),
    ['image-too-large', 'colour-space-not-rgb'],
    'a cut-short CMYK JPEG whose frame header says 65,500 × 65,500 px',
  );

  // 4. DeviceN of 4 colorants, 3,000 px square of noise, with a PostScript tint transform: every pixel a colour of its own.
  const noise = await deflated(3000 * 3000 * 4, (n) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
    return b;
  });
  const tint = stream('/FunctionType 4 /Domain [0 1 0 1 0 1 0 1] /Range [0 1 0 1 0 1 0 1]', '{ 4 1 roll 3 1 roll exch 0.9 mul 4 1 roll 0.8 mul 4 1 roll 0.7 mul 4 1 roll 0.6 mul 4 1 roll }');
  add(
    'fix-devicen-4-noise-3000px.pdf',
    imagePage(
      stream('/Type /XObject /Subtype /Image /Width 3000 /Height 3000 /BitsPerComponent 8 /ColorSpace [/DeviceN [/Cyan /Magenta /Yellow /Black] /DeviceCMYK 6 0 R] /Filter /FlateDecode', noise),
      { extra: [tint] },
    ),
    ['colour-space-not-rgb'],
    'a DeviceN (4 colorants) image of 3,000 × 3,000 px of noise with a PostScript tint transform',
  );

  // 5. A 1 × 1 CMYK image whose data inflates to 1 GiB.
  const oneGig = await deflated(1024 * 1024 * 1024);
  add(
    'fix-1px-cmyk-1gib-data.pdf',
    imagePage(stream('/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceCMYK /Filter [/FlateDecode /FlateDecode]', deflateSync(oneGig))),
    ['colour-space-not-rgb'],
    'a 1 × 1 px CMYK image whose data inflates to 1 GiB (behind two Flate filters)',
  );

  // 6. A page whose /Parent chain (not its /Kids path) is 200,000 dictionaries long, and a CMYK fill to fix.
  const depth = 200_000;
  const parents = Array.from({ length: depth }, (_, i) => `<< /Type /Pages /Parent ${i + 6} 0 R /Kids [] /Count 0 >>`);
  parents[depth - 1] = '<< /Type /Pages /Kids [] /Count 0 /Resources << >> >>';
  add(
    'fix-parent-chain-200000.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 5 0 R /MediaBox [0 0 400 400] /Contents 4 0 R >>',
      stream('', '0 0 0 1 k 0 0 400 400 re f'),
      ...parents,
    ]),
    ['colour-space-not-rgb'],
    `a page whose /Parent points up a chain of ${depth.toLocaleString('en')} dictionaries (pdf-lib walks it recursively)`,
  );

  // 7. 2 million distinct CMYK vector colours.
  const ops = Array.from({ length: 2_000_000 }, (_, i) => `${(i % 1000) / 1000} ${((i / 1000) | 0) / 2000} 0.5 0.1 k 0 0 1 1 re f`).join('\n');
  add(
    'fix-vector-2m-cmyk-colours.pdf',
    onePage({ content: stream('/Filter /FlateDecode', deflateSync(Buffer.from(ops))) }),
    ['colour-space-not-rgb', 'pdf-too-complex'],
    '2,000,000 fills, each in a CMYK colour of its own',
  );

  // 8. q nested 500,000 deep around CMYK colours.
  const nested = `${'q '.repeat(500_000)}0 0 0 1 k 0 0 400 400 re f ${'Q '.repeat(500_000)}0.2 0 0 0 k 0 0 10 10 re f`;
  add(
    'fix-q-nesting-500000.pdf',
    onePage({ content: stream('/Filter /FlateDecode', deflateSync(Buffer.from(nested))) }),
    ['colour-space-not-rgb', 'pdf-too-complex'],
    'CMYK fills inside q nested 500,000 deep',
  );

  // 9. 3,000 small CMYK images on one page.
  const small = await deflated(16 * 16 * 4, (n) => Buffer.alloc(n, 0x40));
  const many = 3000;
  const names = Array.from({ length: many }, (_, i) => `/I${i} ${i + 5} 0 R`).join(' ');
  const draws = Array.from({ length: many }, (_, i) => `q 4 0 0 4 ${(i % 100) * 4} ${((i / 100) | 0) * 4} cm /I${i} Do Q`).join('\n');
  add(
    'fix-3000-cmyk-images.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /XObject << ${names} >> >> >>`,
      stream('', draws),
      ...Array.from({ length: many }, () => stream('/Type /XObject /Subtype /Image /Width 16 /Height 16 /BitsPerComponent 8 /ColorSpace /DeviceCMYK /Filter /FlateDecode', small)),
    ]),
    ['colour-space-not-rgb'],
    '3,000 distinct CMYK images on one page',
  );

  // 10. A Flate CMYK image whose predictor says /Colors 4096 and /Columns 100000 (rows longer than the image).
  add(
    'fix-cmyk-predictor-colors-4096.pdf',
    imagePage(
      stream(
        '/Type /XObject /Subtype /Image /Width 2000 /Height 2000 /BitsPerComponent 8 /ColorSpace /DeviceCMYK /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 4096 /Columns 100000 /BitsPerComponent 16 >>',
        await deflated(2000 * 2000 * 4),
      ),
    ),
    ['colour-space-not-rgb'],
    'a CMYK image whose PNG predictor rows would be 819 MB long',
  );
  return cases;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? 'fix-hostile';
  mkdirSync(dir, { recursive: true });
  for (const c of await fixHostileCorpus()) {
    writeFileSync(join(dir, c.name), c.bytes);
    console.log(`${c.name}\t${c.bytes.length}\t${c.why}`);
  }
}
