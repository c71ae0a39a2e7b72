/**
 * The curl examples of the README and docs/service.md, run against a server with an API key: each
 * line as written (continuations joined), with the documentation's placeholders put in — the
 * server's address for http://127.0.0.1:8080, a real check's id for 3f0c…, the bundled sample for
 * design.pdf, images made by ImageMagick for front.png and back.jpg, file servers on 127.0.0.1 for
 * the example hosts — must get a 2xx answer; the same
 * line without its Authorization header must get 401, so the examples carry the key they need.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { CORPUS, form, tempDir } from '../service/harness.js';

const root = resolve('.');
const KEY = 'docs-curl-key-0001';
const KEY_HEADER = '-H "Authorization: Bearer $PRINT_PREFLIGHT_API_KEY" ';

/** Every `curl` command of the ```bash blocks of a file, continuation lines joined. */
function curlLines(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const blocks = [...text.matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  return (
    blocks
      .flatMap((b) => b.replace(/\\\n\s*/g, '').split('\n'))
      .map((l) => l.replace(/\s+#\s.*$/, '').trim())
      .filter((l) => l.startsWith('curl '))
      // /openapi.json is public (the generated-client recipes fetch it; their tests run them).
      .filter((l) => !l.includes('/openapi.json'))
  );
}

const LINES = [...curlLines('README.md').map((l) => ['README.md', l] as const), ...curlLines('docs/service.md').map((l) => ['docs/service.md', l] as const)];

let service: ServiceHandle;
let sources: SourceServer;
let hooks: http.Server;
let hooksUrl: string;
let images: http.Server;
let imagesBase: string;
let dir: string;
let id: string;

beforeAll(async () => {
  dir = tempDir('pp-docs-curl-');
  copyFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), join(dir, 'design.pdf'));
  // The layer images of the examples, as a customer's design tool would export them (a tanktop's front and back).
  execFileSync('/usr/bin/convert', ['-size', '2200x3000', 'gradient:#d02020-#2040d0', join(dir, 'front.png')]);
  execFileSync('/usr/bin/convert', ['-seed', '7', '-size', '2200x3000', 'plasma:fractal', '-quality', '90', join(dir, 'back.jpg')]);
  images = http.createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    if (name !== 'front.png' && name !== 'back.jpg') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': name.endsWith('.png') ? 'image/png' : 'image/jpeg' }).end(readFileSync(join(dir, name)));
  });
  await new Promise<void>((done) => images.listen(0, '127.0.0.1', done));
  imagesBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  sources = await startSourceServer();
  hooks = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((done) => hooks.listen(0, '127.0.0.1', done));
  hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks/preflight`;
  service = await startService({ port: 0, dataDir: tempDir('pp-docs-curl-data-'), logLevel: 'silent', apiKeys: [KEY], allowHosts: ['127.0.0.1'], callbackSecret: 'docs-curl-secret', workers: 1 });
  const done = await fetch(`${service.url}/v1/checks?wait=60`, {
    method: 'POST',
    body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }),
    headers: { authorization: `Bearer ${KEY}` },
  });
  expect(done.status).toBe(200);
  id = ((await done.json()) as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await new Promise((done) => hooks?.close(done));
  await new Promise((done) => images?.close(done));
});

/** The line with the placeholders put in; throws on a host the test does not know. */
function concrete(line: string): string {
  const out = line
    .replaceAll('http://127.0.0.1:8080', service.url)
    .replaceAll('3f0c…', id)
    .replaceAll('https://cdn.example.com/order-1234.pdf', `${sources.base}/good.pdf`)
    .replaceAll('https://cdn.example.com/designs/', `${imagesBase}/`)
    .replaceAll('https://shop.example.com/hooks/preflight', hooksUrl);
  expect(out, 'a placeholder host the test does not map').not.toMatch(/example\.com/);
  return out;
}

function curl(line: string): Promise<{ status: number; out: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', `${line} -w '\\n%{http_code}\\n'`], { cwd: dir, env: { ...process.env, PRINT_PREFLIGHT_API_KEY: KEY } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => done({ status: Number(out.trim().split('\n').pop()), out }));
  });
}

describe('the curl examples of the README and docs/service.md', () => {
  it('there are examples, and each sends the API key', () => {
    expect(LINES.length).toBeGreaterThanOrEqual(9);
    for (const [file, line] of LINES) expect(line, file).toContain(KEY_HEADER.trim());
  });

  it('each one gets a 2xx answer with the key, 401 without it', async () => {
    // The DELETE runs last: the other examples name the same check.
    const ordered = [...LINES.filter(([, l]) => !l.includes('-X DELETE')), ...LINES.filter(([, l]) => l.includes('-X DELETE'))];
    for (const [file, line] of ordered) {
      if (!line.includes('-X DELETE')) {
        const without = await curl(concrete(line.replace(KEY_HEADER, '')));
        expect(without.status, `${file}: ${line} without the key\n${without.out.slice(0, 500)}`).toBe(401);
      }
      const r = await curl(concrete(line));
      expect(r.status, `${file}: ${line}\n${r.out.slice(0, 500)}`).toBeGreaterThanOrEqual(200);
      expect(r.status, `${file}: ${line}\n${r.out.slice(0, 500)}`).toBeLessThan(300);
    }
  }, 300_000);
});
