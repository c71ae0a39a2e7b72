/**
 * The service in front of many customers, probed as an attacker and as a platform would: each key
 * (or named tenant) sees only its own checks on every route, an admin key sees all; no per-call
 * limit or severity can loosen the operator's; bounds per tenant on queued checks, running checks
 * and submissions per minute, with Retry-After from the queue; order drafts counted with checks;
 * 503 when the data folder is full; callback hosts judged at submission.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { LimitsSchema } from '../../src/profile/schema.js';
import { LIMIT_DIRECTION } from '../../src/profile/tighten.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { FINDING_CODES, FINDING_CODE_LIST } from '../../src/model/codes.js';
import { startGatedSource, type GatedSource } from '../helpers/gated-source.js';
import { validDraft } from '../helpers/order.js';
import { CORPUS, expectProblem, form, pollUntilFinished, tempDir } from './harness.js';

const A = 'tenant-a-key-0001';
const B = 'tenant-b-key-0001';
const ACME_1 = 'acme-key-number-1';
const ACME_2 = 'acme-key-number-2';
const ADMIN = 'admin-key-0000001';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = (key: string) => ({ ...auth(key), 'content-type': 'application/json' });

let pool: PreflightPool;
let gate: GatedSource;
const services: ServiceHandle[] = [];

async function serve(options: Parameters<typeof startService>[0] = {}): Promise<ServiceHandle> {
  const service = await startService({
    port: 0,
    dataDir: tempDir('pp-tenancy-'),
    pool,
    logLevel: 'silent',
    apiKeys: [A, B],
    tenants: [{ name: 'acme', keys: [ACME_1, ACME_2] }],
    adminKeys: [ADMIN],
    allowHosts: ['127.0.0.1'],
    ...options,
  });
  services.push(service);
  return service;
}

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  gate = await startGatedSource();
});

afterAll(async () => {
  gate?.open();
  for (const s of services) await s.close();
  await gate?.close();
  await pool?.destroy();
});

async function submitUpload(url: string, key: string, name = 'reportlab-tshirt-M-exact.pdf'): Promise<string> {
  const res = await fetch(`${url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, name), { sku: 'T-SHIRT-M' }), headers: auth(key) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

describe('tenancy: a key sees only its own checks', () => {
  let service: ServiceHandle;
  let mine: string;
  beforeAll(async () => {
    service = await serve();
    mine = await submitUpload(service.url, A);
  });

  const routesOf = (id: string): [string, string][] => [
    ['GET', `/v1/checks/${id}`],
    ['GET', `/v1/checks/${id}/report.html`],
    ['GET', `/v1/checks/${id}/pages/1`],
    ['HEAD', `/v1/checks/${id}`],
    ['HEAD', `/v1/checks/${id}/report.html`],
    ['HEAD', `/v1/checks/${id}/pages/1`],
    ['DELETE', `/v1/checks/${id}`],
  ];

  it('another key gets exactly the 404 of a check that does not exist, on every route, DELETE included', async () => {
    const absent = 'f'.repeat(32);
    for (const [[method, path], [, absentPath]] of routesOf(mine).map((r, i) => [r, routesOf(absent)[i]!] as const)) {
      const theirs = await fetch(`${service.url}${path}`, { method, headers: auth(B) });
      const none = await fetch(`${service.url}${absentPath}`, { method, headers: auth(B) });
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(none.status).toBe(404);
      if (method !== 'HEAD') {
        const a = (await theirs.json()) as Record<string, string>;
        const b = (await none.json()) as Record<string, string>;
        // Nothing tells the two apart but the id itself.
        expect(JSON.stringify(a).replaceAll(mine, 'ID')).toBe(JSON.stringify(b).replaceAll(absent, 'ID'));
      }
    }
    // After B's DELETE the check is still there, whole, for A.
    const still = await fetch(`${service.url}/v1/checks/${mine}`, { headers: auth(A) });
    expect(((await still.json()) as { status: string }).status).toBe('done');
    expect((await fetch(`${service.url}/v1/checks/${mine}/pages/1`, { headers: auth(A) })).status).toBe(200);
    expect((await fetch(`${service.url}/v1/checks/${mine}/report.html`, { headers: auth(A) })).status).toBe(200);
  });

  it('the keys of a named tenant share its checks; other tenants do not see them', async () => {
    const id = await submitUpload(service.url, ACME_1);
    expect((await fetch(`${service.url}/v1/checks/${id}`, { headers: auth(ACME_2) })).status).toBe(200);
    expect((await fetch(`${service.url}/v1/checks/${id}/report.html`, { headers: auth(ACME_2) })).status).toBe(200);
    for (const key of [A, B]) expect((await fetch(`${service.url}/v1/checks/${id}`, { headers: auth(key) })).status).toBe(404);
    expect((await fetch(`${service.url}/v1/checks/${id}`, { method: 'DELETE', headers: auth(ACME_2) })).status).toBe(204);
    expect((await fetch(`${service.url}/v1/checks/${id}`, { headers: auth(ACME_1) })).status).toBe(404);
  });

  it("an admin key sees, fetches and deletes any tenant's check; a check from before tenants is the admin's only", async () => {
    const id = await submitUpload(service.url, B);
    for (const path of [`/v1/checks/${id}`, `/v1/checks/${id}/report.html`, `/v1/checks/${id}/pages/1`])
      expect((await fetch(`${service.url}${path}`, { headers: auth(ADMIN) })).status, path).toBe(200);
    // A record written before owners existed: nobody but the admin may see it.
    const legacy = await submitUpload(service.url, A);
    const recordFile = join(service.store.checkDir(legacy), 'record.json');
    const { owner: _o, ...record } = JSON.parse(readFileSync(recordFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(recordFile, JSON.stringify(record));
    expect((await fetch(`${service.url}/v1/checks/${legacy}`, { headers: auth(A) })).status).toBe(404);
    expect((await fetch(`${service.url}/v1/checks/${legacy}`, { headers: auth(ADMIN) })).status).toBe(200);
    expect((await fetch(`${service.url}/v1/checks/${id}`, { method: 'DELETE', headers: auth(ADMIN) })).status).toBe(204);
    expect((await fetch(`${service.url}/v1/checks/${id}`, { headers: auth(B) })).status).toBe(404);
  });

  it('refuses to start with one key given to two tenants', async () => {
    await expect(startService({ port: 0, dataDir: tempDir(), pool, logLevel: 'silent', apiKeys: [A], tenants: [{ name: 'acme', keys: [A] }] })).rejects.toThrow(
      /same API key is given to acme and to key-/,
    );
    await expect(startService({ port: 0, dataDir: tempDir(), pool, logLevel: 'silent', tenants: [{ name: 'admin', keys: [A] }] })).rejects.toThrow(/must not be "admin"/);
  });
});

describe('limits have an owner: a call may only tighten them', () => {
  let service: ServiceHandle;
  beforeAll(async () => {
    service = await serve();
    gate.open();
  });

  const submit = (body: Record<string, unknown>) =>
    fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: gate.url('limits'), sku: 'DUVET-COVER-200X200', raster: false, ...body }), headers: json(A) });

  // The duvet-cover profile's own values (profiles/duvet-cover.json and the defaults).
  const profile = JSON.parse(readFileSync('profiles/duvet-cover.json', 'utf8')) as { limits: Record<string, number>; severities?: Record<string, string> };
  const bound = LimitsSchema.parse(profile.limits) as Record<string, number | undefined>;
  // The schema's own range of a field: a stricter value sent must stay inside it to be accepted.
  const range = (field: string) => {
    const inner = (LimitsSchema.shape as Record<string, z.ZodType>)[field]!;
    const num = (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional ? inner.unwrap() : inner) as z.ZodNumber;
    return { min: num.minValue ?? 0, max: num.maxValue ?? Number.MAX_VALUE };
  };

  it.each(Object.entries(LIMIT_DIRECTION))('limits.%s: a looser value is 422 limits-not-allowed naming it; a stricter (or equal) one is accepted', async (field, direction) => {
    const value = bound[field];
    if (value === undefined) {
      // No bound in the profile (safeMarginMm): a client may add one, a fixed field never.
      const res = await submit({ limits: { [field]: 5 } });
      if (direction === 'fixed') await expectProblem(res, 422, 'limits-not-allowed');
      else expect(res.status).toBe(202);
      return;
    }
    const looser = direction === 'lower' ? value * 2 : direction === 'higher' ? value / 2 : value + 1;
    const body = await expectProblem(await submit({ limits: { [field]: looser } }), 422, 'limits-not-allowed');
    expect(body.errors).toEqual([
      { path: `limits.${field}`, message: expect.stringMatching(direction === 'fixed' ? /set by the product profile only/ : direction === 'lower' ? /may only be lowered/ : /may only be raised/) },
    ]);
    expect((await submit({ limits: { [field]: value } })).status).toBe(202);
    if (direction !== 'fixed') {
      const { min, max } = range(field);
      const stricter = direction === 'lower' ? Math.max(value / 2, min) : Math.min(value * 2, max);
      expect(stricter, `${field} has room to be made stricter`).not.toBe(value);
      expect((await submit({ limits: { [field]: stricter } })).status, `${field}=${stricter}`).toBe(202);
    }
  });

  it('the download cap cannot be lifted (the 1e10 of the issue), and a lowered one is the one applied', async () => {
    const lifted = await expectProblem(await submit({ limits: { maxFileBytes: 1e10 } }), 422, 'limits-not-allowed');
    expect(lifted.detail).toContain("this server's limit is 50,000,000");
    const size = readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf').length;
    const res = await fetch(`${service.url}/v1/checks?wait=60`, {
      method: 'POST',
      body: JSON.stringify({ url: gate.url('small-cap'), sku: 'T-SHIRT-M', raster: false, limits: { maxFileBytes: size - 1 } }),
      headers: json(A),
    });
    const check = (await res.json()) as { report: { limits: { maxFileBytes: number }; findings: { code: string }[] } };
    expect(check.report.limits.maxFileBytes).toBe(size - 1);
    expect(check.report.findings.map((f) => f.code)).toContain('file-too-large');
  });

  it('severities: only raised (off < info < warning < error), every finding code', async () => {
    for (const code of FINDING_CODE_LIST) {
      const current = (profile.severities?.[code] ?? FINDING_CODES[code].severity) as string;
      const order = ['off', 'info', 'warning', 'error'];
      const lower = order[order.indexOf(current) - 1];
      const higher = order[order.indexOf(current) + 1];
      if (lower) {
        const body = await expectProblem(await submit({ severities: { [code]: lower } }), 422, 'limits-not-allowed');
        expect(body.errors).toEqual([{ path: `severities.${code}`, message: `may only be raised: this server's severity is "${current}"` }]);
      }
      if (higher) expect((await submit({ severities: { [code]: higher } })).status, `${code} → ${higher}`).toBe(202);
    }
  });

  it('every numeric field a client can send has a schema maximum, enforced (400) and published', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
    const unbounded: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      if ((o.type === 'number' || o.type === 'integer') && o.maximum === undefined && o.exclusiveMaximum === undefined) unbounded.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
    };
    // What clients send: parameters and request bodies (responses may hold any number).
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: unknown; requestBody?: unknown }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        walk(op.parameters, `${method} ${path} parameters`);
        walk(op.requestBody, `${method} ${path} body`);
      }
    }
    expect(unbounded).toEqual([]);
    for (const field of Object.keys(LIMIT_DIRECTION)) {
      const res = await submit({ limits: { [field]: 1e15 } });
      const body = await expectProblem(res, 400, 'request-invalid');
      expect(JSON.stringify(body.errors)).toContain(`limits.${field}`);
    }
    await expectProblem(await fetch(`${service.url}/v1/checks?wait=61`, { method: 'POST', body: JSON.stringify({ url: gate.url('x'), sku: 'T-SHIRT-M' }), headers: json(A) }), 400, 'request-invalid');
    const draft = validDraft([gate.url('q')]);
    (draft.rows[0] as { quantity: number }).quantity = 1e9;
    const order = await expectProblem(await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(draft), headers: json(A) }), 422, 'order-invalid');
    expect(JSON.stringify(order.errors)).toContain('rows[0].quantity');
  });
});

describe('backpressure per tenant', () => {
  it('queued and running are separate bounds; 429 too-many-queued with Retry-After that grows with the queue ahead', async () => {
    const onePool = new PreflightPool({ maxThreads: 1 });
    const service = await serve({ maxQueuedPerTenant: 2, maxRunningPerTenant: 1, pool: onePool });
    const g = await startGatedSource();
    const postTo = (key: string, name: string) =>
      fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url(name), sku: 'T-SHIRT-M', raster: false }), headers: json(key) });
    try {
      expect((await postTo(A, 'a1')).status).toBe(202);
      await g.waitFor('a1');
      expect((await postTo(A, 'a2')).status).toBe(202);
      expect((await postTo(A, 'a3')).status).toBe(202);
      const refused = await postTo(A, 'a4');
      const first = Number(refused.headers.get('retry-after'));
      const body = await expectProblem(refused, 429, 'too-many-queued');
      expect(body).toMatchObject({ limit: 2, queued: 2 });
      // Nothing measured yet: 10 s a check; 2 waiting on one thread → 10 × (1 + 2) s.
      expect(first).toBe(30);
      // Another tenant: its first check runs at once beside A's (a place A's share leaves free), its
      // second waits — the queue ahead grows by one, and the estimate with it: 10 × (1 + 3) s.
      for (let i = 0; i < 2; i++) expect((await postTo(B, `b${i}`)).status).toBe(202);
      await g.waitFor('b0');
      const later = await postTo(A, 'a5');
      expect(later.status).toBe(429);
      expect(Number(later.headers.get('retry-after'))).toBe(40);
      expect(g.held()).toEqual(['a1', 'b0']);
    } finally {
      g.open();
      await service.close();
      await g.close();
      await onePool.destroy();
    }
  });

  it('a platform posting 30 files at once to idle capacity gets 30 × 202 (the default queued bound is 200)', async () => {
    const service = await serve();
    const g = await startGatedSource();
    try {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url(`p${i}`), sku: 'T-SHIRT-M', raster: false }), headers: json(A) }).then((r) => r.status),
        ),
      );
      expect(statuses).toEqual(statuses.map(() => 202));
    } finally {
      g.open();
      await g.close();
    }
  });

  it("maxRunning: one tenant holds at most its share of the pool while another tenant's check runs beside it", async () => {
    const service = await serve({ tenants: [{ name: 'acme', keys: [ACME_1], maxRunning: 1 }] });
    const g = await startGatedSource();
    try {
      for (const name of ['acme1', 'acme2', 'acme3'])
        expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url(name), sku: 'T-SHIRT-M', raster: false }), headers: json(ACME_1) })).status).toBe(202);
      expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url('other'), sku: 'T-SHIRT-M', raster: false }), headers: json(B) })).status).toBe(202);
      await g.waitFor('other');
      await g.waitFor('acme1');
      await new Promise((r) => setTimeout(r, 500));
      expect(g.held()).toEqual(['acme1', 'other']);
      g.release('acme1');
      await g.waitFor('acme2');
      g.release('acme2');
      await g.waitFor('acme3');
      expect(g.arrived.filter((n) => n.startsWith('acme'))).toEqual(['acme1', 'acme2', 'acme3']);
    } finally {
      g.open();
      await g.close();
    }
  });

  it("by default one tenant's checks take at most the pool's workers' worth of places: another tenant's check starts beside them", async () => {
    // Two workers: a tenant runs two checks at once; the third waits while another tenant's runs.
    const service = await serve();
    const g = await startGatedSource();
    try {
      for (const name of ['a1', 'a2', 'a3'])
        expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url(name), sku: 'T-SHIRT-M', raster: false }), headers: json(A) })).status).toBe(202);
      await g.waitFor('a2');
      expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url('other'), sku: 'T-SHIRT-M', raster: false }), headers: json(B) })).status).toBe(202);
      await g.waitFor('other');
      await new Promise((r) => setTimeout(r, 300));
      expect(g.held().sort()).toEqual(['a1', 'a2', 'other']);
      g.release('a1');
      await g.waitFor('a3');
    } finally {
      g.open();
      await g.close();
    }
  });

  it('uploads per minute: past the allowance 429 too-many-submissions, with the seconds until the next', async () => {
    const service = await serve({ tenants: [{ name: 'acme', keys: [ACME_1], uploadsPerMinute: 3 }], tenantMetrics: true });
    gate.open();
    const post = () => fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: gate.url('rate'), sku: 'T-SHIRT-M', raster: false }), headers: json(ACME_1) });
    for (let i = 0; i < 3; i++) expect((await post()).status).toBe(202);
    const refused = await post();
    const retry = Number(refused.headers.get('retry-after'));
    await expectProblem(refused, 429, 'too-many-submissions');
    expect(retry).toBeGreaterThanOrEqual(15);
    expect(retry).toBeLessThanOrEqual(20);
    // Other tenants have their own allowance.
    expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: gate.url('rate'), sku: 'T-SHIRT-M', raster: false }), headers: json(B) })).status).toBe(202);
    // --tenant-metrics: one series per tenant.
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toContain('print_preflight_tenant_submissions_total{tenant="acme"} 3');
    expect(metrics).toMatch(/^print_preflight_tenant_submissions_total\{tenant="key-[0-9a-f]{12}"\} 1$/m);
    expect(metrics).toContain('print_preflight_tenant_rejected_submissions_total{tenant="acme",reason="too-fast"} 1');
    expect(metrics).toContain('print_preflight_rejected_submissions_total{reason="too-fast"} 1');
    expect(metrics).toMatch(/^# TYPE print_preflight_tenant_checks_queued gauge$/m);
    // Without the flag, no tenant appears in /metrics.
    const plain = await serve();
    expect(await (await fetch(`${plain.url}/metrics`)).text()).not.toContain('tenant');
  });

  it('503 storage-full (with Retry-After) when the data folder has less room than the operator keeps free; nothing is written', async () => {
    const service = await serve({ minFreeBytes: Number.MAX_SAFE_INTEGER });
    const res = await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }), headers: auth(A) });
    expect(res.headers.get('retry-after')).toBe('60');
    await expectProblem(res, 503, 'storage-full');
    expect(await service.store.ids()).toEqual([]);
  });
});

describe('order drafts inside the limits', () => {
  it('more sources than the server checks per draft: 413 before anything is downloaded', async () => {
    const service = await serve({ maxOrderSources: 3 });
    const g = await startGatedSource();
    try {
      const draft = validDraft([g.url('d1'), g.url('d2'), g.url('d3'), g.url('d4')]);
      const body = await expectProblem(await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(draft), headers: json(A) }), 413, 'order-too-many-sources');
      expect(body.limit).toBe(3);
      expect(g.arrived).toEqual([]);
    } finally {
      g.open();
      await g.close();
    }
  });

  it("a draft's sources are counted with the tenant's checks: at most maxRunning preflights at once, and they queue behind its running check", async () => {
    const service = await serve({ maxRunningPerTenant: 2, maxQueuedPerTenant: 10 });
    const g = await startGatedSource();
    try {
      expect((await fetch(`${service.url}/v1/checks`, { method: 'POST', body: JSON.stringify({ url: g.url('check'), sku: 'T-SHIRT-M', raster: false }), headers: json(A) })).status).toBe(202);
      await g.waitFor('check');
      const names = ['s1', 's2', 's3', 's4', 's5'];
      const answer = fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(validDraft(names.map((n) => g.url(n)))), headers: json(A) });
      // One place is the check's: one source at a time until it finishes.
      await g.waitFor('s1');
      await new Promise((r) => setTimeout(r, 500));
      expect(g.held()).toEqual(['check', 's1']);
      g.release('check');
      for (const n of names) {
        await g.waitFor(n);
        await new Promise((r) => setTimeout(r, 100));
        expect(g.held().length).toBeLessThanOrEqual(2);
        g.release(n);
      }
      const res = await answer;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { reports: unknown[] }).reports).toHaveLength(5);
      expect(g.mostHeld()).toBe(2);
      // A draft whose sources alone exceed what the tenant may queue can never pass: 413, not 429.
      const big = await fetch(`${service.url}/v1/orders/payload`, { method: 'POST', body: JSON.stringify(validDraft(Array.from({ length: 11 }, (_, i) => g.url(`big${i}`)))), headers: json(A) });
      await expectProblem(big, 413, 'order-too-many-sources');
    } finally {
      g.open();
      await g.close();
    }
  });
});

describe('callback hosts are judged at submission', () => {
  it('a host name that resolves to loopback is 422 at once, not ten failed deliveries later', async () => {
    const service = await serve({ callbackSecret: 'callback-secret', allowHosts: [] });
    const res = await fetch(`${service.url}/v1/checks`, {
      method: 'POST',
      body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M', callbackUrl: 'http://localhost:9/hooks/preflight' }),
      headers: auth(A),
    });
    const body = await expectProblem(res, 422, 'callback-url-refused');
    expect(body.errors).toEqual([{ path: 'callbackUrl', message: expect.stringMatching(/resolves to (127\.0\.0\.1|::1), a loopback address/) }]);
    expect(await service.store.ids()).toEqual([]);
  });
});

describe("after a tenant's check finishes", () => {
  it('its places are free again (the bound counts only what waits and runs)', async () => {
    const service = await serve({ maxQueuedPerTenant: 1, maxRunningPerTenant: 1 });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }), headers: auth(A) });
      expect(res.status).toBe(200);
      await pollUntilFinished(`${service.url}/v1/checks/${((await res.json()) as { id: string }).id}`, auth(A));
    }
  });
});
