/**
 * The HTTP API on a server this test starts on 127.0.0.1: every endpoint and every error answer.
 * Reports of uploaded corpus files (made by reportlab, img2pdf, pikepdf, Ghostscript) must equal
 * what `print-preflight check --json` prints for the same file, timings aside.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, webhookSignatureProblem } from '../../src/client/webhooks.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { CORPUS, cliReport, expectProblem, form, pollUntilFinished, tempDir, withoutTimings } from './harness.js';
import { Traffic } from '../helpers/traffic.js';
import { isTemporaryName } from '../../src/util/durable.js';

const SECRET = 'callback-secret-for-tests';
let pool: PreflightPool;
let service: ServiceHandle;
const traffic = new Traffic();
let dataDir: string;
let sources: SourceServer;

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  dataDir = tempDir();
  sources = await startSourceServer();
  service = await startService({
    port: 0,
    dataDir,
    pool,
    logLevel: 'silent',
    callbackSecret: SECRET,
    callbackBackoffMs: 100,
    allowHosts: ['127.0.0.1'],
    maxUploadBytes: 1_000_000,
  });
  traffic.observe(service.app.server);
});

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await pool?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (path: string, body: FormData | object, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    body: body instanceof FormData ? body : JSON.stringify(body),
    headers: body instanceof FormData ? headers : { 'content-type': 'application/json', ...headers },
  });

/** Streams a multipart upload of `total` bytes after the fields; resolves with the answer and how much had been sent by then. */
function streamUpload(fields: Record<string, string>, total: number): Promise<{ status: number; body: string; sentWhenAnswered: number; total: number }> {
  const { port } = new URL(service.url);
  const boundary = 'xBOUNDARYx';
  const head = `${Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
  const chunk = Buffer.alloc(64 * 1024, 0x41);
  let sent = 0;
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/checks',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + total },
    });
    req.on('response', (res) => {
      const sentWhenAnswered = sent;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, sentWhenAnswered, total }));
    });
    // Writing after the server answered and closed is expected to fail.
    req.on('error', (e) => (sent > 0 ? undefined : reject(e)));
    req.write(head);
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('POST /v1/checks with an upload', () => {
  it.each([
    ['reportlab-tshirt-M-exact.pdf', { sku: 'T-SHIRT-M' }],
    ['reportlab-tshirt-M-three-pages.pdf', { sku: 'T-SHIRT-M' }],
    ['img2pdf-tanktop-cmyk-jpeg.pdf', { sku: 'TANKTOP-M' }],
    ['pikepdf-curtains-rotate90.pdf', { product: 'curtains', variant: '140x260' }],
    ['gs-duvet-exact.pdf', { product: 'duvet-cover', variant: '200x200' }],
    ['broken-truncated.pdf', { product: 'duvet-cover', variant: '200x200' }],
  ])('%s gives the report of check --json (wait → 200)', async (file, target) => {
    const res = await post('/v1/checks?wait=60', form(join(CORPUS, file), target));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const check = JSON.parse(text) as Record<string, unknown> & { report: Record<string, unknown> };
    expect(check.status).toBe('done');
    const flags = 'sku' in target ? ['--sku', target.sku] : ['--product', target.product, '--variant', target.variant];
    const expected = cliReport(file, flags);
    expect(withoutTimings(check.report)).toEqual(withoutTimings(expected));
    expect(check.verdict).toBe(expected.verdict);
    // The stored report is byte for byte what check --json prints, timings aside.
    const stored = readFileSync(join(dataDir, 'checks', check.id as string, 'report.json'), 'utf8');
    expect(JSON.stringify(withoutTimings(JSON.parse(stored)), null, 2)).toBe(JSON.stringify(withoutTimings(expected), null, 2));
  });

  it('answers 202 with Location without wait, then the check can be polled, its previews and HTML fetched', async () => {
    const res = await post('/v1/checks', form(join(CORPUS, 'reportlab-tshirt-M-three-pages.pdf'), { sku: 'T-SHIRT-M' }));
    expect(res.status).toBe(202);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/v1\/checks\/[0-9a-f]{32}$/);
    // Polling is paced: whole seconds to wait first, as the OpenAPI document says.
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, { post?: { responses: Record<string, { headers?: Record<string, unknown> }> } }> };
    expect(Object.keys(doc.paths['/v1/checks']!.post!.responses['202']!.headers ?? {})).toContain('Retry-After');
    const accepted = (await res.json()) as { id: string; status: string; report: unknown };
    expect(['queued', 'running']).toContain(accepted.status);
    expect(accepted.report).toBeNull();
    const done = (await pollUntilFinished(`${service.url}${location}`)) as {
      id: string;
      status: string;
      report: { pages: unknown[]; verdict: string };
      links: { self: string; html: string; previews: string[] };
      startedAt: string;
      finishedAt: string;
    };
    expect(done.status).toBe('done');
    expect(done.links.self).toBe(location);
    expect(done.links.previews).toHaveLength(done.report.pages.length);
    const image = await fetch(`${service.url}${done.links.previews[0]}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width!, meta.height!)).toBe(1200);
    const html = await fetch(`${service.url}${done.links.html}`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain(`data-verdict="${done.report.verdict}"`);
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
  });

  it('names the report by the uploaded file name, cleaned of folders and control characters', async () => {
    const bytes = readFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'));
    const res = await post('/v1/checks?wait=60', form({ name: '../../etc/evil\u0007name.pdf', bytes }, { sku: 'T-SHIRT-M' }));
    const check = (await res.json()) as { report: { file: { path: string } } };
    expect(check.report.file.path).toBe('evilname.pdf');
  });

  it('structure only with raster=false: no previews', async () => {
    const res = await post('/v1/checks?wait=60', form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M', raster: 'false' }));
    const check = (await res.json()) as { links: { previews: string[] }; report: { pages: { raster: unknown }[] } };
    expect(check.links.previews).toEqual([]);
    expect(check.report.pages.every((p) => p.raster === null)).toBe(true);
    const expected = cliReport('reportlab-tshirt-M-exact.pdf', ['--sku', 'T-SHIRT-M', '--no-raster']);
    expect(withoutTimings(check.report)).toEqual(withoutTimings(expected));
  });
});

describe('POST /v1/checks with a URL', () => {
  it('downloads with the SSRF-guarded fetcher and reports like the upload, with the source', async () => {
    const res = await post('/v1/checks?wait=60', { url: `${sources.base}/good.pdf`, sku: 'T-SHIRT-M' });
    expect(res.status).toBe(200);
    const check = (await res.json()) as { report: { file: { path: string; sha256: string }; verdict: string; source: { url: string; status: number } } };
    const upload = cliReport('reportlab-tshirt-M-exact.pdf', ['--sku', 'T-SHIRT-M']) as { file: { sha256: string }; verdict: string };
    expect(check.report.file.sha256).toBe(upload.file.sha256);
    expect(check.report.verdict).toBe(upload.verdict);
    expect(check.report.source).toMatchObject({ url: `${sources.base}/good.pdf`, status: 200 });
  });

  it('a URL that fails to download is a finding in a done check, not an error', async () => {
    const res = await post('/v1/checks?wait=60', { url: `${sources.base}/404`, sku: 'T-SHIRT-M' });
    const check = (await res.json()) as { status: string; report: { verdict: string; findings: { code: string }[] } };
    expect(check.status).toBe('done');
    expect(check.report.verdict).toBe('fail');
    expect(check.report.findings.map((f) => f.code)).toContain('source-unreachable');
  });
});

describe('callbacks', () => {
  it('POSTs the finished check signed like the order service, retrying a callback that fails first', async () => {
    const deliveries: { body: string; signature: string | undefined; topic: string | undefined }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        deliveries.push({ body, signature: req.headers['x-webhook-signature'] as string | undefined, topic: req.headers['x-webhook-topic'] as string | undefined });
        res.writeHead(deliveries.length <= 2 ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const res = await post('/v1/checks', form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M', callbackUrl }));
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      const until = Date.now() + 60_000;
      let check: { callback: { state: string; attempts: { status?: number }[] } } | null = null;
      while (Date.now() < until) {
        check = (await (await fetch(`${service.url}/v1/checks/${id}`)).json()) as typeof check;
        if (check!.callback?.state !== 'pending') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(check!.callback.state).toBe('delivered');
      expect(check!.callback.attempts.map((a) => a.status)).toEqual([503, 503, 200]);
      expect(deliveries).toHaveLength(3);
      for (const d of deliveries) {
        expect(verifyWebhook(d.body, d.signature, SECRET)).toBe(true);
        expect(verifyWebhook(d.body, d.signature, 'another-secret')).toBe(false);
        expect(webhookSignatureProblem(d.body, d.signature, 'another-secret')).toBe('mismatch');
        expect(d.topic).toBe('check.finished');
      }
      const last = JSON.parse(deliveries[2]!.body) as { id: string; status: string; report: unknown };
      expect(last).toMatchObject({ id, status: 'done' });
      const cli = cliReport('reportlab-tshirt-M-exact.pdf', ['--sku', 'T-SHIRT-M']);
      expect(withoutTimings(last.report)).toEqual(withoutTimings(cli));
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('refuses a callback to a private address (the SSRF guard) with 422', async () => {
    const body = await expectProblem(await post('/v1/checks', { url: `${sources.base}/good.pdf`, sku: 'T-SHIRT-M', callbackUrl: 'http://169.254.169.254/latest' }), 422, 'callback-url-refused');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'callbackUrl', message: expect.stringContaining('link-local') })]);
  });
});

describe('errors are problem+json', () => {
  it('415 for a body that is neither multipart nor JSON, and for no body', async () => {
    await expectProblem(await fetch(`${service.url}/v1/checks`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported-media-type');
    await expectProblem(await fetch(`${service.url}/v1/checks`, { method: 'POST', body: '%PDF-1.4', headers: { 'content-type': 'application/pdf' } }), 415, 'unsupported-media-type');
    await expectProblem(await fetch(`${service.url}/v1/checks`, { method: 'POST' }), 415, 'unsupported-media-type');
  });

  it('400 naming each bad field', async () => {
    let body = await expectProblem(await post('/v1/checks', form(join(CORPUS, 'gs-duvet-exact.pdf'), {})), 400, 'request-invalid');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'sku' })]);
    body = await expectProblem(await post('/v1/checks', form(null, { sku: 'T-SHIRT-M' })), 400, 'request-invalid');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'file' })]);
    body = await expectProblem(await post('/v1/checks', { url: 'not a url', sku: 'T-SHIRT-M', colour: 'red' }), 400, 'request-invalid');
    expect((body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(['(body)', 'url']);
    body = await expectProblem(await post('/v1/checks', form(join(CORPUS, 'gs-duvet-exact.pdf'), { product: 'duvet-cover' })), 400);
    expect(body.errors).toEqual([expect.objectContaining({ path: 'variant' })]);
    await expectProblem(await fetch(`${service.url}/v1/checks`, { method: 'POST', body: '{"url": ', headers: { 'content-type': 'application/json' } }), 400, 'body-invalid');
    await expectProblem(await fetch(`${service.url}/v1/checks`, { method: 'POST', body: '', headers: { 'content-type': 'application/json' } }), 400, 'body-invalid');
    body = await expectProblem(await fetch(`${service.url}/v1/checks?wait=600`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), 400, 'request-invalid');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'query.wait' })]);
  });

  it('400 for a malformed URL, an unreadable multipart body and a field given twice', async () => {
    const raw = (path: string, headers: Record<string, string>, body: string) =>
      new Promise<Response>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: new URL(service.url).port, method: 'POST', path, headers }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(new Response(text, { status: res.statusCode!, headers: res.headers as Record<string, string> })));
        });
        req.on('error', reject);
        req.end(body);
      });
    await expectProblem(await raw('/v1/checks/%zz', {}, ''), 400, 'url-invalid');
    await expectProblem(await raw('/v1/checks', { 'content-type': 'multipart/form-data' }, 'garbage'), 400, 'multipart-invalid');
    const cut = '--abc\r\nContent-Disposition: form-data; name="sku"\r\n\r\nT-SHIRT-M\r\n--abc\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 cut short';
    await expectProblem(await raw('/v1/checks', { 'content-type': 'multipart/form-data; boundary=abc' }, cut), 400, 'multipart-invalid');
    const twice = form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'T-SHIRT-M' });
    twice.append('sku', 'TANKTOP-M');
    const body = await expectProblem(await post('/v1/checks', twice), 400, 'request-invalid');
    expect(body.errors).toEqual([{ path: 'sku', message: 'given more than once' }]);
  });

  it('422 for an unknown SKU, product or variant', async () => {
    const body = await expectProblem(await post('/v1/checks', form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'NO-SUCH-SKU' })), 422, 'unknown-sku');
    expect(body.legacyCode, 'the spelling before 0.2.0, beside the code for a deprecation period').toBe('ERR_UNKNOWN_SKU');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'sku' })]);
    await expectProblem(await post('/v1/checks', { url: `${sources.base}/good.pdf`, product: 'duvet-cover', variant: '1x1' }), 422, 'unknown-variant');
  });

  it('413 while the upload streams: the answer comes before the body is sent, nothing is kept', async () => {
    const answer = await streamUpload({ sku: 'T-SHIRT-M' }, 64 * 1024 * 800);
    expect(answer.status, answer.body).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: 'upload-too-large', limitBytes: 1_000_000 });
    expect(answer.sentWhenAnswered).toBeLessThan(answer.total / 2);
    expect(readdirSync(join(dataDir, 'uploads')).filter((n) => isTemporaryName(n))).toEqual([]);
  });

  it('422 for an unknown SKU sent before the file, before the file is read', async () => {
    const answer = await streamUpload({ sku: 'NO-SUCH-SKU' }, 64 * 1024 * 800);
    expect(answer.status, answer.body).toBe(422);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 422, code: 'unknown-sku', legacyCode: 'ERR_UNKNOWN_SKU' });
    expect(answer.sentWhenAnswered).toBeLessThan(answer.total / 2);
  });

  it('404 for an unknown check, route or preview; 400 for a malformed id; 409 before a report exists', async () => {
    await expectProblem(await fetch(`${service.url}/v1/checks/${'0'.repeat(32)}`), 404, 'check-not-found');
    await expectProblem(await fetch(`${service.url}/v1/checks/${'0'.repeat(32)}/report.html`), 404, 'check-not-found');
    await expectProblem(await fetch(`${service.url}/v1/nothing`), 404, 'route-not-found');
    const bad = await expectProblem(await fetch(`${service.url}/v1/checks/..%2F..%2Fetc`), 400, 'request-invalid');
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'path.id' })]);
    const res = await post('/v1/checks?wait=60', form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }));
    const { id, report } = (await res.json()) as { id: string; report: { pages: unknown[] } };
    await expectProblem(await fetch(`${service.url}/v1/checks/${id}/pages/${report.pages.length + 1}`), 404, 'preview-not-found');
    await expectProblem(await fetch(`${service.url}/v1/checks/${id}/pages/0`), 400, 'request-invalid');
    const queued = await post('/v1/checks', form(join(CORPUS, 'reportlab-tshirt-M-three-pages.pdf'), { sku: 'T-SHIRT-M' }));
    const q = (await queued.json()) as { id: string };
    await expectProblem(await fetch(`${service.url}/v1/checks/${q.id}/report.html`), 409, 'check-not-finished');
    await expectProblem(await fetch(`${service.url}/v1/checks/${q.id}`, { method: 'DELETE' }), 409, 'check-not-finished');
    await pollUntilFinished(`${service.url}/v1/checks/${q.id}`);
  });
});

describe('DELETE /v1/checks/{id}', () => {
  it('removes the check, its report and previews', async () => {
    const res = await post('/v1/checks?wait=60', form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'DUVET-COVER-200X200' }));
    const { id } = (await res.json()) as { id: string };
    // Labelled JSON with nothing after it, as some generated clients send every request: no body.
    const del = await fetch(`${service.url}/v1/checks/${id}`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(del.status).toBe(204);
    await expectProblem(await fetch(`${service.url}/v1/checks/${id}`), 404, 'check-not-found');
    await expectProblem(await fetch(`${service.url}/v1/checks/${id}`, { method: 'DELETE' }), 404);
    expect(existsSync(join(dataDir, 'checks', id))).toBe(false);
  });
});

describe('GET /v1/profiles', () => {
  it('lists what profiles --json lists', async () => {
    const cli = JSON.parse(spawnSync(process.execPath, ['bin/print-preflight.js', 'profiles', '--json'], { encoding: 'utf8' }).stdout);
    expect(await (await fetch(`${service.url}/v1/profiles`)).json()).toEqual(cli);
  });
});

describe('operations', () => {
  it('/health is 200 with each dependency', async () => {
    const res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { data: { ok: true }, queue: { ok: true }, pool: { ok: true } } });
  });

  it('/ready is 200 with each dependency checked now; /health answers from the event loop while the pool is busy', async () => {
    const res = await fetch(`${service.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { data: { ok: true }, queue: { ok: true }, pool: { ok: true } } });
    // Every worker busy with checks: /health still answers at once, from the pool's last probe.
    const busy = Array.from({ length: 4 }, () =>
      fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'img2pdf-duvet-half-scale.pdf'), { sku: 'DUVET-COVER-200X200' }) }),
    );
    const started = performance.now();
    const health = await fetch(`${service.url}/health`);
    const took = performance.now() - started;
    expect(health.status).toBe(200);
    expect(took, 'ms for /health while the pool works').toBeLessThan(2_000);
    await Promise.all(busy);
  });

  it('/metrics has checks by status and verdict, durations, queue depth, in-flight and rejected uploads', async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    expect(text).toMatch(/^print_preflight_checks_total\{status="done",verdict="pass"\} [1-9]/m);
    expect(text).toMatch(/^print_preflight_checks_total\{status="done",verdict="fail"\} [1-9]/m);
    expect(text).toMatch(/^print_preflight_check_duration_seconds_count\{status="done"\} [1-9]/m);
    expect(text).toMatch(/^print_preflight_queue_depth \d+$/m);
    expect(text).toMatch(/^print_preflight_checks_in_flight \d+$/m);
    expect(text).toMatch(/^print_preflight_rejected_submissions_total\{reason="too-large"\} [1-9]/m);
    expect(text).toMatch(/^print_preflight_rejected_submissions_total\{reason="unknown-target"\} [1-9]/m);
  });

  it('/openapi.json describes every route with the schemas the routes validate with', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/docs',
        '/health',
        '/ready',
        '/metrics',
        '/openapi.json',
        '/v1/checks',
        '/v1/checks/upload',
        '/v1/checks/{id}',
        '/v1/checks/{id}/pages/{n}',
        '/v1/checks/{id}/report.html',
        '/v1/orders',
        '/v1/orders/payload',
        '/v1/profiles',
        '/v1/checks/{id}/approve',
        '/v1/checks/{id}/reject',
        '/v1/approvals/{token}',
        '/v1/approvals/{token}/approve',
        '/v1/approvals/{token}/reject',
        '/v1/files/{file}',
        '/v1/orders/{number}/references',
        '/v1/checks/{id}/original/report.html',
        '/v1/checks/{id}/mockup/{layer}.png',
      ].sort(),
    );
    expect(Object.keys(doc.paths['/v1/checks/{id}']!).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.components.schemas.Report!.properties!)).toEqual(expect.arrayContaining(['verdict', 'findings', 'pages', 'profileDigest']));
    expect(Object.keys(doc.components.schemas.Check!.properties!)).toEqual(expect.arrayContaining(['id', 'status', 'report', 'links']));
    expect(JSON.stringify(doc.paths['/v1/checks']!.post)).toContain('multipart/form-data');
    // The limit the document states is the one the route enforces (wait=600 is refused above).
    const post = doc.paths['/v1/checks']!.post as unknown as { parameters: { name: string; in: string; schema: { maximum?: number } }[] };
    expect(post.parameters).toContainEqual(expect.objectContaining({ name: 'wait', in: 'query', schema: expect.objectContaining({ maximum: 60 }) }));
  });

  it("every answer carries a request id, the client's when it sends a sane one", async () => {
    const res = await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const other = await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'bad id\u00e9' } });
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('/health when the pool fails', () => {
  it('answers 503 naming the pool', async () => {
    const dir = tempDir();
    // A pool that cannot finish a task in time (1 ms) is a pool that does not work.
    const broken = new PreflightPool({ maxThreads: 1, taskTimeoutMs: 1 });
    const s = await startService({ port: 0, dataDir: dir, pool: broken, logLevel: 'silent' });
    try {
      const body = await expectProblem(await fetch(`${s.url}/health`), 503, 'unhealthy');
      expect(body.detail).toMatch(/^pool: the worker pool cannot inspect a one-page PDF/);
      expect(body.checks).toMatchObject({ data: { ok: true }, pool: { ok: false } });
    } finally {
      await s.close();
      await broken.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('/health when the data folder fails', () => {
  it('answers 503 naming the data folder', async () => {
    const dir = tempDir();
    const s = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
    try {
      rmSync(join(dir, 'data'), { recursive: true, force: true });
      writeFileSync(join(dir, 'data'), 'not a folder');
      const body = await expectProblem(await fetch(`${s.url}/health`), 503, 'unhealthy');
      expect(body.detail).toMatch(/^data: the data folder .* cannot be written/);
      expect(body.checks).toMatchObject({ data: { ok: false }, queue: { ok: true }, pool: { ok: true } });
    } finally {
      rmSync(join(dir, 'data'), { force: true });
      mkdirSync(join(dir, 'data'));
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the OpenAPI document', () => {
  it('declares every status this file got from the server, each problem code, and the schema every JSON answer met', async () => {
    await traffic.expectDocumented(service.url);
  });
});
