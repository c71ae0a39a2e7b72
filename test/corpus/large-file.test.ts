/**
 * A file over the service's 50 MB limit, made at test time (never committed): qpdf attaches 51 MB
 * of random bytes to a passing t-shirt file, as an embedded file bloats real uploads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { preflight } from '../../src/flow/preflight.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a file over 50 MB', () => {
  it('fails with file-too-large and nothing else', async () => {
    const blob = join(dir, 'artwork-backup.bin');
    writeFileSync(blob, randomBytes(51_000_000));
    const out = join(dir, 'large.pdf');
    execFileSync('qpdf', ['test/corpus/files/reportlab-tshirt-M-exact.pdf', '--add-attachment', blob, '--', out]);
    expect(statSync(out).size).toBeGreaterThan(50_000_000);
    const report = await preflight(out, { sku: 'T-SHIRT-M' });
    expect(report.verdict).toBe('fail');
    expect(report.findings.map((f) => f.code)).toEqual(['file-too-large']);
    expect(report.findings[0]!.message).toMatch(/^The file is 51\.\d MB .* over the service's limit of 50 MB/);
    // A raised limit (an integrator's provider allows more) lets it pass.
    const relaxed = await preflight(out, { sku: 'T-SHIRT-M' }, { limits: { maxFileBytes: 60_000_000 } });
    expect(relaxed.verdict).toBe('pass');
  });
});
