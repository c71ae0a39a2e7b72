/**
 * The renderer behind the one render task: which engine each page gets, that the report says so,
 * and that the chosen engine's pixels agree with MuPDF (`mutool draw`) and poppler (`pdftoppm`)
 * at the same pixel size.
 *
 * Stated tolerance (mean absolute difference per channel, 0–255, per page): ≤ 4 for RGB and gray
 * pages (measured 0.0–3.1 with PDFium, the same range as pdf.js). CMYK and spot-colour vector
 * pages: each engine converts CMYK to RGB its own way, without ICC, so ≤ 20 against mutool and
 * ≤ 12 against pdftoppm (Ghostscript's CMYK page at 600 px: PDFium 17.8 / 10.6 — its rich black
 * is poppler's 35,31,32 exactly, where mutool gives 0,0,0 — and pdf.js 19.6 / 13.1).
 * bench/renderers.mjs measures the whole corpus.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { localExecutor } from '../../../src/pool/local.js';
import { preflight } from '../../../src/flow/preflight.js';
import { imagePlan } from '../../../src/raster/image-plan.js';
import { PDFIUM_MAX_IMAGE_PIXELS, PDFIUM_MAX_PAINT_OPERATORS, PDFJS_MAX_OPERATIONS, fallbackRenderer, knownApproximation, pageRenderer } from '../../../src/raster/renderer.js';
import { sha256Hex } from '../../../src/source/read.js';

const font = (embedded: boolean) => ({ name: '/F1', baseFont: 'X', subtype: 'TrueType', embedded });
const image = (widthPx: number, heightPx: number, extra: object = {}) => ({ widthPx, heightPx, filters: [], via: [], hasSMask: false, ...extra }) as never;

describe('which engine draws a page', () => {
  const paint = (count: number) => ({ use: 'fill', colourSpace: {}, count, via: [] }) as never;
  it.each([
    ['vector art, no text', [], [], [paint(25_600)], 'pdfium'],
    ['text in a font that is not embedded (PDFium substitutes it, like every renderer)', [font(false)], [], [], 'pdfium'],
    ['text in embedded fonts (whether they can be drawn is judged from the fonts themselves)', [font(true), font(false)], [], [], 'pdfium'],
    ['small images', [], [image(2000, 2000), image(100, 100)], [], 'pdfium'],
    ['an image larger than PDFium is given', [], [image(4001, 4000)], [], 'pdfjs'],
    ['a million painting operators', [], [], [paint(600_000), paint(400_000)], 'pdfium'],
    ['more than a million painting operators (kept under the worker heap cap)', [], [], [paint(600_000), paint(400_001)], 'pdfjs'],
    ['an ICC-based image (PDFium is slower there)', [], [image(400, 400, { colourSpace: { family: 'ICCBased' } })], [], 'pdfjs'],
    ['an Indexed image over an ICC base (PDFium draws other colours)', [], [image(50, 50, { colourSpace: { family: 'Indexed', base: { family: 'ICCBased' } } })], [], 'pdfjs'],
    ['a Lab image', [], [image(400, 400, { colourSpace: { family: 'Lab' } })], [], 'pdfium'],
    ['a JBIG2 image', [], [image(400, 400, { filters: ['JBIG2Decode'] })], [], 'pdfjs'],
    ['a JPEG 2000 image with a soft mask', [], [image(400, 400, { filters: ['JPXDecode'], hasSMask: true })], [], 'pdfjs'],
    ['a JPEG 2000 image without one', [], [image(400, 400, { filters: ['JPXDecode'] })], [], 'pdfium'],
  ])('%s → %s', (_name, fonts, images, colours, expected) => {
    expect(pageRenderer({ fonts, images, colours } as never)).toBe(expected);
  });

  it.each([
    ['printable form fields (PDFium leaves widgets to its form layer, which ignores the Print flag)', { printableWidgets: 2 }, 'pdfjs'],
    ['a Difference blend (PDFium blends only Normal, Multiply and Darken as the spec says)', { transparency: { blendModes: ['Difference'], knockoutGroups: 0 } }, 'pdfjs'],
    ['a knockout group (neither engine implements it: said on the page instead)', { transparency: { blendModes: [], knockoutGroups: 1 } }, 'pdfium'],
    ['a colour outside its Indexed palette (PDFium paints nothing)', { hazards: { indexedOutOfRange: 1, damagedInlineImages: 0 } }, 'pdfjs'],
    ['an inline image with corrupt data (PDFium loses the rest of the content)', { hazards: { indexedOutOfRange: 0, damagedInlineImages: 1 } }, 'pdfjs'],
    [
      'a Screen blend and text in a simple TrueType font without a cmap (pdf.js draws none of that text; the blend is said approximate)',
      { transparency: { blendModes: ['Screen'], knockoutGroups: 0 }, fonts: [{ ...font(true), program: { noCmap: true } }] },
      'pdfium',
    ],
    [
      'a Screen blend and a CID TrueType font without a cmap (pdf.js finds its glyphs by CID)',
      { transparency: { blendModes: ['Screen'], knockoutGroups: 0 }, fonts: [{ ...font(true), subtype: 'Type0', program: { noCmap: true } }] },
      'pdfjs',
    ],
    [
      'a Difference blend over 150,000 operators, path points and glyphs (pdf.js would take minutes and gigabytes)',
      { transparency: { blendModes: ['Difference'], knockoutGroups: 0 }, renderWork: { operations: PDFJS_MAX_OPERATIONS + 1, estimatedMs: 2000 } },
      'pdfium',
    ],
    ['printable form fields on a page of 150,000 operators or fewer', { printableWidgets: 1, renderWork: { operations: PDFJS_MAX_OPERATIONS, estimatedMs: 2000 } }, 'pdfjs'],
    [
      'printable form fields on a page whose transparency groups cover it 31 times (pdf.js keeps a buffer for each)',
      { printableWidgets: 1, renderWork: { operations: 10, estimatedMs: 400, groups: 31 } },
      'pdfium',
    ],
    [
      '2,001 distinct ICC-based images (pdf.js keeps ~160 KB for each)',
      { images: Array.from({ length: 2_001 }, (_, i) => image(1, 1, { ref: `${i + 10} 0 R`, colourSpace: { family: 'ICCBased' } })) },
      'pdfium',
    ],
    ['2,001 draws of one ICC-based image', { images: Array.from({ length: 2_001 }, () => image(1, 1, { ref: '10 0 R', colourSpace: { family: 'ICCBased' } })) }, 'pdfjs'],
    [
      'an image larger than PDFium is given, over 150,000 operators (PDFium holds it rather than pdf.js)',
      { images: [image(5000, 5000)], renderWork: { operations: 400_000, estimatedMs: 3000 } },
      'pdfium',
    ],
  ])('%s → %s', (_name, extra, expected) => {
    expect(pageRenderer({ fonts: [], images: [], colours: [], ...extra } as never)).toBe(expected);
  });

  it('gives a page a second engine when the first fails or draws it empty, unless PDFium could not hold it', () => {
    const small = { fonts: [], images: [], colours: [] } as never;
    const big = { fonts: [], images: [image(5000, 5000)], colours: [] } as never;
    expect([fallbackRenderer(small, 'pdfium'), fallbackRenderer(small, 'pdfjs'), fallbackRenderer(big, 'pdfjs')]).toEqual(['pdfjs', 'pdfium', null]);
    // Nor is pdf.js the second engine of a page with more operators than it takes.
    const heavy = { fonts: [], images: [], colours: [], renderWork: { operations: PDFJS_MAX_OPERATIONS + 1, estimatedMs: 3000 } } as never;
    expect(fallbackRenderer(heavy, 'pdfium')).toBeNull();
  });

  it('says what the engine that drew a page draws otherwise than print', () => {
    const page = (extra: object) => ({ fonts: [], images: [], colours: [], ...extra }) as never;
    expect(knownApproximation(page({ transparency: { blendModes: [], knockoutGroups: 1 } }), 'pdfjs')).toMatch(/knockout/);
    expect(knownApproximation(page({ printableWidgets: 1 }), 'pdfium')).toBe('form fields are not drawn');
    expect(knownApproximation(page({ printableWidgets: 1 }), 'pdfjs')).toBeNull();
    expect(knownApproximation(page({ transparency: { blendModes: ['Screen'], knockoutGroups: 0 } }), 'pdfium')).toMatch(/Screen/);
    // Fonts that are not embedded: every engine draws a substitute's glyphs; said once per font name.
    const substitutes = page({ fonts: [{ ...font(false), baseFont: 'Helvetica' }, { ...font(false), name: '/F2', baseFont: 'Helvetica' }, font(true)] });
    expect(knownApproximation(substitutes, 'pdfium')).toBe('text in a font not embedded (Helvetica) is drawn with a substitute font');
    expect(knownApproximation(substitutes, 'pdfjs')).toBe('text in a font not embedded (Helvetica) is drawn with a substitute font');
    expect(knownApproximation(page({ fonts: [font(true)] }), 'pdfium')).toBeNull();
    expect(knownApproximation(page({ undrawnFields: 2 }), 'pdfjs')).toMatch(/^2 form fields without an appearance stream are not drawn/);
    expect(knownApproximation(page({ hazards: { indexedOutOfRange: 0, damagedInlineImages: 1 } }), 'pdfjs')).toMatch(/inline image has corrupt data/);
  });

  it('sends a page with printable annotations (form fields, stamps) to pdf.js: PDFium draws widgets only through a form environment', () => {
    expect(pageRenderer({ fonts: [], images: [], colours: [paint(4)], printableAnnotations: 1 } as never)).toBe('pdfjs');
    expect(pageRenderer({ fonts: [], images: [], colours: [paint(4)], printableAnnotations: 0 } as never)).toBe('pdfium');
  });

  it('keeps 4,000 × 4,000 px and a million painting operators as what PDFium is given at most', () => {
    expect(PDFIUM_MAX_IMAGE_PIXELS).toBe(4000 * 4000);
    expect(PDFIUM_MAX_PAINT_OPERATORS).toBe(1_000_000);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'pp-renderer-'));

async function reference(tool: 'mutool' | 'pdftoppm', file: string, page: number, width: number, height: number): Promise<Buffer> {
  const out = join(dir, `${tool}-${page}-${Math.random().toString(36).slice(2)}`);
  const run =
    tool === 'mutool'
      ? spawnSync('mutool', ['draw', '-q', '-w', String(width), '-h', String(height), '-o', `${out}.png`, file, String(page)])
      : spawnSync('pdftoppm', ['-f', String(page), '-l', String(page), '-scale-to', String(Math.max(width, height)), '-png', '-singlefile', file, out]);
  expect(run.status, `${tool} failed: ${run.stderr}`).toBe(0);
  return sharp(readFileSync(`${out}.png`))
    .resize(width, height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
}

async function ours(file: string, page: number) {
  const bytes = new Uint8Array(readFileSync(file));
  const facts = await inspectPdf(bytes);
  const p = facts.pages[page - 1]!;
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const r = await localExecutor.render({
    docId: `${sha256Hex(bytes)}:renderer-test`,
    bytes: shared,
    page,
    maxPx: 600,
    format: 'png',
    plan: imagePlan(p),
    renderer: pageRenderer(p),
    maxInputPixels: 1e9,
    maxPdfjsImagePixels: 225e6,
    largestImagePixels: 0,
  });
  const raw = await sharp(r.preview!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { method: r.facts.method, data: raw.data, width: raw.info.width, height: raw.info.height };
}

function meanDiff(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe('the chosen engine agrees with MuPDF and poppler', () => {
  it.each([
    ['gs-duvet-exact.pdf', 'pdfium', 4],
    ['cairo-curtains-within-tolerance.pdf', 'pdfium', 4],
    ['pikepdf-curtains-rotate90.pdf', 'pdfium', 4],
    ['pikepdf-duvet-userunit.pdf', 'pdfium', 4],
    ['pikepdf-duvet-cropbox-trimbox.pdf', 'pdfium', 4],
    ['img2pdf-tanktop-palette.pdf', 'pdfium', 4],
    ['pikepdf-tanktop-lab.pdf', 'pdfium', 4],
    ['reportlab-tshirt-M-unembedded-font.pdf', 'pdfium', 4],
    ['reportlab-tshirt-M-exact.pdf', 'pdfium', 4],
    ['gs-tanktop-cmyk-vector.pdf', 'pdfium', { mutool: 20, pdftoppm: 12 }],
    ['gs-tanktop-spot-vector.pdf', 'pdfium', { mutool: 20, pdftoppm: 12 }],
    ['imagemagick-tanktop-rgb-jpeg.pdf', 'image', 4],
  ])(
    '%s is drawn by %s within %j of mutool and pdftoppm',
    async (name, method, tolerance) => {
      const file = join('test/corpus/files', name);
      const mine = await ours(file, 1);
      expect(mine.method).toBe(method);
      for (const tool of ['mutool', 'pdftoppm'] as const) {
        const ref = await reference(tool, file, 1, mine.width, mine.height);
        const limit = typeof tolerance === 'number' ? tolerance : tolerance[tool];
        expect(meanDiff(mine.data, ref), `${name} against ${tool}`).toBeLessThanOrEqual(limit);
      }
    },
    60_000,
  );

  it('records the engine of each page in the report', async () => {
    const vector = await preflight('test/corpus/files/gs-duvet-exact.pdf', { sku: 'DUVET-COVER-200X200' });
    expect(vector.pages.map((p) => p.raster?.method)).toEqual(['pdfium', 'pdfium']);
    const photo = await preflight('test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf', { sku: 'TANKTOP-M' });
    expect(photo.pages.map((p) => p.raster?.method)).toEqual(['image', 'image']);
  }, 60_000);
});

describe('a JPEG page drawn from the stream its caller hands over', () => {
  it('needs no parse of the file in the worker (the bytes it gets here are not even a PDF)', async () => {
    const file = 'test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf';
    const bytes = new Uint8Array(readFileSync(file));
    const page = (await inspectPdf(bytes)).pages[0]!;
    const plan = imagePlan(page)!;
    let jpeg: { data: Uint8Array; decodeInverted: boolean } | null = null;
    const { jpegStream } = await import('../../../src/raster/image-stream.js');
    const { parsePdf } = await import('../../../src/pdf/parse.js');
    jpeg = jpegStream(await parsePdf(bytes), plan.ref);
    expect(jpeg).not.toBeNull();
    const junk = new SharedArrayBuffer(64); // a worker that tried to parse this would find no PDF
    const task = { docId: 'jpeg-handed-over', bytes: junk, page: 1, maxPx: 300, format: null, plan, maxInputPixels: 1e9, maxPdfjsImagePixels: 225e6, largestImagePixels: 0 };
    const drawn = await localExecutor.render({ ...task, jpeg: jpeg! });
    expect(drawn.facts.method).toBe('image');
    expect(drawn.facts.inkCoverage).toBeGreaterThan(0.5);
    // Without the stream the worker must parse the file — here it cannot, so the fast path is not taken.
    const without = await localExecutor.render({ ...task, docId: 'jpeg-not-handed-over' }).catch((e: unknown) => e);
    expect(without instanceof Error || (without as { facts: { method: string } }).facts.method !== 'image').toBe(true);
  }, 60_000);
});

describe('the structure is read once: JPEG pages are drawn from where the structure read found their stream', () => {
  it('the inspect task says where each page JPEG lies, and a render task drawn from there needs nothing else of the file', async () => {
    const file = 'test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf';
    const bytes = new Uint8Array(readFileSync(file));
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const inspected = await localExecutor.inspect(shared, 'structure-once');
    const page = inspected.facts.pages[0]!;
    const plan = imagePlan(page)!;
    const jpeg = inspected.jpegs?.[plan.ref];
    expect(jpeg).toBeDefined();
    const [offset, length] = jpeg!.at;
    expect([...bytes.subarray(offset, offset + 3)]).toEqual([0xff, 0xd8, 0xff]);
    // Everything but the JPEG's bytes zeroed: a worker that parsed the file would find no PDF here.
    const blanked = new SharedArrayBuffer(bytes.length);
    new Uint8Array(blanked).set(bytes.subarray(offset, offset + length), offset);
    const drawn = await localExecutor.render({
      docId: 'structure-once-blanked',
      bytes: blanked,
      page: 1,
      maxPx: 300,
      format: null,
      plan,
      jpeg,
      maxInputPixels: 1e9,
      maxPdfjsImagePixels: 225e6,
      largestImagePixels: 0,
    });
    expect(drawn.facts.method).toBe('image');
    expect(drawn.facts.inkCoverage).toBeGreaterThan(0.5);
    // A location past the end of the bytes is refused, not read.
    const past = await localExecutor
      .render({ docId: 'structure-once-past', bytes: new SharedArrayBuffer(64), page: 1, maxPx: 300, format: null, plan, jpeg, maxInputPixels: 1e9, maxPdfjsImagePixels: 225e6, largestImagePixels: 0 })
      .catch((e: unknown) => e);
    expect(String(past)).toMatch(/past the end of the file/);
  }, 60_000);

  it('a structure read keeps views of the file, not copies of its streams', async () => {
    const { streamOffset, PDFRawStream } = await import('../../../src/pdf/pdf-lib.js');
    const { parsePdf } = await import('../../../src/pdf/parse.js');
    const bytes = new Uint8Array(readFileSync('test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf'));
    const context = await parsePdf(bytes);
    const streams = context.enumerateIndirectObjects().flatMap(([, o]) => (o instanceof PDFRawStream ? [o] : []));
    expect(streams.length).toBeGreaterThan(0);
    for (const s of streams) {
      const at = streamOffset(bytes, s.contents);
      expect(at).not.toBeNull();
      expect(Buffer.compare(bytes.subarray(at!, at! + s.contents.length), s.contents)).toBe(0);
    }
  });
});

describe('annotations PDFium draws: printable ones without an appearance stream, and no others', () => {
  // pikepdf: one page with a FreeText box (text in /Contents and /DA, no /AP), printable or not.
  const freeText = (print: boolean) => {
    const out = join(dir, `freetext-${print}.pdf`);
    const script = [
      'import pikepdf, sys',
      'pdf = pikepdf.new()',
      'pdf.add_blank_page(page_size=(300, 200))',
      'page = pdf.pages[0]',
      `annot = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.FreeText, Rect=[40, 80, 260, 130], Contents=pikepdf.String('Printed note'), DA=pikepdf.String('/Helv 24 Tf 0 g'), F=${print ? 4 : 0}))`,
      'page.obj.Annots = pdf.make_indirect([annot])',
      'pdf.save(sys.argv[1])',
    ].join('\n');
    const run = spawnSync('/usr/bin/python3', ['-c', script, out], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    return out;
  };

  it('draws a printable FreeText box without /AP (it prints), and leaves out one without the Print flag', async () => {
    const printed = await preflight(freeText(true), { sku: 'DUVET-COVER-200X200' });
    expect(printed.pages[0]!.raster?.method).toBe('pdfium');
    expect(printed.pages[0]!.raster!.inkCoverage).toBeGreaterThan(0.001);
    expect(printed.findings.map((f) => f.code)).not.toContain('page-blank');
    const hidden = await preflight(freeText(false), { sku: 'DUVET-COVER-200X200' });
    expect(hidden.pages[0]!.raster!.inkCoverage).toBe(0);
    expect(hidden.findings.map((f) => f.code)).toContain('page-blank');
  }, 60_000);
});

describe('JPEG pages are drawn in the pool, from where the structure read found them', () => {
  it('draws a file of JPEG pages by the image path in a worker, and a vector file by PDFium', async () => {
    const { PreflightPool } = await import('../../../src/pool/pool.js');
    const pool = new PreflightPool({ maxThreads: 2 });
    const workers = () => (pool as unknown as { piscina: { threads: unknown[] } }).piscina.threads.length;
    try {
      const photo = await preflight('test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf', { sku: 'TANKTOP-M' }, { pool });
      expect(photo.pages.map((p) => p.raster?.method)).toEqual(['image', 'image']);
      expect(workers()).toBeGreaterThan(0);
      const vector = await preflight('test/corpus/files/gs-duvet-exact.pdf', { sku: 'DUVET-COVER-200X200' }, { pool });
      expect(vector.pages.map((p) => p.raster?.method)).toEqual(['pdfium', 'pdfium']);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});
