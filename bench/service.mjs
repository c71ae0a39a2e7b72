/**
 * The service against the command line, on the same files and the same cores:
 *   - POST /v1/checks?wait=60 (multipart upload) to a warm `print-preflight serve`, with 1 and 8
 *     concurrent clients (a small client of ours: fetch + FormData, keep-alive);
 *   - `print-preflight check FILE --sku SKU --json`, one process per file (what an integrator in
 *     another language does without the server), 1 at a time and 8 at a time.
 * Per setting: p50/p99 latency (request, or whole process), throughput (files/s), and cores used
 * (CPU seconds of the server process, or of the CLI processes, over wall time). Then the ratios
 * the issue sets as goals: server p50 ≤ 0.5 × CLI p50, server throughput ≥ CLI throughput.
 * Those server rows run with --no-reuse (every request checked, as the CLI does). The reuse row
 * (issue 44): on a server with reuse on, each file sent once (its first check) and then again (the
 * stored result, `reusedFrom`); goal: the second answer in under a tenth of the first's time.
 *
 *   node bench/service.mjs [--requests N] [--workers N] [--folder DIR] [--files N] [--out FILE] [file.pdf=SKU …]
 * Files: those named, else the first --files (12) of --folder (SKU__name.pdf files; default
 * bench/inputs/folder-200, the typical order files `npm run bench` generates: 2–7 image pages,
 * 1–10 MB), else four small corpus files. Defaults: 40 requests per setting, workers =
 * os.availableParallelism(). Smoke run: node bench/service.mjs --requests 4
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '40' },
    workers: { type: 'string' },
    folder: { type: 'string', default: 'bench/inputs/folder-200' },
    files: { type: 'string', default: '12' },
    out: { type: 'string' },
  },
});
const requests = Number(values.requests);
const workers = Number(values.workers ?? availableParallelism());
const CLI = 'bin/print-preflight.js';
const TICKS = 100; // clock ticks per second in /proc (USER_HZ)

function fromFolder(dir) {
  if (!existsSync(dir)) return null;
  const names = readdirSync(dir)
    .filter((n) => /^[A-Z0-9-]+__.+\.pdf$/.test(n))
    .sort()
    .slice(0, Number(values.files));
  return names.length ? names.map((n) => `${join(dir, n)}=${n.split('__')[0]}`) : null;
}

const files = (
  positionals.length
    ? positionals
    : (fromFolder(values.folder) ?? [
        'test/corpus/files/reportlab-tshirt-M-exact.pdf=T-SHIRT-M',
        'test/corpus/files/img2pdf-tanktop-cmyk-jpeg.pdf=TANKTOP-M',
        'test/corpus/files/gs-duvet-exact.pdf=DUVET-COVER-200X200',
        'test/corpus/files/pikepdf-tanktop-icc-cmyk.pdf=TANKTOP-M',
      ])
).map((spec) => {
  const [path, sku] = spec.split('=');
  return { path, sku, name: basename(path), bytes: readFileSync(path) };
});

/** utime + stime of a process (threads included), in seconds. */
function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** CPU seconds of this process's finished children (cutime + cstime). */
function childrenCpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Runs `total` tasks with `concurrency` at once; returns latencies and wall time. */
async function drive(total, concurrency, task) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await task(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wallMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { p50Ms: pct(latencies, 50), p99Ms: pct(latencies, 99), wallMs, throughput: total / (wallMs / 1000) };
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

async function startServer(data, extra = []) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', data, '--workers', String(workers), '--log-level', 'warn', '--max-concurrent', '1000', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[\d.:]+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { child, url };
}

async function submit(url, file, fields = {}) {
  const body = new FormData();
  body.append('sku', file.sku);
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append('file', new Blob([file.bytes], { type: 'application/pdf' }), file.name);
  const res = await fetch(`${url}/v1/checks?wait=60`, { method: 'POST', body });
  const check = await res.json();
  if (res.status !== 200 || check.status !== 'done') throw new Error(`${file.name}: ${res.status} ${JSON.stringify(check).slice(0, 200)}`);
  return check;
}

const results = {
  totalBytes: files.reduce((n, f) => n + f.bytes.length, 0),
  machine: { cores: availableParallelism(), node: process.version },
  workers,
  requests,
  files: files.map((f) => `${f.name}=${f.sku}`),
  runs: [],
};
const data = mkdtempSync(join(tmpdir(), 'pp-bench-service-'));
try {
  const server = await startServer(data, ['--no-reuse']);
  try {
    for (const f of files) await submit(server.url, f); // warm-up: workers started, code loaded
    for (const concurrency of [1, 8]) {
      const cpu0 = cpuOf(server.child.pid);
      const r = await drive(requests, concurrency, (i) => submit(server.url, files[i % files.length]));
      const cores = (cpuOf(server.child.pid) - cpu0) / (r.wallMs / 1000);
      results.runs.push({ what: 'server', concurrency, ...r, coresUsed: cores });
    }
  } finally {
    server.child.kill('SIGTERM');
  }
  // Reuse: a fresh folder, reuse on. Warmed with other settings (raster=false: another key), so
  // each file's first timed request is a real check and its second the stored result.
  const reuseData = mkdtempSync(join(tmpdir(), 'pp-bench-reuse-'));
  const reuser = await startServer(reuseData);
  try {
    for (const f of files) await submit(reuser.url, f, { raster: 'false' });
    results.reuse = [];
    for (const f of files) {
      const t0 = performance.now();
      const first = await submit(reuser.url, f);
      const t1 = performance.now();
      const again = await submit(reuser.url, f);
      const t2 = performance.now();
      if (again.reusedFrom !== first.id) throw new Error(`${f.name}: sent again, not reused (${JSON.stringify(again.reusedFrom)})`);
      results.reuse.push({ file: f.name, firstMs: t1 - t0, againMs: t2 - t1, ratio: (t2 - t1) / (t1 - t0) });
    }
  } finally {
    reuser.child.kill('SIGTERM');
    rmSync(reuseData, { recursive: true, force: true });
  }
  await run(process.execPath, [CLI, 'check', files[0].path, '--sku', files[0].sku, '--json']); // warm the file cache
  for (const concurrency of [1, 8]) {
    const cpu0 = childrenCpu();
    const r = await drive(requests, concurrency, (i) => {
      const f = files[i % files.length];
      return run(process.execPath, [CLI, 'check', f.path, '--sku', f.sku, '--json']);
    });
    const cores = (childrenCpu() - cpu0) / (r.wallMs / 1000);
    results.runs.push({ what: 'cli', concurrency, ...r, coresUsed: cores });
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}

const find = (what, c) => results.runs.find((r) => r.what === what && r.concurrency === c);
results.ratios = [1, 8].map((c) => {
  const s = find('server', c);
  const k = find('cli', c);
  return {
    concurrency: c,
    latencyP50: s.p50Ms / k.p50Ms,
    throughput: s.throughput / k.throughput,
    goalLatency: s.p50Ms / k.p50Ms <= 0.5,
    goalThroughput: s.throughput >= k.throughput,
    serverCores: s.coresUsed,
    cliCores: k.coresUsed,
  };
});

const f1 = (n) => n.toFixed(1);
console.log(`${requests} requests per setting; server with ${workers} workers; ${results.machine.cores} cores; files: ${results.files.join(', ')}\n`);
console.log('| what | clients | p50 ms | p99 ms | files/s | cores used |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results.runs)
  console.log(
    `| ${r.what === 'server' ? 'POST /v1/checks?wait=60' : 'check --json (one process per file)'} | ${r.concurrency} | ${f1(r.p50Ms)} | ${f1(r.p99Ms)} | ${r.throughput.toFixed(2)} | ${r.coresUsed.toFixed(2)} |`,
  );
console.log('\n| clients | server p50 / CLI p50 (goal ≤ 0.5) | server / CLI throughput (goal ≥ 1) | cores: server, CLI |');
console.log('|---:|---:|---:|---|');
for (const r of results.ratios) {
  console.log(
    `| ${r.concurrency} | ${r.latencyP50.toFixed(2)} ${r.goalLatency ? 'met' : 'not met'} | ${r.throughput.toFixed(2)} ${r.goalThroughput ? 'met' : 'not met'} | ${r.serverCores.toFixed(2)}, ${r.cliCores.toFixed(2)} |`,
  );
}
if (results.reuse) {
  const worst = Math.max(...results.reuse.map((r) => r.ratio));
  results.reuseGoal = { worstRatio: worst, met: worst < 0.1 };
  console.log('\n| file | first check ms | sent again (reusedFrom) ms | again / first (goal < 0.1) |');
  console.log('|---|---:|---:|---:|');
  for (const r of results.reuse) console.log(`| ${r.file} | ${f1(r.firstMs)} | ${f1(r.againMs)} | ${r.ratio.toFixed(3)} ${r.ratio < 0.1 ? 'met' : 'not met'} |`);
}
if (values.out) writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
