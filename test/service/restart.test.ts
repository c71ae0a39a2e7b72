/**
 * `print-preflight serve` as a real process: kill -9 between the 202 and the result loses nothing
 * (the restarted server runs the check again and finishes it), and SIGTERM stops gracefully
 * (exit 0, the running check finished or put back in the queue).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliReport, CORPUS, form, pollUntilFinished, startChild, tempDir, withoutTimings, type ChildServer } from './harness.js';

const dirs: string[] = [];
const children: ChildServer[] = [];
afterAll(() => {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serve(data: string): Promise<ChildServer> {
  const s = await startChild(['--data', data, '--workers', '1']);
  children.push(s);
  return s;
}

describe('kill -9 between 202 and completion', () => {
  it('the restarted server finishes every accepted check, with the report check --json gives', async () => {
    const data = tempDir();
    dirs.push(data);
    const first = await serve(data);
    const files = ['reportlab-tshirt-M-three-pages.pdf', 'img2pdf-tanktop-cmyk-jpeg.pdf', 'reportlab-tshirt-M-exact.pdf'];
    const skus = ['T-SHIRT-M', 'TANKTOP-M', 'T-SHIRT-M'];
    const ids: string[] = [];
    for (const [i, file] of files.entries()) {
      const res = await fetch(`${first.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, file), { sku: skus[i]! }) });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    // What the killed process left: the last check cannot have finished (one worker, three files).
    const left = ids.map((id) => JSON.parse(readFileSync(join(data, 'checks', id, 'record.json'), 'utf8')) as { status: string });
    expect(left.at(-1)!.status).toMatch(/^(queued|running)$/);
    expect(readFileSync(join(data, 'uploads', `${ids.at(-1)}.pdf`)).equals(readFileSync(join(CORPUS, files.at(-1)!)))).toBe(true);

    const second = await serve(data);
    for (const [i, id] of ids.entries()) {
      const check = (await pollUntilFinished(`${second.url}/v1/checks/${id}`)) as { status: string; attempts: number; report: unknown };
      expect(check.status).toBe('done');
      expect(check.attempts).toBeGreaterThanOrEqual(1);
      expect(withoutTimings(check.report)).toEqual(withoutTimings(cliReport(files[i]!, ['--sku', skus[i]!])));
    }
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);
});

describe('SIGTERM', () => {
  it('stops taking requests, answers a waiting client, finishes or requeues its check, and exits 0', async () => {
    const data = tempDir();
    dirs.push(data);
    const s = await serve(data);
    const waiting = fetch(`${s.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-three-pages.pdf'), { sku: 'T-SHIRT-M' }) });
    // Let the submission reach the disk before the signal.
    const until = Date.now() + 30_000;
    while (Date.now() < until && !/check accepted/.test(s.stdout())) await new Promise((r) => setTimeout(r, 50));
    s.child.kill('SIGTERM');
    const res = await waiting;
    expect([200, 202]).toContain(res.status);
    const { id } = (await res.json()) as { id: string };
    const exit = await s.exited;
    expect(exit.code).toBe(0);
    const logs = s
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; signal?: string; reqId?: string });
    expect(logs.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
    // Structured logs carry the request id of each request.
    expect(logs.some((l) => l.msg === 'check accepted' && typeof l.reqId === 'string')).toBe(true);
    const record = JSON.parse(readFileSync(join(data, 'checks', id, 'record.json'), 'utf8')) as { status: string };
    expect(record.status).toMatch(/^(done|queued)$/);
  }, 180_000);
});
