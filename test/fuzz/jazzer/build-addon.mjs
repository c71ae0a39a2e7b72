#!/usr/bin/env node
/**
 * Makes Jazzer.js's native fuzzer addon load on this machine.
 *
 * @jazzer.js/fuzzer 4.0.0 ships only prebuilt binaries; its Linux x64 one needs glibc 2.38 and
 * GLIBCXX_3.4.32 (Debian 12 has 2.36), so `require('@jazzer.js/fuzzer')` fails with
 * "version `GLIBC_2.38' not found". Its own source build (cmake-js) downloads Code Intelligence's
 * LLVM fork from GitHub, which this machine and CI cannot reach. So, when the shipped binary does
 * not load, this builds the addon from what the ordinary clients reach:
 *   - the addon's C++ sources as @jazzer.js/fuzzer 2.1.0 publishes them on npm (`npm pack`,
 *     checked against the sha512 below);
 *   - Debian's stock libFuzzer (`libclang-rt-16-dev`: libclang_rt.fuzzer_no_main-<arch>.a);
 *   - the Node-API headers from npm (node-api-headers, node-addon-api: @jazzer.js/fuzzer's own
 *     dependencies);
 *   - our addon-init.cpp and libfuzzer-shims.cpp: what 4.0.0's JavaScript needs beyond 2.1.0
 *     (`registerModuleCounters`, coverage of ES modules), the death callback the fork renamed and its two
 *     comparison hooks with an explicit call site;
 *     include/fuzzer/FuzzerDefs.h declares libFuzzer's entry point (Debian ships no private headers).
 * The result goes to node_modules/@jazzer.js/fuzzer/dist/prebuilds/, which the package's loader
 * looks at before its own prebuilds/ folder. Nothing is downloaded but the npm tarball.
 *
 * Usage: node test/fuzz/jazzer/build-addon.mjs [--force | --check]
 *   --check: only say whether the addon loads (exit 1 if not); reaches no network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const require = createRequire(join(root, 'package.json'));
const SOURCES = { name: '@jazzer.js/fuzzer', version: '2.1.0', integrity: 'sha512-WroUAGH1+AFoI+5kRGOjvh9+1GsYEmCinvEt9yF0E0pBTeadssCG6Y8adeYh6W0rum2LjPsjVfLEWMunRLt/Ew==' };
const force = process.argv.includes('--force');
const checkOnly = process.argv.includes('--check');

const fuzzerDir = dirname(require.resolve('@jazzer.js/fuzzer/package.json'));
const target = join(fuzzerDir, 'dist', 'prebuilds', `fuzzer-${process.platform}-${process.arch}.node`);

/** Whether the addon @jazzer.js/fuzzer would load now loads, asked in a fresh process (a failed dlopen is not retried in-process). */
function addonLoads() {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(join(fuzzerDir, 'dist', 'addon.js'))})`], { encoding: 'utf8' });
  return { ok: r.status === 0, error: (r.stderr || '').split('\n').find((l) => /Error/.test(l)) ?? r.stderr };
}

function fail(message) {
  console.error(`build-addon: ${message}`);
  process.exit(1);
}

const before = addonLoads();
if (before.ok && !force) {
  console.log(`build-addon: the Jazzer.js addon loads (${existsSync(target) ? target : 'shipped prebuilt'}); nothing to build`);
  process.exit(0);
}
if (!before.ok) console.log(`build-addon: the shipped addon does not load here: ${before.error.trim()}`);
if (checkOnly) fail('the Jazzer.js addon does not load: build it with `node test/fuzz/jazzer/build-addon.mjs` (needs g++ and libclang-rt-16-dev)');
if (process.platform !== 'linux') fail(`building the addon is only set up for Linux (this is ${process.platform})`);

const arch = { x64: 'x86_64', arm64: 'aarch64' }[process.arch] ?? fail(`no libFuzzer build for ${process.arch}`);
const libfuzzer = findLibFuzzer(arch) ?? fail(`no libclang_rt.fuzzer_no_main-${arch}.a: install Debian's libclang-rt-16-dev (apt-get install libclang-rt-16-dev)`);
for (const tool of ['g++', 'tar']) if (spawnSync(tool, ['--version']).status !== 0) fail(`${tool} is needed (apt-get install g++)`);

const work = join(root, 'node_modules', '.cache', 'jazzer-addon');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const packed = JSON.parse(execFileSync('npm', ['pack', `${SOURCES.name}@${SOURCES.version}`, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8' }))[0];
const tarball = join(work, packed.filename);
const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
if (integrity !== SOURCES.integrity) fail(`${packed.filename} is not the tarball this script was written for (${integrity})`);
execFileSync('tar', ['xzf', tarball, '-C', work]);
const src = join(work, 'package');

const includes = [
  src,
  join(here, 'include'),
  dirname(require.resolve('node-addon-api/package.json', { paths: [fuzzerDir] })),
  join(dirname(require.resolve('node-api-headers/package.json', { paths: [fuzzerDir] })), 'include'),
];
const sources = [
  join(here, 'addon-init.cpp'),
  join(here, 'libfuzzer-shims.cpp'),
  ...['fuzzing_sync.cpp', 'fuzzing_async.cpp', 'utils.cpp'].map((f) => join(src, f)),
  ...readdirSync(join(src, 'shared'))
    .filter((f) => f.endsWith('.cpp'))
    .map((f) => join(src, 'shared', f)),
];
const out = join(work, 'jazzerjs.node');
const args = [
  '-std=c++17',
  '-O2',
  '-fPIC',
  '-shared',
  '-w',
  '-DNAPI_VERSION=4',
  '-DNAPI_CPP_EXCEPTIONS',
  '-DBUILDING_NODE_EXTENSION',
  ...includes.map((i) => `-I${i}`),
  ...sources,
  '-Wl,--whole-archive',
  libfuzzer,
  '-Wl,--no-whole-archive',
  '-lpthread',
  '-o',
  out,
];
console.log(`build-addon: g++ ${sources.length} sources + ${libfuzzer}`);
const cc = spawnSync('g++', args, { stdio: 'inherit' });
if (cc.status !== 0) fail('g++ failed');
mkdirSync(dirname(target), { recursive: true });
copyFileSync(out, target);
const after = addonLoads();
if (!after.ok) fail(`the built addon does not load either: ${after.error.trim()}`);
console.log(`build-addon: built ${target}`);

function findLibFuzzer(a) {
  const base = '/usr/lib';
  const found = [];
  for (const llvm of existsSync(base) ? readdirSync(base).filter((d) => /^llvm-\d+$/.test(d)) : []) {
    const clang = join(base, llvm, 'lib', 'clang');
    for (const v of existsSync(clang) ? readdirSync(clang) : []) {
      const lib = join(clang, v, 'lib', 'linux', `libclang_rt.fuzzer_no_main-${a}.a`);
      if (existsSync(lib)) found.push({ lib, major: Number(llvm.slice(5)) });
    }
  }
  return found.sort((x, y) => y.major - x.major)[0]?.lib ?? null;
}
