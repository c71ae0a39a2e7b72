/**
 * One measured task, in its own process so that its peak RSS is its own: a warm-up run, then N
 * timed runs. Prints JSON { times: [ms…], cpu: [ms…], maxRssKb } (CPU of the whole process, workers
 * included).
 *   node bench/task.mjs <task> <file-or-dir> <runs> [workers]
 * Tasks: hash, structure, previews, full, mupdfjs, batch-structure, batch-full, leak.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreflightPool, preflight, preflightFolder, preflightWithPreviews } from '../dist/src/index.js';

const [task, target, runsArg, workersArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const workers = Number(workersArg ?? 2);
const sku = { sku: 'DUVET-COVER-200X200' };
const pool = ['hash', 'structure', 'mupdfjs'].includes(task) ? null : new PreflightPool({ maxThreads: workers, taskTimeoutMs: 600_000 });

async function mupdfPreviews(file) {
  const mupdf = await import('./node_modules/mupdf/dist/mupdf.js');
  const doc = mupdf.Document.openDocument(await readFile(file), 'application/pdf');
  for (let i = 0; i < doc.countPages(); i++) {
    const page = doc.loadPage(i);
    const [x0, y0, x1, y1] = page.getBounds();
    const s = 1200 / Math.max(x1 - x0, y1 - y0);
    const pix = page.toPixmap(mupdf.Matrix.scale(s, s), mupdf.ColorSpace.DeviceRGB, false, true);
    pix.asPNG();
    pix.destroy();
    page.destroy();
  }
  doc.destroy();
}

const jobs = {
  hash: async () =>
    createHash('sha256')
      .update(await readFile(target))
      .digest('hex'),
  structure: () => preflight(target, sku, { raster: false, pool: false }),
  previews: () => preflightWithPreviews(target, sku, { pool, previewSize: 1200, previewFormat: 'png', maxRasterPages: 100_000 }),
  full: () => preflight(target, sku, { pool, maxRasterPages: 100_000 }),
  mupdfjs: () => mupdfPreviews(target),
  'batch-structure': async () => {
    const out = mkdtempSync(join(tmpdir(), 'ppb-'));
    await preflightFolder(target, { out, html: false, preflight: { pool, raster: false } });
    rmSync(out, { recursive: true, force: true });
  },
  'batch-full': async () => {
    const out = mkdtempSync(join(tmpdir(), 'ppb-'));
    await preflightFolder(target, { out, html: false, preflight: { pool } }); // default concurrency: 2 files per worker
    rmSync(out, { recursive: true, force: true });
  },
};

if (task === 'leak') {
  // 1,000 files through one process: RSS after 100 and after 1,000 (after a GC each time).
  const files = readdirSync(target)
    .filter((f) => f.endsWith('.pdf'))
    .map((f) => join(target, f));
  const rss = {};
  let n = 0;
  const started = performance.now();
  while (n < 1000) {
    for (const f of files) {
      const name = f.split('/').pop();
      await preflight(f, { sku: name.split('__')[0] }, { pool });
      n++;
      if (n === 100 || n === 1000) {
        globalThis.gc?.();
        await new Promise((r) => setTimeout(r, 200));
        rss[n] = process.memoryUsage().rss;
      }
      if (n === 1000) break;
    }
  }
  console.log(JSON.stringify({ rss100: rss[100], rss1000: rss[1000], ms: performance.now() - started, maxRssKb: process.resourceUsage().maxRSS }));
} else {
  const job = jobs[task];
  if (!job) throw new Error(`unknown task ${task}`);
  await job(); // warm-up: JIT, workers started, profiles loaded
  const times = [];
  const cpu = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = process.cpuUsage(); // the whole process: this thread and every pool worker
    await job();
    times.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  console.log(JSON.stringify({ times, cpu, maxRssKb: process.resourceUsage().maxRSS }));
}
await pool?.destroy();
