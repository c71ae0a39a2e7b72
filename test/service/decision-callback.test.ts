/**
 * The single-process service's callbacks for a check that waits for approval: `check.needs-approval`
 * when the check finishes, then `check.finished` once it is approved (or rejected) through the API —
 * each signed, each once, the second sent right after the decision (not at the next restart).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/webhooks.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { CORPUS, form, tempDir } from './harness.js';

const SECRET = 'decision-callback-secret';
let pool: PreflightPool;
let service: ServiceHandle;
let receiver: http.Server;
let callbackUrl: string;
const dir = tempDir('pp-decision-callback-');
const deliveries: Array<{ id: string; status: string; approval: string | null; topic: string | undefined; signed: boolean }> = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const view = JSON.parse(body) as { id: string; status: string; approval: { state: string } | null };
      deliveries.push({
        id: view.id,
        status: view.status,
        approval: view.approval?.state ?? null,
        topic: req.headers['x-webhook-topic'] as string | undefined,
        signed: verifyWebhook(body, req.headers['x-webhook-signature'] as string, SECRET),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  pool = new PreflightPool({ maxThreads: 1 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent', callbackSecret: SECRET, callbackBackoffMs: 100, allowHosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  await new Promise((r) => receiver?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function deliveriesOf(id: string, n: number) {
  const end = Date.now() + 60_000;
  while (deliveries.filter((d) => d.id === id).length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return deliveries.filter((d) => d.id === id).map(({ topic, status, approval, signed }) => ({ topic, status, approval, signed }));
}

describe('callbacks of a check that waits for approval', () => {
  it.each([
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ])('%s: check.needs-approval, then check.finished with the decision', async (verb, state) => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, {
      method: 'POST',
      body: form(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'), { sku: 'TANKTOP-M', fix: 'approve', raster: 'false', callbackUrl }),
    });
    expect(res.status).toBe(200);
    const check = (await res.json()) as { id: string; status: string };
    expect(check.status).toBe('needs-approval');
    expect(await deliveriesOf(check.id, 1)).toEqual([{ topic: 'check.needs-approval', status: 'needs-approval', approval: 'pending', signed: true }]);
    const decided = await fetch(
      `${service.url}/v1/checks/${check.id}/${verb}`,
      verb === 'reject' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"reason":"as designed"}' } : { method: 'POST' },
    );
    expect(decided.status).toBe(200);
    expect(await deliveriesOf(check.id, 2)).toEqual([
      { topic: 'check.needs-approval', status: 'needs-approval', approval: 'pending', signed: true },
      { topic: 'check.finished', status: 'done', approval: state, signed: true },
    ]);
    // The delivery is recorded once the receiver has answered.
    let view: { callback: { state: string; attempts: unknown[] } };
    const end = Date.now() + 30_000;
    do view = (await (await fetch(`${service.url}/v1/checks/${check.id}`)).json()) as typeof view;
    while (view.callback.state === 'pending' && Date.now() < end && (await new Promise((r) => setTimeout(r, 50)), true));
    expect(view.callback).toMatchObject({ state: 'delivered' });
    expect(view.callback.attempts).toHaveLength(2);
  });
});
