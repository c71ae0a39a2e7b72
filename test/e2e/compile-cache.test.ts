/**
 * Node's module compile cache (`module.enableCompileCache()`, Node ≥ 22.1) is on where the code
 * starts: the CLI's launcher (bin/print-preflight.js) and each pool worker's entry
 * (dist/workers/preflight-worker.js). Each is run with TMPDIR pointing at a new folder (the cache
 * goes to `os.tmpdir()/node-compile-cache` when NODE_COMPILE_CACHE is unset), and the cache must hold
 * compiled code afterwards. The worker's own call is isolated by a library script whose main thread
 * never enables the cache: whatever is cached then was cached by the workers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve('.');
const SAMPLE = join(root, 'test/corpus/files/reportlab-tshirt-M-exact.pdf');
const made: string[] = [];

/** Every file under the folder (the cache keeps one folder per Node build, files per module). */
function cached(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(dir, f)).isFile());
}

function run(args: string[]) {
  const tmp = mkdtempSync(join(tmpdir(), 'pp-compile-cache-'));
  made.push(tmp);
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  const r = spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  return { ...r, cache: join(tmp, 'node-compile-cache') };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the module compile cache', () => {
  it('this Node has it (package.json requires Node ≥ 22)', () => {
    expect(typeof (module as { enableCompileCache?: unknown }).enableCompileCache, `Node ${process.version}`).toBe('function');
  });

  it('the CLI fills it on its first run', () => {
    expect(existsSync(join(root, 'dist/src/cli/main.js')), 'npm run build first').toBe(true);
    const r = run([join(root, 'bin/print-preflight.js'), 'profiles']);
    expect(r.status, r.stderr).toBe(0);
    // The launcher, the CLI's modules and zod at least: more than a handful of compiled modules.
    expect(cached(r.cache).length).toBeGreaterThan(5);
  }, 60_000);

  it('the pool workers fill it, with the main thread leaving it off', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-compile-cache-script-'));
    made.push(dir);
    const script = join(dir, 'check.mjs');
    writeFileSync(
      script,
      `import { preflight, closeDefaultPool } from ${JSON.stringify(join(root, 'dist/src/index.js'))};\n` +
        `const report = await preflight(process.argv[2], { sku: 'T-SHIRT-M' });\n` +
        `await closeDefaultPool();\n` +
        `console.log(report.verdict);\n`,
    );
    const r = run([script, SAMPLE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('pass');
    expect(cached(r.cache).length).toBeGreaterThan(0);
  }, 120_000);

  it('a control: a script that loads the same modules without the launcher or a worker leaves none', () => {
    const r = run(['-e', `import(${JSON.stringify(join(root, 'dist/src/cli/main.js'))}).then(() => console.log('loaded'))`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('loaded');
    expect(cached(r.cache)).toEqual([]);
  }, 60_000);
});
