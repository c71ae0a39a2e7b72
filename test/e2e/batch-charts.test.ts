/**
 * The batch index's charts (src/batch/charts.ts): the verdicts, the findings by code and by page as
 * inline SVG beside the table. Read back from the HTML as a parser would: each <svg> is well-formed
 * XML, an image with a title and a description, one bar per verdict / code / page with its label and
 * count as text; text from disk is escaped; a real batch run's charts agree with its summary; and in
 * Chromium axe-core finds nothing to fix on the page, at desktop width and at 390 px.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PAGE_BARS } from '../../src/batch/charts.js';
import { preflightFolder } from '../../src/batch/run.js';
import { renderIndexHtml, type BatchResult, type BatchSummary } from '../../src/batch/summary.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { ReportSchema } from '../../src/report/schema.js';
import { Browser } from '../helpers/cdp.js';

// fast-xml-parser's validator (in the tree through the AWS SDK): a real XML well-formedness check.
const { validate } = createRequire(import.meta.url)('fast-xml-parser') as { validate: (xml: string) => true | { err: { msg: string } } };

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pp-charts-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

interface Chart {
  svg: string;
  title: string;
  desc: string;
  bars: { title: string; texts: string[]; width: number }[];
}

/** The charts of an index page, by id, read from the SVG text. */
function charts(html: string): Record<string, Chart> {
  const out: Record<string, Chart> = {};
  for (const m of html.matchAll(/<svg\b[^>]*aria-labelledby="(chart-[a-z]+)-title[^"]*"[^>]*>[\s\S]*?<\/svg>/g)) {
    const svg = m[0];
    const bars = [...svg.matchAll(/<g class="bar [^"]*"><title>([^<]*)<\/title>([\s\S]*?)<\/g>/g)].map((b) => ({
      title: b[1]!,
      texts: [...b[2]!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]!),
      width: Number(/<rect[^>]*width="(\d+)"/.exec(b[2]!)?.[1]),
    }));
    out[m[1]!] = {
      svg,
      title: /<title id="[^"]+-title">([^<]*)<\/title>/.exec(svg)?.[1] ?? '',
      desc: /<desc id="[^"]+-desc">([^<]*)<\/desc>/.exec(svg)?.[1] ?? '',
      bars,
    };
  }
  return out;
}

const result = (file: string, verdict: BatchResult['verdict'], rules: Record<string, number>, pages?: Record<string, number>): BatchResult => ({
  file,
  sku: 'T-SHIRT-M',
  via: 'manifest',
  verdict,
  report: `reports/${file}.json`,
  html: `reports/${file}.html`,
  reason: verdict === 'error' ? 'no product for this file' : null,
  rules: rules as BatchResult['rules'],
  ...(pages ? { pages } : {}),
  reused: false,
});

function summaryOf(results: BatchResult[]): BatchSummary {
  const count = (v: string) => results.filter((r) => r.verdict === v).length;
  return { files: results.length, pass: count('pass'), warn: count('warn'), fail: count('fail'), error: count('error'), reused: 0, interrupted: false, pending: [], results };
}

describe('the charts of a batch index', () => {
  const summary = summaryOf([
    result('a.pdf', 'fail', { 'image-low-resolution': 3, 'page-size-mismatch': 1 }, { '1': 2, '2': 2 }),
    result('b.pdf', 'warn', { 'image-low-resolution': 1, 'font-not-embedded': 2 }, { file: 2, '1': 1 }),
    result('c.pdf', 'pass', {}, {}),
    // Read back from an earlier summary.json: a code and a page count as a hostile file could make them.
    result('d.pdf', 'fail', { '<script>alert(1)</script>&"x"': 1 }, { '45': 1, '31': 1 }),
    result('e.pdf', 'error', {}),
  ]);
  const html = renderIndexHtml(summary, 'Preflight of <orders>');
  const found = charts(html);

  it('three charts, each well-formed XML, an image named by its <title> and described by its <desc>', () => {
    expect(Object.keys(found).sort()).toEqual(['chart-codes', 'chart-pages', 'chart-verdicts']);
    for (const [id, c] of Object.entries(found)) {
      expect(validate(c.svg), id).toBe(true);
      expect(c.svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" role="img" /);
      expect(c.title.length, id).toBeGreaterThan(0);
      expect(c.desc.length, id).toBeGreaterThan(0);
    }
    expect(html).not.toMatch(/<script/i);
  });

  it('verdicts: one bar per verdict with its count as text, widths in proportion', () => {
    const v = found['chart-verdicts']!;
    expect(v.bars.map((b) => b.texts)).toEqual([
      ['pass', '1'],
      ['warn', '1'],
      ['fail', '2'],
      ['error', '1'],
    ]);
    expect(v.bars[2]!.width).toBeGreaterThan(v.bars[0]!.width);
    expect(v.desc).toBe('5 files: pass 1, warn 1, fail 2, error 1.');
  });

  it('codes: one bar per code found, summed over the files, most frequent first, escaped', () => {
    const c = found['chart-codes']!;
    expect(c.bars.length).toBe(4);
    expect(c.bars.map((b) => b.title)).toEqual(['image-low-resolution: 4', 'font-not-embedded: 2', '&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;x&quot;: 1', 'page-size-mismatch: 1']);
    // A long label is cut in the chart; the bar's <title> keeps it whole.
    expect(c.bars[2]!.texts[0]).toMatch(/…$/);
    expect(c.bars.map((b) => b.texts[1])).toEqual(['4', '2', '1', '1']);
  });

  it('pages: the whole file first, then each page in order; pages past the last bar counted together', () => {
    const p = found['chart-pages']!;
    expect(p.bars.map((b) => b.texts)).toEqual([
      ['whole file', '2'],
      ['page 1', '3'],
      ['page 2', '2'],
      [`page ${MAX_PAGE_BARS + 1}+`, '2'],
    ]);
  });

  it('a batch with no findings says so in every chart rather than drawing nothing', () => {
    const empty = charts(renderIndexHtml(summaryOf([result('c.pdf', 'pass', {}, {})]), 'Preflight'));
    expect(empty['chart-codes']!.bars).toEqual([]);
    expect(empty['chart-codes']!.svg).toContain('>none</text>');
    expect(empty['chart-pages']!.desc).toMatch(/no findings on a page/);
    for (const c of Object.values(empty)) expect(validate(c.svg)).toBe(true);
  });
});

describe('the charts of a real batch run', () => {
  const pool = new PreflightPool({ maxThreads: 2 });
  let index = '';
  let out = '';
  afterAll(() => pool.destroy());

  it("agree with the summary and the reports: a bar per code, the pages' counts summing to the findings", async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'T-SHIRT-M'));
    for (const f of ['reportlab-tshirt-M-exact.pdf', 'reportlab-tshirt-M-three-pages.pdf', 'qpdf-tshirt-M-sleeves-first.pdf']) copyFileSync(join('test/corpus/files', f), join(dir, 'T-SHIRT-M', f));
    out = join(dir, 'out');
    const summary = await preflightFolder(dir, { out, preflight: { pool } });
    expect(summary.files).toBe(3);
    index = readFileSync(join(out, 'index.html'), 'utf8');
    const found = charts(index);
    const codes = new Map<string, number>();
    const pages = new Map<string, number>();
    for (const r of summary.results) {
      const report = ReportSchema.parse(JSON.parse(readFileSync(join(out, r.report), 'utf8')));
      expect(Object.values(r.pages ?? {}).reduce((a, b) => a + b, 0)).toBe(report.findings.length);
      for (const f of report.findings) {
        codes.set(f.code, (codes.get(f.code) ?? 0) + 1);
        const key = f.page === null ? 'whole file' : `page ${f.page}`;
        pages.set(key, (pages.get(key) ?? 0) + 1);
      }
    }
    expect(codes.size).toBeGreaterThan(0);
    expect(new Map(found['chart-codes']!.bars.map((b) => [b.texts[0], Number(b.texts[1])]))).toEqual(codes);
    expect(new Map(found['chart-pages']!.bars.map((b) => [b.texts[0], Number(b.texts[1])]))).toEqual(pages);
    for (const c of Object.values(found)) expect(validate(c.svg)).toBe(true);
  }, 120_000);

  it('axe-core finds no violation in Chromium, at desktop width and at 390 px', async () => {
    expect(index, 'the batch above ran').not.toBe('');
    const browser = Browser.launch(join(tmp(), 'profile'));
    const axe = readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    try {
      for (const width of [1280, 390]) {
        const page = await browser.openSized(pathToFileURL(join(out, 'index.html')).href, { width, mobile: width < 500 });
        await page.until("document.readyState === 'complete'");
        // The charts are drawn: each SVG has a box on the page.
        expect(await page.evaluate<number>("[...document.querySelectorAll('svg[role=img]')].filter((s) => s.getBoundingClientRect().width > 100).length")).toBe(3);
        await page.evaluate(axe);
        const violations = await page.evaluateAsync<{ id: string; nodes: { target: string[] }[] }[]>(
          'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target })) })))',
        );
        expect(
          violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          `${width} px`,
        ).toEqual([]);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
