/**
 * Issue 33: one decision per check, fleet-wide, and a run never doubled. Two `serve --redis` servers
 * and worker processes sharing one Redis and one storage — a data folder, and (issue 44) an
 * S3-compatible bucket (s3rver) with a scratch folder per process:
 * - 12 checks waiting for approval, each approved on one server and rejected on the other at the
 *   same moment: exactly one of each pair wins (200), the other gets 409; the record, the fixed
 *   file's state and the file agree (approved: served; rejected: 404), and an order takes only the
 *   approved ones;
 * - a fix that runs longer than the job lock (two workers, a 2 s lock): the worker's event loop
 *   stays free (the fix runs in the pool), the lock is renewed, the job runs once, and the decision
 *   taken after it is never overwritten.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis.js';
import { validDraft } from '../helpers/order.js';
import { eventually, FLEET_STORAGES, startFleet, stopWorker, type Fleet, type ServeProcess } from './fleet-harness.js';
// @ts-expect-error plain ESM helper without types
import { fixHostileCorpus } from '../hostile/make-fix-hostile.mjs';

const CORPUS = 'test/corpus/files';

interface View {
  id: string;
  status: string;
  fixed: { url: string; sha256: string } | null;
  approval: { state: string } | null;
  attempts: number;
}

async function submit(url: string, name: string, bytes: Uint8Array, fields: Record<string, string>): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}
const view = async (url: string, id: string) => (await (await fetch(`${url}/v1/checks/${id}`)).json()) as View;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(FLEET_STORAGES)('decisions across two fleet servers (%s)', (kind) => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet(kind, kind === 'object storage' ? 'decisions-s3' : 'decisions');
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('12 racing approve/reject pairs: 12 single decisions, record and file agree, orders take only the approved', async () => {
    const port = await freePort();
    const { servers } = fleet;
    await fleet.serve(['--port', String(port), '--public-url', `http://127.0.0.1:${port}`]);
    await fleet.serve();
    fleet.worker();
    const [a, b] = servers as [ServeProcess, ServeProcess];
    const bytes = new Uint8Array(readFileSync(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf')));
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await submit(i % 2 ? b.url : a.url, `tank-${i}.pdf`, bytes, { sku: 'TANKTOP-M', fix: 'approve', raster: 'false' }));
    for (const id of ids)
      expect(
        (
          await eventually(
            () => view(a.url, id),
            (v) => v.status !== 'queued' && v.status !== 'running',
            300_000,
          )
        ).status,
      ).toBe('needs-approval');

    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        // Half the pairs approve on A and reject on B, half the other way round, at the same moment;
        // in half of each, the rejection is sent first (on a quiet machine the request sent first
        // tends to win, so each kind of outcome is exercised).
        const [approveAt, rejectAt] = i % 2 ? [b, a] : [a, b];
        const approve = () => fetch(`${approveAt.url}/v1/checks/${id}/approve`, { method: 'POST' });
        const reject = () => fetch(`${rejectAt.url}/v1/checks/${id}/reject`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const rejectFirst = i % 4 >= 2;
        // The second goes 15 ms after the first: both are in flight at once (each server takes the
        // record's lock in Redis), and the first is sent clearly first, so both kinds of outcome occur.
        const [first, second] = rejectFirst ? [reject(), delay(15).then(approve)] : [approve(), delay(15).then(reject)];
        const [x, y] = await Promise.all([first, second]);
        const [approved, rejected] = rejectFirst ? [y, x] : [x, y];
        return { id, approve: approved.status, reject: rejected.status };
      }),
    );
    let approved = 0;
    for (const o of outcomes) {
      // Exactly one decision per check.
      expect([o.approve, o.reject].sort(), JSON.stringify(o)).toEqual([200, 409]);
      const winner = o.approve === 200 ? 'approved' : 'rejected';
      if (winner === 'approved') approved++;
      for (const s of servers) {
        const v = await view(s.url, o.id);
        expect(v.approval?.state, `${o.id} on ${s.url}`).toBe(winner);
        expect(v.status).toBe('done');
        // The file agrees with the record, on every server.
        // fixed.url is absolute under the fleet's --public-url: the path, asked of every server.
        const file = await fetch(`${s.url}${new URL(v.fixed!.url, s.url).pathname}`);
        expect(file.status, `${o.id} file on ${s.url}`).toBe(winner === 'approved' ? 200 : 404);
      }
      const d = validDraft([`http://127.0.0.1:${port}${new URL((await view(a.url, o.id)).fixed!.url, a.url).pathname}`]);
      d.number = `RACE-${o.id.slice(0, 8)}`;
      d.rows[0]!.sku = 'TANKTOP-M';
      d.rows.splice(1);
      const built = await fetch(`${a.url}/v1/orders/payload`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(d) });
      expect(built.status, `${o.id} order`).toBe(winner === 'approved' ? 200 : 422);
    }
    // Both kinds of outcome happened (the race is real, whichever wins each pair).
    expect(approved).toBeGreaterThan(0);
    expect(approved).toBeLessThan(12);
    // On object storage nothing was shared through a folder: every record and file is in the bucket.
    if (kind === 'object storage') expect(fleet.scratchFiles()).toEqual([]);
  }, 900_000);

  it('a fix longer than the job lock runs once, and the decision taken after it stands', async () => {
    // Two more workers with a 2 s lock, checked every 0.5 s: a worker whose event loop were blocked
    // by the fix would lose its lock and the job would run again on the other one.
    const slow = ((await fixHostileCorpus()) as { name: string; bytes: Uint8Array }[]).find((c) => c.name === 'fix-devicen-4-noise-3000px.pdf')!;
    for (const w of fleet.workers) await stopWorker(w, 'SIGTERM');
    while (fleet.servers.length < 2) await fleet.serve();
    const lock = ['--lock-duration', '2', '--stalled-interval', '0.5', '--concurrency', '1'];
    const workers = [fleet.worker(lock), fleet.worker(lock)];
    const [a, b] = fleet.servers as [ServeProcess, ServeProcess];
    const id = await submit(a.url, slow.name, slow.bytes, { sku: 'TANKTOP-M', fix: 'approve', raster: 'false' });
    const settled = await eventually(
      () => view(a.url, id),
      (v) => v.status !== 'queued' && v.status !== 'running',
      600_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nworkers said: ${JSON.stringify(workers.map((w) => w.lines.slice(-8)))}; exit codes ${workers.map((w) => w.proc.exitCode).join(', ')}`);
    });
    expect(settled.attempts).toBe(1);
    const starts = workers.flatMap((w) => w.lines.filter((l) => l.event === 'job-start' && l.jobId === id));
    expect(starts).toHaveLength(1);
    if (settled.status === 'needs-approval') {
      expect((await fetch(`${b.url}/v1/checks/${id}/approve`, { method: 'POST' })).status).toBe(200);
      // Give a late second run every chance to overwrite the decision: it must not.
      await new Promise((r) => setTimeout(r, 5_000));
      expect((await view(a.url, id)).approval?.state).toBe('approved');
    }
    expect(workers.flatMap((w) => w.lines.filter((l) => l.event === 'job-stalled'))).toEqual([]);
  }, 900_000);
});
