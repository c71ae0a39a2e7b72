/**
 * A batch with `fix`: fixed files (qpdf page order, reportlab CMYK) land in <out>/fixed/ with their
 * reports, the originals and their reports stay as they were, and the summary says which fixed
 * file waits for approval.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { preflightFolder } from '../../../src/batch/run.js';
import { preflight } from '../../../src/flow/preflight.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { expectPublished } from '../../helpers/contracts.js';

const pool = new PreflightPool({ maxThreads: 2 });
const dir = mkdtempSync(join(tmpdir(), 'pp-batch-fix-'));
afterAll(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('batch with fix', () => {
  it('approve: fixed files in fixed/, originals kept, summary marks what waits for approval', async () => {
    const input = join(dir, 'in');
    mkdirSync(input);
    copyFileSync('test/corpus/files/qpdf-tshirt-M-sleeves-first.pdf', join(input, 'order.pdf'));
    copyFileSync('test/corpus/files/reportlab-tanktop-cmyk-spot.pdf', join(input, 'cmyk.pdf'));
    copyFileSync('test/corpus/files/reportlab-tshirt-M-exact.pdf', join(input, 'exact.pdf'));
    const manifest = join(dir, 'manifest.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(manifest, 'file,sku\norder.pdf,T-SHIRT-M\ncmyk.pdf,TANKTOP-M\nexact.pdf,T-SHIRT-M\n');
    const out = join(dir, 'out');
    const original = readFileSync(join(input, 'order.pdf'));
    const summary = await preflightFolder(input, { out, manifest, fix: 'approve', html: false, preflight: { pool, raster: false } });
    const byFile = new Map(summary.results.map((r) => [r.file, r]));

    const order = byFile.get('order.pdf')!;
    expect(order.fixed).toMatchObject({ file: 'fixed/order.pdf', report: 'fixed/order.pdf.json', needsApproval: false, originalVerdict: 'fail' });
    expect(order.verdict).toBe('pass');
    const fixedBytes = readFileSync(join(out, 'fixed/order.pdf'));
    expect(createHash('sha256').update(fixedBytes).digest('hex')).toBe(order.fixed!.sha256);
    expect((await preflight(new Uint8Array(fixedBytes), { sku: 'T-SHIRT-M' }, { pool, raster: false })).verdict).toBe('pass');
    // Both outputs as an integrator reads them: against schemas/fixed-report and batch-summary (ajv).
    expectPublished('batch-summary', readFileSync(join(out, 'summary.json')), 'summary.json');
    expectPublished('fixed-report', readFileSync(join(out, 'fixed/cmyk.pdf.json')), 'fixed/cmyk.pdf.json');
    const fixedReport = expectPublished<{ verdict: string; fix: { changes: { code: string }[] } }>('fixed-report', readFileSync(join(out, 'fixed/order.pdf.json')), 'fixed/order.pdf.json');
    expect(fixedReport.fix.changes.map((c) => c.code)).toContain('page-order-mismatch');
    // The original and its report are untouched.
    expect(readFileSync(join(input, 'order.pdf')).equals(original)).toBe(true);
    const originalReport = JSON.parse(readFileSync(join(out, 'reports/order.pdf.json'), 'utf8')) as { findings: { code: string }[] };
    expect(originalReport.findings.map((f) => f.code)).toContain('page-order-mismatch');

    expect(byFile.get('cmyk.pdf')!.fixed?.needsApproval).toBe(true);
    expect(byFile.get('exact.pdf')!.fixed).toBeUndefined();
  });
});
