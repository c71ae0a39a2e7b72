/**
 * Start-up: a command loads only what it needs. Each case runs the CLI in a fresh process with a
 * module hook that records every package resolved, so the assertion is about what was loaded,
 * not about time (timings live in bench/).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pp-startup-'));
const hooks = join(dir, 'hooks.mjs');
// ESM resolution (import) and CommonJS loading (require, createRequire) are both recorded.
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.PP_LOADED, 'esm ' + r.url + '\\n');
  return r;
}`,
);
const register = join(dir, 'register.mjs');
writeFileSync(
  register,
  `import { register } from 'node:module';
import Module from 'node:module';
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const load = Module._load;
const thread = isMainThread ? 'main' : 'worker';
Module._load = function (request, parent, isMain) {
  const out = load.apply(this, arguments);
  try { appendFileSync(process.env.PP_LOADED, 'cjs ' + thread + ' ' + Module._resolveFilename(request, parent) + '\\n'); } catch {}
  return out;
};`,
);

function loadedBy(args: string[]): { status: number | null; packages: Set<string>; imported: Set<string>; required: { main: Set<string>; worker: Set<string> } } {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, 'bin/print-preflight.js', ...args], {
    env: { ...process.env, PP_LOADED: log },
    encoding: 'utf8',
  });
  const lines = readFileSync(log, 'utf8').split('\n');
  const packagesOf = (list: string[]) => new Set(list.map((line) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1]).filter((p): p is string => !!p));
  // `imported`: packages reached by an ESM import (the other lines come from require()).
  // `required`: packages reached by require(), by the thread that loaded them (the hook that sees
  // imports runs on a thread of its own and cannot tell).
  return {
    status: run.status,
    packages: packagesOf(lines),
    imported: packagesOf(lines.filter((l) => l.startsWith('esm '))),
    required: { main: packagesOf(lines.filter((l) => l.startsWith('cjs main '))), worker: packagesOf(lines.filter((l) => l.startsWith('cjs worker '))) },
  };
}

const HEAVY = ['pdfjs-dist', 'pdf-lib', 'sharp', '@hyzyla/pdfium', '@napi-rs/canvas'];

describe('CLI start-up loads only what a command needs', () => {
  it.each([
    [['--help'], HEAVY.concat('piscina', 'zod')],
    [['--version'], HEAVY.concat('piscina', 'zod')],
    [['profiles'], HEAVY.concat('piscina')],
    [['schema', 'report'], HEAVY.concat('piscina')],
  ])('%j loads none of %j', (args, forbidden) => {
    const { status, packages } = loadedBy(args);
    expect(status).toBe(0);
    for (const p of forbidden) expect([...packages], `${args.join(' ')} loaded ${p}`).not.toContain(p);
  });

  it('check --no-raster reads the structure with pdf-lib, and loads no renderer and no image library', () => {
    const { status, packages } = loadedBy(['check', '--no-raster', 'test/corpus/files/reportlab-tshirt-M-exact.pdf', '--sku', 'T-SHIRT-M']);
    expect(status).toBe(0);
    expect([...packages]).toContain('pdf-lib'); // the hook sees what is loaded: it can fail
    for (const p of ['pdfjs-dist', 'sharp', '@hyzyla/pdfium', '@napi-rs/canvas']) expect([...packages]).not.toContain(p);
  });

  it.each([
    ['a vector file', 'test/corpus/files/reportlab-tshirt-M-exact.pdf', 'T-SHIRT-M', []],
    ['a file of JPEG pages', 'test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf', 'TANKTOP-M', []],
    ['a file of JPEG pages, structure only', 'test/corpus/files/imagemagick-tanktop-rgb-jpeg.pdf', 'TANKTOP-M', ['--no-raster']],
  ])('check of %s decodes its bytes in a pool worker, never in the main thread', (_what, file, sku, extra) => {
    const { status, required } = loadedBy(['check', file, '--sku', sku, ...extra]);
    expect([0, 1], 'a verdict, not a misuse').toContain(status);
    // The worker read the structure (the hook sees a worker's loads: it can fail) …
    expect([...required.worker]).toContain('pdf-lib');
    // … and the main thread loaded no parser or decoder of PDF or image bytes.
    for (const p of ['pdf-lib', 'sharp', '@napi-rs/canvas']) expect([...required.main], `the main thread loaded ${p}`).not.toContain(p);
  });

  it('loads pdf-lib with require(), never by an ESM import (which scans all its CommonJS re-exports)', () => {
    const { status, packages, imported } = loadedBy(['check', '--no-raster', 'test/corpus/files/reportlab-tshirt-M-exact.pdf', '--sku', 'T-SHIRT-M']);
    expect(status).toBe(0);
    expect([...packages]).toContain('pdf-lib');
    expect([...imported]).toContain('zod'); // the ESM side of the hook records: it can fail
    expect([...imported], 'a value import from "pdf-lib": go through src/pdf/pdf-lib.ts').not.toContain('pdf-lib');
  });
});
