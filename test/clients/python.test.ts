/**
 * The Python client (docs/service-client.py, standard library only, run by Debian's python3)
 * against a real server: upload a file whose name needs quoting, submit a URL while the key's one
 * slot is taken (429 + Retry-After, which it must honour), poll, HTML report, preview, delete, and
 * problems as exceptions carrying the problem+json body. Every answer is held against the document.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startSourceServer, type SourceServer } from '../helpers/source-server.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, tempDir } from '../service/harness.js';

const KEY = 'python-flow-key-0001';
let pool: PreflightPool;
let service: ServiceHandle;
let sources: SourceServer;
const traffic = new Traffic();

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  sources = await startSourceServer();
  service = await startService({ port: 0, dataDir: tempDir('pp-py-client-'), pool, logLevel: 'silent', apiKeys: [KEY], allowHosts: ['127.0.0.1'], maxConcurrentPerKey: 1 });
  traffic.observe(service.app.server);
});

afterAll(async () => {
  await service?.close();
  await sources?.close();
  await pool?.destroy();
});

describe('docs/service-client.py driving a real server', () => {
  it('quotes names, honours Retry-After, polls, reads the HTML report and a preview, deletes, raises problems', async () => {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'python_flow.py'), service.url, KEY, join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), `${sources.base}/good.pdf`, 'T-SHIRT-M'], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    const r = JSON.parse(stdout) as Record<string, unknown>;
    expect(r.first).toEqual({ status: 'done', verdict: 'pass', path: 'Größe "XL"; 50% cotton.pdf' });
    expect(r.second).toEqual({ status: 'done', source: `${sources.base}/good.pdf` });
    // The server's Retry-After for a key at its limit is 5 s; the client waited exactly that.
    expect((r.retriedAfter as number[]).length).toBeGreaterThanOrEqual(1);
    expect(new Set(r.retriedAfter as number[])).toEqual(new Set([5]));
    expect(r.html).toEqual({ length: expect.any(Number), doctype: true });
    expect(r.preview).toEqual({ type: 'image/webp', bytes: expect.any(Number) });
    expect(r.deleted).toBe(204);
    expect(r.afterDelete).toEqual({ status: 404, code: 'check-not-found' });
    expect(r.unknownSku).toMatchObject({ status: 422, code: 'ERR_UNKNOWN_SKU', errors: [{ path: 'sku' }] });
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
