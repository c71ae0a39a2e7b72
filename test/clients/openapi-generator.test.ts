/**
 * The Python recipe of docs/contracts.md ("Generated clients"), run as written: in an empty
 * project, with the packages it pins (this repository's copies, linked in: nothing is downloaded;
 * openapi-generator runs from the jar its npm package ships), `curl` fetches the live /openapi.json
 * of a server this test starts, docs/openapi-3.0.mjs turns it into OpenAPI 3.0 (openapi-generator
 * 4.3.1 predates 3.1), and openapi-generator's `python` generator makes the client — validating the
 * document first and stopping on any issue. openapi_generator_flow.py, calling only the generated
 * package, then uploads a PDF, submits a URL, polls, fetches the HTML report and a preview, deletes,
 * and reads problem bodies as the generated Problem model. Its runtime needs are Debian packages
 * (python3-urllib3, -six, -certifi, -dateutil) and Java; .ci/run installs them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, tempDir } from '../service/harness.js';

const root = resolve('.');
const KEY = 'openapi-generator-key-1';
const FILE = 'reportlab-tshirt-M-exact.pdf';
const DOC_URL = 'http://127.0.0.1:8080';
let pool: PreflightPool;
let service: ServiceHandle;
let sources: SourceServer;
let project: string;
let generatorLog = '';
const traffic = new Traffic();

type Json = Record<string, unknown>;

const contracts = readFileSync(join(root, 'docs/contracts.md'), 'utf8');
const recipe = /^### Python\n[\s\S]*?```bash\n([\s\S]*?)```/m.exec(contracts)?.[1] ?? '';
const lines = recipe.split('\n').filter(Boolean);

/** Runs a line in the project (asynchronously: the server answering it lives in this process). */
function sh(line: string, timeoutMs = 240_000): Promise<{ status: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', line], { cwd: project, env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, out });
    });
  });
}

beforeAll(async () => {
  expect(lines.length, 'docs/contracts.md has the Python recipe').toBe(4);
  pool = new PreflightPool({ maxThreads: 2 });
  // A tanktop's layers as a customer's tools export them (ImageMagick, at test time).
  const made = tempDir('pp-oag-images-');
  execFileSync('/usr/bin/convert', ['-seed', '5', '-size', '2200x3000', 'plasma:fractal', '-quality', '90', join(made, 'front.jpg')]);
  execFileSync('/usr/bin/convert', ['-size', '300x300', 'pattern:checkerboard', '-units', 'PixelsPerInch', '-density', '150', join(made, 'tile.png')]);
  sources = await startSourceServer(
    new Map([
      ['/front.jpg', { type: 'image/jpeg', body: readFileSync(join(made, 'front.jpg')) }],
      ['/tile.png', { type: 'image/png', body: readFileSync(join(made, 'tile.png')) }],
    ]),
  );
  service = await startService({ port: 0, dataDir: tempDir('pp-oag-client-'), pool, logLevel: 'silent', apiKeys: [KEY], allowHosts: ['127.0.0.1'] });
  traffic.observe(service.app.server);
  project = tempDir('pp-openapi-generator-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'python-client', private: true }));
  // `npm install --save-dev --save-exact …`: the pinned packages, from this repository.
  expect(lines[0]).toMatch(/^npm install --save-dev --save-exact /);
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  for (const spec of lines[0]!.split(' ').filter((w) => /^@?[\w-]+(\/[\w-]+)?@\d/.test(w))) {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    const version = spec.slice(spec.lastIndexOf('@') + 1);
    const from = name === 'print-preflight' ? root : join(root, 'node_modules', name);
    expect((JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')) as { version: string }).version, `${name}: the pinned version is the one tested`).toBe(version);
    mkdirSync(join(project, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(from, join(project, 'node_modules', name), 'dir');
  }
  symlinkSync(join(root, 'node_modules/@openapitools/openapi-generator-cli/bin/openapi-generator'), join(project, 'node_modules/.bin/openapi-generator'));
  for (const line of lines.slice(1)) {
    const r = await sh(line.replace(DOC_URL, service.url));
    expect(r.status, `${line}\n${r.out.slice(-3000)}`).toBe(0);
    if (line.includes('generate')) generatorLog = r.out;
  }
  const doc30 = JSON.parse(readFileSync(join(project, 'openapi30.json'), 'utf8')) as Json;
  expect(doc30.openapi).toMatch(/^3\.0\./);
}, 300_000);

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await pool?.destroy();
});

describe('a Python client generated by openapi-generator', () => {
  it('comes from a 3.0 document openapi-generator validated, with no error', () => {
    expect(generatorLog).toMatch(/Generating with dryRun=false/);
    expect(generatorLog).not.toMatch(/issues with the specification|\bERROR\b|Exception/);
  });

  it('has one typed method per operation, URLs as JSON and uploads as files', () => {
    const api = readFileSync(join(project, 'print_preflight_client/print_preflight_client/api/checks_api.py'), 'utf8');
    expect(api).toMatch(/def submit_check\(self, check_submission, \*\*kwargs\)/);
    expect(api).toMatch(/def upload_check\(self, file, \*\*kwargs\)/);
    expect(api).toMatch(/local_var_files\['file'\] = local_var_params\['file'\]/);
    const check = readFileSync(join(project, 'print_preflight_client/print_preflight_client/models/check.py'), 'utf8');
    expect(check).toMatch(/'report': 'Report'/);
    expect(check).toMatch(/'created_at': 'datetime'/);
  });

  it('drives a real server: upload, URL, poll, HTML report, preview, delete, typed problems', async () => {
    const flow = await sh(
      `/usr/bin/python3 ${join(import.meta.dirname, 'openapi_generator_flow.py')} ${join(project, 'print_preflight_client')} ${service.url} ${KEY} ${join(root, CORPUS, FILE)} T-SHIRT-M ${sources.base}/good.pdf ${sources.base}/front.jpg ${sources.base}/tile.png 2>/dev/null`,
    );
    expect(flow.status).toBe(0);
    const stdout = flow.out;
    const r = JSON.parse(stdout) as Json;
    expect(r.profiles).toContain('t-shirt');
    expect(r.uploaded).toEqual({ status: 202, type: 'Check', check: 'queued' });
    expect(r.submitted).toMatchObject({ status: 202 });
    expect(r.first).toEqual({ type: 'Check', status: 'done', verdict: 'pass', reportType: 'Report', path: FILE, sku: 'T-SHIRT-M', findingTypes: expect.any(Array), createdAt: 'datetime' });
    expect((r.first as { findingTypes: string[] }).findingTypes.every((t) => t === 'Finding')).toBe(true);
    expect(r.second).toEqual({ status: 'done', source: `${sources.base}/good.pdf` });
    expect(r.html).toEqual({ status: 200, type: expect.stringMatching(/^text\/html/), doctype: true });
    expect(r.preview).toMatchObject({ status: 200, type: 'image/webp', riff: true });
    expect((r.preview as { bytes: number }).bytes).toBeGreaterThan(100);
    expect(r.deleted).toBe(204);
    const problem = 'application/problem+json; charset=utf-8';
    expect(r.afterDelete).toMatchObject({ status: 404, contentType: problem, problem: { status: 404, code: 'check-not-found' } });
    expect(r.unknownSku).toMatchObject({ status: 422, problem: { code: 'unknown-sku', errors: [{ path: 'sku' }] } });
    expect(r.wrongKey).toMatchObject({ status: 401, problem: { code: 'api-key-unknown' } });
    expect(r.notPdfType).toMatchObject({ status: 415, problem: { code: 'unsupported-media-type' } });
    // Images per layer by URL through the generated package: assembled, the print file the fixed file.
    expect(r.layered).toEqual({
      status: 'done',
      fixed: expect.stringMatching(/^\/v1\/files\/[0-9a-f]{48}\.pdf$/),
      fills: [
        ['front', 'contain'],
        ['back', 'tile'],
      ],
    });
    expect(r.unknownLayer).toMatchObject({ status: 400, problem: { code: 'request-invalid' } });
    expect((r.unknownLayer as { problem: { errors: { path: string }[] } }).problem.errors.map((e) => e.path).sort()).toEqual(['layers.back', 'layers.sleeve']);
  }, 240_000);

  it('got only answers the document declares, with bodies valid against it', async () => {
    await traffic.expectDocumented(service.url);
  });
});
