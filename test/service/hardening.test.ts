/**
 * Every answer the server can give, probed raw: the security headers on every route and status
 * (set before the body), one problem+json contract for what the HTTP parser refuses (400, 408,
 * 414, 431), for 405 with Allow, 413 and 500; strict page numbers; names cleaned of format
 * controls; a client that hangs up mid-upload logged at info, not as a server error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startGatedSource, type GatedSource } from '../helpers/gated-source.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { validDraft } from '../helpers/order.js';
import { CORPUS, expectProblem, form, startChild, tempDir, type ChildServer } from './harness.js';

const KEY = 'hardening-key-0001';
const auth = { authorization: `Bearer ${KEY}` };
let pool: PreflightPool;
let service: ServiceHandle;
let gate: GatedSource;
let checkId: string;

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  gate = await startGatedSource();
  gate.open();
  service = await startService({ port: 0, dataDir: tempDir('pp-hardening-'), pool, logLevel: 'silent', apiKeys: [KEY], allowHosts: ['127.0.0.1'], headersTimeoutMs: 1_500, requestTimeoutMs: 30_000 });
  const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }), headers: auth });
  checkId = ((await res.json()) as { id: string }).id;
});

afterAll(async () => {
  await service?.close();
  await gate?.close();
  await pool?.destroy();
});

type Headers = Record<string, string | null>;
const fromFetch = (res: Response): Headers => Object.fromEntries([...res.headers.entries()]);

/** The headers every answer carries, whatever its route and status. */
function expectHardened(headers: Headers, where: string, { page = false, privateCache = false } = {}): void {
  const h = (name: string) => headers[name] ?? null;
  expect(h('x-content-type-options'), where).toBe('nosniff');
  expect(h('referrer-policy'), where).toBe('no-referrer');
  expect(h('x-frame-options'), where).toBe('DENY');
  expect(h('x-request-id'), where).toMatch(/^[\w.:-]+$/);
  const csp = h('content-security-policy') ?? '';
  expect(csp, where).toContain("default-src 'none'");
  expect(csp, where).toContain("frame-ancestors 'none'");
  expect(csp, where).not.toContain("unsafe-inline'; script");
  expect(/script-src[^;]*'unsafe-inline'/.test(csp), `${where}: ${csp}`).toBe(false);
  if (page) expect(csp, where).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(h('cache-control'), where).toBe(privateCache ? 'private, no-store' : 'no-store');
}

describe('security headers on every route, every status', () => {
  it('every operation of /openapi.json, answered (2xx, 4xx, 5xx), and HEAD of every GET', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const concrete = (path: string) => path.replace('{id}', checkId).replace('{n}', '1');
    const bodyFor: Record<string, () => RequestInit> = {
      'POST /v1/checks': () => ({ body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }) }),
      'POST /v1/orders/payload': () => ({ body: JSON.stringify(validDraft([gate.url('order')])), headers: { 'content-type': 'application/json' } }),
      'POST /v1/orders': () => ({ body: JSON.stringify(validDraft([gate.url('order')])), headers: { 'content-type': 'application/json' } }),
    };
    const seen: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
        const op = `${method} ${path}`;
        if (op === `DELETE /v1/checks/{id}`) continue; // last, below
        const init = bodyFor[op]?.() ?? {};
        const res = await fetch(`${service.url}${concrete(path)}`, { method, ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
        await res.arrayBuffer();
        seen.push(`${op} ${res.status}`);
        // A page answers under the page policy; a problem (the original's report of a check that fixed nothing: 404) under the strictest.
        const isPage = (path.endsWith('report.html') && res.status < 300) || path === '/docs';
        expectHardened(fromFetch(res), `${op} → ${res.status}`, { page: isPage, privateCache: path.startsWith('/v1/checks') && res.status < 300 });
        if (method === 'GET') {
          const head = await fetch(`${service.url}${concrete(path)}`, { method: 'HEAD', headers: auth });
          expectHardened(fromFetch(head), `HEAD ${path}`, { page: isPage, privateCache: path.startsWith('/v1/checks') && head.status < 300 });
        }
        // Without the key: 401, hardened too.
        const none = await fetch(`${service.url}${concrete(path)}`, { method, ...bodyFor[op]?.() });
        await none.arrayBuffer();
        expectHardened(fromFetch(none), `${op} without a key → ${none.status}`);
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        'POST /v1/checks 202',
        `GET /v1/checks/{id} 200`,
        'GET /v1/checks/{id}/report.html 200',
        'GET /v1/checks/{id}/pages/{n} 200',
        'GET /docs 200',
        'GET /health 200',
        'GET /metrics 200',
        'POST /v1/orders 501',
        'POST /v1/orders/payload 200',
      ]),
    );
    const deleted = await fetch(`${service.url}/v1/checks/${checkId}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expectHardened(fromFetch(deleted), 'DELETE');
    // After DELETE nothing of it is served, and nothing said a cache could keep it.
    for (const path of [`/v1/checks/${checkId}`, `/v1/checks/${checkId}/report.html`, `/v1/checks/${checkId}/pages/1`]) {
      const gone = await fetch(`${service.url}${path}`, { headers: auth });
      expectHardened(fromFetch(gone), path);
      await expectProblem(gone, 404, 'check-not-found');
    }
  });

  it('report.html has its Content-Security-Policy in the head of the answer, before the body', async () => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }), headers: auth });
    const { id } = (await res.json()) as { id: string };
    const answer = await rawRequest(service.url, `GET /v1/checks/${id}/report.html HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    const head = answer.raw.slice(0, answer.raw.indexOf('\r\n\r\n'));
    expect(head).toMatch(/\r\ncontent-security-policy: default-src 'none'; script-src 'sha256-[^']+'; style-src 'unsafe-inline'; img-src data:;/i);
    expectHardened(answer.headers, 'report.html (raw)', { page: true, privateCache: true });
  });

  it('frame-ancestors as the operator configured it (and no X-Frame-Options, which cannot say it)', async () => {
    const framed = await startService({ port: 0, dataDir: tempDir(), pool, logLevel: 'silent', frameAncestors: ["'self'", 'https://admin.example.com'] });
    try {
      for (const path of ['/docs', '/health', '/nope']) {
        const res = await fetch(`${framed.url}${path}`);
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://admin.example.com");
        expect(res.headers.get('x-frame-options')).toBeNull();
      }
    } finally {
      await framed.close();
    }
  });
});

/** A problem+json answer with every header, its connection closed. */
function expectRawProblem(answer: RawAnswer, status: number, code: string, { closes = false } = {}): void {
  expect(answer.status, answer.raw.slice(0, 400)).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:print-preflight:problem:${code}`, title: expect.any(String), detail: expect.any(String) });
  expectHardened(answer.headers, `${status} ${code}`);
  // Nothing more is read from a connection whose request could not be read.
  if (closes) expect(answer.headers.connection).toBe('close');
}

describe('one error contract, sent raw over a socket', () => {
  const send = (text: string | (string | Buffer)[], opts?: { timeoutMs?: number; gapMs?: number }) => rawRequest(service.url, text, opts);

  it.each([
    ['a header line without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nThis is not a header\r\n\r\n'],
    ['a method the parser does not know', 'FL@P /health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a space in a header name', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n'],
    ['Content-Length and chunked together', 'POST /v1/checks HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['two Content-Lengths that disagree', 'POST /v1/checks HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
    ['a control character in the URL', 'GET /he\x01alth HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('400 problem+json from the HTTP parser: %s', async (_what, request) => {
    const answer = await send(request);
    expectRawProblem(answer, 400, 'request-malformed', { closes: true });
  });

  it('405 with Allow for a path that exists under another method (and OPTIONS lists them)', async () => {
    for (const [request, allow] of [
      ['PUT /v1/checks HTTP/1.1', 'OPTIONS, POST'],
      [`PATCH /v1/checks/${'a'.repeat(32)} HTTP/1.1`, 'DELETE, GET, HEAD, OPTIONS'],
      ['POST /health HTTP/1.1', 'GET, HEAD, OPTIONS'],
      [`DELETE /v1/checks/${'a'.repeat(32)}/report.html HTTP/1.1`, 'GET, HEAD, OPTIONS'],
    ] as const) {
      const answer = await send(`${request}\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
      expectRawProblem(answer, 405, 'method-not-allowed');
      expect(answer.headers.allow).toBe(allow);
    }
    const options = await send(`OPTIONS /v1/checks HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('OPTIONS, POST');
    const connect = await send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectRawProblem(connect, 405, 'method-not-allowed');
    expectRawProblem(await send('GET /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n'), 404, 'route-not-found');
  });

  it('408 when the headers do not arrive in time', async () => {
    const answer = await send(['GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'], { gapMs: 200, timeoutMs: 20_000 });
    expectRawProblem(answer, 408, 'request-timeout', { closes: true });
  });

  it('413 for a JSON body over 1 MiB, refused from its Content-Length', async () => {
    const answer = await send(`POST /v1/checks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"url":`);
    expectRawProblem(answer, 413, 'body-too-large', { closes: true });
  });

  it('414 for a URL over 8 KiB, and for one longer than the parser reads', async () => {
    expectRawProblem(await send(`GET /v1/checks/${'a'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 414, 'uri-too-long');
    expectRawProblem(await send(`GET /health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 414, 'uri-too-long', { closes: true });
  });

  it('431 for headers over 16 KiB', async () => {
    expectRawProblem(await send(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`), 431, 'headers-too-large', { closes: true });
  });

  it('500 problem+json (and logged as a failure) when the server fails answering', async () => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }), headers: auth });
    const { id } = (await res.json()) as { id: string };
    writeFileSync(join(service.store.checkDir(id), 'record.json'), '{"id": "not a record"');
    const answer = await send(`GET /v1/checks/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    expectRawProblem(answer, 500, 'internal');
    expect(answer.body).not.toContain('not a record');
  });

  it.each(['1e0', '0x1', '01', '+1', '1.0', '%201', '1%20', '0', '100001', '-1', 'Infinity', ''])('page number "%s" is not a page number: 400 naming it', async (n) => {
    const res = await fetch(`${service.url}/v1/checks/${'b'.repeat(32)}/pages/${n}`, { headers: auth });
    const body = await expectProblem(res, 400, 'request-invalid');
    expect(JSON.stringify(body.errors)).toContain('path.n');
  });
});

describe('names cleaned of format controls', () => {
  it('an upload named with U+202E and zero-width characters: clean in report.file.path and in the HTML report', async () => {
    const name = 'invoice\u202Efdp\u200B\u2066.pdf\u2069\uFEFF';
    const res = await fetch(`${service.url}/v1/checks?wait=60`, {
      method: 'POST',
      body: form({ name, bytes: readFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf')) }, { sku: 'T-SHIRT-M' }),
      headers: auth,
    });
    const check = (await res.json()) as { id: string; report: { file: { path: string } } };
    expect(check.report.file.path).toBe('invoicefdp.pdf');
    const html = await (await fetch(`${service.url}/v1/checks/${check.id}/report.html`, { headers: auth })).text();
    expect(html).not.toMatch(/\p{Cf}/u);
    expect(html).toContain('invoicefdp.pdf');
  });
});

describe('logs of a real serve process', () => {
  let child: ChildServer;
  beforeAll(async () => {
    child = await startChild(['--data', tempDir(), '--workers', '1']);
  });
  afterAll(() => {
    child?.child.kill('SIGKILL');
  });

  const lines = () =>
    child
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });

  it('a client that hangs up mid-upload is logged at info, never as a server error', async () => {
    const { port } = new URL(child.url);
    const boundary = 'xyzzy';
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /v1/checks HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n`);
        socket.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="sku"\r\n\r\nT-SHIRT-M\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n${'x'.repeat(100_000)}`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 500);
      });
    });
    const until = Date.now() + 20_000;
    while (!lines().some((l) => l.msg === 'client went away') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const gone = lines().find((l) => l.msg === 'client went away');
    expect(gone?.level, child.stdout().slice(-2000)).toBe(30);
    expect(lines().filter((l) => l.level >= 50)).toEqual([]);
    expect(lines().some((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 500)).toBe(false);
  });

  it('a name with bidi controls reaches the log escaped (\\u202e), never raw', async () => {
    const res = await fetch(`${child.url}/v1/checks`, { method: 'POST', body: form({ name: 'x.pdf', bytes: readFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf')) }, { sku: 'T-SHIRT-\u202EM' }) });
    expect(res.status).toBe(422);
    await new Promise((r) => setTimeout(r, 300));
    expect(child.stdout()).not.toMatch(/\p{Cf}/u);
    expect(child.stdout()).toContain('\\u202e');
  });
});
