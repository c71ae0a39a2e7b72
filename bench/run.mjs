/**
 * The benchmark: print-preflight side by side with poppler, MuPDF (mutool and MuPDF.js) on the
 * same files in one run; medians of ≥ 5 runs of wall time and CPU time (so every ratio can say how
 * many cores each side used), with peak RSS; whole processes for start-up and for a typical order
 * file; writes bench/RESULTS.md and bench/results.json, and prints each goal as met or not met.
 * Timings are never asserted in tests.
 *   npm run bench                  (BENCH_RUNS=5 by default)
 *   BENCH_SMOKE=1 node bench/run.mjs   (small inputs, 1 run: checks the script, not the speed;
 *                                       writes bench/out/ instead of the committed results)
 *   npm run bench -- --rows issue-24   (only some rows: names below, comma-separated, or a preset;
 *   BENCH_ROWS=whole,realworld …        also from the environment; writes bench/out/ and prints
 *                                       the goals of those rows, the committed results untouched)
 * Rows: startup, typical, whole (big duvet and 5-metre page, whole process), realworld (the
 * manifest's folder vs mutool + pdfimages + pdffonts), files (every per-file row), raster (the
 * 5-metre page's previews in a warm process vs mutool draw), batch (the 200-file folder, structure
 * and full, 1 and 2 workers), scaling (its full check alone, 1 and 2 workers), leak.
 * Presets: issue-24 = whole,raster,realworld,scaling.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { INPUTS, generate } from './generate.mjs';

const here = new URL('.', import.meta.url).pathname;
const SMOKE = !!process.env.BENCH_SMOKE;
const RUNS = Number(process.env.BENCH_RUNS ?? (SMOKE ? 1 : 5));
const ROW_NAMES = ['startup', 'typical', 'whole', 'realworld', 'files', 'raster', 'batch', 'scaling', 'leak'];
const PRESETS = { 'issue-24': ['whole', 'raster', 'realworld', 'scaling'] };
/** The rows chosen by `--rows a,b` or BENCH_ROWS (null: all of them). */
const ROWS = (() => {
  const at = process.argv.indexOf('--rows');
  const spec = at >= 0 ? process.argv[at + 1] : process.env.BENCH_ROWS;
  if (!spec) return null;
  const rows = new Set(
    spec
      .split(',')
      .flatMap((r) => PRESETS[r.trim()] ?? [r.trim()])
      .filter(Boolean),
  );
  const unknown = [...rows].filter((r) => !ROW_NAMES.includes(r));
  if (unknown.length || rows.size === 0) {
    process.stderr.write(`unknown rows: ${unknown.join(', ') || '(none given)'}; rows: ${ROW_NAMES.join(', ')}; presets: ${Object.keys(PRESETS).join(', ')}\n`);
    process.exit(2);
  }
  return rows;
})();
const want = (row) => !ROWS || ROWS.has(row) || (row === 'raster' && ROWS.has('files')) || (row === 'scaling' && ROWS.has('batch'));
const OUT = SMOKE || ROWS ? join(here, 'out') : here;
const CLI = join(here, '../bin/print-preflight.js');
const log = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/**
 * Times a shell command in a child python that reports wall time, the CPU time (user + system) of
 * everything the command ran, and their peak RSS.
 */
const PY = `
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1], shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, u.ru_utime + u.ru_stime, u.ru_maxrss, r.returncode)
`;
/** Wall and CPU medians; `cores` is CPU / wall of the median runs: how many cores the side kept busy. */
function summarise(times, cpu, maxRssKb, runs) {
  const ms = median(times);
  const cpuMs = median(cpu);
  return { ms, cpuMs, cores: cpuMs / ms, maxRssMb: maxRssKb / 1024, runs };
}
function shell(cmd, runs = RUNS) {
  const times = [];
  const cpu = [];
  let rss = 0;
  for (let i = 0; i < runs + 1; i++) {
    const [s, c, kb, code] = execFileSync('/usr/bin/python3', ['-c', PY, cmd], { encoding: 'utf8' }).trim().split(' ').map(Number);
    if (code !== 0) throw new Error(`reference command failed (exit ${code}): ${cmd}`);
    if (i > 0) {
      // the first run warms the page cache
      times.push(s * 1000);
      cpu.push(c * 1000);
    }
    rss = Math.max(rss, kb);
  }
  return summarise(times, cpu, rss, runs);
}

function ours(task, target, runs = RUNS, workers = 2, extra = []) {
  const out = execFileSync(process.execPath, [...extra, join(here, 'task.mjs'), task, target, String(runs), String(workers)], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const r = JSON.parse(out.trim().split('\n').pop());
  return r.times ? { ...summarise(r.times, r.cpu, r.maxRssKb, runs), workers } : r;
}

const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const results = { machine: {}, startup: {}, typical: {}, wholeProcess: {}, realworld: null, files: {}, batch: {}, leak: null, goals: [] };
const previous = (() => {
  try {
    return JSON.parse(readFileSync(join(here, 'results.json'), 'utf8'));
  } catch {
    return null;
  }
})();

const FILES = SMOKE ? ['five-metre.pdf', 'catalogue-8.pdf'] : ['photo-50mb.pdf', 'cmyk-pages.pdf', 'catalogue-500.pdf', 'five-metre.pdf'];
const TYPICAL = 'duvet-typical.pdf';
/** Whole-process rows of issue 24: the big duvet file (two 9,000² JPEG pages) and the 5-metre vector page. */
const WHOLE = SMOKE ? ['five-metre.pdf'] : ['duvet-big.pdf', 'five-metre.pdf'];
/** The vector page whose raster alone is compared with mutool draw (row raster). */
const RASTER = 'five-metre.pdf';
const SKU_OF = { [TYPICAL]: 'DUVET-COVER-200X200' };

/** A small folder for smoke runs: copies of the typical file, named by SKU like the order folder. */
function smokeFolder() {
  const dir = join(OUT, 'smoke-folder');
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= 4; i++) copyFileSync(join(INPUTS, TYPICAL), join(dir, `DUVET-COVER-200X200__order-${i}.pdf`));
  return dir;
}

/** The inputs the chosen rows read. */
function inputsNeeded() {
  const names = new Set();
  if (want('startup') || want('typical')) names.add(TYPICAL);
  if (want('whole')) WHOLE.forEach((n) => names.add(n));
  if (want('files')) FILES.forEach((n) => names.add(n));
  else if (want('raster')) names.add(RASTER);
  if ((want('batch') || want('scaling') || want('leak')) && !SMOKE) names.add('folder-200');
  if (SMOKE) names.add(TYPICAL);
  return [...names];
}

async function main() {
  log(`generating inputs (first run only)…${ROWS ? ` rows: ${[...ROWS].join(', ')}` : ''}`);
  mkdirSync(OUT, { recursive: true });
  await generate({ log, only: SMOKE || ROWS ? inputsNeeded() : undefined });
  results.machine = {
    cpu: cpus()[0]?.model ?? '?',
    cores: availableParallelism(),
    node: process.version,
    poppler: has('pdftoppm')
      ? execFileSync('pdftoppm', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0] || spawnSync('pdftoppm', ['-v'], { encoding: 'utf8' }).stderr.split('\n')[0]
      : null,
    mutool: has('mutool') ? spawnSync('mutool', ['-v'], { encoding: 'utf8' }).stderr.trim() : null,
    date: new Date().toISOString().slice(0, 10),
    rows: ROWS ? [...ROWS] : 'all',
  };
  if (want('startup')) startup();
  if (want('typical')) typical();
  if (want('whole')) for (const name of WHOLE) wholeProcess(name);
  if (want('realworld')) realworld();
  if (want('files')) for (const name of FILES) perFile(name);
  else if (want('raster')) rasterOnly(RASTER);
  if (want('batch') || want('scaling')) folder();
  if (!SMOKE && want('leak')) {
    log('1,000 files for leaks…');
    results.leak = ours('leak', join(INPUTS, 'folder-200'), 1, 2, ['--expose-gc']);
  }
  evaluateGoals();
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  // Keep the sections bench/hostile.mjs and bench/quality.mjs write (npm run bench:hostile, bench:quality).
  const before = existsSync(join(here, 'RESULTS.md')) ? readFileSync(join(here, 'RESULTS.md'), 'utf8') : '';
  const kept = ROWS ? [] : ['hostile', 'quality'].map((name) => new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->\\n?`).exec(before)?.[0]).filter(Boolean);
  writeFileSync(join(OUT, 'RESULTS.md'), [renderMarkdown().trimEnd(), ...kept].join('\n\n'));
  log(renderGoals());
  if (OUT !== here) log(`written: ${join(OUT, 'RESULTS.md')} and results.json`);
}

/** Every per-file row: hashing, structure, previews (2 workers, 1 worker, the references) and the full check. */
function perFile(name) {
  const file = join(INPUTS, name);
  const tmp = mkdtempSync(join(tmpdir(), 'ppbench-'));
  log(`${name}…`);
  const r = { bytes: statSync(file).size };
  r.hash = ours('hash', file);
  r.structure = {
    ours: ours('structure', file),
    'pdfimages -list + pdfinfo -box': has('pdfimages') ? shell(`pdfimages -list ${q(file)} && pdfinfo -box ${q(file)}`) : null,
    'mutool info': has('mutool') ? shell(`mutool info ${q(file)}`) : null,
  };
  r.previews = {
    ours: ours('previews', file),
    'ours, 1 worker': ours('previews', file, RUNS, 1),
    'mutool draw': has('mutool') ? shell(`mutool draw -q -w 1200 -h 1200 -F png -o ${q(join(tmp, 'mu-%d.png'))} ${q(file)}`) : null,
    'pdftoppm -scale-to 1200': has('pdftoppm') ? shell(`pdftoppm -scale-to 1200 -png ${q(file)} ${q(join(tmp, 'pp'))}`) : null,
    'MuPDF.js': existsSync(join(here, 'node_modules/mupdf')) ? ours('mupdfjs', file) : null,
  };
  r.full = ours('full', file);
  results.files[name] = r;
  rmSync(tmp, { recursive: true, force: true });
}

/** The raster row alone: previews in a warm process (2 workers, 1 worker) against mutool draw. */
function rasterOnly(name) {
  const file = join(INPUTS, name);
  const tmp = mkdtempSync(join(tmpdir(), 'ppbench-'));
  log(`${name}, previews in a warm process…`);
  results.files[name] = {
    bytes: statSync(file).size,
    previews: {
      ours: ours('previews', file),
      'ours, 1 worker': ours('previews', file, RUNS, 1),
      'mutool draw': has('mutool') ? shell(`mutool draw -q -w 1200 -h 1200 -F png -o ${q(join(tmp, 'mu-%d.png'))} ${q(file)}`) : null,
    },
  };
  rmSync(tmp, { recursive: true, force: true });
}

/** The 200-file order folder: structure (row batch) and full check with 1 and 2 workers (rows batch, scaling). */
function folder() {
  const dir = SMOKE ? smokeFolder() : join(INPUTS, 'folder-200');
  const count = readdirSync(dir).filter((f) => f.endsWith('.pdf')).length;
  log(`folder-200${want('batch') ? '' : ', full check'}…`);
  const perFileCmd = (cmd) => shell(`for f in ${q(dir)}/*.pdf; do ${cmd}; done`);
  const fps = (m) => (m ? { ...m, filesPerSecond: count / (m.ms / 1000) } : null);
  results.batch = {
    files: count,
    ...(want('batch')
      ? {
          structure: {
            'ours, 1 worker': fps(ours('batch-structure', dir, RUNS, 1)),
            'ours, 2 workers': fps(ours('batch-structure', dir, RUNS, 2)),
            'pdfimages -list + pdfinfo -box, per file': has('pdfimages') ? fps(perFileCmd('pdfimages -list "$f" && pdfinfo -box "$f"')) : null,
            'mutool info, per file': has('mutool') ? fps(perFileCmd('mutool info "$f"')) : null,
          },
        }
      : {}),
    full: {
      'ours, 1 worker': fps(ours('batch-full', dir, RUNS, 1)),
      'ours, 2 workers': fps(ours('batch-full', dir, RUNS, 2)),
    },
  };
}

/** Whole processes: Node alone, `--help`, and a structure-only check of the typical file. */
function startup() {
  log('start-up…');
  const file = join(INPUTS, TYPICAL);
  results.startup = {
    'node -e ""': shell(`${q(process.execPath)} -e ""`),
    'print-preflight --help': shell(`${q(process.execPath)} ${q(CLI)} --help`),
    'print-preflight check --no-raster (typical file)': shell(`${q(process.execPath)} ${q(CLI)} check --no-raster ${q(file)} --sku ${SKU_OF[TYPICAL]}`),
  };
}

/**
 * Whole processes on the typical order file: `check` writing a PNG preview per page (pool of one
 * worker per core, the default) against `mutool draw` writing the same PNGs plus `pdfimages -list`.
 */
function typical() {
  log(`${TYPICAL}, whole process…`);
  const file = join(INPUTS, TYPICAL);
  const tmp = mkdtempSync(join(tmpdir(), 'pptyp-'));
  const sku = SKU_OF[TYPICAL];
  results.typical = {
    file: TYPICAL,
    bytes: statSync(file).size,
    rows: {
      'print-preflight check (previews, default pool)': shell(
        `${q(process.execPath)} ${q(CLI)} check ${q(file)} --sku ${sku} --previews ${q(join(tmp, 'ours'))} --preview-format png --preview-size 1200`,
      ),
      'print-preflight check (previews, 1 worker)': shell(
        `${q(process.execPath)} ${q(CLI)} check ${q(file)} --sku ${sku} --previews ${q(join(tmp, 'ours1'))} --preview-format png --preview-size 1200 --workers 1`,
      ),
      'mutool draw -w 1200 -h 1200 + pdfimages -list':
        has('mutool') && has('pdfimages') ? shell(`mutool draw -q -w 1200 -h 1200 -F png -o ${q(join(tmp, 'mu-%d.png'))} ${q(file)} && pdfimages -list ${q(file)}`) : null,
    },
  };
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * Whole processes on one file: `check` writing PNG previews at 1200 px (default pool) against
 * `mutool draw` writing the same PNGs, and against mutool + `pdfimages -list` (what a preflight of
 * images needs from poppler).
 */
function wholeProcess(name) {
  log(`${name}, whole process…`);
  const file = join(INPUTS, name);
  const tmp = mkdtempSync(join(tmpdir(), 'ppwhole-'));
  const sku = SKU_OF[name] ?? 'DUVET-COVER-200X200';
  const mutool = `mutool draw -q -w 1200 -h 1200 -F png -o ${q(join(tmp, 'mu-%d.png'))} ${q(file)}`;
  results.wholeProcess[name] = {
    bytes: statSync(file).size,
    rows: {
      'print-preflight check (previews, default pool)': shell(
        `${q(process.execPath)} ${q(CLI)} check ${q(file)} --sku ${sku} --previews ${q(join(tmp, 'ours'))} --preview-format png --preview-size 1200; test $? -le 1`,
      ),
      'mutool draw -w 1200 -h 1200': has('mutool') ? shell(mutool) : null,
      'mutool draw -w 1200 -h 1200 + pdfimages -list': has('mutool') && has('pdfimages') ? shell(`${mutool} && pdfimages -list ${q(file)}`) : null,
    },
  };
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * The real-world folder (test/realworld/manifest.json, extracted by test/realworld/extract.mjs into
 * REALWORLD_DIR, default bench/inputs/realworld): `batch` over the whole folder with the default
 * pool against, per file, `mutool draw` (PNG previews at 1200 px) + `pdfimages -list` + `pdffonts`,
 * run as many at a time as we have cores. Both sides in this run; files they cannot read count
 * like the others (each tool gives up in its own way).
 */
function realworld() {
  const dir = process.env.REALWORLD_DIR ?? join(INPUTS, 'realworld');
  if (!existsSync(dir) || readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.pdf')).length === 0) {
    log(`extracting the real-world corpus into ${dir}…`);
    const r = spawnSync(process.execPath, [join(here, '../test/realworld/extract.mjs'), dir], { encoding: 'utf8' });
    if (r.status !== 0 && !existsSync(dir)) {
      log(`no real-world folder (${(r.stderr || r.stdout).trim().split('\n').pop()}): row skipped`);
      results.realworld = { skipped: `the manifest's files could not be extracted into ${dir}` };
      return;
    }
  }
  const files = readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .sort();
  if (SMOKE) files.splice(12);
  log(`real-world folder: ${files.length} files…`);
  const work = mkdtempSync(join(tmpdir(), 'pprw-'));
  // The files by hard link (the batch does not follow symlinks), and a manifest naming one product for all.
  const folder = join(work, 'in');
  mkdirSync(folder);
  for (const f of files) {
    try {
      linkSync(join(dir, f), join(folder, f));
    } catch {
      copyFileSync(join(dir, f), join(folder, f));
    }
  }
  const manifest = join(work, 'manifest.json');
  writeFileSync(manifest, JSON.stringify(Object.fromEntries(files.map((f) => [f, 'DUVET-COVER-200X200']))));
  const parallel = availableParallelism();
  const out = join(work, 'out');
  const perFile = `d=$(mktemp -d); mutool draw -q -w 1200 -h 1200 -F png -o "$d/%d.png" "$1" 2>/dev/null; pdfimages -list "$1" >/dev/null 2>&1; pdffonts "$1" >/dev/null 2>&1; rm -rf "$d"; true`;
  const runs = SMOKE ? 1 : Math.min(RUNS, 3);
  const withRate = (m) => (m ? { ...m, filesPerSecond: files.length / (m.ms / 1000), cpuSecondsPerFile: m.cpuMs / 1000 / files.length } : null);
  results.realworld = {
    files: files.length,
    parallel,
    rows: {
      [`print-preflight batch (default pool, ${parallel} workers)`]: withRate(
        shell(`rm -rf ${q(out)}; ${q(process.execPath)} ${q(CLI)} batch ${q(folder)} --out ${q(out)} --manifest ${q(manifest)} > /dev/null 2>&1; test $? -le 1`, runs),
      ),
      [`mutool draw + pdfimages -list + pdffonts per file, ${parallel} at a time`]:
        has('mutool') && has('pdfimages') && has('pdffonts') ? withRate(shell(`find ${q(folder)} -name '*.pdf' -print0 | xargs -0 -P ${parallel} -I{} sh -c ${q(perFile)} _ {}`, runs)) : null,

      // Every page's preview (the render plan draws only the pages that print by default).
      [`print-preflight batch --previews (default pool, ${parallel} workers)`]: withRate(
        shell(`rm -rf ${q(out)}; ${q(process.execPath)} ${q(CLI)} batch ${q(folder)} --out ${q(out)} --manifest ${q(manifest)} --previews > /dev/null 2>&1; test $? -le 1`, runs),
      ),
      // glibc's allocator with two arenas instead of eight per core (docs/service.md): what it does to peak RSS.
      [`print-preflight batch, MALLOC_ARENA_MAX=2 (default pool, ${parallel} workers)`]: withRate(
        shell(`rm -rf ${q(out)}; MALLOC_ARENA_MAX=2 ${q(process.execPath)} ${q(CLI)} batch ${q(folder)} --out ${q(out)} --manifest ${q(manifest)} > /dev/null 2>&1; test $? -le 1`, runs),
      ),
    },
  };
  rmSync(work, { recursive: true, force: true });
}

function goal(text, met, detail) {
  results.goals.push({ goal: text, met, detail });
}

function evaluateGoals() {
  const st = results.startup;
  if (st['print-preflight --help']) {
    goal('`--help` ≤ 0.15 s (whole process)', st['print-preflight --help'].ms <= 150, `${fmtS(st['print-preflight --help'].ms)} (Node alone ${fmtS(st['node -e ""'].ms)})`);
    const nr = st['print-preflight check --no-raster (typical file)'];
    goal('`check --no-raster` on a typical order file ≤ 0.35 s (whole process)', nr.ms <= 350, fmtS(nr.ms));
  }
  const t = results.typical.rows ?? {};
  const ref = t['mutool draw -w 1200 -h 1200 + pdfimages -list'];
  if (ref) {
    const o = t['print-preflight check (previews, default pool)'];
    goal(
      `\`check\` with previews on ${results.typical.file} ≤ 1.0× the wall time of mutool draw + pdfimages -list (whole process)`,
      o.ms <= ref.ms,
      `${ratio(o.ms, ref.ms)} wall, ${ratio(o.cpuMs, ref.cpuMs)} CPU; cores ${o.cores.toFixed(2)} vs ${ref.cores.toFixed(2)}`,
    );
  }
  for (const [name, w] of Object.entries(results.wholeProcess)) {
    const o = w.rows['print-preflight check (previews, default pool)'];
    const mu = w.rows['mutool draw -w 1200 -h 1200'];
    const mp = w.rows['mutool draw -w 1200 -h 1200 + pdfimages -list'];
    if (name === 'duvet-big.pdf' && mp) {
      goal(
        `\`check --previews\` on ${name} ≤ 1.0× the wall time and ≤ 1.3× the CPU of mutool draw + pdfimages -list (whole process)`,
        o.ms <= mp.ms && o.cpuMs <= 1.3 * mp.cpuMs,
        `${ratio(o.ms, mp.ms)} wall, ${ratio(o.cpuMs, mp.cpuMs)} CPU; cores ${o.cores.toFixed(2)} vs ${mp.cores.toFixed(2)}`,
      );
    }
    if (name === 'five-metre.pdf' && mu) {
      goal(`\`check --previews\` on ${name} ≤ 2.0× mutool draw (whole process)`, o.ms <= 2 * mu.ms, `${ratio(o.ms, mu.ms)} wall, ${ratio(o.cpuMs, mu.cpuMs)} CPU`);
    }
  }
  const fm = results.files['five-metre.pdf']?.previews;
  if (fm?.['mutool draw'])
    goal(
      'five-metre.pdf raster (in a warm process) ≤ 1.2× mutool draw',
      fm.ours.ms <= 1.2 * fm['mutool draw'].ms,
      `${ratio(fm.ours.ms, fm['mutool draw'].ms)} wall, ${ratio(fm.ours.cpuMs, fm['mutool draw'].cpuMs)} CPU`,
    );
  const rw = results.realworld?.rows;
  if (rw) {
    const [ours, ref, previews, arenas] = Object.values(rw);
    if (ours && ref) {
      goal(
        `real-world folder: CPU per file ≤ 1.0× mutool + pdfimages + pdffonts`,
        ours.cpuSecondsPerFile <= ref.cpuSecondsPerFile,
        `${ratio(ours.cpuSecondsPerFile, ref.cpuSecondsPerFile)} (${ours.cpuSecondsPerFile.toFixed(3)} vs ${ref.cpuSecondsPerFile.toFixed(3)} s)`,
      );
      goal(`real-world folder: peak RSS ≤ 400 MB`, ours.maxRssMb <= 400, `${ours.maxRssMb.toFixed(0)} MB${arenas ? `; with MALLOC_ARENA_MAX=2 ${arenas.maxRssMb.toFixed(0)} MB` : ''}`);
      if (previews)
        goal(
          `real-world folder with --previews of every page: CPU per file ≤ 1.5× the reference`,
          previews.cpuSecondsPerFile <= 1.5 * ref.cpuSecondsPerFile,
          `${ratio(previews.cpuSecondsPerFile, ref.cpuSecondsPerFile)} (${previews.cpuSecondsPerFile.toFixed(3)} s per file)`,
        );
    }
    if (ours && ref)
      goal(
        `real-world folder (${results.realworld.files} files): files/s ≥ 1.0× mutool + pdfimages + pdffonts at equal parallelism (${results.realworld.parallel})`,
        ours.filesPerSecond >= ref.filesPerSecond,
        `${ours.filesPerSecond.toFixed(1)} vs ${ref.filesPerSecond.toFixed(1)} files/s; CPU ${ours.cpuSecondsPerFile.toFixed(3)} vs ${ref.cpuSecondsPerFile.toFixed(3)} s per file; peak RSS ${ours.maxRssMb.toFixed(0)} vs ${ref.maxRssMb.toFixed(0)} MB`,
      );
  }
  const b = results.batch.structure;
  const pref = b?.['pdfimages -list + pdfinfo -box, per file'];
  if (pref)
    goal(
      'structure check: batch throughput ≥ 1.0× poppler run per file',
      b['ours, 2 workers'].filesPerSecond >= pref.filesPerSecond,
      `${b['ours, 2 workers'].filesPerSecond.toFixed(1)} vs ${pref.filesPerSecond.toFixed(1)} files/s`,
    );
  const p = results.files['photo-50mb.pdf'];
  if (p?.structure)
    goal(
      'structure check of the 50 MB file ≤ 3× the time to hash its bytes',
      p.structure.ours.ms <= 3 * p.hash.ms,
      `${p.structure.ours.ms.toFixed(0)} ms vs hash ${p.hash.ms.toFixed(0)} ms (${(p.structure.ours.ms / p.hash.ms).toFixed(2)}×)`,
    );
  for (const [name, kind, limit] of [
    ['photo-50mb.pdf', 'image', 1.0],
    ['cmyk-pages.pdf', 'CMYK image', 1.0],
    ['catalogue-500.pdf', 'vector', 1.5],
    ['five-metre.pdf', 'vector', 1.5],
    ['catalogue-8.pdf', 'vector', 1.5],
  ]) {
    const f = results.files[name]?.previews;
    if (!f) continue;
    if (f['mutool draw'])
      goal(
        `previews of ${kind} pages (${name}) ≤ ${limit}× mutool draw`,
        f.ours.ms <= limit * f['mutool draw'].ms,
        `${ratio(f.ours.ms, f['mutool draw'].ms)} wall with ${f.ours.workers} workers (${f.ours.cores.toFixed(2)} cores busy); ${ratio(f['ours, 1 worker'].ms, f['mutool draw'].ms)} with 1 worker; CPU ${ratio(f.ours.cpuMs, f['mutool draw'].cpuMs)}`,
      );
    if (f['MuPDF.js'] && f['ours, 1 worker']) goal(`previews of ${name} faster than MuPDF.js`, f.ours.ms < f['MuPDF.js'].ms, `${ratio(f.ours.ms, f['MuPDF.js'].ms)}`);
  }
  if (p?.full) goal('full check of the 50 MB file with 2 workers: peak RSS ≤ 1 GB', p.full.maxRssMb <= 1024, `${p.full.maxRssMb.toFixed(0)} MB`);
  const s1 = results.batch.full?.['ours, 1 worker'];
  const s2 = results.batch.full?.['ours, 2 workers'];
  if (s1 && s2)
    goal(`scaling from 1 to 2 workers ≥ 1.8× on the ${results.batch.files}-file folder`, s1.ms / s2.ms >= 1.8, `${(s1.ms / s2.ms).toFixed(2)}× (CPU ${fmtS(s1.cpuMs)} vs ${fmtS(s2.cpuMs)})`);
  const l = results.leak;
  if (l) goal('RSS after 1,000 files within 10 % of RSS after 100', l.rss1000 <= l.rss100 * 1.1, `${(l.rss100 / 1e6).toFixed(0)} MB → ${(l.rss1000 / 1e6).toFixed(0)} MB`);
  // Peak RSS of our rows against the previous committed run (+5 % for noise).
  if (previous && !SMOKE) {
    const worse = [];
    for (const [name, r] of Object.entries(results.files)) {
      for (const kind of ['structure', 'previews']) {
        const before = previous.files?.[name]?.[kind]?.ours?.maxRssMb;
        if (before && r[kind] && r[kind].ours.maxRssMb > before * 1.05) worse.push(`${name} ${kind} ${before.toFixed(0)} → ${r[kind].ours.maxRssMb.toFixed(0)} MB`);
      }
      const before = previous.files?.[name]?.full?.maxRssMb;
      if (before && r.full && r.full.maxRssMb > before * 1.05) worse.push(`${name} full ${before.toFixed(0)} → ${r.full.maxRssMb.toFixed(0)} MB`);
    }
    goal('peak RSS of the previous run held or better (within 5 %)', worse.length === 0, worse.length ? worse.join('; ') : 'every row held');
  }
}

const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function renderGoals() {
  return results.goals.map((g) => `${g.met ? 'MET    ' : 'NOT MET'} ${g.goal} — ${g.detail}`).join('\n');
}

/**
 * A table of measured sides: wall and CPU medians, the cores each side kept busy (CPU / wall),
 * and ours / reference for both wall and CPU.
 */
function table(title, rows, base) {
  const lines = [`| ${title} | wall (median) | CPU (median) | cores busy | ours / ref, wall | ours / ref, CPU | peak RSS |`, '|---|---|---|---|---|---|---|'];
  for (const [name, m] of Object.entries(rows)) {
    if (!m) {
      lines.push(`| ${name} | not installed | | | | | |`);
      continue;
    }
    const isOurs = name.startsWith('ours') || name.startsWith('print-preflight') || !base;
    const wall = `${m.ms.toFixed(0)} ms${m.filesPerSecond ? ` (${m.filesPerSecond.toFixed(1)} files/s)` : ''}`;
    lines.push(
      `| ${name} | ${wall} | ${m.cpuMs.toFixed(0)} ms | ${m.cores.toFixed(2)} | ${isOurs ? '' : ratio(base.ms, m.ms)} | ${isOurs ? '' : ratio(base.cpuMs, m.cpuMs)} | ${m.maxRssMb.toFixed(0)} MB |`,
    );
  }
  return lines.join('\n');
}

function renderMarkdown() {
  const m = results.machine;
  const parts = [
    '# Benchmark results',
    '',
    `Machine: ${m.cpu}, ${m.cores} cores; Node ${m.node}; ${m.poppler ?? 'poppler not installed'}; ${m.mutool ?? 'mutool not installed'}; ${m.date}.`,
    `Reproduce: \`npm run bench${ROWS ? ` -- --rows ${[...ROWS].join(',')}` : ''}\` (medians of ${RUNS} runs after a warm-up; peak RSS of each measured process).`,
    'Every row gives wall time and CPU time (user + system, all threads and child processes), and the cores it kept busy (CPU / wall).',
    "Ours uses a pool of 2 workers unless a row says otherwise; mutool, pdftoppm and poppler's tools are single-threaded (cores busy ≤ 1).",
    'Every byte of a file is decoded in the pool; sharp, drawing JPEG pages in a worker, decodes on libuv\'s threads, so a "1 worker" row can keep more than one core busy — the cores column says how many.',
    'A ratio is ours / reference: below 1 means print-preflight is faster. In-process rows (per file) time the call in a warm process;',
    'whole-process rows (start-up, typical file) include starting Node, loading modules and starting workers, like the reference tools.',
    '',
    '## Goals',
    '',
    ...results.goals.map((g) => `- ${g.met ? '**met**' : '**not met**'}: ${g.goal} — ${g.detail}`),
  ];
  if (Object.keys(results.startup).length) parts.push('', '## Start-up (whole process)', '', table('command', results.startup, null));
  if (results.typical.rows) {
    parts.push('', `## A typical order file, whole process: ${results.typical.file} (${(results.typical.bytes / 1e6).toFixed(1)} MB, two image pages)`, '');
    parts.push(table('previews at 1200 px + image list', results.typical.rows, results.typical.rows['print-preflight check (previews, default pool)']));
  }
  for (const [name, w] of Object.entries(results.wholeProcess)) {
    parts.push('', `## ${name}, whole process (${(w.bytes / 1e6).toFixed(1)} MB)`, '');
    parts.push(table('previews at 1200 px', w.rows, w.rows['print-preflight check (previews, default pool)']));
  }
  const rw = results.realworld;
  if (rw?.rows) {
    parts.push('', `## Real-world folder: ${rw.files} files of test/realworld/manifest.json, ${rw.parallel} at a time`, '');
    parts.push(
      "Ours: one `batch` process with the default pool (JSON and HTML reports; previews in the HTML of the pages that print, or of every page with `--previews`). Reference: per file `mutool draw -w 1200 -h 1200` (PNG) + `pdfimages -list` + `pdffonts`, run by `xargs -P`. Peak RSS: ours is the batch process with its workers; the reference's is its largest single tool process.",
      '',
    );
    const lines = ['| side | wall (median) | files/s | CPU (median) | CPU per file | cores busy | peak RSS |', '|---|---|---|---|---|---|---|'];
    for (const [side, m] of Object.entries(rw.rows))
      lines.push(
        m
          ? `| ${side} | ${m.ms.toFixed(0)} ms | ${m.filesPerSecond.toFixed(2)} | ${m.cpuMs.toFixed(0)} ms | ${m.cpuSecondsPerFile.toFixed(3)} s | ${m.cores.toFixed(2)} | ${m.maxRssMb.toFixed(0)} MB |`
          : `| ${side} | not installed | | | | | |`,
      );
    parts.push(lines.join('\n'));
  } else if (rw?.skipped) parts.push('', '## Real-world folder', '', `Skipped: ${rw.skipped}.`);
  for (const [name, r] of Object.entries(results.files)) {
    parts.push('', `## ${name} (${(r.bytes / 1e6).toFixed(1)} MB)`, '');
    if (r.hash) parts.push(`Floor — reading and hashing the bytes: ${r.hash.ms.toFixed(0)} ms.`, '');
    if (r.structure) parts.push(table('structure check (no rendering)', r.structure, r.structure.ours), '');
    parts.push(table('previews, 1200 px longest side', r.previews, r.previews.ours), '');
    if (r.full)
      parts.push(`Full check (structure + rendering + pixel checks, 2 workers): ${r.full.ms.toFixed(0)} ms wall, ${r.full.cpuMs.toFixed(0)} ms CPU, peak RSS ${r.full.maxRssMb.toFixed(0)} MB.`);
  }
  const b = results.batch;
  if (b.full) {
    parts.push('', `## Folder of ${b.files} order files`, '');
    if (b.structure) parts.push(table('structure check of the folder', b.structure, b.structure['ours, 2 workers']), '');
    parts.push(table('full check of the folder', b.full, b.full['ours, 2 workers']), '');
  }
  const l = results.leak;
  if (l)
    parts.push(
      '',
      '## 1,000 files through one process',
      '',
      `RSS after 100 files: ${(l.rss100 / 1e6).toFixed(0)} MB; after 1,000: ${(l.rss1000 / 1e6).toFixed(0)} MB; ${(l.ms / 1000).toFixed(0)} s in all.`,
      '',
    );
  return `${parts.join('\n')}\n`;
}

await main();
