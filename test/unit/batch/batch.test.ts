import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTemporaryName } from '../../../src/util/durable.js';
import { readManifest, resolveTarget } from '../../../src/batch/discover.js';
import { preflightFolder } from '../../../src/batch/run.js';
import { BatchSummarySchema } from '../../../src/batch/summary.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { loadProfiles } from '../../../src/profile/load.js';
import { ReportSchema } from '../../../src/report/schema.js';
import { heavyPdf } from '../../helpers/heavy-pdf.js';
import { expectPublished } from '../../helpers/contracts.js';

const corpus = (name: string) => `test/corpus/files/${name}`;
const tmp = () => mkdtempSync(join(tmpdir(), 'pp-batch-'));
const put = (dir: string, rel: string, from: string | Uint8Array) => {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  if (typeof from === 'string') copyFileSync(from, join(dir, rel));
  else writeFileSync(join(dir, rel), from);
};

/** A folder of mixed files, with the verdict each must get. */
function mixedFolder() {
  const dir = tmp();
  put(dir, 'T-SHIRT-M/good.pdf', corpus('reportlab-tshirt-M-exact.pdf'));
  put(dir, 'T-SHIRT-M__three-pages.pdf', corpus('reportlab-tshirt-M-three-pages.pdf'));
  put(dir, 'orders/tank.pdf', corpus('pikepdf-tanktop-icc-cmyk.pdf'));
  put(dir, 'orders/photo.pdf', corpus('broken-png-renamed.pdf'));
  put(dir, 'orders/unmapped.pdf', corpus('gs-duvet-exact.pdf'));
  put(dir, 'curtains/CURTAINS-140X260/heavy.pdf', heavyPdf(2_000_000));
  writeFileSync(join(dir, 'notes.txt'), 'not a pdf: ignored');
  writeFileSync(join(dir, 'manifest.csv'), 'file,product,variant\norders/tank.pdf,tanktop,M\n"orders/photo.pdf",duvet-cover,200x200\n');
  return {
    dir,
    expected: {
      'T-SHIRT-M/good.pdf': 'pass',
      'T-SHIRT-M__three-pages.pdf': 'fail',
      'orders/tank.pdf': 'warn',
      'orders/photo.pdf': 'fail',
      'orders/unmapped.pdf': 'error',
      'curtains/CURTAINS-140X260/heavy.pdf': 'fail',
    } as Record<string, string>,
  };
}

describe('preflightFolder', () => {
  const pool = new PreflightPool({ maxThreads: 2, maxWorkerMemoryMb: 64 });
  afterAll(() => pool.destroy());

  it('judges every file of a mixed folder, one crashing a worker, and writes reports, summary and index', async () => {
    const { dir, expected } = mixedFolder();
    const out = join(dir, 'out');
    const progress: number[] = [];
    const summary = await preflightFolder(dir, {
      out,
      manifest: join(dir, 'manifest.csv'),
      preflight: { pool },
      onProgress: (p) => progress.push(p.done),
    });
    BatchSummarySchema.parse(expectPublished('batch-summary', readFileSync(join(out, 'summary.json')), 'summary.json'));
    expect(Object.fromEntries(summary.results.map((r) => [r.file, r.verdict]))).toEqual(expected);
    expect(summary).toMatchObject({ files: 6, pass: 1, warn: 1, fail: 3, error: 1, reused: 0, interrupted: false });
    expect(progress.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const heavy = summary.results.find((r) => r.file.endsWith('heavy.pdf'))!;
    expect(heavy.rules).toHaveProperty('pdf-too-complex');
    expect(summary.results.find((r) => r.file === 'orders/unmapped.pdf')!.reason).toMatch(/no product for this file/);
    for (const r of summary.results) {
      const bytes = readFileSync(join(out, r.report));
      if (r.verdict === 'error') expect(expectPublished('batch-error', bytes, r.report)).toMatchObject({ verdict: 'error' });
      else expect(ReportSchema.parse(expectPublished('report', bytes, r.report)).verdict).toBe(r.verdict);
      if (r.html) expect(readFileSync(join(out, r.html), 'utf8')).toContain(`data-verdict="${r.verdict}"`);
    }
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    expect(index).toContain('href="reports/T-SHIRT-M/good.pdf.html"');
    expect((index.match(/<tr class="/g) ?? []).length).toBe(6);
  }, 120_000);

  it('draws the pages that print; every page only when every preview is asked for', async () => {
    // qpdf puts Ghostscript's two duvet pages twice into one file: pages 3 and 4 are no layer.
    const dir = tmp();
    mkdirSync(join(dir, 'DUVET-COVER-200X200'));
    const four = join(dir, 'DUVET-COVER-200X200', 'four.pdf');
    execFileSync('qpdf', ['--empty', '--pages', corpus('gs-duvet-exact.pdf'), corpus('gs-duvet-exact.pdf'), '--', four]);
    const out = join(dir, 'out');
    await preflightFolder(dir, { out, preflight: { pool } });
    const report = () => ReportSchema.parse(JSON.parse(readFileSync(join(out, 'reports/DUVET-COVER-200X200/four.pdf.json'), 'utf8')));
    const html = () => readFileSync(join(out, 'reports/DUVET-COVER-200X200/four.pdf.html'), 'utf8');
    expect(report().pages.map((p) => [p.layer, p.raster !== null])).toEqual([
      ['front', true],
      ['back', true],
      [null, false],
      [null, false],
    ]);
    // JPEG: a quarter of WebP's encoding CPU for the previews a batch inlines.
    expect((html().match(/<img class="preview" alt="Page \d preview" src="data:image\/jpeg;base64,\/9j\//g) ?? []).length).toBe(2);
    expect((html().match(/Not drawn: this page is no layer of the product/g) ?? []).length).toBe(2);
    // Asked for every preview, the rerun does not keep the report whose pages 3–4 were not drawn.
    const all = await preflightFolder(dir, { out, preflight: { pool, previewPages: 'all' } });
    expect(all.reused).toBe(0);
    expect(report().pages.every((p) => p.raster !== null)).toBe(true);
    expect((html().match(/<img class="preview"/g) ?? []).length).toBe(4);
  }, 60_000);

  it('keeps the reports of unchanged files on a rerun, and judges again what changed', async () => {
    const dir = tmp();
    put(dir, 'T-SHIRT-M__a.pdf', corpus('reportlab-tshirt-M-exact.pdf'));
    put(dir, 'T-SHIRT-M__b.pdf', corpus('reportlab-tshirt-M-exact.pdf'));
    const out = join(dir, 'out');
    const first = await preflightFolder(dir, { out, preflight: { pool, raster: false }, html: false });
    expect(first.reused).toBe(0);
    const again = await preflightFolder(dir, { out, preflight: { pool, raster: false }, html: false });
    expect(again.reused).toBe(2);
    put(dir, 'T-SHIRT-M__b.pdf', corpus('reportlab-tshirt-M-three-pages.pdf'));
    const changed = await preflightFolder(dir, { out, preflight: { pool, raster: false }, html: false });
    expect(changed.results.map((r) => [r.file, r.verdict, r.reused])).toEqual([
      ['T-SHIRT-M__a.pdf', 'pass', true],
      ['T-SHIRT-M__b.pdf', 'fail', false],
    ]);
    const stricter = await preflightFolder(dir, { out, preflight: { pool, raster: false, limits: { minPpi: 200 } }, html: false });
    expect(stricter.reused).toBe(0);
  }, 60_000);
});

describe('manifests and product resolution', () => {
  const manifestFile = (text: string, ext = 'csv') => {
    const p = join(tmp(), `m.${ext}`);
    writeFileSync(p, text);
    return p;
  };

  it.each([
    ['csv with sku', 'file,sku\r\na.pdf,T-SHIRT-M\n"b, c.pdf",HOODIE-L\n', 'csv'],
    ['csv with product and variant', '\uFEFFfile,product,variant\na.pdf,t-shirt,M\n"b, c.pdf",hoodie,L\n', 'csv'],
    [
      'json array',
      JSON.stringify([
        { file: 'a.pdf', sku: 'T-SHIRT-M' },
        { file: './b, c.pdf', product: 'hoodie', variant: 'L' },
      ]),
      'json',
    ],
    ['json object', JSON.stringify({ 'a.pdf': 'T-SHIRT-M', 'b, c.pdf': 'HOODIE-L' }), 'json'],
  ])('reads a %s', async (_n, text, ext) => {
    const m = await readManifest(manifestFile(text, ext));
    const registry = await loadProfiles();
    expect([...m.keys()]).toEqual(['a.pdf', 'b, c.pdf']);
    const b = resolveTarget('b, c.pdf', m, registry);
    expect('target' in b && registry.resolve(b.target).sku.toUpperCase()).toBe('HOODIE-L');
  });

  it.each([
    ['name,sku\na.pdf,X\n', /header must be "file,sku" or "file,product,variant"/],
    ['file,sku\n,T-SHIRT-M\n', /line 2 has no file/],
    ['file,product,variant\na.pdf,t-shirt,\n', /line 2 \(a\.pdf\) needs a sku, or a product and a variant/],
  ])('rejects a broken manifest: %j', async (text, message) => {
    await expect(readManifest(manifestFile(text))).rejects.toThrow(message);
  });

  it('resolves by manifest, then file name, then the nearest SKU folder', async () => {
    const registry = await loadProfiles();
    const m = new Map([['HOODIE-M/TANKTOP-S__x.pdf', { sku: 'T-SHIRT-L' }]]);
    expect(resolveTarget('HOODIE-M/TANKTOP-S__x.pdf', m, registry)).toMatchObject({ target: { sku: 'T-SHIRT-L' }, via: 'manifest' });
    expect(resolveTarget('HOODIE-M/TANKTOP-S__x.pdf', new Map(), registry)).toMatchObject({ target: { sku: 'TANKTOP-S' }, via: 'file name' });
    expect(resolveTarget('HOODIE-M/orders/x.pdf', new Map(), registry)).toMatchObject({ target: { sku: 'HOODIE-M' }, via: 'folder' });
    expect(resolveTarget('NOPE__x.pdf', new Map(), registry)).toMatchObject({ error: expect.stringMatching(/"NOPE" is not a known SKU/) });
  });
});

describe('the batch command under kill -9 and SIGINT', () => {
  const folderOf = (n: number) => {
    const dir = tmp();
    const names = ['reportlab-tshirt-M-exact.pdf', 'reportlab-tshirt-M-three-pages.pdf', 'qpdf-tshirt-M-object-streams.pdf'];
    for (let i = 0; i < n; i++) put(dir, `T-SHIRT-M__${String(i).padStart(2, '0')}.pdf`, corpus(names[i % names.length]!));
    return dir;
  };
  const start = (dir: string, out: string) =>
    spawn(process.execPath, ['bin/print-preflight.js', 'batch', dir, '--out', out, '--concurrency', '1', '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const reportsDone = (out: string) => {
    try {
      // A temporary (killed between write and rename) ends in .pdf.json too, but is no report.
      return readdirSync(join(out, 'reports')).filter((f) => f.endsWith('.pdf.json') && !isTemporaryName(f)).length;
    } catch {
      return 0;
    }
  };
  const waitFor = async (cond: () => boolean, ms = 60_000) => {
    const until = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const exit = (child: ReturnType<typeof start>) => new Promise<number | null>((r) => child.on('close', (code, sig) => r(code ?? (sig ? -1 : null))));

  it('resumes after kill -9: every file ends with exactly one complete report', async () => {
    const dir = folderOf(12);
    const out = join(dir, 'out');
    const child = start(dir, out);
    await waitFor(() => reportsDone(out) >= 3);
    child.kill('SIGKILL');
    await exit(child);
    const before = reportsDone(out);
    expect(before).toBeLessThan(12);
    const rerun = start(dir, out);
    let stdout = '';
    rerun.stdout.on('data', (d) => (stdout += d));
    expect(await exit(rerun)).toBe(1); // a third of the files fail
    expect(stdout).toMatch(new RegExp(`12 files: 8 pass, 0 warn, 4 fail, 0 error \\(${before} kept from an earlier run\\)`));
    const all = readdirSync(join(out, 'reports'));
    expect(all.filter((f) => f.endsWith('.pdf.json'))).toHaveLength(12);
    expect(all.filter((f) => isTemporaryName(f))).toEqual([]);
    for (const f of all.filter((x) => x.endsWith('.json'))) ReportSchema.parse(expectPublished('report', readFileSync(join(out, 'reports', f)), f));
  }, 120_000);

  it('on SIGINT finishes the file in flight, writes the summary and exits 130', async () => {
    const dir = folderOf(12);
    const out = join(dir, 'out');
    const child = start(dir, out);
    await waitFor(() => reportsDone(out) >= 2);
    child.kill('SIGINT');
    expect(await exit(child)).toBe(130);
    const summary = BatchSummarySchema.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.interrupted).toBe(true);
    expect(summary.results.length + summary.pending.length).toBe(12);
    expect(summary.pending.length).toBeGreaterThan(0);
    expect(reportsDone(out)).toBe(summary.results.length);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
  }, 120_000);
});
