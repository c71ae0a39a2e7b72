/**
 * check → fix → check by policy on files from other producers (qpdf, reportlab, pikepdf): the
 * policy's codes are fixed and gone, the others untouched, and `approve` waits only for changes
 * that alter what prints.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAndFix, fixedFileName } from '../../../src/flow/check-and-fix.js';
import { preflight } from '../../../src/flow/preflight.js';
import { PreflightPool } from '../../../src/pool/pool.js';

const pool = new PreflightPool({ maxThreads: 2 });
afterAll(() => pool.destroy());
const corpus = (f: string) => new Uint8Array(readFileSync(`test/corpus/files/${f}`));
const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);

describe('checkAndFix', () => {
  it('auto: puts qpdf pages in layer order; the fixed file passes and is what the sha256 says', async () => {
    const out = await checkAndFix(corpus('qpdf-tshirt-M-sleeves-first.pdf'), { sku: 'T-SHIRT-M' }, { fix: 'auto', pool, raster: false });
    expect(codes(out.before)).toContain('page-order-mismatch');
    expect(out.before.findings.find((f) => f.code === 'page-order-mismatch')?.action).toBe('fix');
    expect(out.status).toBe('done');
    expect(out.fixed?.changes.map((c) => [c.code, c.needsApproval])).toEqual([['page-order-mismatch', false]]);
    expect(out.fixed!.sha256).toBe(createHash('sha256').update(out.fixed!.bytes).digest('hex'));
    expect(out.report.verdict).toBe('pass');
    expect(out.report.file.sha256).toBe(out.fixed!.sha256);
    // The fixed bytes stand on their own: a plain check of them passes.
    expect((await preflight(out.fixed!.bytes, { sku: 'T-SHIRT-M' }, { pool, raster: false })).verdict).toBe('pass');
  });

  it('approve: converting reportlab CMYK changes what prints, so it waits; customer words in Portuguese', async () => {
    const out = await checkAndFix(corpus('reportlab-tanktop-cmyk-spot.pdf'), { sku: 'TANKTOP-M' }, { fix: 'approve', pool, locale: 'pt', previewSize: 128 });
    expect(out.status).toBe('needs-approval');
    expect(codes(out.report)).not.toContain('colour-space-not-rgb');
    expect(out.fixed!.changes.every((c) => c.code === 'colour-space-not-rgb' && c.needsApproval)).toBe(true);
    expect(out.fixed!.changes[0]?.customer).toMatch(/^Convertemos as cores/);
    expect(out.before.locale).toBe('pt');
    expect(out.before.findings.find((f) => f.code === 'colour-space-not-rgb')?.customer?.title).toMatch(/vão ser convertidas/);
    expect(out.beforePreviews.size).toBeGreaterThan(0);
    expect(out.previews.size).toBe(out.beforePreviews.size);
  });

  it('a call policy that does not fix a code leaves it; a file with nothing to fix comes back unchanged', async () => {
    const rotated = corpus('pikepdf-curtains-rotate90.pdf');
    const target = { product: 'curtains', variant: '140x260' };
    const kept = await checkAndFix(rotated, target, { fix: 'auto', pool, raster: false, policy: { 'page-rotate-set': 'warn' } });
    expect(kept.fixed).toBeNull();
    expect(codes(kept.report)).toContain('page-rotate-set');
    const fixed = await checkAndFix(rotated, target, { fix: 'approve', pool, raster: false });
    expect(new Set(fixed.fixed?.changes.map((c) => c.code))).toEqual(new Set(['page-rotate-set']));
    // Baking /Rotate in prints exactly as before: approved automatically.
    expect(fixed.status).toBe('done');
    expect(codes(fixed.report)).not.toContain('page-rotate-set');
  });
});

describe("the fixed file's name in its report", () => {
  it.each([
    ['apparel.pdf', 'apparel.fixed.pdf'],
    ['orders/12/Design.PDF', 'orders/12/Design.fixed.pdf'],
    ['scan', 'scan.fixed.pdf'],
    ['https://cdn.example.com/a/b%20c.pdf?sig=1', 'b c.fixed.pdf'],
    ['https://cdn.example.com/', 'download.fixed.pdf'],
    [null, null],
  ])('%s → %s', (path, name) => expect(fixedFileName(path)).toBe(name));
});
