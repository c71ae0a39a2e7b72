/**
 * A fix that needs an instruction says which one in the words of the surface used: an HTTP client
 * is told the request's fields (`rotate`, `fit`), never a command-line flag — and giving the field
 * makes the fix. The library names its options, the fix command its flags.
 */
import { join } from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import { fix } from '../../src/flow/fix.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { OpenApiContract } from '../helpers/contracts.js';
import { CORPUS, form, tempDir } from './harness.js';

const SIDEWAYS = 'pikepdf-curtains-rotate270-sideways.pdf';
const target = { product: 'curtains', variant: '140x260' };
const FIX_TURN = { 'page-orientation-mismatch': 'fix' } as const;
let pool: PreflightPool;
let service: ServiceHandle;
let contract: OpenApiContract;
const dir = tempDir('pp-fix-words-');

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
  contract = new OpenApiContract((await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>);
});
afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

interface View {
  status: string;
  fixed: { changes: { code: string }[]; refused: { code: string; reason: string }[] } | null;
  fixRefused?: { code: string; reason: string }[];
}

async function post(fields: Record<string, string>): Promise<View> {
  const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, SIDEWAYS), fields) });
  const body = new Uint8Array(await res.arrayBuffer());
  expect(contract.answerErrors('POST', '/v1/checks', res.status, res.headers.get('content-type'), body)).toEqual([]);
  expect(res.status, Buffer.from(body).toString()).toBe(200);
  return JSON.parse(Buffer.from(body).toString()) as View;
}

const reasons = (v: View) => [...(v.fixRefused ?? []), ...(v.fixed?.refused ?? [])].filter((r) => r.code === 'page-orientation-mismatch').map((r) => r.reason);

describe('the words of a refused fix', () => {
  it('HTTP: names the rotate field, never --rotate; with rotate=cw the page is turned', async () => {
    const base = { product: target.product, variant: target.variant, raster: 'false', fix: 'auto', policy: JSON.stringify(FIX_TURN) };
    const refused = await post(base);
    const said = reasons(refused);
    expect(said.length).toBeGreaterThan(0);
    for (const reason of said) {
      expect(reason).not.toMatch(/--/);
      expect(reason).toMatch(/field rotate set to cw or ccw/);
    }
    const turned = await post({ ...base, rotate: 'cw' });
    expect(turned.fixed?.changes.map((c) => c.code)).toContain('page-orientation-mismatch');
    expect(reasons(turned)).toEqual([]);
  });

  it('HTTP: a rotate or fit outside its values is a 400 naming the field', async () => {
    const res = await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form(join(CORPUS, SIDEWAYS), { ...target, fix: 'auto', rotate: 'left' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain('rotate');
  });

  it('library: checkAndFix and fix name their options', async () => {
    const bytes = new Uint8Array(readFileSync(join(CORPUS, SIDEWAYS)));
    const out = await checkAndFix(bytes, target, { fix: 'auto', pool, raster: false, policy: FIX_TURN });
    expect([...(out.refused ?? []), ...(out.fixed?.refused ?? [])].find((r) => r.code === 'page-orientation-mismatch')?.reason).toMatch(/the option rotate: 'cw' or 'ccw'$/);
    const fixed = await fix(bytes, target, {}, { pool, raster: false, policy: FIX_TURN });
    expect(fixed.refused.find((r) => r.code === 'page-orientation-mismatch')?.reason).toMatch(/the option rotate: 'cw' or 'ccw'$/);
  });
});
