/**
 * Fixes on URL submissions and fixed files in orders, through the HTTP API as a platform uses it:
 * a JSON submission `{ url, fix }` is downloaded, fixed, checked again and waits for approval like
 * an upload (callback `check.needs-approval`, before/after previews, the fixed file only once
 * approved); an order naming the ORIGINAL URL gets the fixed file's absolute URL (`publicUrl`) in
 * its payload, a pending or rejected fix refuses it (422 fix-not-approved); the order's reference
 * keeps the fixed file through retention sweeps and a restart, an unreferenced one is swept. Every
 * answer is recorded at the server and checked against the OpenAPI document it serves.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { validDraft } from '../helpers/order.js';
import { freePort } from '../helpers/redis.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, form, tempDir } from './harness.js';

const SECRET = 'callback-secret-for-fixed-orders';
const DAY = 24 * 60 * 60_000;
let pool: PreflightPool;
let service: ServiceHandle;
let files: http.Server;
let filesBase: string;
let hooks: http.Server;
let hooksBase: string;
const topics: { topic: string; id: string; status: string }[] = [];
const traffic = new Traffic();
const dir = tempDir('pp-fixed-orders-');
const dataDir = join(dir, 'data');
let port: number;

/** The bytes each path of the tiny static server answers with (a platform's file host). */
const served = new Map<string, Buffer>([
  ['/designs/tank-cmyk.pdf', readFileSync(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'))],
  ['/designs/tank-cmyk-2.pdf', readFileSync(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'))],
  ['/designs/tshirt-sleeves-first.pdf', readFileSync(join(CORPUS, 'qpdf-tshirt-M-sleeves-first.pdf'))],
  ['/designs/tshirt-exact.pdf', readFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'))],
]);

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function start(): Promise<ServiceHandle> {
  const s = await startService({
    port,
    dataDir,
    pool,
    logLevel: 'silent',
    allowHosts: ['127.0.0.1'],
    publicUrl: `http://127.0.0.1:${port}/`,
    callbackSecret: SECRET,
    callbackBackoffMs: 100,
    fixedRetentionDays: 30,
  });
  traffic.observe(s.app.server);
  return s;
}

beforeAll(async () => {
  files = http.createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
  });
  filesBase = await listen(files);
  hooks = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const view = JSON.parse(body) as { id: string; status: string };
      topics.push({ topic: String(req.headers['x-webhook-topic']), id: view.id, status: view.status });
      res.writeHead(204).end();
    });
  });
  hooksBase = await listen(hooks);
  pool = new PreflightPool({ maxThreads: 2 });
  port = await freePort();
  service = await start();
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  await new Promise((r) => files?.close(r));
  await new Promise((r) => hooks?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

interface View {
  id: string;
  status: string;
  verdict: string | null;
  fixed: { url: string; sha256: string; changes: { code: string; needsApproval: boolean }[] } | null;
  approval: { state: string } | null;
  report: { verdict: string; source?: { url: string }; file: { sha256: string } };
  links: { approval?: string | null; previews: string[] };
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
async function call<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; bytes: Buffer; headers: Headers }> {
  const res = await fetch(`${service.url}${path}`, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: (/json/.test(type) ? JSON.parse(bytes.toString('utf8')) : null) as T, bytes, headers: res.headers };
}
const submitUrl = async (path: string, body: Record<string, unknown>) => {
  const res = await call<View>('/v1/checks?wait=60', json({ url: `${filesBase}${path}`, ...body }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const draftFor = (sku: string, urls: string[], number = 'SHOP-7001') => {
  const d = validDraft(urls);
  d.number = number;
  d.rows[0]!.sku = sku;
  return d;
};
type Payload = { payload: { rows: { sources?: { url: string }[] }[] }; reports: { file: { sha256: string }; verdict: string }[] };

describe('fix on URL submissions', () => {
  it('approve: downloaded, CMYK converted, needs-approval with callback and both previews; the original URL in an order is refused, then replaced by the fixed file once approved', async () => {
    const original = `${filesBase}/designs/tank-cmyk.pdf`;
    const check = await submitUrl('/designs/tank-cmyk.pdf', { sku: 'TANKTOP-M', fix: 'approve', locale: 'es', callbackUrl: `${hooksBase}/hook` });
    expect(check.status).toBe('needs-approval');
    expect(check.approval).toEqual({ state: 'pending' });
    expect(check.fixed!.changes.length).toBeGreaterThan(0);
    expect(check.fixed!.changes.every((c) => c.code === 'colour-space-not-rgb' && c.needsApproval)).toBe(true);
    expect(check.report.source?.url).toBe(original);
    expect(check.links.previews.length).toBeGreaterThan(0);
    // Before and after previews on the approval page; the file not served before approval.
    const page = await call<null>(check.links.approval!);
    expect(page.status).toBe(200);
    expect(page.bytes.toString('utf8').match(/<img alt=/g)?.length).toBeGreaterThanOrEqual(2);
    expect(page.bytes.toString('utf8')).toContain('Hemos convertido los colores');
    expect((await call(new URL(check.fixed!.url).pathname)).status).toBe(404);
    const until = Date.now() + 30_000;
    while (Date.now() < until && !topics.some((t) => t.id === check.id)) await new Promise((r) => setTimeout(r, 50));
    expect(topics.filter((t) => t.id === check.id)).toEqual([{ topic: 'check.needs-approval', id: check.id, status: 'needs-approval' }]);

    // Pending: an order naming the original URL is refused, naming the source.
    const pending = await call<{ code: string; errors: { path: string; message: string }[] }>('/v1/orders/payload', json(draftFor('TANKTOP-M', [original])));
    expect(pending.status).toBe(422);
    expect(pending.body.code).toBe('fix-not-approved');
    expect(pending.body.errors).toEqual([{ path: 'rows[0].sources[0].url', message: expect.stringContaining('waits for approval') }]);

    expect((await call(`/v1/checks/${check.id}/approve`, { method: 'POST' })).status).toBe(200);
    const built = await call<Payload>('/v1/orders/payload', json(draftFor('TANKTOP-M', [original])));
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    const fixedUrl = check.fixed!.url;
    expect(built.body.payload.rows[0]!.sources).toEqual([{ type: 'file', url: fixedUrl }]);
    expect(built.body.reports.map((r) => r.file.sha256)).toEqual([check.fixed!.sha256]);
    const file = await fetch(fixedUrl);
    expect(file.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await file.arrayBuffer()))
        .digest('hex'),
    ).toBe(check.fixed!.sha256);
    // The decision's callback follows.
    const later = Date.now() + 30_000;
    while (Date.now() < later && topics.filter((t) => t.id === check.id).length < 2) await new Promise((r) => setTimeout(r, 50));
    expect(topics.filter((t) => t.id === check.id).map((t) => t.topic)).toEqual(['check.needs-approval', 'check.finished']);
  });

  it('rejected: the original URL and the fixed file URL are both refused', async () => {
    const original = `${filesBase}/designs/tank-cmyk-2.pdf`;
    const check = await submitUrl('/designs/tank-cmyk-2.pdf', { sku: 'TANKTOP-M', fix: 'approve', raster: false });
    expect(check.status).toBe('needs-approval');
    expect((await call(`/v1/checks/${check.id}/reject`, json({ reason: 'keep my colours' }))).status).toBe(200);
    for (const url of [original, check.fixed!.url]) {
      const refused = await call<{ code: string; errors: { message: string }[] }>('/v1/orders/payload', json(draftFor('TANKTOP-M', [url])));
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('fix-not-approved');
      expect(refused.body.errors[0]!.message).toContain('was rejected');
    }
  });

  it('auto: done at once and substituted; a URL whose newest check made no fix is judged as it is', async () => {
    const original = `${filesBase}/designs/tshirt-sleeves-first.pdf`;
    const check = await submitUrl('/designs/tshirt-sleeves-first.pdf', { sku: 'T-SHIRT-M', fix: 'auto', raster: false });
    expect(check).toMatchObject({ status: 'done', verdict: 'pass', approval: { state: 'auto' } });
    const built = await call<Payload>('/v1/orders/payload', json(draftFor('T-SHIRT-M', [original], 'SHOP-7002')));
    expect(built.status).toBe(200);
    expect(built.body.payload.rows[0]!.sources![0]!.url).toBe(check.fixed!.url);
    // An exact file checked by URL without fix: nothing replaced, downloaded and preflighted as before.
    const exact = `${filesBase}/designs/tshirt-exact.pdf`;
    await submitUrl('/designs/tshirt-exact.pdf', { sku: 'T-SHIRT-M', raster: false });
    const plain = await call<Payload>('/v1/orders/payload', json(draftFor('T-SHIRT-M', [exact], 'SHOP-7003')));
    expect(plain.status).toBe(200);
    expect(plain.body.payload.rows[0]!.sources![0]!.url).toBe(exact);
    // The newest check of the sleeves-first URL is now one without fix: the original is judged as it is (and fails).
    await submitUrl('/designs/tshirt-sleeves-first.pdf', { sku: 'T-SHIRT-M', raster: false });
    const unfixed = await call<{ code: string }>('/v1/orders/payload', json(draftFor('T-SHIRT-M', [original], 'SHOP-7004')));
    expect(unfixed.status).toBe(422);
    expect(unfixed.body.code).toBe('order-invalid');
  });

  it('without --public-url an order cannot name the fixed file: 501 public-url-not-configured', async () => {
    const other = await startService({ port: 0, dataDir: join(dir, 'no-public'), pool, logLevel: 'silent', allowHosts: ['127.0.0.1'] });
    traffic.observe(other.app.server);
    try {
      const res = await fetch(`${other.url}/v1/checks?wait=60`, json({ url: `${filesBase}/designs/tshirt-sleeves-first.pdf`, sku: 'T-SHIRT-M', fix: 'auto', raster: false }));
      expect(((await res.json()) as View).approval?.state).toBe('auto');
      const order = await fetch(`${other.url}/v1/orders/payload`, json(draftFor('T-SHIRT-M', [`${filesBase}/designs/tshirt-sleeves-first.pdf`])));
      expect(order.status).toBe(501);
      expect(((await order.json()) as { code: string }).code).toBe('public-url-not-configured');
      await traffic.expectDocumented(other.url);
    } finally {
      await other.close();
    }
  });
});

describe('retention of fixed files', () => {
  it('a file an order references survives sweeps past its age and a restart; an unreferenced one is swept, and a released one later', async () => {
    const referenced = await submitUrl('/designs/tshirt-sleeves-first.pdf', { sku: 'T-SHIRT-M', fix: 'auto', raster: false });
    const built = await call<Payload>('/v1/orders/payload', json(draftFor('T-SHIRT-M', [`${filesBase}/designs/tshirt-sleeves-first.pdf`], 'SHOP-7100')));
    expect(built.status).toBe(200);
    const lonely = (await call<View>('/v1/checks?wait=60', { method: 'POST', body: form(join(CORPUS, 'qpdf-tshirt-M-sleeves-first.pdf'), { sku: 'T-SHIRT-M', fix: 'auto', raster: 'false' }) })).body;
    const token = (v: View) => /([0-9a-f]{48})\.pdf$/.exec(v.fixed!.url)![1]!;
    const pdf = (v: View) => join(dataDir, 'files', `${token(v)}.pdf`);
    expect(existsSync(pdf(referenced)) && existsSync(pdf(lonely))).toBe(true);
    const refs = await service.store.files.references(token(referenced));
    expect(refs).toEqual([{ tenant: 'anonymous', order: 'SHOP-7100', at: expect.any(String) }]);
    expect(await service.store.files.references(token(lonely))).toEqual([]);

    // A restart on the same data folder keeps the references.
    await service.close();
    service = await start();
    expect(await service.store.files.references(token(referenced))).toEqual(refs);

    // 29 days on nothing goes; 31 days on (checks, too, long expired) the referenced file stays and is still served.
    await service.store.sweep(7 * DAY, Date.now() + 29 * DAY, 30 * DAY);
    expect(existsSync(pdf(lonely))).toBe(true);
    await service.store.sweep(7 * DAY, Date.now() + 31 * DAY, 30 * DAY);
    expect(existsSync(pdf(lonely))).toBe(false);
    expect(existsSync(pdf(referenced))).toBe(true);
    expect((await call(`/v1/checks/${referenced.id}`)).status).toBe(404);
    const file = await call(new URL(referenced.fixed!.url).pathname);
    expect(file.status).toBe(200);
    expect(createHash('sha256').update(file.bytes).digest('hex')).toBe(referenced.fixed!.sha256);
    expect((await call(new URL(lonely.fixed!.url).pathname)).status).toBe(404);
    // The order still judges the referenced file by its own report after its check is gone.
    const again = await call<Payload>('/v1/orders/payload', json(draftFor('T-SHIRT-M', [referenced.fixed!.url], 'SHOP-7100')));
    expect(again.status).toBe(200);
    expect(again.body.reports.map((r) => [r.verdict, r.file.sha256])).toEqual([['pass', referenced.fixed!.sha256]]);
    expect(await service.store.files.references(token(referenced))).toHaveLength(1);

    // The order is delivered: released, the file follows the retention of unreferenced files from now on.
    const released = await call<{ number: string; files: string[] }>('/v1/orders/SHOP-7100/references', { method: 'DELETE' });
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ number: 'SHOP-7100', files: [new URL(referenced.fixed!.url).pathname] });
    expect(await service.store.files.references(token(referenced))).toEqual([]);
    expect((await call('/v1/orders/SHOP-7100/references', { method: 'DELETE' })).status).toBe(404);
    await service.store.sweep(7 * DAY, Date.now() + 29 * DAY, 30 * DAY);
    expect(existsSync(pdf(referenced))).toBe(true);
    await service.store.sweep(7 * DAY, Date.now() + 31 * DAY, 30 * DAY);
    expect(existsSync(pdf(referenced))).toBe(false);
    expect((await call(new URL(referenced.fixed!.url).pathname)).status).toBe(404);
  });
});

describe('contract', () => {
  it('every answer is as the OpenAPI document says', async () => {
    await traffic.expectDocumented(service.url);
  });
});
