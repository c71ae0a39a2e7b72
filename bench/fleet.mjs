/**
 * Fleet benchmark: jobs per second of `batch --redis` with 1 and 2 `worker` processes (one pool
 * thread each) against a Redis started here, the same folder judged by the embedded batch with one
 * thread, and the queue's overhead per job. Writes bench/FLEET.md and bench/fleet-results.json.
 *
 *   npm run bench:fleet                      the 200-file folder of bench/generate.mjs (medians of 3 runs)
 *   node bench/fleet.mjs --smoke             8 small corpus files, 1 run (checks the script works)
 *   node bench/fleet.mjs --folder DIR [--limit N] [--runs N]
 *
 * Overhead per job: the same batch run again when every report is kept (each file is read and
 * hashed, nothing is rendered), over Redis and embedded; the difference divided by the files is
 * what the queue adds to a job (enqueue, hand-out, completion, result back), without the noise of
 * the rendering itself.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const here = new URL('.', import.meta.url).pathname;
const root = join(here, '..');
const BIN = join(root, 'bin', 'print-preflight.js');
const log = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { values } = parseArgs({
  options: {
    folder: { type: 'string' },
    limit: { type: 'string' },
    runs: { type: 'string' },
    smoke: { type: 'boolean' },
  },
});
const RUNS = Number(values.runs ?? (values.smoke ? 1 : 3));

async function inputFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-bench-in-'));
  let source;
  if (values.smoke) {
    const cases = JSON.parse(readFileSync(join(root, 'test/corpus/cases.json'), 'utf8')).filter((c) => c.target.sku && !c.file.startsWith('broken'));
    cases.slice(0, 8).forEach((c, i) => copyFileSync(join(root, 'test/corpus/files', c.file), join(dir, `${c.target.sku}__smoke-${i}.pdf`)));
    return { dir, label: `${Math.min(8, cases.length)} corpus files (smoke run)` };
  }
  if (values.folder) source = values.folder;
  else {
    const { generate, INPUTS } = await import('./generate.mjs');
    log('generating inputs (first run only)…');
    await generate({ log });
    source = join(INPUTS, 'folder-200');
  }
  const files = readdirSync(source)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .sort();
  const chosen = values.limit ? files.slice(0, Number(values.limit)) : files;
  // Hard links (a copy across file systems): the runs read the same bytes without copying a
  // gigabyte. Not symlinks: the batch walker does not follow links out of the folder it judges.
  for (const f of chosen) {
    try {
      linkSync(join(source, f), join(dir, f));
    } catch {
      copyFileSync(join(source, f), join(dir, f));
    }
  }
  return { dir, label: `${chosen.length} files of ${source}` };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-bench-redis-'));
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((resolve) => {
      const c = createConnection({ host: '127.0.0.1', port }, () => {
        c.end();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return { url: `redis://127.0.0.1:${port}/0`, stop: () => (proc.kill('SIGTERM'), rmSync(dir, { recursive: true, force: true })) };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

function run(args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      const ms = performance.now() - t;
      if (code !== 0 && code !== 1) reject(new Error(`print-preflight ${args[0]} exited ${code}: ${err.slice(-2000)}`));
      else resolve({ ms, out });
    });
  });
}

function startWorkers(n, url, data) {
  return Array.from({ length: n }, () => {
    const proc = spawn(process.execPath, [BIN, 'worker', '--redis', url, '--data', data, '--workers', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    const ready = new Promise((resolve) => {
      proc.stderr.on('data', (d) => {
        text += d;
        if (text.includes('"redis-ready"')) resolve();
      });
    });
    const exited = new Promise((r) => proc.once('exit', r));
    return { ready, stop: () => (proc.kill('SIGTERM'), exited) };
  });
}

async function main() {
  const { dir, label } = await inputFolder();
  const files = readdirSync(dir).length;
  const redis = await startRedis();
  const data = mkdtempSync(join(tmpdir(), 'pp-fleet-bench-data-'));
  const outs = [];
  const freshOut = () => {
    const o = join(mkdtempSync(join(tmpdir(), 'pp-fleet-bench-out-')), 'out');
    outs.push(o);
    return o;
  };
  const results = { machine: { cpu: cpus()[0]?.model ?? '?', cores: availableParallelism(), node: process.version }, input: label, files, runs: RUNS, modes: {} };
  try {
    const empty = mkdtempSync(join(tmpdir(), 'pp-fleet-bench-empty-'));
    outs.push(join(empty, 'x'));
    const measure = async (name, fn) => {
      const times = [];
      const reruns = [];
      const fixed = [];
      for (let i = 0; i < RUNS; i++) fixed.push((await fn(freshOut(), empty)).ms); // start-up, connections: paid once per run
      for (let i = 0; i < RUNS; i++) {
        const out = freshOut();
        times.push((await fn(out)).ms);
        reruns.push((await fn(out)).ms); // every report kept: the per-job cost without rendering
        log(`${name}: run ${i + 1}/${RUNS}: ${(times.at(-1) / 1000).toFixed(1)} s, kept-all rerun ${(reruns.at(-1) / 1000).toFixed(2)} s`);
      }
      results.modes[name] = { ms: median(times), jobsPerSecond: files / (median(times) / 1000), rerunMs: median(reruns), emptyFolderMs: median(fixed) };
    };
    await measure('embedded, 1 thread', (out, folder = dir) => run(['batch', folder, '--out', out, '--workers', '1']));
    for (const n of [1, 2]) {
      const workers = startWorkers(n, redis.url, data);
      await Promise.all(workers.map((w) => w.ready));
      await measure(`redis, ${n} worker process${n > 1 ? 'es' : ''}`, (out, folder = dir) => run(['batch', folder, '--out', out, '--redis', redis.url]));
      await Promise.all(workers.map((w) => w.stop()));
    }
  } finally {
    redis.stop();
    for (const o of outs) rmSync(join(o, '..'), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
  const e = results.modes['embedded, 1 thread'];
  const r1 = results.modes['redis, 1 worker process'];
  const r2 = results.modes['redis, 2 worker processes'];
  results.scaling = r2.jobsPerSecond / r1.jobsPerSecond;
  // What the queue adds per job: the kept-all reruns minus each mode's fixed cost (an empty folder).
  results.overheadMsPerJob = (r1.rerunMs - r1.emptyFolderMs - (e.rerunMs - e.emptyFolderMs)) / files;
  results.overheadFullMsPerJob = (r1.ms - e.ms) / files;
  results.goals = [
    { goal: '2 worker processes ≥ 1.8× one', met: results.scaling >= 1.8, value: `${results.scaling.toFixed(2)}×` },
    { goal: 'queue overhead ≤ 20 ms per job', met: results.overheadMsPerJob <= 20, value: `${results.overheadMsPerJob.toFixed(1)} ms` },
  ];
  const md = [
    '# Fleet benchmark',
    '',
    `Machine: ${results.machine.cpu}, ${results.machine.cores} cores; Node ${results.machine.node}; ${new Date().toISOString().slice(0, 10)}.`,
    `Input: ${label}. Medians of ${RUNS} run(s). Reproduce: \`npm run bench:fleet\`. Redis, the batch process and the workers share this machine.`,
    '',
    '| mode | folder | jobs/s | kept-all rerun | empty folder (fixed cost) |',
    '|---|---|---|---|---|',
    ...Object.entries(results.modes).map(
      ([name, m]) => `| ${name} | ${(m.ms / 1000).toFixed(1)} s | ${m.jobsPerSecond.toFixed(2)} | ${(m.rerunMs / 1000).toFixed(2)} s | ${(m.emptyFolderMs / 1000).toFixed(2)} s |`,
    ),
    '',
    `Scaling 1 → 2 worker processes: ${results.scaling.toFixed(2)}×.`,
    `Queue overhead per job (kept-all reruns less the empty-folder run, Redis 1 worker − embedded): ${results.overheadMsPerJob.toFixed(1)} ms; from the full runs, fixed costs included: ${results.overheadFullMsPerJob.toFixed(1)} ms.`,
    '',
    '## Goals',
    '',
    ...results.goals.map((g) => `- **${g.met ? 'met' : 'not met'}**: ${g.goal} — ${g.value}`),
    '',
  ].join('\n');
  if (!values.smoke) {
    writeFileSync(join(here, 'FLEET.md'), md);
    writeFileSync(join(here, 'fleet-results.json'), `${JSON.stringify(results, null, 2)}\n`);
  }
  process.stdout.write(`${md}\n`);
}

main().catch((error) => {
  log(error.stack ?? String(error));
  process.exit(1);
});
