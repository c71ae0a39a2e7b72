/**
 * The real-world renderer comparison (bench/renderers-realworld.json, written by
 * renderers-realworld.mjs) as the marked section of bench/RENDERERS.md.
 *   node bench/renderers-realworld-report.mjs   (re-renders the section from the JSON)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const quantile = (xs, f) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const pct = (n) => (Number.isFinite(n) ? `${(100 * n).toFixed(2)} %` : '–');

/**
 * Pages PDFium draws although it differs more from mutool than pdf.js does, looked at side by side
 * (PDFium | pdf.js | mutool at 1200 px): why PDFium stays the engine for them.
 */
const REVIEWED = {
  'pypdf__resources__outline-without-title.pdf': 'dense 10-pt TeX Type 1 text (CMR) drawn a little bolder than MuPDF and pdf.js draw it; the same glyphs in the same places, nothing missing',
  'pypdf__resources__outlines-with-invalid-destinations.pdf': 'the same document as outline-without-title.pdf: bolder anti-aliasing of dense Type 1 text, nothing missing',
  'pdf.js__test__pdfs__IndexedCS_negative_and_high.pdf':
    'a test of Indexed colour indices below 0 and above hival in vector fills: PDFium clamps them other than MuPDF; indices within range draw alike, and the structure cannot tell the two apart',
};

/** PDFium is measurably worse on a page: more than 1 % of pixels off by > 64 where pdf.js has at most half as many, or a mean difference over 2 and twice pdf.js's. */
export function worse(a, b) {
  return (a.off > 0.01 && a.off > 2 * b.off) || (a.mean > 2 && a.mean > 2 * b.mean + 1);
}

function row(name, pages) {
  const both = pages.filter((p) => p.pdfium && p.pdfjs);
  const cells = [name, pages.length];
  for (const k of ['pdfium', 'pdfjs']) {
    const mean = both.map((p) => p[k].mean);
    const off = both.map((p) => p[k].off);
    const max = mean.reduce((m, x) => Math.max(x, m), Number.NEGATIVE_INFINITY);
    cells.push(`${f2(quantile(mean, 0.5))} / ${f2(quantile(mean, 0.9))} / ${f2(quantile(mean, 0.99))} / ${f1(max)}`);
    cells.push(pct(quantile(off, 0.99)));
  }
  cells.push(both.filter((p) => worse(p.pdfium, p.pdfjs)).length, both.filter((p) => worse(p.pdfjs, p.pdfium)).length);
  const ms = (k) => pages.reduce((s, p) => s + (p[`${k}Ms`] ?? 0), 0) / Math.max(1, pages.length);
  cells.push(`${ms('pdfium').toFixed(0)} / ${ms('pdfjs').toFixed(0)}`);
  return `| ${cells.join(' | ')} |`;
}

export function renderSection({ size, maxPages, pages, files }) {
  const lines = [
    '<!-- realworld:start -->',
    '## Real-world corpus, page by page (PDFium and pdf.js against mutool draw)',
    '',
    `${files} files of the real-world manifest (\`npm run realworld:extract\`), ${pages.length} pages (up to ${maxPages} per file), each drawn at ${size} px on its longest side by PDFium and by pdf.js in one process, and by \`mutool draw\` at the same pixel size.`,
    'Per page: mean absolute difference per channel (0–255) against mutool, and the share of pixels off by more than 64 in a channel.',
    'Columns give the median / 90th percentile / 99th percentile / worst page of the mean difference, and the 99th percentile of the share off; "worse" counts pages where one engine is measurably worse than the other (more than 1 % of pixels off and twice the other\'s share, or a mean difference over 2 and more than twice the other\'s plus 1).',
    '"chosen" is the engine raster/renderer.ts picks for the page (`image` when the page is drawn from its one image).',
    'Reproduce: `npm run build && node bench/renderers-realworld.mjs DIR` (DIR from `npm run realworld:extract -- DIR`).',
    '',
    '| pages | count | PDFium mean diff (p50 / p90 / p99 / max) | PDFium off p99 | pdf.js mean diff (p50 / p90 / p99 / max) | pdf.js off p99 | PDFium worse | pdf.js worse | ms per page, PDFium / pdf.js |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const groups = [
    ['all', () => true],
    ['chosen: pdfium', (p) => p.choice === 'pdfium'],
    ['chosen: pdfjs', (p) => p.choice === 'pdfjs'],
    ['chosen: image', (p) => p.choice === 'image'],
    ['embedded fonts', (p) => p.traits.some((t) => t.startsWith('fonts:'))],
    ['embedded TrueType', (p) => p.traits.some((t) => t.startsWith('fonts:') && t.includes('TrueType'))],
    ['embedded CFF / OpenType', (p) => p.traits.some((t) => t.startsWith('fonts:') && (t.includes('CFF') || t.includes('OpenType')))],
    ['embedded Type 1', (p) => p.traits.some((t) => t.startsWith('fonts:') && t.includes('Type1'))],
    ['Type 3 fonts', (p) => p.traits.some((t) => t.startsWith('fonts:') && t.includes('Type3'))],
    ['no embedded font', (p) => !p.traits.some((t) => t.startsWith('fonts:'))],
    ['printable annotations', (p) => p.traits.includes('annotations')],
    ['JBIG2 images', (p) => p.traits.includes('JBIG2Decode')],
    ['JPEG 2000 images', (p) => p.traits.includes('JPXDecode')],
    ['ICC-based images', (p) => p.traits.includes('icc-image')],
  ];
  for (const [name, keep] of groups) lines.push(row(name, pages.filter(keep)));
  const both = pages.filter((p) => p.pdfium && p.pdfjs);
  const chosenWorse = both.filter((p) => p.choice === 'pdfium' && worse(p.pdfium, p.pdfjs));
  lines.push('', `Pages PDFium draws (chosen: pdfium) where it is measurably worse than pdf.js: ${chosenWorse.length} of ${both.filter((p) => p.choice === 'pdfium').length}.`);
  if (chosenWorse.length) {
    lines.push('', '| file | page | PDFium mean / off | pdf.js mean / off | traits | reviewed |', '|---|---|---|---|---|---|');
    for (const p of chosenWorse)
      lines.push(
        `| ${p.file} | ${p.page} | ${f1(p.pdfium.mean)} / ${pct(p.pdfium.off)} | ${f1(p.pdfjs.mean)} / ${pct(p.pdfjs.off)} | ${p.traits.join(', ')} | ${REVIEWED[p.file] ?? '**not reviewed**'} |`,
      );
  }
  const moved = both.filter((p) => p.choice === 'pdfjs' && worse(p.pdfium, p.pdfjs));
  lines.push('', `Pages left to pdf.js where PDFium is measurably worse: ${moved.length} (the classes raster/renderer.ts sends to pdf.js).`);
  const failed = pages.filter((p) => p.pdfiumError || p.pdfjsError);
  if (failed.length) {
    lines.push('', '| failed to draw | page | PDFium | pdf.js |', '|---|---|---|---|');
    for (const p of failed) lines.push(`| ${p.file} | ${p.page} | ${p.pdfiumError ?? 'drawn'} | ${p.pdfjsError ?? 'drawn'} |`);
  }
  const noRef = pages.filter((p) => p.mutoolError).length;
  if (noRef) lines.push('', `${noRef} pages have no mutool reference (mutool failed on them) and are not compared.`);
  lines.push('<!-- realworld:end -->', '');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const here = new URL('.', import.meta.url).pathname;
  const data = JSON.parse(readFileSync(join(here, 'renderers-realworld.json'), 'utf8'));
  const files = new Set(data.pages.map((p) => p.file)).size;
  const section = renderSection({ ...data, files: data.files ?? files });
  const path = join(here, 'RENDERERS.md');
  const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const marked = /<!-- realworld:start -->[\s\S]*?<!-- realworld:end -->\n?/;
  writeFileSync(path, marked.test(before) ? before.replace(marked, section) : `${before.trimEnd()}\n\n${section}`);
  console.log(section);
}
