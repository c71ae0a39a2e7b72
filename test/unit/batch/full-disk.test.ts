/**
 * A full disk: every write under the output folder fails with ENOSPC (injected into
 * node:fs/promises: files open, their writes fail, as a 2 MB tmpfs would; mounting one needs root). Every file is still judged
 * and in the summary, which says what could not be written; `batch` exits 3 and says why.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const full = { dir: '\0none' };
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const enospc = (path: unknown) => Object.assign(new Error(`ENOSPC: no space left on device, write '${String(path)}'`), { code: 'ENOSPC' });
  const writeFile: typeof fs.writeFile = async (path, ...rest) => {
    if (String(path).startsWith(full.dir)) throw enospc(path);
    return fs.writeFile(path, ...rest);
  };
  // As on a full disk: the file is created, its first write fails.
  const open = (async (path: Parameters<typeof fs.open>[0], ...rest: unknown[]) => {
    const handle = await (fs.open as (...a: unknown[]) => Promise<import('node:fs/promises').FileHandle>)(path, ...rest);
    if (!String(path).startsWith(full.dir) || !/[wa]/.test(String(rest[0] ?? 'r'))) return handle;
    return new Proxy(handle, {
      get(target, key) {
        if (key === 'writeFile' || key === 'write')
          return async () => {
            throw enospc(path);
          };
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }) as typeof fs.open;
  return { ...fs, default: { ...fs, writeFile, open }, writeFile, open };
});

const { preflightFolder } = await import('../../../src/batch/run.js');
const { main } = await import('../../../src/cli/main.js');
const { PreflightPool } = await import('../../../src/pool/pool.js');

function folder() {
  const dir = mkdtempSync(join(tmpdir(), 'pp-full-'));
  copyFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf', join(dir, 'T-SHIRT-M__good.pdf'));
  copyFileSync('test/corpus/files/reportlab-tshirt-M-three-pages.pdf', join(dir, 'T-SHIRT-M__bad.pdf'));
  copyFileSync('test/corpus/files/broken-empty.pdf', join(dir, 'nobody-knows.pdf'));
  return dir;
}

describe('a full disk', () => {
  const pool = new PreflightPool({ maxThreads: 2 });
  afterAll(() => pool.destroy());

  it('judges every file, and the summary says what could not be written', async () => {
    const dir = folder();
    full.dir = join(dir, 'out');
    const summary = await preflightFolder(dir, { out: full.dir, preflight: { pool, raster: false } });
    expect(summary.results.map((r) => [r.file, r.verdict])).toEqual([
      ['T-SHIRT-M__bad.pdf', 'fail'],
      ['T-SHIRT-M__good.pdf', 'pass'],
      ['nobody-knows.pdf', 'error'],
    ]);
    expect(summary.unwritten).toBe(3);
    for (const r of summary.results) expect(r.outputError).toMatch(/could not be written \(ENOSPC: the disk is full\)/);
    expect(summary.summaryError).toMatch(/summary could not be written .*ENOSPC/);
  }, 60_000);

  it('makes batch print the verdicts and exit 3, naming what is missing', async () => {
    const dir = folder();
    full.dir = join(dir, 'out');
    let stdout = '';
    let stderr = '';
    const code = await main(['batch', dir, '--out', full.dir, '--no-raster', '--workers', '1'], {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
      isTTY: false,
    });
    expect(code).toBe(3);
    expect(stdout).toMatch(/3 files: 1 pass, 0 warn, 1 fail, 1 error/);
    expect(stderr).toMatch(/T-SHIRT-M__good\.pdf: judged pass, but the report could not be written \(ENOSPC/);
    expect(stderr).toMatch(/the summary could not be written/);
  }, 60_000);
});
