/**
 * `npm run realworld -- DIR [--json OUT]`: compares our facts with poppler's and qpdf's on every PDF
 * in DIR (see compare.ts), prints the agreement figures and every difference the reviewed list
 * (known-differences.json) does not explain, and exits 1 when there is one.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PreflightPool } from '../../src/pool/pool.js';
import { compareFile, formatPixelDistribution, formatSummary, summarise, type FileResult, type KnownDifference } from './compare.js';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const dir = args.find((a, i) => !a.startsWith('--') && !(jsonAt >= 0 && i === jsonAt + 1));
if (!dir) {
  console.error('usage: npm run realworld -- DIR [--json OUT] [--no-pixels]   (DIR from: node test/realworld/extract.mjs DIR)');
  process.exit(2);
}
// The previews against Ghostscript (and poppler, MuPDF) take most of the run; --no-pixels skips them.
const pool = args.includes('--no-pixels') ? undefined : new PreflightPool({ taskTimeoutMs: 120_000 });
const knownPath = new URL('../../../test/realworld/known-differences.json', import.meta.url);
const known = (JSON.parse(readFileSync(knownPath, 'utf8')) as { differences: KnownDifference[] }).differences;
const files = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith('.pdf'))
  .sort();
const results: FileResult[] = [];
for (const file of files) {
  const path = join(dir, file);
  try {
    results.push(await compareFile(file, path, new Uint8Array(readFileSync(path)), pool));
  } catch (error) {
    console.error(`${file}: the comparison itself failed: ${(error as Error).stack}`);
    process.exitCode = 1;
  }
}
await pool?.destroy();
const summary = summarise(results, known);
console.log(formatSummary(summary));
if (pool) console.log(`\n${formatPixelDistribution(results)}\n`);
for (const d of summary.unexplained) console.log(`NEW  ${d.file} [${d.aspect}] ${d.where}: ours ${d.ours} | oracle ${d.oracle}`);
for (const k of summary.stale) console.log(`STALE known difference no longer seen: ${k.file} [${k.aspect}] ${k.where ?? ''}`);
if (jsonAt >= 0 && args[jsonAt + 1]) writeFileSync(args[jsonAt + 1]!, `${JSON.stringify({ summary, results }, null, 1)}\n`);
if (summary.unexplained.length) process.exitCode = 1;
