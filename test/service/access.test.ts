/**
 * API keys, the per-tenant bounds (running and queued checks; 429 + Retry-After), slow clients cut
 * off, the order façade and forwarding (with the fake order service), and the refusal to listen
 * beyond loopback without a key.
 */
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOrderService, type FakeOrderService } from '../../src/client/fake-service.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { writeFileSync } from 'node:fs';
import { heavyPdf } from '../helpers/heavy-pdf.js';
import { validDraft } from '../helpers/order.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { CORPUS, expectProblem, form, pollUntilFinished, tempDir } from './harness.js';
import { Traffic } from '../helpers/traffic.js';

const KEY = 'key-for-tests-0001';
const OTHER = 'key-for-tests-0002';
/** A tenant whose bounds fit an order draft of three sources (the two keys above may queue one check each). */
const SHOP = 'key-for-tests-shop';
let pool: PreflightPool;
let service: ServiceHandle;
const traffic = new Traffic();
let orders: FakeOrderService;
let sources: SourceServer;

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  orders = await startFakeOrderService();
  sources = await startSourceServer();
  service = await startService({
    port: 0,
    dataDir: tempDir(),
    pool,
    logLevel: 'silent',
    apiKeys: [KEY, OTHER],
    tenants: [{ name: 'shop', keys: [SHOP], maxQueued: 10 }],
    maxRunningPerTenant: 1,
    maxQueuedPerTenant: 1,
    idleTimeoutMs: 1_000,
    allowHosts: ['127.0.0.1'],
    orderService: { baseUrl: orders.baseUrl, accessToken: 'test-token', applicationKey: 'test-app', backoffMs: 10 },
  });
  traffic.observe(service.app.server);
});

afterAll(async () => {
  await service?.close();
  await orders?.close();
  await sources?.close();
  await pool?.destroy();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('API keys', () => {
  it('401 without a key or with a wrong one, on every /v1 route', async () => {
    for (const [method, path] of [
      ['POST', '/v1/checks'],
      ['GET', `/v1/checks/${'a'.repeat(32)}`],
      ['DELETE', `/v1/checks/${'a'.repeat(32)}`],
      ['GET', '/v1/profiles'],
      ['POST', '/v1/orders/payload'],
    ]) {
      const none = await expectProblem(await fetch(`${service.url}${path}`, { method }), 401, 'api-key-missing');
      expect(none.detail).toContain('Authorization: Bearer');
      const wrong = await fetch(`${service.url}${path}`, { method, headers: auth('not-the-right-key') });
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
      await expectProblem(wrong, 401, 'api-key-unknown');
    }
  });

  it('accepts the key as a bearer token or as x-api-key; health, metrics and docs need none', async () => {
    expect((await fetch(`${service.url}/v1/profiles`, { headers: auth(KEY) })).status).toBe(200);
    expect((await fetch(`${service.url}/v1/profiles`, { headers: { 'x-api-key': OTHER } })).status).toBe(200);
    for (const path of ['/health', '/metrics', '/openapi.json', '/docs']) expect((await fetch(`${service.url}${path}`)).status).toBe(200);
  });

  it('refuses a non-loopback address without keys', async () => {
    await expect(startService({ host: '0.0.0.0', port: 0, dataDir: tempDir(), pool, logLevel: 'silent' })).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0 without an API key/);
  });
});

describe('per-tenant bounds', () => {
  it('a key runs one check and queues one; the next gets 429 with Retry-After; other keys are not affected; freed when done', async () => {
    // Seconds of rendering: the first check is still running when the third is sent.
    const heavy = join(tempDir(), 'heavy.pdf');
    writeFileSync(heavy, heavyPdf(60_000));
    const first = await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form(heavy, { sku: 'T-SHIRT-M' }), headers: auth(KEY) });
    expect(first.status).toBe(202);
    const second = await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-three-pages.pdf'), { sku: 'T-SHIRT-M' }), headers: auth(KEY) });
    expect(second.status).toBe(202);
    expect(((await second.json()) as { status: string }).status).toBe('queued');
    const third = await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'DUVET-COVER-200X200' }), headers: auth(KEY) });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectProblem(third, 429, 'too-many-queued');
    const other = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'DUVET-COVER-200X200' }), headers: auth(OTHER) });
    expect(other.status).toBe(200);
    await pollUntilFinished(`${service.url}${second.headers.get('location')}`, auth(KEY));
    const fourth = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'gs-duvet-exact.pdf'), { sku: 'DUVET-COVER-200X200' }), headers: auth(KEY) });
    expect(fourth.status).toBe(200);
    await pollUntilFinished(`${service.url}${first.headers.get('location')}`, auth(KEY));
  });
});

describe('slow clients', () => {
  it('a client that stops sending mid-body is cut off after the idle timeout', async () => {
    const { port } = new URL(service.url);
    const started = Date.now();
    const closed = await new Promise<{ afterMs: number; answer: string }>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /v1/checks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":`);
      });
      let answer = '';
      socket.on('data', (d) => (answer += d));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ afterMs: Date.now() - started, answer }));
    });
    expect(closed.afterMs).toBeGreaterThanOrEqual(900);
    expect(closed.afterMs).toBeLessThan(20_000);
    // Nothing was accepted from the half-sent request.
    expect(closed.answer).not.toMatch(/^HTTP\/1\.1 20/);
  });
});

describe('orders', () => {
  it("POST /v1/orders/payload returns the validated payload and each source's report", async () => {
    const draft = validDraft([`${sources.base}/good.pdf`]);
    const res = await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(draft), headers: { ...auth(SHOP), 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { payload: { number: string; rows: { sources?: { url: string }[] }[] }; reports: { verdict: string; source: { url: string } }[] };
    expect(body.payload.number).toBe('SHOP-1001');
    expect(body.payload.rows[0]!.sources).toEqual([{ type: 'file', url: `${sources.base}/good.pdf` }]);
    expect(body.reports.map((r) => [r.source.url, r.verdict])).toEqual([[`${sources.base}/good.pdf`, 'pass']]);
  });

  it('422 naming every failing field and source, each source with its report', async () => {
    const draft = { ...validDraft([`${sources.base}/bad.pdf`, `${sources.base}/good.pdf`, `${sources.base}/404`]), customer: { first_name: 'Ana' } };
    const res = await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(draft), headers: { ...auth(SHOP), 'content-type': 'application/json' } });
    const body = await expectProblem(res, 422, 'order-invalid');
    const errors = body.errors as { path: string; message: string; report?: { verdict: string } }[];
    const paths = errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['customer.last_name']));
    expect(paths.some((p) => p.startsWith('customer.'))).toBe(true);
    // Field errors come before downloads; fix the customer and the sources are judged.
    const sourcesDraft = validDraft([`${sources.base}/bad.pdf`, `${sources.base}/good.pdf`, `${sources.base}/404`]);
    const res2 = await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(sourcesDraft), headers: { ...auth(SHOP), 'content-type': 'application/json' } });
    const body2 = await expectProblem(res2, 422, 'order-invalid');
    const errors2 = body2.errors as { path: string; report?: { verdict: string; source: { url: string } } }[];
    expect(errors2.map((e) => e.path).sort()).toEqual(['rows[0].sources[0]', 'rows[0].sources[2]']);
    for (const e of errors2) expect(e.report?.verdict).toBe('fail');
    expect(errors2.map((e) => e.report!.source.url).sort()).toEqual([`${sources.base}/404`, `${sources.base}/bad.pdf`]);
  });

  it("POST /v1/orders forwards only a payload whose sources pass, and answers with the service's reply", async () => {
    const before = orders.orders.length;
    const bad = await fetch(`${service.url}/v1/orders`, {
      method: 'POST',
      body: JSON.stringify(validDraft([`${sources.base}/bad.pdf`])),
      headers: { ...auth(SHOP), 'content-type': 'application/json' },
    });
    await expectProblem(bad, 422, 'order-invalid');
    expect(orders.orders.length).toBe(before);
    const good = await fetch(`${service.url}/v1/orders`, {
      method: 'POST',
      body: JSON.stringify(validDraft([`${sources.base}/good.pdf`])),
      headers: { ...auth(SHOP), 'content-type': 'application/json' },
    });
    expect(good.status).toBe(201);
    const body = (await good.json()) as { payload: { number: string }; service: unknown };
    expect(orders.orders.length).toBe(before + 1);
    expect(orders.orders.at(-1)!.body.number).toBe('SHOP-1001');
    expect(JSON.stringify(body.service)).toContain(String(orders.orders.at(-1)!.id));
  });

  it('POST /v1/orders is 501 without an order service', async () => {
    const plain = await startService({ port: 0, dataDir: tempDir(), pool, logLevel: 'silent' });
    try {
      await expectProblem(
        await fetch(`${plain.url}/v1/orders`, { method: 'POST', body: JSON.stringify(validDraft()), headers: { 'content-type': 'application/json' } }),
        501,
        'order-service-not-configured',
      );
    } finally {
      await plain.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('declares every status this file got from the server (with API keys), each problem code, and the schema every JSON answer met', async () => {
    await traffic.expectDocumented(service.url);
  });
});
