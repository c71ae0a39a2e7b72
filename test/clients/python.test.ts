/**
 * The Python client (docs/service-client.py, standard library only, run by Debian's python3)
 * against a real server: upload a file whose name needs quoting, submit a URL while the tenant's
 * queue is full (one check held running by a gated source, one waiting: 429 + Retry-After, which it
 * must honour; the gate opens once the 429 went out), poll, HTML report, preview, delete, and
 * problems as exceptions carrying the problem+json body. Every answer is held against the document.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startGatedSource, type GatedSource } from '../helpers/gated-source.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, tempDir } from '../service/harness.js';

const KEY = 'python-flow-key-0001';
let pool: PreflightPool;
let service: ServiceHandle;
let sources: SourceServer;
let gated: GatedSource;
const traffic = new Traffic();

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  sources = await startSourceServer();
  gated = await startGatedSource();
  // One check of the tenant runs at a time and one may wait: a third gets 429.
  service = await startService({
    port: 0,
    dataDir: tempDir('pp-py-client-'),
    pool,
    logLevel: 'silent',
    apiKeys: [KEY],
    allowHosts: ['127.0.0.1'],
    maxRunningPerTenant: 1,
    maxQueuedPerTenant: 1,
  });
  traffic.observe(service.app.server);
  // One finished check, so that the server's Retry-After estimate comes from a real check time.
  const form = new FormData();
  form.set('file', new Blob([readFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'))], { type: 'application/pdf' }), 'warm-up.pdf');
  form.set('sku', 'T-SHIRT-M');
  const warm = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form, headers: { authorization: `Bearer ${KEY}` } });
  expect(warm.status).toBe(200);
});

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await gated?.close();
  await pool?.destroy();
});

describe('docs/service-client.py driving a real server', () => {
  it('quotes names, honours Retry-After, polls, reads the HTML report and a preview, deletes, raises problems', async () => {
    const run = promisify(execFile)(
      '/usr/bin/python3',
      [join(import.meta.dirname, 'python_flow.py'), service.url, KEY, join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), `${sources.base}/good.pdf`, 'T-SHIRT-M', gated.url('held')],
      { encoding: 'utf8', timeout: 240_000 },
    );
    // The held check runs until the client has been told to wait; then the tenant's queue moves.
    const refused = () => traffic.answers.filter((a) => a.method === 'POST' && a.path === '/v1/checks' && a.status === 429);
    for (let i = 0; i < 2400 && refused().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    gated.releaseAll();
    gated.open();
    const { stdout } = await run;
    const r = JSON.parse(stdout) as Record<string, unknown>;
    expect(r.first).toEqual({ status: 'done', verdict: 'pass', path: 'Größe "XL"; 50% cotton.pdf' });
    expect(r.second).toEqual({ status: 'done', source: `${sources.base}/good.pdf` });
    // The client waited exactly what each 429's Retry-After said.
    const told = refused().map((a) => Number(a.retryAfter));
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(told.every((s) => Number.isInteger(s) && s >= 1)).toBe(true);
    expect(r.retriedAfter).toEqual(told);
    expect(r.html).toEqual({ length: expect.any(Number), doctype: true });
    expect(r.preview).toEqual({ type: 'image/webp', bytes: expect.any(Number) });
    expect(r.deleted).toBe(204);
    expect(r.afterDelete).toEqual({ status: 404, code: 'check-not-found' });
    expect(r.unknownSku).toMatchObject({ status: 422, code: 'unknown-sku', errors: [{ path: 'sku' }] });
    expect(r.retryAfterDate).toBe(10);
    expect(r.retryAfterBad).toBeNull();
    expect(r.quoted).toBe('"a\\"b\\\\c  d"');
  }, 240_000);

  it('got only answers the document declares (the 429 among them), with bodies valid against it', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
    expect([...traffic.seen(doc)]).toContain('POST /v1/checks 429');
    await traffic.expectDocumented(service.url);
  });
});
