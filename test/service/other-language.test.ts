/**
 * The service called from another language: docs/service-client.py (Python's standard library
 * only, run with Debian's /usr/bin/python3) uploads corpus files to a server this test starts; the
 * report it prints must equal `check --json`'s, and an error must come back as problem+json.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { cliReport, CORPUS, tempDir, withoutTimings } from './harness.js';

const KEY = 'python-client-key-1';
let pool: PreflightPool;
let service: ServiceHandle;
const dir = tempDir('pp-python-');

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  service = await startService({ port: 0, dataDir: dir, pool, logLevel: 'silent', apiKeys: [KEY] });
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Async: the server it calls runs in this process. */
async function python(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('/usr/bin/python3', ['docs/service-client.py', ...args], { encoding: 'utf8', timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('docs/service-client.py', () => {
  it.each([
    ['reportlab-tshirt-M-exact.pdf', 'T-SHIRT-M', 0],
    ['reportlab-tshirt-M-three-pages.pdf', 'T-SHIRT-M', 1],
  ])('%s: the report check --json prints, and its exit status', async (file, sku, status) => {
    const run = await python([service.url, join(CORPUS, file), sku, KEY]);
    expect(run.code, run.stderr).toBe(status);
    const check = JSON.parse(run.stdout) as { report: unknown };
    expect(withoutTimings(check.report)).toEqual(withoutTimings(cliReport(file, ['--sku', sku])));
  });

  it('a wrong key comes back as a problem+json 401', async () => {
    const run = await python([service.url, join(CORPUS, 'gs-duvet-exact.pdf'), 'DUVET-COVER-200X200', 'not-the-key']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toMatchObject({ status: 401, code: 'api-key-unknown' });
  });
});
