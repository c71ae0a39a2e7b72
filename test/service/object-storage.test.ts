/**
 * The service on object storage (`--storage s3://…`, a real S3-compatible server: s3rver on
 * 127.0.0.1): server A runs checks and keeps nothing in its data folder; server B, started on an
 * empty folder, answers every one of them (record, report, HTML, previews, mockups, the fixed file
 * streamed or presigned). The same file sent again takes the stored result (`reusedFrom`, no pool
 * task); an operator can turn that off. A store that fails mid-run loses nothing; one that is away
 * at submission is a 503 with a code. Every answer is checked against the served OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle, type ServeOptions } from '../../src/service/index.js';
import { OpenApiContract } from '../helpers/contracts.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { CORPUS, expectProblem, form, pollUntilFinished, tempDir, withoutTimings } from './harness.js';

let s3: S3Server;
let pool: PreflightPool;
let inspected: ReturnType<typeof vi.spyOn>;
const dirs: string[] = [];
const services: ServiceHandle[] = [];

beforeAll(async () => {
  s3 = await startS3();
  pool = new PreflightPool({ maxThreads: 2 });
  inspected = vi.spyOn(pool, 'inspect');
}, 60_000);

afterAll(async () => {
  for (const s of services) await s.close().catch(() => undefined);
  await pool?.destroy();
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serve(storage: string | null, extra: Partial<ServeOptions> = {}): Promise<{ service: ServiceHandle; data: string; contract: OpenApiContract }> {
  const data = tempDir('pp-s3-service-');
  dirs.push(data);
  const service = await startService({
    port: 0,
    dataDir: data,
    pool,
    logLevel: 'silent',
    ...(storage ? { storage, s3Endpoint: s3.endpoint } : {}),
    ...extra,
  });
  services.push(service);
  const contract = new OpenApiContract((await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>);
  return { service, data, contract };
}

/** Fetches and checks the answer against the OpenAPI document. */
async function call(contract: OpenApiContract, base: string, method: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${base}${path}`, { method, redirect: 'manual', ...init });
  const body = new Uint8Array(await res.arrayBuffer());
  expect(contract.answerErrors(method, path.split('?')[0]!, res.status, res.headers.get('content-type'), body), `${method} ${path} ${res.status}`).toEqual([]);
  return { status: res.status, body, headers: res.headers };
}
const json = <T>(b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8')) as T;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Files under a folder (empty sub-folders do not count). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

interface View {
  id: string;
  status: string;
  verdict: string;
  reusedFrom?: string;
  fixed: { url: string; sha256: string } | null;
  report: { file: { path: string; sha256: string } } & Record<string, unknown>;
  links: { html: string | null; previews: string[]; mockups?: string[] };
}

const CHECKS: { file: string; fields: Record<string, string> }[] = [
  { file: 'reportlab-tshirt-M-exact.pdf', fields: { sku: 'T-SHIRT-M' } },
  { file: 'img2pdf-tanktop-cmyk-jpeg.pdf', fields: { sku: 'TANKTOP-M' } },
  { file: 'qpdf-tshirt-M-sleeves-first.pdf', fields: { sku: 'T-SHIRT-M', fix: 'auto', raster: 'false' } },
];

describe('servers that keep nothing', () => {
  const seen: { view: View; html: Uint8Array; previews: Uint8Array[]; mockups: Uint8Array[]; fixed: Uint8Array | null }[] = [];
  const storage = 's3://prints/service-a';

  it('server A answers each check from object storage; its data folder keeps no file', async () => {
    const a = await serve(storage);
    const base = a.service.url;
    for (const c of CHECKS) {
      const res = await call(a.contract, base, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, c.file), c.fields) });
      expect(res.status).toBe(200);
      const view = json<View>(res.body);
      expect(view.status).toBe('done');
      expect(view.reusedFrom).toBeUndefined();
      const html = (await call(a.contract, base, 'GET', `/v1/checks/${view.id}/report.html`)).body;
      const previews = [];
      for (const p of view.links.previews) previews.push((await call(a.contract, base, 'GET', p)).body);
      const mockups = [];
      for (const m of view.links.mockups ?? []) mockups.push((await call(a.contract, base, 'GET', m)).body);
      const fixed = view.fixed ? (await call(a.contract, base, 'GET', view.fixed.url)).body : null;
      if (view.fixed) expect(sha256(fixed!)).toBe(view.fixed.sha256);
      seen.push({ view, html, previews, mockups, fixed });
    }
    expect(seen[0]!.previews.length).toBeGreaterThan(0);
    expect(seen[2]!.fixed).not.toBeNull();
    // Uploads went to the store and were removed when their checks finished: nothing stays here.
    expect(filesUnder(a.data)).toEqual([]);
    await a.service.close();
  }, 240_000);

  it('server B, on an empty data folder, answers every earlier check; fixed files by presigned redirect', async () => {
    expect(seen).toHaveLength(CHECKS.length);
    const b = await serve(storage, { presignSeconds: 120 });
    const base = b.service.url;
    const health = json<{ status: string; checks: { data: { ok: boolean; detail: string } } }>((await call(b.contract, base, 'GET', '/health')).body);
    expect(health.checks.data).toEqual({ ok: true, detail: `object storage s3://prints/service-a/` });
    for (const s of seen) {
      const view = json<View>((await call(b.contract, base, 'GET', `/v1/checks/${s.view.id}`)).body);
      expect(view).toEqual(s.view);
      const html = await call(b.contract, base, 'GET', `/v1/checks/${s.view.id}/report.html`);
      expect(html.status).toBe(200);
      expect(Buffer.from(html.body).toString('utf8')).toContain(s.view.report.file.sha256);
      for (const [i, p] of s.view.links.previews.entries()) expect(Buffer.from((await call(b.contract, base, 'GET', p)).body).equals(Buffer.from(s.previews[i]!))).toBe(true);
      for (const [i, m] of (s.view.links.mockups ?? []).entries()) expect(Buffer.from((await call(b.contract, base, 'GET', m)).body).equals(Buffer.from(s.mockups[i]!))).toBe(true);
      if (s.view.fixed) {
        const res = await fetch(`${base}${s.view.fixed.url}`, { redirect: 'manual' });
        expect(res.status).toBe(302);
        const location = res.headers.get('location')!;
        expect(location).toMatch(new RegExp(`^${s3.endpoint}/prints/service-a/files/[0-9a-f]{48}\\.pdf\\?.*X-Amz-Signature=`));
        const bytes = new Uint8Array(await (await fetch(location)).arrayBuffer());
        expect(sha256(bytes)).toBe(s.view.fixed.sha256);
      }
    }
    expect(filesUnder(b.data)).toEqual([]);
  }, 240_000);

  it('the same file sent again takes the stored report at once: reusedFrom set, no pool task', async () => {
    const b = services.at(-1)!;
    const contract = new OpenApiContract((await (await fetch(`${b.url}/openapi.json`)).json()) as Record<string, unknown>);
    const first = seen[0]!.view;
    const before = inspected.mock.calls.length;
    const res = await call(contract, b.url, 'POST', '/v1/checks?wait=60', { body: form({ name: 'again.pdf', bytes: readFileSync(join(CORPUS, CHECKS[0]!.file)) }, CHECKS[0]!.fields) });
    expect(res.status).toBe(200);
    const again = json<View>(res.body);
    expect(again.id).not.toBe(first.id);
    expect(again.reusedFrom).toBe(first.id);
    expect(inspected.mock.calls.length).toBe(before);
    // The same report, named for the file as sent this time.
    expect(again.report.file.path).toBe('again.pdf');
    expect(withoutTimings({ ...again.report, file: null })).toEqual(withoutTimings({ ...first.report, file: null }));
    expect(again.links.previews).toHaveLength(first.links.previews.length);
    const preview = await call(contract, b.url, 'GET', again.links.previews[0]!);
    expect(Buffer.from(preview.body).equals(Buffer.from(seen[0]!.previews[0]!))).toBe(true);
    // A fix (auto) reused: the fixed file copied under a token of the new check's own, same bytes.
    const fixedBefore = seen[2]!.view;
    const fixedAgain = json<View>(
      (await call(contract, b.url, 'POST', '/v1/checks?wait=60', { body: form({ name: 'sleeves.pdf', bytes: readFileSync(join(CORPUS, CHECKS[2]!.file)) }, CHECKS[2]!.fields) })).body,
    );
    expect(fixedAgain).toMatchObject({ status: 'done', reusedFrom: fixedBefore.id, fixed: { sha256: fixedBefore.fixed!.sha256 } });
    expect(fixedAgain.fixed!.url).not.toBe(fixedBefore.fixed!.url);
    expect(fixedAgain.report.file.path).toBe('sleeves.fixed.pdf');
    const copied = await fetch(`${b.url}${fixedAgain.fixed!.url}`, { redirect: 'manual' });
    expect(copied.status).toBe(302);
    expect(sha256(new Uint8Array(await (await fetch(copied.headers.get('location')!)).arrayBuffer()))).toBe(fixedBefore.fixed!.sha256);
    expect(inspected.mock.calls.length).toBe(before);
    // Other settings are another result: the same bytes for another SKU run again.
    const other = json<View>((await call(contract, b.url, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, CHECKS[0]!.file), { sku: 'T-SHIRT-L' }) })).body);
    expect(other.reusedFrom).toBeUndefined();
    expect(inspected.mock.calls.length).toBeGreaterThan(before);
  }, 240_000);

  it('an operator turns reuse off (--no-reuse): the same file runs again', async () => {
    const c = await serve(storage, { reuse: false });
    const before = inspected.mock.calls.length;
    const view = json<View>((await call(c.contract, c.service.url, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, CHECKS[0]!.file), CHECKS[0]!.fields) })).body);
    expect(view.status).toBe('done');
    expect(view.reusedFrom).toBeUndefined();
    expect(inspected.mock.calls.length).toBeGreaterThan(before);
    await c.service.close();
  }, 240_000);
});

describe('decisions on object storage', () => {
  it('a fix waiting for approval is approved through another server on an empty folder, and rejected likewise', async () => {
    const storage = 's3://prints/decisions';
    const one = await serve(storage);
    const post = async () =>
      json<View & { links: { approval?: string } }>(
        (await call(one.contract, one.service.url, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'), { sku: 'TANKTOP-M', fix: 'approve' }) })).body,
      );
    const toApprove = await post();
    const toReject = await post();
    expect([toApprove.status, toReject.status]).toEqual(['needs-approval', 'needs-approval']);
    expect((await fetch(`${one.service.url}${toApprove.fixed!.url}`)).status).toBe(404);
    await one.service.close();

    const two = await serve(storage);
    const base = two.service.url;
    expect((await call(two.contract, base, 'POST', `/v1/checks/${toApprove.id}/approve`)).status).toBe(200);
    const approved = json<View & { approval: { state: string } }>((await call(two.contract, base, 'GET', `/v1/checks/${toApprove.id}`)).body);
    expect(approved.approval.state).toBe('approved');
    const file = await call(two.contract, base, 'GET', toApprove.fixed!.url);
    expect(file.status).toBe(200);
    expect(sha256(file.body)).toBe(toApprove.fixed!.sha256);
    const rejected = await call(two.contract, base, 'POST', `${toReject.links.approval!}/reject`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'reason=No' });
    expect(rejected.status).toBe(200);
    expect((await call(two.contract, base, 'GET', toReject.fixed!.url)).status).toBe(404);
    // A second decision on either is refused, wherever it is asked.
    expect((await call(two.contract, base, 'POST', `/v1/checks/${toReject.id}/approve`)).status).toBe(409);
    // The same file again takes the approved check's result, and waits for its own approval.
    const before = inspected.mock.calls.length;
    const again = json<View & { approval: { state: string } }>(
      (await call(two.contract, base, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'), { sku: 'TANKTOP-M', fix: 'approve' }) })).body,
    );
    expect(again).toMatchObject({ status: 'needs-approval', approval: { state: 'pending' }, fixed: { sha256: toApprove.fixed!.sha256 } });
    expect([toApprove.id, toReject.id]).toContain(again.reusedFrom);
    expect(again.reusedFrom).toBe(toApprove.id);
    expect(inspected.mock.calls.length).toBe(before);
    expect((await call(two.contract, base, 'GET', again.fixed!.url)).status).toBe(404);
    expect((await call(two.contract, base, 'POST', `/v1/checks/${again.id}/approve`)).status).toBe(200);
    expect(sha256((await call(two.contract, base, 'GET', again.fixed!.url)).body)).toBe(toApprove.fixed!.sha256);
    expect(filesUnder(two.data)).toEqual([]);
    await two.service.close();
  }, 240_000);
});

describe('reuse on the local data folder (the embedded server)', () => {
  it('the second upload of the same bytes names the first; deleting the first makes the next one run', async () => {
    const l = await serve(null);
    const post = async () => json<View>((await call(l.contract, l.service.url, 'POST', '/v1/checks?wait=60', { body: form(join(CORPUS, 'img2pdf-tanktop-gray.pdf'), { sku: 'TANKTOP-M' }) })).body);
    const first = await post();
    expect(first.reusedFrom).toBeUndefined();
    const before = inspected.mock.calls.length;
    const second = await post();
    expect(second.reusedFrom).toBe(first.id);
    expect(inspected.mock.calls.length).toBe(before);
    expect((await fetch(`${l.service.url}/v1/checks/${first.id}`, { method: 'DELETE' })).status).toBe(204);
    // The entry now names a check that is gone; the second check took its result from it and is
    // the latest of the key only if it ran: it did not, so the third runs.
    const third = await post();
    expect(third.reusedFrom).toBeUndefined();
    expect(inspected.mock.calls.length).toBeGreaterThan(before);
    await l.service.close();
  }, 240_000);
});

describe('object storage failing', () => {
  it('away at submission: 503 storage-unavailable with Retry-After, nothing accepted', async () => {
    const d = await serve('s3://prints/service-down');
    await s3.down();
    try {
      const res = await fetch(`${d.service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, CHECKS[0]!.file), CHECKS[0]!.fields) });
      const problem = await expectProblem(res, 503, 'storage-unavailable');
      expect(String(problem.detail)).toMatch(/cannot be reached/);
      expect(res.headers.get('retry-after')).toBe('10');
    } finally {
      await s3.up();
    }
    await d.service.close();
  }, 120_000);

  it('away for seconds mid-run: the accepted check still ends, once', async () => {
    const d = await serve('s3://prints/service-outage', { reuse: false });
    const res = await fetch(`${d.service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, 'img2pdf-tanktop-cmyk-jpeg.pdf'), { sku: 'TANKTOP-M' }) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await s3.down();
    await new Promise((r) => setTimeout(r, 4_000));
    await s3.up();
    const view = (await pollUntilFinished(`${d.service.url}/v1/checks/${id}`)) as unknown as View & { attempts: number };
    expect(view.status).toBe('done');
    expect(view.attempts).toBe(1);
    expect(view.verdict).toBeTruthy();
    await d.service.close();
  }, 180_000);
});
