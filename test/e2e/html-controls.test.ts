/**
 * Text a file names — spot colour and font names — reaches the HTML reports without its control
 * characters (issue 46): a pikepdf page whose Separation colour and font carry ESC, BEL and a CSI
 * sequence in their names, checked by the CLI with --html; the page holds no byte a terminal acts
 * on (a `cat report.html` or a log of it stays inert), and the names still show.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pp-html-controls-'));
const bin = join(import.meta.dirname, '../../bin/print-preflight.js');

const MAKE = String.raw`
import sys, pikepdf
pdf = pikepdf.new()
MM = 72 / 25.4
w, h = 560 * MM, 750 * MM
spot = pikepdf.Array([pikepdf.Name.Separation, pikepdf.Name("/Pantone\x1b]0;owned\x07485"), pikepdf.Name.DeviceCMYK,
    pdf.make_indirect(pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[0, 0, 0, 0], C1=[0, 1, 1, 0], N=1))])
font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name("/Helv\x1b[31mRed\x07"))
content = b"/CS0 cs 1 scn 0 0 %f %f re f BT /F1 48 Tf 100 100 Td (Hello) Tj ET" % (w, h)
page = pikepdf.Page(pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, w, h],
    Resources=pikepdf.Dictionary(ColorSpace=pikepdf.Dictionary(CS0=spot), Font=pikepdf.Dictionary(F1=font)),
    Contents=pdf.make_stream(content)))
pdf.pages.append(page)
pdf.save(sys.argv[1])
`;

describe('control characters from a file never reach the HTML reports (issue 46)', () => {
  it('check --html: no C0/C1 control byte in the page, the spot colour and font names shown', () => {
    writeFileSync(join(dir, 'make.py'), MAKE);
    const pdf = join(dir, 'controls.pdf');
    execFileSync('/usr/bin/python3', [join(dir, 'make.py'), pdf]);
    // The file really carries them (so the test can fail).
    expect(readFileSync(pdf).includes(Buffer.from('#1b'))).toBe(true);
    const html = join(dir, 'report.html');
    const r = spawnSync(process.execPath, [bin, 'check', pdf, '--sku', 'T-SHIRT-M', '--no-raster', '--html', html], { encoding: 'utf8' });
    expect([0, 1], r.stderr).toContain(r.status);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Pantone');
    expect(page).toContain('owned');
    const controls = [...page].filter((c) => /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(c));
    expect(controls.map((c) => c.charCodeAt(0).toString(16))).toEqual([]);
    // And the terminal output too.
    expect([...r.stdout].filter((c) => /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(c))).toEqual([]);
  }, 60_000);
});
