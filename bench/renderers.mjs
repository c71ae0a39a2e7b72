/**
 * pdf.js against PDFium (WebAssembly) page by page: render time, peak RSS, and pixel agreement of
 * each with `mutool draw` and `pdftoppm` at the same pixel size (mean absolute difference per
 * channel, 0–255, and the share of pixels off by more than 64 in a channel). Writes
 * bench/RENDERERS.md and prints it.
 *   node bench/renderers.mjs [file.pdf …]      (default: the corpus files and the vector inputs)
 *   node bench/renderers.mjs --one pdfjs|pdfium FILE   (one renderer, for its own peak RSS)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';

const here = new URL('.', import.meta.url).pathname;
const MAX_PX = Number(process.env.MAX_PX ?? 1200);
const PAGES = 4;

async function renderAll(kind, file) {
  // Each renderer is imported only when used, so that a --one process holds only its own.
  const { openWithPdfjs } = kind === 'pdfjs' ? await import('../dist/src/raster/pdfjs.js') : {};
  const { renderWithPdfjs } = kind === 'pdfjs' ? await import('../dist/src/raster/render.js') : {};
  const { openWithPdfium, renderWithPdfium } = kind === 'pdfium' ? await import('../dist/src/raster/pdfium.js') : {};
  const bytes = new Uint8Array(readFileSync(file));
  const t = performance.now();
  const doc = kind === 'pdfjs' ? await openWithPdfjs(bytes) : await openWithPdfium(bytes);
  const count = kind === 'pdfjs' ? doc.numPages : doc.doc.getPageCount();
  const pages = [];
  for (let i = 1; i <= Math.min(count, PAGES); i++) {
    const p0 = performance.now();
    const px = kind === 'pdfjs' ? await renderWithPdfjs(doc, i, MAX_PX) : await renderWithPdfium(doc, i, MAX_PX);
    pages.push({ index: i, ms: performance.now() - p0, px });
  }
  const ms = performance.now() - t;
  await (kind === 'pdfjs' ? doc.destroy() : doc.doc.destroy());
  return { ms, pages };
}

if (process.argv[2] === '--one') {
  const [, , , kind, file] = process.argv;
  const r = await renderAll(kind, file);
  console.log(JSON.stringify({ ms: r.ms, maxRssKb: process.resourceUsage().maxRSS }));
  process.exit(0);
}

async function rgb(png, width, height) {
  return sharp(png).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
}
function diff(px, ref) {
  const { data, width, height, channels } = px;
  let sum = 0;
  let off = 0;
  for (let i = 0, j = 0; i < width * height; i++) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(data[i * channels + c] - ref[j + c]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > 64) off++;
    j += 3;
  }
  return { mean: sum / (width * height * 3), off: off / (width * height) };
}

async function references(file, index, width, height, tmp) {
  const refs = {};
  const mu = join(tmp, `mu-${index}.png`);
  if (spawnSync('mutool', ['draw', '-q', '-w', String(width), '-h', String(height), '-o', mu, file, String(index)]).status === 0 && existsSync(mu))
    refs.mutool = await rgb(readFileSync(mu), width, height);
  const pp = join(tmp, `pp-${index}`);
  if (spawnSync('pdftoppm', ['-f', String(index), '-l', String(index), '-scale-to', String(Math.max(width, height)), '-png', '-singlefile', file, pp]).status === 0 && existsSync(`${pp}.png`))
    refs.pdftoppm = await rgb(readFileSync(`${pp}.png`), width, height);
  return refs;
}

/**
 * Peak RSS of a process rendering the file with one renderer. Started through a small python:
 * Linux folds the RSS a process had before exec() into its maxrss, so a child forked straight from
 * this (large) process would report at least this process's size.
 */
const PEAK = `
import json, resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"maxRssKb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "ok": r.returncode == 0, "err": r.stderr[:200]}))
`;
function peak(kind, file) {
  const out = spawnSync('/usr/bin/python3', ['-c', PEAK, process.execPath, new URL(import.meta.url).pathname, '--one', kind, file], { encoding: 'utf8' });
  try {
    const r = JSON.parse(out.stdout.trim().split('\n').pop());
    return r.ok ? r : { maxRssKb: NaN, error: r.err };
  } catch {
    return { maxRssKb: NaN, error: (out.stderr || '').split('\n')[0] };
  }
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [
        ...readdirSync(join(here, '../test/corpus/files'))
          .filter((f) => f.endsWith('.pdf') && !f.startsWith('broken') && !f.includes('user-password'))
          .map((f) => join(here, '../test/corpus/files', f)),
        ...['five-metre.pdf', 'catalogue-8.pdf'].map((f) => join(here, 'inputs', f)).filter(existsSync),
      ];
const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const rows = [
  '| file | pages | pdf.js ms | PDFium ms | pdf.js RSS | PDFium RSS | pdf.js vs mutool | PDFium vs mutool | pdf.js vs pdftoppm | PDFium vs pdftoppm |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const file of files) {
  const tmp = mkdtempSync(join(tmpdir(), 'pprend-'));
  const results = {};
  for (const kind of ['pdfjs', 'pdfium']) {
    try {
      results[kind] = await renderAll(kind, file);
    } catch (e) {
      results[kind] = { error: String(e.message ?? e).split('\n')[0] };
    }
  }
  const agree = { pdfjs: { mutool: [], pdftoppm: [] }, pdfium: { mutool: [], pdftoppm: [] } };
  const base = results.pdfium.pages ?? results.pdfjs.pages ?? [];
  for (const p of base) {
    const refs = await references(file, p.index, p.px.width, p.px.height, tmp);
    for (const kind of ['pdfjs', 'pdfium']) {
      const mine = results[kind].pages?.find((q) => q.index === p.index);
      if (!mine || mine.px.width !== p.px.width || mine.px.height !== p.px.height) continue;
      for (const [ref, buf] of Object.entries(refs)) agree[kind][ref].push(diff(mine.px, buf));
    }
  }
  const avg = (xs) => (xs.length ? `${f2(xs.reduce((s, x) => s + x.mean, 0) / xs.length)} / ${(100 * Math.max(...xs.map((x) => x.off))).toFixed(1)} %` : '–');
  const mem = { pdfjs: peak('pdfjs', file), pdfium: peak('pdfium', file) };
  const ms = (k) => (results[k].error ? `error: ${results[k].error.slice(0, 60)}` : results[k].ms.toFixed(0));
  rows.push(
    `| ${basename(file)} | ${base.length} | ${ms('pdfjs')} | ${ms('pdfium')} | ${(mem.pdfjs.maxRssKb / 1024).toFixed(0)} MB | ${(mem.pdfium.maxRssKb / 1024).toFixed(0)} MB | ${avg(agree.pdfjs.mutool)} | ${avg(agree.pdfium.mutool)} | ${avg(agree.pdfjs.pdftoppm)} | ${avg(agree.pdfium.pdftoppm)} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
  rmSync(tmp, { recursive: true, force: true });
}
const md = `# pdf.js and PDFium, page by page

Up to ${PAGES} pages per file at ${MAX_PX} px on the longest side, in one process (times include opening the file).
Agreement: mean absolute difference per channel (0–255) / worst page's share of pixels off by more than 64, against \`mutool draw\` and \`pdftoppm\` at the same pixel size.
\`pdftoppm -scale-to\` may round the short side one pixel differently (five-metre.pdf: 361 px for our 360); its image is then resized to ours, which on very fine patterns dominates that column.
RSS: peak of a process that renders the file with that renderer alone. Reproduce: \`npm run build && node bench/renderers.mjs\`.

${rows.join('\n')}
`;
// The real-world section (written from `npm run realworld` runs) is kept as it is.
const KEEP = '\n## Previews against Ghostscript on the real-world corpus';
const before = existsSync(join(here, 'RENDERERS.md')) ? readFileSync(join(here, 'RENDERERS.md'), 'utf8') : '';
const kept = before.includes(KEEP) ? before.slice(before.indexOf(KEEP)) : '';
writeFileSync(join(here, 'RENDERERS.md'), md + kept);
console.log(md);
