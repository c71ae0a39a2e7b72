/**
 * Issue 33: acting on a verdict within the bounds of judging it. Every transform hostile file
 * (make-fix-hostile.mjs) through `print-preflight fix --approve all` in a process of its own: exit 0
 * or 1, an answer (the changes, the refusals with their reasons, the check after), at most 1 GiB of
 * peak RSS. And the embedded server given a fix bomb with `fix=auto`: it keeps answering /health
 * every second, finishes another tenant's check, and ends the bomb's check with a reason — it never
 * dies. (Time is the benchmark's to measure, not a loaded test machine's.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/schema.js';
import { BIN } from '../fleet/fleet-harness.js';
import { form, startChild, tempDir, type ChildServer } from '../service/harness.js';
// @ts-expect-error plain ESM helper without types
import { fixHostileCorpus } from './make-fix-hostile.mjs';
import { measuredCli, type MeasuredRun } from '../helpers/measured-cli.js';

interface HostileCase {
  name: string;
  bytes: Uint8Array;
  expect: string[];
  why: string;
}

const GIB = 1024 * 1024 * 1024;
const dir = tempDir('pp-fix-bounds-');
let cases: HostileCase[] = [];

beforeAll(async () => {
  cases = await fixHostileCorpus();
  mkdirSync(join(dir, 'files'));
  mkdirSync(join(dir, 'out'));
  for (const c of cases) writeFileSync(join(dir, 'files', c.name), c.bytes);
}, 300_000);

/** Runs the CLI under GNU time: exit code, stdout, stderr, peak RSS in bytes. */
const cli = (args: string[]): Promise<MeasuredRun> => measuredCli(BIN, dir, args);

describe('fix on every transform hostile class, in the CLI', () => {
  it('exit 0 or 1, an answer with the changes or the reasons, at most 1 GiB of memory', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const r = await cli(['fix', join(dir, 'files', c.name), '--sku', 'TANKTOP-M', '--approve', 'all', '--out', join(dir, 'out', c.name), '--json']);
          let answer: { changes?: unknown[]; refused?: { code: string; reason: string }[]; report?: unknown } | null = null;
          try {
            answer = JSON.parse(r.out);
          } catch {
            // no answer: said below
          }
          const why: string[] = [];
          if (r.code !== 0 && r.code !== 1) why.push(`exit ${r.code} (${r.err.split('\n').slice(-3).join(' | ')})`);
          if (!answer || !Array.isArray(answer.changes) || !Array.isArray(answer.refused)) why.push('no JSON answer');
          else {
            if (answer.report !== null && !ReportSchema.safeParse(answer.report).success) why.push('the report after does not match its schema');
            // Something was done or said: a change, or a refusal with its reason.
            if (!answer.changes.length && !answer.refused.length) why.push('neither a change nor a reason');
            for (const refusal of answer.refused) if (!refusal.reason) why.push(`a refusal of ${refusal.code} without a reason`);
          }
          if (!(r.rss <= GIB)) why.push(`peak RSS ${Math.round(r.rss / 1024 / 1024)} MB`);
          if (why.length) failures.push(`${c.name}: ${why.join('; ')}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 1_800_000);
});

describe('the embedded server given a fix bomb', () => {
  let server: ChildServer | undefined;
  afterAll(() => {
    server?.child.kill('SIGKILL');
  });

  it('keeps answering /health every second, finishes another check, and ends the bomb with a reason', async () => {
    const bomb = cases.find((c) => c.name === 'fix-cmyk-16bit-flate-5500px.pdf')!;
    server = await startChild(['--data', tempDir('pp-fix-bomb-data-'), '--workers', '1'], { PRINT_PREFLIGHT_API_KEYS: '' });
    const url = server.url;
    const post = async (file: { name: string; bytes: Uint8Array }, fields: Record<string, string>) => {
      const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form(file, fields) });
      expect(res.status, await res.clone().text()).toBe(202);
      return (await res.json()) as { id: string };
    };
    const bombCheck = await post({ name: bomb.name, bytes: bomb.bytes }, { sku: 'TANKTOP-M', fix: 'auto', policy: JSON.stringify({ 'colour-space-not-rgb': 'fix' }) });
    const other = await post({ name: 'good.pdf', bytes: new Uint8Array(readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf')) }, { sku: 'T-SHIRT-M' });
    const health: number[] = [];
    const missed: string[] = [];
    const gaps: number[] = [];
    let last = Date.now();
    const t0 = last;
    const finished = new Map<string, Record<string, unknown>>();
    const deadline = Date.now() + 600_000;
    while (finished.size < 2 && Date.now() < deadline) {
      const started = Date.now();
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) }).catch((error: Error) => {
        missed.push(`${Math.round((started - t0) / 1000)} s: ${error.message}`);
        return null;
      });
      health.push(res?.status ?? 0);
      gaps.push(started - last);
      last = started;
      for (const id of [bombCheck.id, other.id]) {
        if (finished.has(id)) continue;
        const view = (await (await fetch(`${url}/v1/checks/${id}`)).json()) as Record<string, unknown>;
        if (view.status === 'done' || view.status === 'error' || view.status === 'needs-approval') finished.set(id, view);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000 - Math.min(1_000, Date.now() - started)));
    }
    expect(finished.size, 'both checks ended').toBe(2);
    // The server never went away: every /health answered (200, or 503 when a dependency is busy), none refused.
    expect(missed).toEqual([]);
    expect(health.filter((s) => s === 0)).toEqual([]);
    // Its event loop stayed free: no look at /health waited more than a few seconds for the last.
    expect(Math.max(...gaps.slice(1))).toBeLessThan(10_000);
    expect(finished.get(other.id)).toMatchObject({ status: 'done', verdict: expect.any(String) });
    const ended = finished.get(bombCheck.id)!;
    // The bomb's check has an answer: a fixed file, or the fix refused with its reason — never a crash.
    expect(ended.status).toBe('done');
    const fixed = ended.fixed as { changes: unknown[] } | null;
    const refused = (ended.fixRefused ?? []) as { reason: string }[];
    expect(fixed !== null ? fixed.changes.length : refused.length, JSON.stringify(ended).slice(0, 2000)).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatch(/\w/);
    expect(server.child.exitCode).toBeNull();
  }, 900_000);
});
