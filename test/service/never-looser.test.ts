/**
 * Issue 33, tried as an attacker would through the HTTP API of a real service:
 * - a caller's severities and policy never loosen the operator's verdict, finding by finding (an
 *   image below `minPpiError` stays an error whatever the call says), with and without `fix`, and
 *   the fixed file is judged by the server's rules — its order is refused as the unfixed file's;
 * - an order trusts a fixed-file URL only at the server's `--public-url` origin (the same path on
 *   another host or port is somebody else's file, judged as any other source);
 * - a fixed file that still fails is never served, and an order refuses it.
 * The library keeps a caller's tightening when it fixes (the profile's policy is the profile's
 * level, not merged over the call's severities).
 */
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { loadProfiles } from '../../src/profile/load.js';
import { ProfileRegistry } from '../../src/profile/registry.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { validDraft } from '../helpers/order.js';
import { freePort } from '../helpers/redis.js';
import { Traffic } from '../helpers/traffic.js';
import { CORPUS, tempDir } from './harness.js';

let pool: PreflightPool;
let service: ServiceHandle;
let files: http.Server;
let filesBase: string;
let port: number;
const traffic = new Traffic();
const dir = tempDir('pp-never-looser-');

const served = new Map<string, Buffer>([
  ['/low-res-cmyk.pdf', readFileSync(join(CORPUS, 'img2pdf-tanktop-cmyk-jpeg.pdf'))],
  ['/cmyk.pdf', readFileSync(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'))],
  // What the other origin answers at the fixed file's path: a file nobody checked.
  ['/unchecked.pdf', readFileSync(join(CORPUS, 'img2pdf-tanktop-cmyk-jpeg.pdf'))],
]);

beforeAll(async () => {
  files = http.createServer((req, res) => {
    const body = served.get(req.url ?? '') ?? (req.url?.startsWith('/v1/files/') ? served.get('/unchecked.pdf') : undefined);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  pool = new PreflightPool({ maxThreads: 2 });
  port = await freePort();
  service = await startService({ port, dataDir: join(dir, 'data'), pool, logLevel: 'silent', allowHosts: ['127.0.0.1'], publicUrl: `http://127.0.0.1:${port}` });
  traffic.observe(service.app.server);
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  await new Promise((r) => files?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

interface View {
  id: string;
  status: string;
  verdict: string;
  fixed: { url: string; sha256: string } | null;
  approval: { state: string; reason?: string } | null;
  report: { verdict: string; findings: { code: string; severity: string }[] };
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
async function submit(body: Record<string, unknown>): Promise<View> {
  const res = await fetch(`${service.url}/v1/checks?wait=60`, json(body));
  const view = (await res.json()) as View;
  expect(res.status, JSON.stringify(view)).toBe(200);
  return view;
}
const order = async (sku: string, urls: string[], number: string) => {
  const d = validDraft(urls);
  d.number = number;
  d.rows[0]!.sku = sku;
  d.rows.splice(1);
  const res = await fetch(`${service.url}/v1/orders/payload`, json(d));
  return { status: res.status, body: (await res.json()) as { code?: string; errors?: { message: string }[]; payload?: { rows: { sources?: { url: string }[] }[] } } };
};
const lowRes = (v: View) => v.report.findings.filter((f) => f.code === 'image-low-resolution').map((f) => f.severity);

describe('a caller never loosens the operator', () => {
  it("the same verdict as the operator's for severities, policy and limits that would loosen it, with and without fix", async () => {
    const url = `${filesBase}/low-res-cmyk.pdf`;
    const plain = await submit({ url, sku: 'TANKTOP-M', raster: false });
    expect(plain.verdict).toBe('fail');
    expect(lowRes(plain)).toEqual(['error', 'error']);
    const attempts: Record<string, unknown>[] = [
      { severities: { 'image-low-resolution': 'warning' } },
      { policy: { 'image-low-resolution': 'warn' } },
      { severities: { 'image-low-resolution': 'info' }, fix: 'auto' },
      { policy: { 'image-low-resolution': 'warn' }, fix: 'auto' },
      { policy: { 'image-low-resolution': 'warn', 'colour-space-not-rgb': 'fix' }, fix: 'approve' },
    ];
    let judged = 0;
    for (const attempt of attempts) {
      const res = await fetch(`${service.url}/v1/checks?wait=60`, json({ url, sku: 'TANKTOP-M', raster: false, ...attempt }));
      const view = (await res.json()) as View & { code?: string };
      // Refused as a request (422 limits-not-allowed / policy-not-allowed), or judged as the operator judges.
      if (res.status === 422 && (view.code === 'limits-not-allowed' || view.code === 'policy-not-allowed')) continue;
      expect(res.status, JSON.stringify(attempt)).toBe(200);
      judged++;
      expect(view.verdict, JSON.stringify(attempt)).toBe('fail');
      expect(lowRes(view), JSON.stringify(attempt)).toEqual(['error', 'error']);
      // A fixed file that still fails is not served, and no order takes it.
      if (view.fixed) {
        expect(view.approval?.state, JSON.stringify(attempt)).toBe('rejected');
        expect((await fetch(view.fixed.url)).status).toBe(404);
        const refused = await order('TANKTOP-M', [view.fixed.url], `LOOSE-${view.id.slice(0, 6)}`);
        expect(refused.status).toBe(422);
      }
    }
    // The attempts the request checks let through (the code's default severity is a warning) were judged.
    expect(judged).toBeGreaterThanOrEqual(3);
    // The original URL in an order: refused, whatever the checks of it asked.
    const refused = await order('TANKTOP-M', [url], 'LOOSE-ORIGINAL');
    expect(refused.status).toBe(422);
    await traffic.expectDocumented(service.url);
  }, 600_000);
});

describe('orders trust only the fixed files this server serves', () => {
  it('a fixed file at this origin is accepted; the same path at another host or port is not', async () => {
    const check = await submit({ url: `${filesBase}/cmyk.pdf`, sku: 'TANKTOP-M', fix: 'auto', raster: false });
    expect(check.approval?.state).toBe('auto');
    expect(check.verdict).not.toBe('fail');
    const ours = await order('TANKTOP-M', [check.fixed!.url], 'ORIGIN-OURS');
    expect(ours.status, JSON.stringify(ours.body)).toBe(200);
    for (const foreign of [
      `http://127.0.0.2:${port}${new URL(check.fixed!.url).pathname}`, // another host
      `${filesBase}${new URL(check.fixed!.url).pathname}`, // another port, answering with a file nobody checked
      `https://127.0.0.1:${port}${new URL(check.fixed!.url).pathname}`, // another scheme
      `http://user:pw@127.0.0.1:${port}${new URL(check.fixed!.url).pathname}`, // credentials
    ]) {
      const res = await order('TANKTOP-M', [foreign], `ORIGIN-${Math.random().toString(36).slice(2, 8)}`);
      expect(res.status, `${foreign}: ${JSON.stringify(res.body)}`).toBe(422);
    }
  }, 300_000);
});

describe("the library keeps a caller's tightening when it fixes", () => {
  it("a profile policy of warn does not override the call's severity error", async () => {
    const file = join(CORPUS, 'reportlab-tshirt-M-unembedded-font.pdf');
    const target = { sku: 'T-SHIRT-M' };
    const tshirt = (await loadProfiles()).get('t-shirt')!;
    const registry = ProfileRegistry.from([{ profile: { ...tshirt, policy: { ...tshirt.policy, 'font-not-embedded': 'warn' } } }]);
    const loose = await checkAndFix(file, target, { fix: 'auto', pool, profiles: registry, raster: false });
    expect(loose.report.findings.filter((f) => f.code === 'font-not-embedded').every((f) => f.severity === 'warning')).toBe(true);
    const tight = await checkAndFix(file, target, { fix: 'auto', pool, profiles: registry, raster: false, severities: { 'font-not-embedded': 'error' } });
    expect(tight.report.findings.some((f) => f.code === 'font-not-embedded')).toBe(true);
    expect(tight.report.findings.filter((f) => f.code === 'font-not-embedded').every((f) => f.severity === 'error')).toBe(true);
    expect(tight.report.verdict).toBe('fail');
  }, 120_000);
});
