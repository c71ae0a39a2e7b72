/**
 * The reuse key: the same bytes and settings give the same key whatever order the settings were
 * written in; any setting that can change a report (target, profile, options, the operator's
 * limits) gives another.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reusable, reuseKey } from '../../../src/jobs/reuse.js';
import { CheckJobSchema, type CheckJob } from '../../../src/jobs/schema.js';
import { PreflightPool } from '../../../src/pool/pool.js';

const SHA = 'a'.repeat(64);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const job = (over: Partial<CheckJob> = {}): CheckJob =>
  CheckJobSchema.parse({
    id: 'b'.repeat(32),
    createdAt: '2026-11-28T12:00:00.000Z',
    source: { kind: 'upload', file: `uploads/${'b'.repeat(32)}.pdf`, name: 'a.pdf' },
    target: { sku: 'T-SHIRT-M' },
    options: { raster: true, previews: true },
    ...over,
  });

describe('reuseKey', () => {
  it('is the same for the same bytes and settings, whatever the check, its file name or the order of its options', async () => {
    const a = await reuseKey(SHA, job(), {});
    const b = await reuseKey(SHA, job({ id: 'c'.repeat(32), createdAt: '2027-01-01T00:00:00.000Z', source: { kind: 'upload', file: `uploads/${'c'.repeat(32)}.pdf`, name: 'other.pdf' } }), {});
    const reordered = await reuseKey(SHA, job({ options: { previews: true, raster: true } as CheckJob['options'] }), {});
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(reordered).toBe(a);
  });

  it.each<[string, Partial<CheckJob>]>([
    ['another SKU', { target: { sku: 'T-SHIRT-L' } }],
    ['no rasterising', { options: { raster: false, previews: false } }],
    ['a locale', { options: { raster: true, previews: true, locale: 'de' } }],
    ['a policy', { options: { raster: true, previews: true, policy: { 'page-order-mismatch': 'fix' } } }],
    ['a fix mode', { options: { raster: true, previews: true, fix: 'auto' } }],
    ['tighter limits', { options: { raster: true, previews: true, limits: { minPpiError: 200 } } as CheckJob['options'] }],
  ])('changes with %s', async (_what, over) => {
    expect(await reuseKey(SHA, job(over), {})).not.toBe(await reuseKey(SHA, job(), {}));
  });

  it('changes with the bytes, the operator decode budget and the profile', async () => {
    const base = await reuseKey(SHA, job(), {});
    expect(await reuseKey('d'.repeat(64), job(), {})).not.toBe(base);
    const pool = new PreflightPool({ maxThreads: 1, decodeLimits: { maxFileDecodedBytes: 64 * 1024 * 1024 } });
    try {
      expect(await reuseKey(SHA, job(), { pool })).not.toBe(base);
    } finally {
      await pool.destroy();
    }
    // The same products from another folder, one profile's thresholds changed: another profile digest
    // (a registry is loaded once per folder, as a server loads its profiles once).
    const folder = (name: string, change?: (p: Record<string, unknown>) => Record<string, unknown>) => {
      const dir = mkdtempSync(join(tmpdir(), `pp-reuse-${name}-`));
      dirs.push(dir);
      for (const n of readdirSync('profiles').filter((x) => x.endsWith('.json'))) {
        const text = readFileSync(join('profiles', n), 'utf8');
        writeFileSync(join(dir, n), n === 't-shirt.json' && change ? JSON.stringify(change(JSON.parse(text) as Record<string, unknown>)) : text);
      }
      return dir;
    };
    const same = await reuseKey(SHA, job(), { profiles: folder('same') });
    expect(await reuseKey(SHA, job(), { profiles: folder('same-again') })).toBe(same);
    const changed = folder('changed', (p) => ({ ...p, limits: { ...(p.limits as object), minPpi: 123 } }));
    expect(await reuseKey(SHA, job(), { profiles: changed })).not.toBe(same);
  });

  it('takes uploads only (a URL is known only once downloaded)', () => {
    expect(reusable(job())).toBe(true);
    expect(reusable(job({ source: { kind: 'url', url: 'https://example.com/a.pdf' } }))).toBe(false);
  });
});
