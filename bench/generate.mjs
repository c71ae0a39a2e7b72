/**
 * Deterministic benchmark inputs in bench/inputs/ (git-ignored; regenerated when missing):
 * a ~50 MB PDF of photo-like JPEG pages up to 15,000 px; CMYK image pages; a 500-page vector
 * catalogue; a single 5-metre page; a folder of 200 typical order files (2–7 layer pages,
 * 1–10 MB each); a typical two-page duvet order file (~10 MB); a big one (two 9,000² JPEG pages,
 * by ImageMagick and img2pdf); an 8-page vector file for smoke runs. PDFs are written by our own
 * minimal writer (no PDF library), images by sharp, unless said otherwise.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { stream, writePdf } from '../test/hostile/pdf-writer.mjs';

const here = new URL('.', import.meta.url).pathname;
export const INPUTS = join(here, 'inputs');
const VERSION = '7';
const MM = 72 / 25.4;

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A photo-like JPEG: smooth colour fields with grain (noise, blurred), deterministic per seed. */
async function photo(width, height, seed, { cmyk = false, quality = 85 } = {}) {
  const r = prng(seed);
  const small = Buffer.alloc(16 * 16 * 3);
  for (let i = 0; i < small.length; i++) small[i] = Math.floor(40 + r() * 180);
  const base = await sharp(small, { raw: { width: 16, height: 16, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const grain = await sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .raw()
    .toBuffer();
  for (let i = 0; i < base.length; i++) base[i] = Math.max(0, Math.min(255, base[i] + ((grain[i] - 128) >> 2)));
  let img = sharp(base, { raw: { width, height, channels: 3 }, limitInputPixels: false });
  if (cmyk) img = img.toColourspace('cmyk');
  return new Uint8Array(await img.jpeg({ quality, chromaSubsampling: '4:2:0' }).toBuffer());
}

/** A PDF of image pages, each JPEG covering its page (the shape of a textile print file). */
function imagePdf(pages) {
  const bodies = ['<< /Type /Catalog /Pages 2 0 R >>', null];
  const kids = [];
  for (const { jpeg, widthPx, heightPx, widthMm, heightMm, cmyk } of pages) {
    const pageNo = bodies.length + 1;
    kids.push(`${pageNo} 0 R`);
    const w = (widthMm * MM).toFixed(3);
    const h = (heightMm * MM).toFixed(3);
    bodies.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents ${pageNo + 1} 0 R /Resources << /XObject << /Im0 ${pageNo + 2} 0 R >> >> >>`);
    bodies.push(stream('', `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`));
    bodies.push(
      stream(
        `/Type /XObject /Subtype /Image /Width ${widthPx} /Height ${heightPx} /BitsPerComponent 8 /ColorSpace /${cmyk ? 'DeviceCMYK' : 'DeviceRGB'}${cmyk ? ' /Decode [1 0 1 0 1 0 1 0]' : ''} /Filter /DCTDecode`,
        jpeg,
      ),
    );
  }
  bodies[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  return writePdf(bodies);
}

/** A vector page: a grid of filled and stroked shapes and lines of text in Helvetica. */
function vectorContent(seed, wPt, hPt, cells) {
  const r = prng(seed);
  const ops = [];
  const cw = wPt / cells;
  const ch = hPt / cells;
  for (let y = 0; y < cells; y++) {
    for (let x = 0; x < cells; x++) {
      ops.push(`${r().toFixed(3)} ${r().toFixed(3)} ${r().toFixed(3)} rg`);
      const x0 = (x * cw).toFixed(2);
      const y0 = (y * ch).toFixed(2);
      if ((x + y) % 3 === 0) ops.push(`${x0} ${y0} ${(cw * 0.9).toFixed(2)} ${(ch * 0.9).toFixed(2)} re f`);
      else ops.push(`${x0} ${y0} m ${(x * cw + cw).toFixed(2)} ${y0} ${(x * cw + cw / 2).toFixed(2)} ${(y * ch + ch).toFixed(2)} ${x0} ${(y * ch + ch).toFixed(2)} c f`);
    }
  }
  ops.push('0 g BT /F1 10 Tf');
  for (let i = 0; i < 40; i++) ops.push(`1 0 0 1 ${(20).toFixed(1)} ${(hPt - 20 - i * 12).toFixed(1)} Tm (Catalogue line ${i} item ${Math.floor(r() * 99999)} price ${(r() * 100).toFixed(2)}) Tj`);
  ops.push('ET');
  return ops.join('\n');
}

function vectorPdf(pageCount, wPt, hPt, cells, { userUnit = 1 } = {}) {
  const bodies = ['<< /Type /Catalog /Pages 2 0 R >>', null, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids = [];
  for (let p = 0; p < pageCount; p++) {
    const n = bodies.length + 1;
    kids.push(`${n} 0 R`);
    bodies.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${wPt} ${hPt}]${userUnit !== 1 ? ` /UserUnit ${userUnit}` : ''} /Contents ${n + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`);
    bodies.push(stream('', vectorContent(p + 1, wPt, hPt, cells)));
  }
  bodies[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  return writePdf(bodies);
}

const ORDER_PRODUCTS = [
  // sku, layers (w×h mm, page size incl. bleed)
  [
    'T-SHIRT-M',
    [
      [560, 750],
      [560, 750],
      [460, 260],
      [460, 260],
    ],
  ],
  [
    'HOODIE-L',
    [
      [610, 740],
      [610, 740],
      [500, 680],
      [500, 680],
      [390, 430],
      [390, 430],
      [500, 260],
    ],
  ],
  [
    'TANKTOP-S',
    [
      [510, 720],
      [510, 720],
    ],
  ],
  [
    'DUVET-COVER-135X200',
    [
      [1390, 2040],
      [1390, 2040],
    ],
  ],
  [
    'CURTAINS-140X245',
    [
      [1440, 2490],
      [1440, 2490],
    ],
  ],
  [
    'SWEATPANTS-M',
    [
      [350, 1080],
      [350, 1080],
      [350, 1080],
      [350, 1080],
    ],
  ],
];

/** Each input and how to make it; a missing one is made on the next run, alone. */
const MAKERS = {
  // ~50 MB of photo pages, up to 15,000 px on a side.
  'photo-50mb.pdf': async () => {
    const big = [];
    const sizes = [
      [15000, 7500, 1000, 500],
      [8000, 8000, 600, 600],
      [6500, 8000, 500, 640],
      [5500, 7000, 400, 530],
    ];
    for (const [i, [w, h, wMm, hMm]] of sizes.entries()) big.push({ jpeg: await photo(w, h, 100 + i, { quality: 84 }), widthPx: w, heightPx: h, widthMm: wMm * 2.54, heightMm: hMm * 2.54 });
    return imagePdf(big);
  },
  'cmyk-pages.pdf': async () => {
    const cmyk = [];
    for (let i = 0; i < 3; i++) cmyk.push({ jpeg: await photo(4000, 4000, 200 + i, { cmyk: true, quality: 80 }), widthPx: 4000, heightPx: 4000, widthMm: 1000, heightMm: 1000, cmyk: true });
    return imagePdf(cmyk);
  },
  'catalogue-500.pdf': async () => vectorPdf(500, 595, 842, 24),
  // 5 m × 1.5 m: 1417 × 425 pt at /UserUnit 10.
  'five-metre.pdf': async () => vectorPdf(1, 1417.3, 425.2, 160, { userUnit: 10 }),
  // The typical image-heavy order file: a 200 × 200 duvet cover, front and back, ~10 MB.
  'duvet-typical.pdf': async () => {
    const pages = [];
    for (let i = 0; i < 2; i++) pages.push({ jpeg: await photo(4800, 4800, 400 + i, { quality: 88 }), widthPx: 4800, heightPx: 4800, widthMm: 2040, heightMm: 2040 });
    return imagePdf(pages);
  },
  // The big duvet order file of issue 24: two 9,000 × 9,000 px JPEG pages (200 × 200 cm at 112 ppi),
  // made the way users make them — ImageMagick writes the photos, img2pdf wraps them.
  'duvet-big.pdf': async () => imageMagickImg2pdf(2, 9000, 2040),
  // A small vector file for smoke runs: 8 catalogue pages.
  'catalogue-8.pdf': async () => vectorPdf(8, 595, 842, 24),
  // 200 order files from a pool of 24 photos (1–3 MP each), 2–7 pages, 1–10 MB.
  'folder-200': async () => {
    const photos = [];
    for (let i = 0; i < 24; i++) {
      const w = 1500 + ((i * 373) % 1000);
      const h = 1500 + ((i * 521) % 1100);
      photos.push({ jpeg: await photo(w, h, 300 + i, { quality: 75 + (i % 12) }), w, h });
    }
    const r = prng(7);
    const files = {};
    for (let f = 0; f < 200; f++) {
      const [sku, layers] = ORDER_PRODUCTS[f % ORDER_PRODUCTS.length];
      const pages = layers.map(([wMm, hMm]) => {
        const p = photos[Math.floor(r() * photos.length)];
        return { jpeg: p.jpeg, widthPx: p.w, heightPx: p.h, widthMm: wMm, heightMm: hMm };
      });
      files[`${sku}__order-${String(f + 1).padStart(4, '0')}.pdf`] = imagePdf(pages);
    }
    return files;
  },
};
export const INPUT_NAMES = Object.keys(MAKERS);

/**
 * `pages` photo-like JPEGs of `px` × `px` by ImageMagick (a plasma fractal with a fixed seed,
 * enlarged, with grain), wrapped by img2pdf at `mm` × `mm`. ImageMagick's default policy caps image
 * size far below print sizes: a policy of our own raises it for these calls.
 */
function imageMagickImg2pdf(pages, px, mm) {
  const dir = mkdtempSync(join(tmpdir(), 'ppbench-im-'));
  try {
    writeFileSync(
      join(dir, 'policy.xml'),
      `<policymap><policy domain="resource" name="memory" value="4GiB"/><policy domain="resource" name="map" value="8GiB"/><policy domain="resource" name="disk" value="16GiB"/><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="width" value="64KP"/><policy domain="resource" name="height" value="64KP"/></policymap>\n`,
    );
    const env = { ...process.env, MAGICK_CONFIGURE_PATH: dir };
    const jpegs = [];
    for (let i = 0; i < pages; i++) {
      const out = join(dir, `page-${i}.jpg`);
      const small = Math.round(px / 8);
      execFileSync(
        '/usr/bin/convert',
        ['-seed', String(500 + i), '-size', `${small}x${small}`, 'plasma:fractal', '-resize', `${px}x${px}!`, '-attenuate', '0.25', '+noise', 'Gaussian', '-quality', '88', out],
        { env },
      );
      jpegs.push(out);
    }
    const pdf = join(dir, 'out.pdf');
    execFileSync('img2pdf', ['--imgsize', `${mm}mmx${mm}mm`, ...jpegs, '-o', pdf]);
    return new Uint8Array(readFileSync(pdf));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Makes the inputs that are missing (all, or those named in `only`). A change to an input's
 * definition bumps VERSION, which makes them all again.
 */
export async function generate({ log = console.log, only = INPUT_NAMES } = {}) {
  const versionDir = join(INPUTS, `v${VERSION}`);
  mkdirSync(versionDir, { recursive: true });
  for (const name of only) {
    const make = MAKERS[name];
    if (!make) throw new Error(`unknown bench input ${name}; known: ${INPUT_NAMES.join(', ')}`);
    const marker = join(versionDir, `.${name}.done`);
    if (existsSync(marker)) continue;
    const t0 = Date.now();
    const made = await make();
    if (made instanceof Uint8Array) {
      writeFileSync(join(INPUTS, name), made);
    } else {
      mkdirSync(join(INPUTS, name), { recursive: true });
      for (const [file, bytes] of Object.entries(made)) writeFileSync(join(INPUTS, name, file), bytes);
    }
    writeFileSync(marker, '');
    log(`${name} made in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await generate({ only: process.argv.length > 2 ? process.argv.slice(2) : INPUT_NAMES });
