/**
 * Fix with approval through the HTTP API, as a platform uses it: an upload with `fix`, the check
 * ends `needs-approval` (or `done` with `fix: auto`), the approval page, approve/reject by the API
 * and by the page's form, the fixed file at its token URL — its bytes are what `fixed.sha256` says,
 * and checked again they pass. Every answer is validated against the served OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../src/flow/preflight.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { OpenApiContract } from '../helpers/contracts.js';
import { CORPUS, form, tempDir } from './harness.js';
import { validDraft } from '../helpers/order.js';
import { freePort } from '../helpers/redis.js';

let pool: PreflightPool;
let service: ServiceHandle;
let contract: OpenApiContract;
const dir = tempDir('pp-approval-');

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  // A fixed file named in an order is trusted only at the server's public origin: it names its own.
  const port = await freePort();
  service = await startService({ port, dataDir: join(dir, 'data'), pool, logLevel: 'silent', publicUrl: `http://127.0.0.1:${port}` });
  contract = new OpenApiContract((await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>);
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

interface View {
  id: string;
  status: string;
  verdict: string;
  fixed: { url: string; sha256: string; bytes: number; changes: { code: string; needsApproval: boolean; customer?: string }[] } | null;
  approval: { state: string; reason?: string; by?: string; tenant?: string } | null;
  report: { findings: { code: string; customer?: { title: string } }[]; locale?: string };
  links: { approval?: string | null };
}

/** Fetches and checks the answer against the OpenAPI document. */
async function call(method: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Uint8Array; headers: Headers }> {
  const res = await fetch(`${service.url}${path}`, { method, redirect: 'manual', ...init });
  const body = new Uint8Array(await res.arrayBuffer());
  expect(contract.answerErrors(method, path.split('?')[0]!, res.status, res.headers.get('content-type'), body), `${method} ${path} ${res.status}`).toEqual([]);
  return { status: res.status, body, headers: res.headers };
}
const json = <T>(b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8')) as T;

async function submit(file: string, fields: Record<string, string>): Promise<View> {
  const res = await call('POST', '/v1/checks?wait=60', { body: form(join(CORPUS, file), fields) });
  expect(res.status).toBe(200);
  return json<View>(res.body);
}

describe('fix with approval through the API', () => {
  it('approve: CMYK converted, needs-approval, page in Portuguese, file served only once approved, and it passes', async () => {
    const check = await submit('reportlab-tanktop-cmyk-spot.pdf', { sku: 'TANKTOP-M', fix: 'approve', locale: 'pt' });
    expect(check.status).toBe('needs-approval');
    expect(check.approval).toEqual({ state: 'pending' });
    expect(check.fixed!.changes.length).toBeGreaterThan(0);
    expect(check.fixed!.changes.every((c) => c.code === 'colour-space-not-rgb' && c.needsApproval)).toBe(true);
    // Absolute under the server's public URL: it is handed to others who do not know this server's address.
    expect(check.fixed!.url).toMatch(new RegExp(`^${service.url}/v1/files/[0-9a-f]{48}\\.pdf$`));
    expect(check.report.locale).toBe('pt');
    expect(check.report.findings.map((f) => f.code)).not.toContain('colour-space-not-rgb');

    // Not served before approval.
    expect((await call('GET', new URL(check.fixed!.url).pathname)).status).toBe(404);

    const page = await call('GET', check.links.approval!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'none'");
    const html = Buffer.from(page.body).toString('utf8');
    expect(html).toContain('<html lang="pt-PT">');
    expect(html).toContain('Convertemos as cores');
    expect(html.match(/<img alt=/g)?.length).toBeGreaterThanOrEqual(2);
    const es = Buffer.from((await call('GET', `${check.links.approval!}?locale=es`)).body).toString('utf8');
    expect(es).toContain('Hemos convertido los colores');

    const approved = await call('POST', `/v1/checks/${check.id}/approve`);
    expect(approved.status).toBe(200);
    // Who decided is kept with the decision: an API call, and the key's tenant.
    expect(json<View>(approved.body)).toMatchObject({ status: 'done', approval: { state: 'approved', by: 'api', tenant: expect.any(String) } });
    expect((await call('POST', `/v1/checks/${check.id}/approve`)).status).toBe(409);

    const file = await call('GET', new URL(check.fixed!.url).pathname);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    const sha = createHash('sha256').update(file.body).digest('hex');
    expect(sha).toBe(check.fixed!.sha256);
    expect(file.headers.get('etag')).toBe(`"${sha}"`);
    const again = await preflight(file.body, { sku: 'TANKTOP-M' }, { pool, raster: false });
    expect(again.findings.map((f) => f.code)).not.toContain('colour-space-not-rgb');
    expect(again.verdict).not.toBe('fail');
    const after = Buffer.from((await call('GET', check.links.approval!)).body).toString('utf8');
    expect(after).not.toContain('<form');
    expect(after).toContain('Aprovou as alterações');
  });

  it('reject by the page form: the page with the outcome, the fixed file gone, a second decision refused', async () => {
    const check = await submit('reportlab-tanktop-cmyk-spot.pdf', { sku: 'TANKTOP-M', fix: 'approve' });
    expect(check.status).toBe('needs-approval');
    const posted = await call('POST', `${check.links.approval!}/reject`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'reason=Colours+must+stay+as+designed' });
    expect(posted.status).toBe(200);
    expect(Buffer.from(posted.body).toString('utf8')).toContain('You rejected the changes');
    const view = json<View>((await call('GET', `/v1/checks/${check.id}`)).body);
    expect(view).toMatchObject({ status: 'done', approval: { state: 'rejected', reason: 'Colours must stay as designed', by: 'approval-page' } });
    expect((await call('GET', new URL(check.fixed!.url).pathname)).status).toBe(404);
    expect((await call('POST', `/v1/checks/${check.id}/approve`)).status).toBe(409);
    expect(Buffer.from((await call('GET', check.links.approval!)).body).toString('utf8')).toContain('You rejected the changes');
    // An order naming the rejected file is refused, naming the source.
    const order = await call('POST', '/v1/orders/payload', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(validDraft([check.fixed!.url])) });
    expect(order.status).toBe(422);
    expect(json<{ errors: { path: string; message: string }[] }>(order.body).errors).toContainEqual({ path: 'rows[0].sources[0].url', message: expect.stringContaining('was rejected') });
  });

  it('auto: qpdf pages put in layer order, done at once, the file served and passing', async () => {
    const check = await submit('qpdf-tshirt-M-sleeves-first.pdf', { sku: 'T-SHIRT-M', fix: 'auto', raster: 'false' });
    expect(check.status).toBe('done');
    expect(check.approval).toMatchObject({ state: 'auto', by: 'policy' });
    expect(check.verdict).toBe('pass');
    const file = await call('GET', new URL(check.fixed!.url).pathname);
    expect(file.status).toBe(200);
    expect((await preflight(file.body, { sku: 'T-SHIRT-M' }, { pool, raster: false })).verdict).toBe('pass');
    expect((await call('POST', `/v1/checks/${check.id}/reject`, { headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(409);
    // The order façade takes the fixed file by its URL, judged by its own report, bound to its SHA-256.
    const url = check.fixed!.url;
    const order = await call('POST', '/v1/orders/payload', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(validDraft([url])) });
    expect(order.status).toBe(200);
    const body = json<{ payload: { rows: { sources?: { url: string }[] }[] }; reports: { verdict: string; file: { sha256: string } }[] }>(order.body);
    expect(body.payload.rows[0]!.sources).toEqual([{ type: 'file', url }]);
    expect(body.reports.map((r) => [r.verdict, r.file.sha256])).toEqual([['pass', check.fixed!.sha256]]);
  });

  it("a policy may only tighten the server's, and must be JSON of known codes and actions", async () => {
    const res = await call('POST', '/v1/checks', { body: form(join(CORPUS, 'qpdf-tshirt-M-sleeves-first.pdf'), { sku: 'T-SHIRT-M', policy: '{"page-count-mismatch":"off"}' }) });
    expect(res.status).toBe(422);
    const bad = await call('POST', '/v1/checks', { body: form(join(CORPUS, 'qpdf-tshirt-M-sleeves-first.pdf'), { sku: 'T-SHIRT-M', policy: '{"image-low-resolution":"fix"}' }) });
    expect(bad.status).toBe(400);
    expect((await call('GET', `/v1/files/${'a'.repeat(48)}.pdf`)).status).toBe(404);
    expect((await call('GET', `/v1/approvals/${'b'.repeat(48)}`)).status).toBe(404);
  });
});
