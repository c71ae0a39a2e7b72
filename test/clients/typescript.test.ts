/**
 * The README's generated-client recipe, run as written: in an empty ESM project (`"type": "module"`,
 * `"module": "nodenext"`), with the @hey-api/openapi-ts and TypeScript versions the README pins (the
 * repository's own copies, linked in: the test downloads nothing), `curl` fetches the live
 * /openapi.json of a server this test starts, `npx openapi-ts` generates the SDK with the README's
 * openapi-ts.config.mjs, and `npx tsc` with the README's tsconfig.json (Node's types from the
 * @types/node the recipe pins) compiles the README's src/check.ts and the integrator's flow
 * (typescript-flow.ts: upload, URL, poll, HTML report, preview, delete, typed problems) under strict
 * NodeNext; then `node dist/check.js` and the flow run against the server. Every answer is held against the document too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, tempDir } from '../service/harness.js';

/** What typescript-flow.ts returns (not imported: the root type-check must not need the generated code). */
interface FlowResult {
  profiles: { id: string }[];
  uploaded: { status: number };
  submitted: { status: number };
  done: { status: string; report: { source?: { url: string } } | null }[];
  html: string;
  preview: { type: string; bytes: number };
  deleted: number;
  afterDelete: unknown;
  unknownSku: unknown;
  wrongKey: unknown;
  notPdfType: unknown;
  layered: { status: string; fixed: { url: string } | null; report: { assembly?: { layers: { layer: string; fill: string; source: string }[] } } | null };
  unknownLayer: { status: number; problem: { code: string; errors: { path: string }[] } };
}

const root = resolve('.');
const HERE = import.meta.dirname;
const KEY = 'generated-client-key-1';
const FILE = 'reportlab-tshirt-M-exact.pdf';
const README_URL = 'http://127.0.0.1:8080';

/** The recipe's four blocks: the shell lines, openapi-ts.config.mjs, tsconfig.json and src/check.ts. */
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const recipe = /\*\*A generated TypeScript client\*\*[\s\S]*?```bash\n([\s\S]*?)```\s*```js\n([\s\S]*?)```\s*```jsonc\n([\s\S]*?)```\s*```typescript\n([\s\S]*?)```/.exec(readme);
const [shell, config, tsconfig, check] = [recipe?.[1] ?? '', recipe?.[2] ?? '', recipe?.[3] ?? '', recipe?.[4] ?? ''];
const shellLines = shell.split('\n').filter(Boolean);

let pool: PreflightPool;
let service: ServiceHandle;
let sources: SourceServer;
let project: string;
let compiled: { status: number | null; output: string };
const traffic = new Traffic();

/** Runs a line in the project (asynchronously: the server answering it lives in this process). */
function sh(line: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', line], {
      cwd: project,
      env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', PRINT_PREFLIGHT_API_KEY: KEY },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  expect(recipe, 'the README has the recipe: a bash block, openapi-ts.config.mjs and src/check.ts').not.toBeNull();
  pool = new PreflightPool({ maxThreads: 2 });
  // A tanktop's layers as a customer's tools export them (ImageMagick, at test time): a photo-like
  // front and a small repeat tile for the back.
  const made = tempDir('pp-ts-client-images-');
  execFileSync('/usr/bin/convert', ['-seed', '3', '-size', '2200x3000', 'plasma:fractal', '-quality', '90', join(made, 'front.jpg')]);
  execFileSync('/usr/bin/convert', ['-size', '300x300', 'pattern:checkerboard', '-units', 'PixelsPerInch', '-density', '150', join(made, 'tile.png')]);
  sources = await startSourceServer(
    new Map([
      ['/front.jpg', { type: 'image/jpeg', body: readFileSync(join(made, 'front.jpg')) }],
      ['/tile.png', { type: 'image/png', body: readFileSync(join(made, 'tile.png')) }],
    ]),
  );
  service = await startService({ port: 0, dataDir: tempDir('pp-ts-client-'), pool, logLevel: 'silent', apiKeys: [KEY], allowHosts: ['127.0.0.1'] });
  traffic.observe(service.app.server);

  // An empty ESM project, as the recipe starts from, with the README's tsconfig.json as written
  // (Node's types from the @types/node the recipe installs, nothing from this repository's).
  project = tempDir('pp-ts-project-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integration', private: true, type: 'module' }));
  expect(tsconfig).toMatch(/^\/\/ tsconfig\.json\n/);
  writeFileSync(join(project, 'tsconfig.json'), tsconfig);
  // `npm install --save-dev --save-exact …`: the pinned packages, from this repository's node_modules.
  const install = shellLines[0]!;
  expect(install).toMatch(/^npm install --save-dev --save-exact /);
  mkdirSync(join(project, 'node_modules', '@hey-api'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '.bin'));
  for (const spec of install.split(' ').filter((w) => w.includes('@') && !w.startsWith('-'))) {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    const version = spec.slice(spec.lastIndexOf('@') + 1);
    const installed = (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    expect(installed, `${name}: the README pins the version the test runs`).toBe(version);
    symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }
  symlinkSync(join(root, 'node_modules/@hey-api/openapi-ts/bin/run.js'), join(project, 'node_modules/.bin/openapi-ts'));
  symlinkSync(join(root, 'node_modules/typescript/bin/tsc'), join(project, 'node_modules/.bin/tsc'));
  writeFileSync(join(project, 'openapi-ts.config.mjs'), config);
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'check.ts'), check.replace(README_URL, service.url));
  copyFileSync(join(HERE, 'typescript-flow.ts'), join(project, 'src', 'flow.ts'));
  copyFileSync(join(CORPUS, FILE), join(project, 'design.pdf'));

  // The recipe's curl, npx and node lines, as written (the server's address put in); tsc's and the
  // check's answers are held by the tests below.
  expect(shellLines.slice(1)).toEqual(['curl -fsS http://127.0.0.1:8080/openapi.json -o openapi.json', 'npx openapi-ts', 'npx tsc', 'node dist/check.js']);
  for (const line of shellLines.slice(1, 3)) {
    const r = await sh(line.replace(README_URL, service.url));
    expect(r.status, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
  }
  const tsc = await sh(shellLines[3]!);
  compiled = { status: tsc.status, output: tsc.stdout + tsc.stderr };
}, 300_000);

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await pool?.destroy();
});

describe('a TypeScript client generated by @hey-api/openapi-ts', () => {
  it('types the upload as Blob | File and each answer by status, imports with .js', () => {
    const types = readFileSync(join(project, 'src/print-preflight/types.gen.ts'), 'utf8');
    expect(readFileSync(join(project, 'src/print-preflight/sdk.gen.ts'), 'utf8')).toMatch(/from '\.\/client\/index\.js'/);
    expect(types).toMatch(/export type CheckUpload = \{[^}]*file: Blob \| File;/s);
    expect(types).toMatch(/export type UploadCheckErrors = \{[^}]*422: Problem;/s);
    expect(types).toMatch(/report: Report \| null;/);
  });

  it('compiles, strict, under NodeNext, with the code written against it (the README check.ts and the flow)', () => {
    expect(compiled.output).toBe('');
    expect(compiled.status).toBe(0);
  });

  it('the README check.ts uploads the design and reads the finished check', async () => {
    // `node` as the recipe says: the Node running this test (first on PATH for the line).
    const r = await sh(`PATH="${dirname(process.execPath)}:$PATH" ${shellLines[4]}`);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('done pass');
  }, 120_000);

  it('drives a real server: upload, URL, poll, HTML report, preview, delete, typed problems', async () => {
    const flowModule = pathToFileURL(join(project, 'dist', 'flow.js')).href;
    const { runFlow } = (await import(/* @vite-ignore */ flowModule)) as { runFlow: (i: unknown) => Promise<FlowResult> };
    const pdf = new File([readFileSync(join(CORPUS, FILE))], FILE, { type: 'application/pdf' });
    const r = await runFlow({
      baseUrl: service.url,
      apiKey: KEY,
      pdf,
      sku: 'T-SHIRT-M',
      url: `${sources.base}/good.pdf`,
      layers: { sku: 'TANKTOP-M', front: `${sources.base}/front.jpg`, back: `${sources.base}/tile.png` },
    });
    expect(r.profiles.map((p) => p.id)).toContain('t-shirt');
    expect(r.uploaded.status).toBe(202);
    expect(r.submitted.status).toBe(202);
    expect(r.done.map((c) => c.status)).toEqual(['done', 'done']);
    expect(r.done[0]!.report).toMatchObject({ file: { path: FILE }, sku: 'T-SHIRT-M', verdict: 'pass' });
    expect(r.done[1]!.report!.source?.url).toBe(`${sources.base}/good.pdf`);
    expect(r.html).toContain('<!doctype html>');
    expect(r.preview.type).toBe('image/webp');
    expect(r.preview.bytes).toBeGreaterThan(100);
    expect(r.deleted).toBe(204);
    expect(r.afterDelete).toMatchObject({ status: 404, problem: { status: 404, code: 'check-not-found' } });
    expect(r.unknownSku).toMatchObject({ status: 422, problem: { code: 'unknown-sku', errors: [{ path: 'sku' }] } });
    expect(r.wrongKey).toMatchObject({ status: 401, problem: { code: 'api-key-unknown' } });
    expect(r.notPdfType).toMatchObject({ status: 415, problem: { code: 'unsupported-media-type' } });
    // Images per layer by URL through the generated SDK: assembled, the print file the fixed file.
    expect(r.layered.status).toBe('done');
    expect(r.layered.fixed?.url).toMatch(/^\/v1\/files\/[0-9a-f]{48}\.pdf$/);
    expect(r.layered.report?.assembly?.layers.map((l) => [l.layer, l.fill, l.source])).toEqual([
      ['front', 'contain', 'image'],
      ['back', 'tile', 'image'],
    ]);
    expect(r.unknownLayer).toMatchObject({ status: 400, problem: { code: 'request-invalid' } });
    expect(r.unknownLayer.problem.errors.map((e) => e.path).sort()).toEqual(['layers.back', 'layers.sleeve']);
  }, 180_000);

  it('got only answers the document declares, with bodies valid against it', async () => {
    await traffic.expectDocumented(service.url);
  });
});
