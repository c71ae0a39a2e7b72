/**
 * Hostile files under a stopwatch: each file of the hostile corpus (test/hostile/make-hostile.mjs)
 * is checked by the CLI in a process of its own under GNU time (`check --json`, default options,
 * 2 workers), and a batch of good files with every hostile file mixed in is run the same way under
 * a 2 GiB memory limit (prlimit --data: the process's private writable memory). Records peak RSS,
 * wall and CPU time, exit code and whether the report is schema-valid with the expected finding,
 * checks them against the goals of issues 12 and 28 (a report, exit 0 or 1, peak RSS ≤ 1 GiB, wall
 * ≤ 30 s), and writes the section between the `hostile` markers of bench/RESULTS.md (and
 * bench/hostile-results.json).
 *   npm run bench:hostile                      every file
 *   node bench/hostile.mjs --smoke             three small files, nothing written (a smoke run)
 *   node bench/hostile.mjs --note "TEXT"       a line in the section (e.g. that the machine was loaded)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { hostileCorpus } from '../test/hostile/make-hostile.mjs';
import { fixHostileCorpus } from '../test/hostile/make-fix-hostile.mjs';

const here = new URL('.', import.meta.url).pathname;
const root = join(here, '..');
const smoke = process.argv.includes('--smoke');
const WORKERS = 2;
const RSS_GOAL_MB = 1024;
const TIME_GOAL_S = 30;
const BATCH_LIMIT_BYTES = 2 * 1024 ** 3;
const noteAt = process.argv.indexOf('--note');
const note = noteAt >= 0 ? process.argv[noteAt + 1] : null;
const log = (s) => process.stderr.write(`${s}\n`);
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

if (!existsSync('/usr/bin/time')) {
  log('bench:hostile needs GNU time at /usr/bin/time (Debian: apt-get install time)');
  process.exit(2);
}
const { ReportSchema } = await import(join(root, 'dist/src/report/schema.js'));
const { BatchSummarySchema } = await import(join(root, 'dist/src/batch/summary.js'));

/** Runs the CLI under /usr/bin/time -v (inside `wrap`, e.g. prlimit): peak RSS (MB), wall and CPU time (s), exit code, stdout. */
function timed(args, wrap = []) {
  const command = [...wrap, '/usr/bin/time', '-v', process.execPath, join(root, 'bin/print-preflight.js'), ...args];
  const r = spawnSync(command[0], command.slice(1), {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const killed = /Command terminated by signal (\d+)/.exec(r.stderr);
  const cpu = user && system ? Number(user[1]) + Number(system[1]) : NaN;
  return { rssMb: rss ? Number(rss[1]) / 1024 : NaN, seconds, cpu, code: killed ? `signal ${killed[1]}` : r.status, stdout: r.stdout };
}

const dir = join(here, 'inputs', 'hostile');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
log('making the hostile corpus…');
let cases = await hostileCorpus();
if (smoke) cases = cases.filter((c) => ['empty.pdf', 'deflate-bomb.pdf', 'image-drawn-150000-times.pdf'].includes(c.name));

const rows = [];
for (const c of cases) {
  const file = join(dir, c.name);
  writeFileSync(file, c.bytes);
  const r = timed(['check', file, '--sku', 'TANKTOP-M', '--json', '--workers', String(WORKERS)]);
  let valid = false;
  let codes = [];
  try {
    const report = ReportSchema.parse(JSON.parse(r.stdout));
    valid = true;
    codes = [...new Set(report.findings.map((f) => f.code))];
  } catch {
    // not a report: recorded as such
  }
  const expected = c.expect.some((e) => codes.includes(e));
  const ok = valid && expected && (r.code === 0 || r.code === 1) && r.rssMb <= RSS_GOAL_MB && r.seconds <= TIME_GOAL_S;
  rows.push({
    name: c.name,
    issue: c.issue ?? 12,
    bytes: c.bytes.length,
    why: c.why,
    rssMb: Math.round(r.rssMb),
    seconds: Math.round(r.seconds * 100) / 100,
    cpuSeconds: Math.round(r.cpu * 100) / 100,
    code: r.code,
    codes,
    valid,
    expected,
    ok,
  });
  log(
    `${ok ? 'ok ' : 'NOT'} ${c.name}: ${Math.round(r.rssMb)} MB, ${r.seconds.toFixed(2)} s (CPU ${r.cpu.toFixed(2)} s), exit ${r.code}${valid ? '' : ', no report'}${expected ? '' : `, expected one of ${c.expect.join('/')}`}`,
  );
}

// Issue 33: acting on a verdict under the same goals — each transform hostile file through
// `fix --approve all` (every change the policy allows, applied), in its own process.
const fixDir = join(dir, 'fix');
mkdirSync(join(fixDir, 'out'), { recursive: true });
let fixCases = await fixHostileCorpus();
if (smoke) fixCases = fixCases.slice(0, 1);
const fixRows = [];
for (const c of fixCases) {
  const file = join(fixDir, c.name);
  writeFileSync(file, c.bytes);
  const r = timed(['fix', file, '--sku', 'TANKTOP-M', '--approve', 'all', '--out', join(fixDir, 'out', c.name), '--json']);
  let answered = false;
  try {
    const answer = JSON.parse(r.stdout);
    answered =
      Array.isArray(answer.changes) &&
      Array.isArray(answer.refused) &&
      (answer.report === null || ReportSchema.safeParse(answer.report).success) &&
      (answer.changes.length > 0 || answer.refused.length > 0);
  } catch {
    // no answer: recorded as such
  }
  const ok = answered && (r.code === 0 || r.code === 1) && r.rssMb <= RSS_GOAL_MB && r.seconds <= TIME_GOAL_S;
  fixRows.push({
    name: c.name,
    bytes: c.bytes.length,
    why: c.why,
    rssMb: Math.round(r.rssMb),
    seconds: Math.round(r.seconds * 100) / 100,
    cpuSeconds: Math.round(r.cpu * 100) / 100,
    code: r.code,
    answered,
    ok,
  });
  log(`${ok ? 'ok ' : 'NOT'} fix ${c.name}: ${Math.round(r.rssMb)} MB, ${r.seconds.toFixed(2)} s (CPU ${r.cpu.toFixed(2)} s), exit ${r.code}${answered ? '' : ', no answer'}`);
}

// A batch of good files with every hostile file mixed in, under a memory limit: the good ones keep their verdicts.
const batchDir = join(dir, 'batch');
const good = ['reportlab-tshirt-M-exact.pdf', 'imagemagick-tanktop-rgb-jpeg.pdf', 'reportlab-tshirt-M-three-pages.pdf', 'img2pdf-tanktop-cmyk-jpeg.pdf'];
const skuOf = (name) => (name.includes('tshirt') ? 'T-SHIRT-M' : 'TANKTOP-M');
const alone = {};
for (const g of good) {
  const r = timed(['check', join(root, 'test/corpus/files', g), '--sku', skuOf(g), '--json', '--workers', String(WORKERS)]);
  alone[g] = JSON.parse(r.stdout).verdict;
}
mkdirSync(batchDir, { recursive: true });
const heaviest = smoke ? [...rows].sort((a, b) => b.rssMb * b.seconds - a.rssMb * a.seconds).slice(0, 1) : rows;
for (const h of heaviest) copyFileSync(join(dir, h.name), join(batchDir, `TANKTOP-M__${h.name}`));
for (let i = 0; i < (smoke ? 1 : 5); i++) for (const g of good) copyFileSync(join(root, 'test/corpus/files', g), join(batchDir, `${skuOf(g)}__${i}-${g}`));
const batchOut = join(dir, 'batch-out');
const b = timed(['batch', batchDir, '--out', batchOut, '--workers', String(WORKERS), '--no-html'], ['prlimit', `--data=${BATCH_LIMIT_BYTES}`]);
const summary = BatchSummarySchema.parse(JSON.parse(readFileSync(join(batchOut, 'summary.json'), 'utf8')));
const changed = summary.results.filter((r) => {
  const g = good.find((x) => r.file.endsWith(x));
  return g && r.verdict !== alone[g];
});
const batch = {
  files: summary.files,
  hostile: heaviest.length,
  memoryLimitBytes: BATCH_LIMIT_BYTES,
  rssMb: Math.round(b.rssMb),
  seconds: Math.round(b.seconds * 10) / 10,
  cpuSeconds: Math.round(b.cpu * 10) / 10,
  code: b.code,
  errors: summary.error,
  goodVerdictsChanged: changed.map((r) => r.file),
};
log(
  `batch of ${summary.files} files (${heaviest.length} hostile) under prlimit --data=${BATCH_LIMIT_BYTES}: ${batch.rssMb} MB, ${batch.seconds} s, exit ${b.code}; good files with another verdict than alone: ${changed.length}`,
);

const allOk = rows.every((r) => r.ok) && fixRows.every((r) => r.ok) && changed.length === 0 && (b.code === 0 || b.code === 1) && summary.error === 0;
if (smoke) {
  log(`smoke run ${allOk ? 'passed' : 'FAILED'} (nothing written)`);
  process.exit(allOk ? 0 : 1);
}

const md = [
  '<!-- hostile:start -->',
  '## Hostile files (issues 12, 28 and 33)',
  '',
  `Each file checked alone: \`print-preflight check FILE --sku TANKTOP-M --json --workers ${WORKERS}\` in its own process under \`/usr/bin/time -v\`; default options. ${cpus()[0]?.model ?? '?'}, ${availableParallelism()} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Reproduce: \`npm run bench:hostile\`.`,
  `Goal per file: a schema-valid report with the expected finding, exit 0 or 1, peak RSS ≤ ${RSS_GOAL_MB} MB, wall ≤ ${TIME_GOAL_S} s (decided by the budgets, not the timeout).`,
  ...(note ? ['', `**${note}**`] : []),
  '',
  '| file | issue | size | peak RSS | wall | CPU | exit | report | expected finding | goal |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.issue} | ${grouped(r.bytes)} B | ${r.rssMb} MB | ${r.seconds} s | ${r.cpuSeconds} s | ${r.code} | ${r.valid ? 'valid' : 'none'} | ${r.expected ? 'yes' : 'no'} | ${r.ok ? 'met' : '**not met**'} |`,
  ),
  '',
  `Fix (issue 33): each transform hostile file through \`print-preflight fix FILE --sku TANKTOP-M --approve all --out OUT --json\`, same goals (an answer: the changes or the refusals with their reasons, and the check after).`,
  '',
  '| file | size | peak RSS | wall | CPU | exit | answer | goal |',
  '|---|---|---|---|---|---|---|---|',
  ...fixRows.map((r) => `| ${r.name} | ${grouped(r.bytes)} B | ${r.rssMb} MB | ${r.seconds} s | ${r.cpuSeconds} s | ${r.code} | ${r.answered ? 'yes' : 'none'} | ${r.ok ? 'met' : '**not met**'} |`),
  '',
  `Batch of ${batch.files} files (${good.length * 5} good, all ${batch.hostile} hostile ones), \`prlimit --data=${BATCH_LIMIT_BYTES} print-preflight batch --workers ${WORKERS} --no-html\`: peak RSS ${batch.rssMb} MB, ${batch.seconds} s (CPU ${batch.cpuSeconds} s), exit ${batch.code}, ${batch.errors} files in error; good files whose verdict differs from checking them alone: ${batch.goodVerdictsChanged.length ? batch.goodVerdictsChanged.join(', ') : 'none'}.`,
  '<!-- hostile:end -->',
  '',
].join('\n');
const resultsPath = join(here, 'RESULTS.md');
const before = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '# Benchmark results\n';
const block = /<!-- hostile:start -->[\s\S]*?<!-- hostile:end -->\n?/;
writeFileSync(resultsPath, block.test(before) ? before.replace(block, md) : `${before.trimEnd()}\n\n${md}`);
writeFileSync(join(here, 'hostile-results.json'), `${JSON.stringify({ files: rows, fix: fixRows, batch }, null, 2)}\n`);
log(`wrote bench/RESULTS.md (hostile section) and bench/hostile-results.json; goals ${allOk ? 'met' : 'NOT all met'}`);
