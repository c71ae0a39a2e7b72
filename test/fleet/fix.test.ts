/**
 * Fixing through the fleet, as through the single-process service: `serve --redis` takes uploads
 * with `fix`, a `worker` process fixes and checks again, the check ends `needs-approval` (or
 * `done` with `fix=auto`) with the fixed file's URL, digest and changes; approve and reject through
 * the API of a server work against the shared store; the fixed file is served by any server of the
 * fleet once approved; callbacks go out `check.needs-approval`, then `check.finished`. The reports
 * are the ones the library's `checkAndFix` gives for the same file.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/webhooks.js';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import type { Target } from '../../src/flow/options.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { OpenApiContract } from '../helpers/contracts.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { eventually, stable, startServe as startFleetServe, startWorker, stopWorker, type ServeProcess, type WorkerProcess } from './fleet-harness.js';

const SECRET = 'fleet-fix-secret';
const CORPUS = 'test/corpus/files';

let redis: RedisServer;
let pool: PreflightPool;
let data: string;
const servers: ServeProcess[] = [];
let worker: WorkerProcess | null = null;
let receiver: http.Server;
let callbackUrl: string;
const deliveries: Array<{ id: string; status: string; topic: string | undefined; signed: boolean }> = [];

const startServe = () => startFleetServe(redis.url, data, ['--callback-secret', SECRET, '--allow-host', '127.0.0.1']);

beforeAll(async () => {
  redis = await startRedis();
  pool = new PreflightPool({ maxThreads: 1 });
  data = mkdtempSync(join(tmpdir(), 'pp-fleet-fix-'));
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const view = JSON.parse(body) as { id: string; status: string };
      deliveries.push({
        id: view.id,
        status: view.status,
        topic: req.headers['x-webhook-topic'] as string | undefined,
        signed: verifyWebhook(body, req.headers['x-webhook-signature'] as string, SECRET),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // Two servers on one data folder and one Redis: what one decides, the other serves.
  servers.push(await startServe(), await startServe());
  worker = startWorker(redis.url, data);
});

afterAll(async () => {
  for (const s of servers) s.proc.kill('SIGKILL');
  if (worker) await stopWorker(worker, 'SIGKILL');
  await new Promise((r) => receiver?.close(r));
  await pool?.destroy();
  await redis?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

interface View {
  id: string;
  status: string;
  verdict: string;
  fixed: { url: string; sha256: string; bytes: number; changes: { code: string; page: number | null; needsApproval: boolean }[]; refused: unknown[] } | null;
  approval: { state: string; reason?: string } | null;
  report: unknown;
  links: { approval?: string | null };
}

async function submit(url: string, file: string, fields: Record<string, string>): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(join(CORPUS, file))], { type: 'application/pdf' }), file);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const view = async (url: string, id: string) => (await (await fetch(`${url}/v1/checks/${id}`)).json()) as View;
const settled = (url: string, id: string) =>
  eventually(
    () => view(url, id),
    (v) => v.status !== 'queued' && v.status !== 'running',
    180_000,
  );

/** What the library gives for the same file and target: the fixed file's report, the changes and the status. */
async function library(file: string, target: Target, fix: 'auto' | 'approve') {
  const out = await checkAndFix(join(CORPUS, file), target, { fix, pool, path: file });
  return {
    status: out.status,
    report: stable(out.report),
    sha256: out.fixed?.sha256 ?? null,
    changes: out.fixed?.changes.map(({ code, page, needsApproval }) => ({ code, page, needsApproval })) ?? [],
  };
}

describe('fix through the fleet', () => {
  it('approve and reject through the API of one server, the file served by another, callbacks in order, same outcome as the library', async () => {
    const [a, b] = servers as [(typeof servers)[number], (typeof servers)[number]];
    const contract = new OpenApiContract((await (await fetch(`${a.url}/openapi.json`)).json()) as Record<string, unknown>);
    const cmyk = { file: 'reportlab-tanktop-cmyk-spot.pdf', target: { sku: 'TANKTOP-M' } };
    // The library's outcomes first: this process then only answers callbacks and asks the servers
    // (a fix in this thread could hold a callback's answer past its time limit, and it would be sent again).
    const expected = await library(cmyk.file, cmyk.target, 'approve');
    const autoExpected = await library('qpdf-tshirt-M-sleeves-first.pdf', { sku: 'T-SHIRT-M' }, 'auto');
    const toApprove = await submit(a.url, cmyk.file, { ...cmyk.target, fix: 'approve', callbackUrl });
    const toReject = await submit(b.url, cmyk.file, { ...cmyk.target, fix: 'approve', callbackUrl });
    const automatic = await submit(a.url, 'qpdf-tshirt-M-sleeves-first.pdf', { sku: 'T-SHIRT-M', fix: 'auto', callbackUrl });

    expect(expected.status).toBe('needs-approval');
    for (const id of [toApprove, toReject]) {
      const v = await settled(a.url, id);
      expect(v.status).toBe('needs-approval');
      expect(v.approval).toEqual({ state: 'pending' });
      expect(v.fixed!.url).toMatch(/^\/v1\/files\/[0-9a-f]{48}\.pdf$/);
      expect(v.fixed!.changes.map(({ code, page, needsApproval }) => ({ code, page, needsApproval }))).toEqual(expected.changes);
      expect(v.fixed!.refused).toEqual([]);
      // The fixed file's report, as the library's (the fix is deterministic: same bytes, same digest).
      expect(v.fixed!.sha256).toBe(expected.sha256);
      expect(stable(v.report)).toEqual(expected.report);
      expect(contract.componentErrors('Check', JSON.stringify(v))).toEqual([]);
      // Not served before a decision, by either server.
      for (const s of servers) expect((await fetch(`${s.url}${v.fixed!.url}`)).status).toBe(404);
    }

    // Approved on server b (the check was posted to a), served by a.
    const approved = await fetch(`${b.url}/v1/checks/${toApprove}/approve`, { method: 'POST' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ status: 'done', approval: { state: 'approved' } });
    expect((await fetch(`${a.url}/v1/checks/${toApprove}/approve`, { method: 'POST' })).status).toBe(409);
    const approvedView = await view(a.url, toApprove);
    const file = await fetch(`${a.url}${approvedView.fixed!.url}`);
    expect(file.status).toBe(200);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(approvedView.fixed!.sha256);
    expect(approvedView.fixed!.bytes).toBe(bytes.length);

    // Rejected on server a (posted to b): the file is gone for both.
    const rejected = await fetch(`${a.url}/v1/checks/${toReject}/reject`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'colours as designed' }) });
    expect(rejected.status).toBe(200);
    const rejectedView = await view(b.url, toReject);
    expect(rejectedView).toMatchObject({ status: 'done', approval: { state: 'rejected', reason: 'colours as designed' } });
    for (const s of servers) expect((await fetch(`${s.url}${rejectedView.fixed!.url}`)).status).toBe(404);

    // fix=auto: done at once, approved by the policy, served, as the library does it.
    const auto = await settled(b.url, automatic);
    expect(auto).toMatchObject({ status: 'done', verdict: 'pass', approval: { state: 'auto' } });
    expect(auto.fixed!.changes.map(({ code, page, needsApproval }) => ({ code, page, needsApproval }))).toEqual(autoExpected.changes);
    expect(stable(auto.report)).toEqual(autoExpected.report);
    expect((await fetch(`${b.url}${auto.fixed!.url}`)).status).toBe(200);

    // Callbacks: each approval check needs-approval first, then finished with the decision; the automatic one finished once.
    const topics = async (id: string, n: number) =>
      eventually(
        async () => deliveries.filter((d) => d.id === id),
        (d) => d.length >= n,
        60_000,
      ).then((d) => d.map((x) => [x.topic, x.status, x.signed]));
    expect(await topics(toApprove, 2)).toEqual([
      ['check.needs-approval', 'needs-approval', true],
      ['check.finished', 'done', true],
    ]);
    expect(await topics(toReject, 2)).toEqual([
      ['check.needs-approval', 'needs-approval', true],
      ['check.finished', 'done', true],
    ]);
    expect(await topics(automatic, 1)).toEqual([['check.finished', 'done', true]]);
    // Both deliveries recorded (the receiver answers before the record is written): a refused second
    // decision on the other server must not write back an older copy of the record.
    const callbackOf = async (id: string) => (await view(a.url, id)) as unknown as { callback: { state: string; attempts: unknown[] } };
    const recorded = await eventually(
      () => callbackOf(toApprove),
      (v) => v.callback.state !== 'pending',
      30_000,
    );
    expect(recorded.callback.state).toBe('delivered');
    expect(recorded.callback.attempts).toHaveLength(2);
    // No delivery twice.
    expect(deliveries.filter((d) => d.id === toApprove)).toHaveLength(2);
  }, 300_000);
});
