/**
 * Issue 33: a check whose run died with its process (a fix bomb before transforms ran in the pool
 * took the embedded server down, and it resumed the check on restart and died again) is recorded
 * as an error after the second death and never run a third time; a check that died once is run
 * again and finishes. Each death is seen as a restart sees it: the record still `running` when no
 * run holds it.
 */
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { JobStore } from '../../src/jobs/store.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { createUploadJob } from '../fleet/fleet-harness.js';
import { CORPUS, tempDir } from './harness.js';

const dir = tempDir('pp-crash-limit-');
const pool = new PreflightPool({ maxThreads: 1 });
let service: ServiceHandle | undefined;
afterAll(async () => {
  await service?.close();
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('checks that took their process down', () => {
  it('the second death makes an error that is not resumed; one death is resumed and finishes', async () => {
    const data = join(dir, 'data');
    const store = await JobStore.open(data);
    const died = (crashes: number) => async () => {
      const job = await createUploadJob(store, join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' });
      // As a process leaves it when it dies mid-run: running, started, and (after the first time) counted.
      await store.updateRecord(job.id, (r) => ({ ...r, status: 'running', startedAt: new Date().toISOString(), attempts: crashes + 1, crashes }));
      return job.id;
    };
    const twice = await died(1)();
    const once = await died(0)();
    service = await startService({ port: 0, dataDir: data, pool, logLevel: 'silent' });
    const until = Date.now() + 120_000;
    const view = async (id: string) =>
      (await (await fetch(`${service!.url}/v1/checks/${id}`)).json()) as { status: string; attempts: number; error: { code: string; message: string } | null; verdict: string | null };
    let a = await view(twice);
    let b = await view(once);
    while (Date.now() < until && (b.status === 'queued' || b.status === 'running' || a.status === 'queued' || a.status === 'running')) {
      await new Promise((r) => setTimeout(r, 200));
      [a, b] = [await view(twice), await view(once)];
    }
    expect(a.status).toBe('error');
    expect(a.error?.code).toBe('ERR_WORKER_CRASHED');
    expect(a.error?.message).toMatch(/stopped the process 2 times/);
    // Not run a third time: no attempt was added.
    expect(a.attempts).toBe(2);
    expect(b).toMatchObject({ status: 'done', verdict: 'pass', attempts: 2 });
    expect((await store.readRecord(once))!.crashes).toBe(1);
  }, 180_000);
});
