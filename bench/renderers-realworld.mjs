/**
 * PDFium and pdf.js against `mutool draw`, page by page, on a folder of real-world files (the
 * manifest's, extracted with `npm run realworld:extract`): each page drawn at the preview size by
 * both engines and by MuPDF at the same pixel size; per page the mean absolute difference per
 * channel (0–255) and the share of pixels off by more than 64 in a channel, the time each engine
 * took, and the page's traits the renderer choice can see (embedded fonts, Type 3, images, ICC…).
 * Writes bench/renderers-realworld.json and the section of bench/RENDERERS.md between its markers.
 *   npm run build && node bench/renderers-realworld.mjs DIR [--pages N] [--size PX]
 *   node bench/renderers-realworld.mjs DIR --rechoose   (after a change to the renderer choice only:
 *     re-reads each page's traits and chosen engine, keeps the measured pixels)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { inspectPdf } from '../dist/src/pdf/inspect.js';
import { captureWarnings, openWithPdfjs } from '../dist/src/raster/pdfjs.js';
import { openWithPdfium, renderWithPdfium, resetPdfium } from '../dist/src/raster/pdfium.js';
import { renderWithPdfjs } from '../dist/src/raster/render.js';
import { pageRenderer } from '../dist/src/raster/renderer.js';
import { imagePlan } from '../dist/src/raster/fast-path.js';
import { flatePlan } from '../dist/src/raster/flate-path.js';

const here = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--'));
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const MAX_PAGES = opt('--pages', 10);
const SIZE = opt('--size', 1200);
if (!dir) {
  console.error('usage: node bench/renderers-realworld.mjs DIR [--pages N] [--size PX]');
  process.exit(2);
}

function diff(px, ref) {
  const { data, width, height, channels } = px;
  let sum = 0;
  let off = 0;
  for (let i = 0, j = 0; i < width * height; i++, j += 3) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(data[i * channels + c] - ref[j + c]);
      sum += d;
      if (d > worst) worst = d;
    }
    if (worst > 64) off++;
  }
  return { mean: sum / (width * height * 3), off: off / (width * height) };
}

async function mutool(file, index, width, height, tmp) {
  const out = join(tmp, `mu-${index}.png`);
  const r = spawnSync('mutool', ['draw', '-q', '-w', String(width), '-h', String(height), '-o', out, file, String(index)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0 || !existsSync(out)) return null;
  return sharp(readFileSync(out)).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
}

/** What the renderer choice can see of a page (raster/renderer.ts), for grouping the results. */
function traits(page) {
  const t = [];
  const embedded = page.fonts.filter((f) => f.embedded);
  if (embedded.length) t.push(`fonts:${[...new Set(embedded.map((f) => f.program?.format ?? f.subtype ?? '?'))].sort().join('+')}`);
  if (page.fonts.some((f) => !f.embedded)) t.push('unembedded-fonts');
  if (page.images.length) t.push('images');
  for (const filter of ['JBIG2Decode', 'JPXDecode', 'CCITTFaxDecode']) if (page.images.some((i) => i.filters.includes(filter))) t.push(filter);
  if (page.images.some((i) => i.hasSMask)) t.push('smask');
  if (page.images.some((i) => i.colourSpace?.family === 'ICCBased' || i.colourSpace?.base?.family === 'ICCBased')) t.push('icc-image');
  if (page.printableAnnotations) t.push('annotations');
  const families = new Set(page.colours.map((c) => c.colourSpace.family));
  for (const f of ['Separation', 'DeviceN', 'Pattern', 'Lab', 'ICCBased', 'DeviceCMYK']) if (families.has(f)) t.push(`colour:${f}`);
  return t;
}

const files = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith('.pdf'))
  .sort();
if (args.includes('--rechoose')) {
  const data = JSON.parse(readFileSync(join(here, 'renderers-realworld.json'), 'utf8'));
  const factsOf = new Map();
  for (const row of data.pages) {
    if (!factsOf.has(row.file)) factsOf.set(row.file, await inspectPdf(new Uint8Array(readFileSync(join(dir, row.file)))).catch(() => null));
    const page = factsOf.get(row.file)?.pages[row.page - 1];
    if (!page) continue;
    row.traits = traits(page);
    row.choice = imagePlan(page) || flatePlan(page) ? 'image' : pageRenderer(page);
  }
  await writeResults(data.pages, data.size, data.maxPages, data.files ?? files.length);
  process.exit(0);
}
const pages = [];
const started = Date.now();
for (const [n, name] of files.entries()) {
  const file = join(dir, name);
  const bytes = new Uint8Array(readFileSync(file));
  let facts;
  try {
    facts = await inspectPdf(bytes);
  } catch {
    continue;
  }
  if (!facts.pages.length || facts.encryption?.needsPassword) continue;
  const tmp = mkdtempSync(join(tmpdir(), 'pprw-'));
  let pdfium = null;
  let pdfjs = null;
  try {
    pdfium = await openWithPdfium(bytes).catch(() => null);
    pdfjs = await openWithPdfjs(bytes).catch(() => null);
    for (const page of facts.pages.slice(0, MAX_PAGES)) {
      if (page.tooComplex) continue;
      const row = { file: name, page: page.index, traits: traits(page), choice: imagePlan(page) || flatePlan(page) ? 'image' : pageRenderer(page) };
      const t0 = performance.now();
      const a = pdfium ? await renderWithPdfium(pdfium, page.index, SIZE).catch((e) => ({ error: String(e.message ?? e) })) : { error: 'PDFium cannot open the file' };
      if (a.error) {
        resetPdfium();
        pdfium = await openWithPdfium(bytes).catch(() => null);
      }
      const t1 = performance.now();
      const b = pdfjs
        ? await captureWarnings(() => renderWithPdfjs(pdfjs, page.index, SIZE)).then(
            (r) => ({ ...r.value, warnings: r.warnings }),
            (e) => ({ error: String(e.message ?? e) }),
          )
        : { error: 'pdf.js cannot open the file' };
      const t2 = performance.now();
      row.pdfiumMs = Math.round(t1 - t0);
      row.pdfjsMs = Math.round(t2 - t1);
      const size = !a.error ? a : !b.error ? b : null;
      if (a.error) row.pdfiumError = a.error.slice(0, 120);
      if (b.error) row.pdfjsError = b.error.slice(0, 120);
      if (b.warnings?.length) row.pdfjsWarnings = b.warnings.slice(0, 3);
      if (size) {
        row.size = [size.width, size.height];
        const ref = await mutool(file, page.index, size.width, size.height, tmp);
        if (!ref) row.mutoolError = true;
        else {
          if (!a.error && a.width === size.width && a.height === size.height) row.pdfium = diff(a, ref);
          if (!b.error && b.width === size.width && b.height === size.height) row.pdfjs = diff(b, ref);
        }
      }
      pages.push(row);
    }
  } finally {
    await pdfjs?.destroy().catch(() => undefined);
    try {
      pdfium?.doc.destroy();
    } catch {
      // a dropped instance
    }
    rmSync(tmp, { recursive: true, force: true });
  }
  if ((n + 1) % 25 === 0) process.stderr.write(`${n + 1}/${files.length} files, ${pages.length} pages, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}
await writeResults(pages, SIZE, MAX_PAGES, files.length);

async function writeResults(rows, size, maxPages, fileCount) {
  writeFileSync(join(here, 'renderers-realworld.json'), `${JSON.stringify({ size, maxPages, files: fileCount, pages: rows }, null, 1)}\n`);
  const { renderSection } = await import('./renderers-realworld-report.mjs');
  const section = renderSection({ size, maxPages, pages: rows, files: fileCount });
  const path = join(here, 'RENDERERS.md');
  const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const marked = /<!-- realworld:start -->[\s\S]*?<!-- realworld:end -->\n?/;
  writeFileSync(path, marked.test(before) ? before.replace(marked, section) : `${before.trimEnd()}\n\n${section}`);
  console.log(section);
}
