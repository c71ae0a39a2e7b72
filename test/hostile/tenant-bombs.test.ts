/**
 * One tenant's bombs are not another tenant's wait (issue 46): three fix bombs (a 16-bit CMYK image
 * of 242 MB in 236 KB, fixed with `fix=auto`: seconds of a worker each) posted by one key to a
 * server of two workers, then a good check by another key. The good check starts at once — the
 * queue keeps places for other tenants and the pool a spare worker for a tenant with nothing
 * running — and ends while the bombs still run; /health answers within 2 s at every look, from the
 * event loop. Order and answers are asserted, not the loaded test machine's seconds (printed).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, startChild, tempDir, type ChildServer } from '../service/harness.js';
// @ts-expect-error plain ESM helper without types
import { deflated, imagePage } from './make-fix-hostile.mjs';
// @ts-expect-error plain ESM helper without types
import { stream } from './pdf-writer.mjs';

const A = 'bomb-tenant-key-01';
const B = 'good-tenant-key-01';
let bomb: { name: string; bytes: Uint8Array };
let server: ChildServer | undefined;

beforeAll(async () => {
  // make-fix-hostile.mjs's fix-cmyk-16bit-flate-5500px.pdf, made alone.
  const data = await deflated(5500 * 5500 * 8);
  const bytes = imagePage(stream('/Type /XObject /Subtype /Image /Width 5500 /Height 5500 /BitsPerComponent 16 /ColorSpace /DeviceCMYK /Filter /FlateDecode', data));
  bomb = { name: 'bomb.pdf', bytes: new Uint8Array(bytes) };
}, 300_000);

afterAll(() => {
  server?.child.kill('SIGKILL');
});

describe('three bombs from one key, a good check from another', () => {
  it('the good check ends while the bombs run, and /health answers within 2 s throughout', async () => {
    server = await startChild(['--data', tempDir('pp-tenant-bombs-'), '--workers', '2', '--api-key', A, '--api-key', B]);
    const url = server.url;
    const post = async (key: string, file: { name: string; bytes: Uint8Array }, fields: Record<string, string>) => {
      const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: form(file, fields), headers: { authorization: `Bearer ${key}` } });
      expect(res.status, await res.clone().text()).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };
    const view = async (key: string, id: string) => (await (await fetch(`${url}/v1/checks/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string };
    const settled = (s: string) => s === 'done' || s === 'error' || s === 'needs-approval';

    const fields = { sku: 'TANKTOP-M', fix: 'auto', policy: JSON.stringify({ 'colour-space-not-rgb': 'fix' }) };
    const bombs: string[] = [];
    for (let i = 0; i < 3; i++) bombs.push(await post(A, { name: `bomb-${i}.pdf`, bytes: bomb.bytes }, fields));
    const t0 = Date.now();
    const good = await post(B, { name: 'good.pdf', bytes: new Uint8Array(readFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf')) }, { sku: 'T-SHIRT-M' });

    const healthMs: number[] = [];
    let goodMs = -1;
    let bombsDoneWhenGoodEnded = -1;
    const deadline = Date.now() + 600_000;
    let bombsDone = 0;
    while (bombsDone < 3 && Date.now() < deadline) {
      const started = Date.now();
      const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
      healthMs.push(Date.now() - started);
      expect(health.status).toBeLessThan(600);
      if (goodMs < 0 && settled((await view(B, good)).status)) {
        goodMs = Date.now() - t0;
        bombsDoneWhenGoodEnded = (await Promise.all(bombs.map((id) => view(A, id)))).filter((v) => settled(v.status)).length;
      }
      bombsDone = (await Promise.all(bombs.map((id) => view(A, id)))).filter((v) => settled(v.status)).length;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 500 - (Date.now() - started))));
    }
    console.log(`good check ended after ${goodMs} ms with ${bombsDoneWhenGoodEnded} of 3 bombs done; /health at most ${Math.max(...healthMs)} ms over ${healthMs.length} looks`);
    expect(bombsDone, 'every bomb ended').toBe(3);
    expect(goodMs, 'the good check ended').toBeGreaterThan(0);
    // It did not wait for the bombs: at most one of them had ended (two run at once, the third waits).
    expect(bombsDoneWhenGoodEnded).toBeLessThanOrEqual(1);
    expect(Math.max(...healthMs)).toBeLessThan(2_000);
    expect(server.child.exitCode).toBeNull();
  }, 900_000);
});
