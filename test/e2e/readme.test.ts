/**
 * The examples of the README and of the guides in docs/ as a user meets them: every ```ts snippet
 * type-checks under `strict` against the built package, imported as 'print-preflight' (or one of
 * its subpaths); every ```sh line runs through the installed command line in a scratch folder that
 * holds the repository's test files. A ```typescript snippet is code written against something
 * else (a generated client) and names the test that compiles and runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validDraft } from '../helpers/order.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';

const root = resolve('.');
/** The README and every guide: what a newcomer reads. */
const DOCS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const texts = DOCS.map((f) => readFileSync(join(root, f), 'utf8'));
const blocks = (lang: string) => texts.flatMap((text) => [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!));

/** Type-checks TypeScript files as a user's project that depends on print-preflight would. */
function typecheck(files: Record<string, string>): { file: string; message: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'pp-readme-ts-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'print-preflight'), 'dir');
  symlinkSync(join(root, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: ['node'], noEmit: true, skipLibCheck: false, esModuleInterop: true },
      include: ['*.ts'],
    }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => /error TS\d+/.test(l))
    .map((l) => ({ file: basename(l.split('(')[0]!), message: l }));
}

describe('README and docs TypeScript snippets', () => {
  const snippets = blocks('ts');

  it('there are snippets, and each imports from the package as a user would', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(10);
    for (const s of snippets) expect(s).toMatch(/from 'print-preflight(\/(order-service|customer|schemas|service|fleet|testing))?'/);
  });

  it('a snippet written against something else names the test that compiles and runs it', () => {
    const others = blocks('typescript');
    expect(others.length).toBeGreaterThanOrEqual(1);
    for (const s of others) {
      const test = /compiled and run [^\n]* by (test\/[\w/.-]+\.test\.ts)/.exec(s)?.[1];
      expect(test, s.slice(0, 120)).toBeDefined();
      expect(existsSync(join(root, test!)), test).toBe(true);
      expect(readFileSync(join(root, test!), 'utf8')).toMatch(/README/);
    }
  });

  it('every snippet compiles under strict against the built package; the harness itself catches misuse', { timeout: 180_000 }, () => {
    expect(existsSync(join(root, 'dist', 'src', 'index.d.ts')), 'npm run build first (npm test does)').toBe(true);
    const files: Record<string, string> = Object.fromEntries(snippets.map((s, i) => [`snippet-${i + 1}.ts`, s]));
    // Controls: what the old API allowed must not compile, or this harness proves nothing.
    files['control-verify.ts'] = `import { verifyWebhook } from 'print-preflight/order-service';\nconst v = verifyWebhook('{}', 'sig', 'secret');\nif (!v.ok) throw new Error('forged');\n`;
    files['control-created.ts'] =
      `import { OrderServiceClient, type OrderPayload } from 'print-preflight/order-service';\ndeclare const c: OrderServiceClient; declare const p: OrderPayload;\nconst n: string = (await c.createOrder(p)).data.nope.toUpperCase();\nconsole.log(n);\n`;
    files['control-draft.ts'] = `import { buildOrderPayload } from 'print-preflight/order-service';\ndeclare const fromJson: unknown;\nawait buildOrderPayload(fromJson);\n`;
    const errors = typecheck(files);
    expect(errors.filter((e) => e.file.startsWith('snippet-'))).toEqual([]);
    expect(errors.map((e) => e.file).sort(), JSON.stringify(errors)).toEqual(expect.arrayContaining(['control-created.ts', 'control-draft.ts', 'control-verify.ts']));
    // buildOrderPayload takes an OrderDraft: JSON goes through validateDraft first.
    expect(errors.some((e) => e.file === 'control-draft.ts' && /Argument of type 'unknown' is not assignable/.test(e.message))).toBe(true);
    expect(errors.some((e) => e.file === 'control-verify.ts' && /Property 'ok' does not exist on type 'boolean'/.test(e.message))).toBe(true);
    expect(errors.some((e) => e.file === 'control-created.ts')).toBe(true);
  });
});

describe('README and docs shell examples', () => {
  /** Lines that are not examples of the command line: the test suite itself and the benchmarks (run from a checkout). */
  const NOT_RUN = new Set(['npm test', 'npm run bench', 'npm run bench -- --rows issue-24', 'BENCH_SMOKE=1 node bench/run.mjs']);
  const lines = blocks('sh')
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean);
  let dir: string;
  let server: SourceServer;

  beforeAll(async () => {
    server = await startSourceServer();
    dir = mkdtempSync(join(tmpdir(), 'pp-readme-sh-'));
    symlinkSync(join(root, 'test'), join(dir, 'test'), 'dir');
    symlinkSync(join(root, 'profiles'), join(dir, 'profiles'), 'dir');
    // `print-preflight` on PATH is the installed bin.
    mkdirSync(join(dir, '.bin'));
    writeFileSync(join(dir, '.bin', 'print-preflight'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'print-preflight.js')}" "$@"\n`);
    chmodSync(join(dir, '.bin', 'print-preflight'), 0o755);
    // The user's own files the examples name: artwork per layer, a manifest, a draft, a hot folder.
    const art = (w: number, h: number, colour: string) => sharp({ create: { width: w, height: h, channels: 3, background: colour } });
    await art(3200, 4400, '#c03030').png().toFile(join(dir, 'front.png'));
    await art(3200, 4400, '#3060c0').jpeg().toFile(join(dir, 'back.jpg'));
    await art(2700, 1500, '#30a050').tiff().toFile(join(dir, 'left.tif'));
    await art(2700, 1500, '#a0a030').webp().toFile(join(dir, 'right.webp'));
    writeFileSync(join(dir, 'manifest.csv'), 'file,sku\nreportlab-tshirt-M-exact.pdf,T-SHIRT-M\nqpdf-tshirt-M-sleeves-first.pdf,T-SHIRT-M\ngs-duvet-exact.pdf,DUVET-COVER-200X200\n');
    writeFileSync(join(dir, 'draft.json'), JSON.stringify(validDraft([`${server.base}/good.pdf`])));
    mkdirSync(join(dir, 'incoming'));
  });
  afterAll(() => server?.close());

  function sh(line: string, killAfterMs?: number): Promise<{ code: number | null; out: string; err: string }> {
    return new Promise((done) => {
      const child = spawn('bash', ['-o', 'pipefail', '-c', line], { cwd: dir, env: { ...process.env, PATH: `${join(dir, '.bin')}:${process.env.PATH}`, NO_COLOR: '1' } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      // bash execs the single command (and the wrapper execs node): the child is the command itself.
      if (killAfterMs) setTimeout(() => child.kill('SIGINT'), killAfterMs);
      child.on('close', (code) => done({ code, out, err }));
    });
  }

  it('names only runnable commands and files that exist', () => {
    const run = lines.filter((l) => !NOT_RUN.has(l));
    expect(lines.filter((l) => NOT_RUN.has(l)).sort()).toEqual([...NOT_RUN].sort());
    for (const l of run) expect(l, 'examples are concrete: no […] or a|b placeholders').not.toMatch(/\[|…|\w\|\w/);
    for (const l of run) for (const file of l.match(/test\/corpus\/files\/[\w.-]+/g) ?? []) expect(existsSync(file), file).toBe(true);
  });

  it('every example runs: exit 0 or 1 (pass/warn or fail), never misuse or a crash', { timeout: 600_000 }, async () => {
    const ran: string[] = [];
    for (const line of lines.filter((l) => !NOT_RUN.has(l))) {
      const watch = line.includes('--watch');
      // `npx print-preflight` in a project is its installed bin, which is on PATH here.
      const command = line.replace(/^(npm ci && )?npx /, '');
      const r = await sh(command, watch ? 4_000 : undefined);
      const what = `${line}\n${r.err}`;
      if (watch) expect(r.code, what).toBe(130);
      else expect([0, 1], what).toContain(r.code);
      expect(r.err, what).not.toMatch(/^\s+at |Error:|print-preflight( \w+)?: (unknown|.* needs )/m);
      ran.push(line);
    }
    // What the examples say they write is written.
    for (const f of ['report.html', 'previews', 'reordered.pdf', 'upright.pdf', 'turned.pdf', 'fitted.pdf', 'order.pdf', 'checked/summary.json', 'payload.json']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(ran.length).toBeGreaterThanOrEqual(20);
    // The batch example judges every test file against its product: none ends in error.
    const summary = JSON.parse(readFileSync(join(dir, 'checked', 'summary.json'), 'utf8')) as { files: number; error: number; results: { file: string; reason: string | null }[] };
    expect(summary.files).toBe(readdirSync(join(root, 'test', 'corpus', 'files')).filter((f) => f.endsWith('.pdf')).length);
    expect(summary.error, JSON.stringify(summary.results.filter((r) => r.reason))).toBe(0);
  });
});
