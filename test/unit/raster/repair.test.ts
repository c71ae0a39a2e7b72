/**
 * A file whose cross-reference table and trailer are gone (pdf-lib's missing_xref_trailer_dict.pdf
 * is one): PDFium and pdf.js refuse to open it, MuPDF and Ghostscript repair and draw it. We draw
 * it from a copy written from the objects the structure read recovered, and say so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { cannotOpen } from '../../../src/raster/repair.js';

const dir = mkdtempSync(join(tmpdir(), 'repair-'));
let damaged = '';

beforeAll(() => {
  const whole = join(dir, 'whole.pdf');
  execFileSync('/usr/bin/python3', [
    '-c',
    `from reportlab.pdfgen import canvas
c = canvas.Canvas(${JSON.stringify(whole)}, pagesize=(400, 300))
c.setFillColorRGB(0.8, 0.2, 0.2); c.rect(40, 40, 320, 220, stroke=0, fill=1)
c.showPage(); c.save()`,
  ]);
  // Everything from the cross-reference table on is cut away: objects only, as in missing_xref_trailer_dict.
  const bytes = readFileSync(whole);
  const xref = bytes.lastIndexOf('\nxref');
  damaged = join(dir, 'no-trailer.pdf');
  writeFileSync(damaged, bytes.subarray(0, xref + 1));
});

describe('a file without cross-reference table or trailer', () => {
  it('MuPDF repairs and draws it (the oracle)', () => {
    const out = execFileSync('mutool', ['draw', '-q', '-F', 'pam', '-w', '40', '-o', '-', damaged, '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out.length).toBeGreaterThan(1000);
  });

  it('is drawn from a repaired copy, inked as drawn, with a warning that says so — not page-render-failed', async () => {
    const report = await preflight(damaged, { sku: 'T-SHIRT-M' });
    const codes = report.findings.map((f) => f.code);
    expect(codes).not.toContain('page-render-failed');
    expect(codes).not.toContain('page-blank');
    const raster = report.pages[0]!.raster!;
    expect(raster.inkCoverage).toBeGreaterThan(0.5); // the red rectangle covers 59 % of the page
    expect(raster.warnings.join(' ')).toContain('drawn from a copy repaired from its objects');
  });

  it('only failures to open the file ask for a repair', () => {
    expect(cannotOpen(['PDFium: File not in PDF format or corrupted', 'pdf.js: Invalid PDF structure.'])).toBe(true);
    expect(cannotOpen(['PDFium: the page took too long', 'pdf.js: Invalid PDF structure.'])).toBe(false);
    expect(cannotOpen([])).toBe(false);
  });
});
