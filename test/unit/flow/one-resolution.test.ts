/**
 * One entrance, one resolution: every surface (the library, the command line, batch, the service)
 * enters through check() with its options parsed once into the resolved run, and the target is
 * looked up in the profile registry once per check — never again by the download, the fix, the
 * customer pages or a second reading of the profiles folder. A spy on the registry counts.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { check } from '../../../src/flow/check.js';
import { checkAndFix, checkAndFixUrl } from '../../../src/flow/check-and-fix.js';
import { preflight, preflightWithPreviews } from '../../../src/flow/preflight.js';
import { preflightUrl } from '../../../src/flow/preflight-url.js';
import { preflightFolder } from '../../../src/batch/run.js';
import { main } from '../../../src/cli/main.js';
import { ProfileRegistry } from '../../../src/profile/registry.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../../src/service/server.js';
import { CORPUS, form, tempDir } from '../../service/harness.js';

const pool = new PreflightPool({ maxThreads: 2 });
const dir = tempDir('pp-one-resolution-');
const FILE = 'qpdf-tshirt-M-sleeves-first.pdf';
const bytes = () => new Uint8Array(readFileSync(join(CORPUS, FILE)));
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  files = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(readFileSync(join(CORPUS, FILE)));
  });
  await new Promise<void>((ok) => files.listen(0, '127.0.0.1', ok));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/${FILE}`;
});
afterAll(async () => {
  await new Promise((ok) => files.close(ok));
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

/** Counts the registry's target look-ups (and profile folder reads) during `fn`. */
async function counted(fn: () => Promise<unknown>): Promise<{ resolutions: number; folderReads: number }> {
  const resolve = vi.spyOn(ProfileRegistry.prototype, 'resolve');
  // A registry is built once per reading of a profiles folder.
  const reads = vi.spyOn(ProfileRegistry, 'from');
  await fn();
  const out = { resolutions: resolve.mock.calls.length, folderReads: reads.mock.calls.length };
  resolve.mockRestore();
  reads.mockRestore();
  return out;
}

const network = { allowHosts: ['127.0.0.1'] };

describe('one resolution per check', () => {
  it('library: preflight, preflightWithPreviews, check, checkAndFix and their URL forms', async () => {
    const target = { sku: 'T-SHIRT-M' };
    const calls: [string, () => Promise<unknown>][] = [
      ['preflight', () => preflight(bytes(), target, { pool, raster: false })],
      ['preflightWithPreviews', () => preflightWithPreviews(bytes(), target, { pool, raster: false })],
      ['check', () => check(bytes(), target, { pool, raster: false })],
      ['checkAndFix', () => checkAndFix(bytes(), target, { pool, raster: false, fix: 'auto' })],
      // A URL: the download works under the run's target too (with the call's safe margin).
      ['preflightUrl', () => preflightUrl(filesUrl, target, { pool, raster: false, network, limits: { safeMarginMm: 12 } })],
      ['checkAndFixUrl', () => checkAndFixUrl(filesUrl, target, { pool, raster: false, network, fix: 'approve' })],
    ];
    for (const [name, call] of calls) expect((await counted(call)).resolutions, name).toBe(1);
  });

  it('command line: check and fix read the profiles folder once and look the target up once', async () => {
    const io = { stdout: () => undefined, stderr: () => undefined, isTTY: false };
    // A folder of its own: the shipped profiles may already be cached by another test of this file.
    const profiles = join(dir, 'profiles');
    mkdirSync(profiles, { recursive: true });
    copyFileSync('profiles/t-shirt.json', join(profiles, 't-shirt.json'));
    const checked = await counted(() => main(['check', join(CORPUS, FILE), '--sku', 'T-SHIRT-M', '--no-raster', '--json', '--profiles', profiles], io));
    expect(checked).toEqual({ resolutions: 1, folderReads: 1 });
    const other = join(dir, 'profiles-fix');
    mkdirSync(other, { recursive: true });
    copyFileSync('profiles/t-shirt.json', join(other, 't-shirt.json'));
    const fixed = await counted(() => main(['fix', join(CORPUS, FILE), '--sku', 'T-SHIRT-M', '--out', join(dir, 'fixed.pdf'), '--profiles', other], io));
    expect(fixed).toEqual({ resolutions: 1, folderReads: 1 });
  });

  it('batch: one look-up per file, the one that found its product', async () => {
    const input = join(dir, 'in');
    mkdirSync(input, { recursive: true });
    copyFileSync(join(CORPUS, FILE), join(input, `T-SHIRT-M__a.pdf`));
    copyFileSync(join(CORPUS, 'reportlab-tshirt-M-exact.pdf'), join(input, `T-SHIRT-M__b.pdf`));
    const plain = await counted(() => preflightFolder(input, { out: join(dir, 'out'), html: false, preflight: { pool, raster: false } }));
    expect(plain.resolutions).toBe(2);
    const fixing = await counted(() => preflightFolder(input, { out: join(dir, 'out-fix'), html: false, fix: 'auto', preflight: { pool, raster: false } }));
    expect(fixing.resolutions).toBe(2);
  });

  describe('service', () => {
    let service: ServiceHandle;
    beforeAll(async () => {
      service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
    });
    afterAll(() => service?.close());

    it('one look-up at the door (before a byte is kept) and one in the run, with or without a policy', async () => {
      const forms: Record<string, string>[] = [
        { sku: 'T-SHIRT-M', raster: 'false' },
        { sku: 'T-SHIRT-M', raster: 'false', fix: 'auto', policy: JSON.stringify({ 'page-order-mismatch': 'fix' }) },
      ];
      for (const fields of forms) {
        let status = 0;
        const n = await counted(async () => {
          status = (await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, FILE), fields) })).status;
        });
        expect(status).toBe(200);
        expect(n.resolutions, JSON.stringify(fields)).toBe(2);
      }
    });
  });
});
