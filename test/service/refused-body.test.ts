/**
 * A request refused before its body is read (a wrong API key: 401; an upload over the limit: 413)
 * still gets its answer in an ordinary client: Node's fetch sends the whole body before it reads
 * the answer, so a server that answers and closes first leaves it with EPIPE instead of the
 * problem (2 of 8 streamed posts here before, 7 of 8 on the machine). The server reads
 * (and throws away) the rest of the body first, within a bound.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { tempDir } from './harness.js';

const KEY = 'k'.repeat(32);
let pool: PreflightPool;
let service: ServiceHandle;
const dir = tempDir('pp-refused-body-');
// The refused body is read up to the upload limit (and a little more): these bodies are within it.
const MAX_UPLOAD = 8 * 1024 * 1024;

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 1 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent', apiKeys: [KEY], maxUploadBytes: MAX_UPLOAD });
});
afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A multipart upload of `bytes` bytes (not a PDF: it is never read that far). */
function upload(bytes: number): FormData {
  const body = new FormData();
  body.set('sku', 'T-SHIRT-M');
  body.set('file', new Blob([new Uint8Array(bytes).fill(0x25)], { type: 'application/pdf' }), 'big.pdf');
  return body;
}

/** A body that arrives over a while, as from a client on a slower link than loopback: 1 MiB every 5 ms. */
function trickle(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((ok) => setTimeout(ok, 5));
      const n = Math.min(1024 * 1024, total - sent);
      if (n <= 0) return controller.close();
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x25));
    },
  });
}

async function outcome(init: RequestInit & { duplex?: 'half' }): Promise<number | string> {
  try {
    const res = await fetch(`${service.url}/v1/checks`, { method: 'POST', ...init });
    await res.arrayBuffer();
    return res.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? String(error);
  }
}

describe('answers to a body nobody will read', () => {
  it('8 of 8 posts of a 6 MB upload with a wrong key get the 401 problem from fetch', async () => {
    const got: (number | string)[] = [];
    for (let i = 0; i < 8; i++) got.push(await outcome({ headers: { authorization: 'Bearer not-the-key' }, body: upload(6 * 1024 * 1024) }));
    expect(got).toEqual(Array(8).fill(401));
  });

  it('8 of 8 posts of a 6 MB body streamed in with a wrong key get the 401 problem from fetch', async () => {
    const got: (number | string)[] = [];
    for (let i = 0; i < 8; i++) {
      got.push(await outcome({ headers: { authorization: 'Bearer not-the-key', 'content-type': 'application/pdf' }, body: trickle(6 * 1024 * 1024), duplex: 'half' }));
    }
    expect(got).toEqual(Array(8).fill(401));
  });

  it('8 of 8 uploads over the size limit get the 413 problem from fetch', async () => {
    const got: (number | string)[] = [];
    for (let i = 0; i < 8; i++) got.push(await outcome({ headers: { authorization: `Bearer ${KEY}` }, body: upload(MAX_UPLOAD + 256 * 1024) }));
    expect(got).toEqual(Array(8).fill(413));
  });
});
