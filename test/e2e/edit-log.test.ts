/**
 * The edit log in the fixed file (issue 48), read back by tools nobody here wrote: pikepdf (its XMP
 * reader) and exiftool. A reportlab t-shirt written sleeves first, in CMYK, with one page stored
 * with /Rotate 90 and the file's own XMP (a dc:title set by pikepdf): after fix --reorder, the XMP
 * names the original's SHA-256, the tool and version, and every change — the reorder, the /Rotate
 * baked, the colours converted with their measured difference — and the file's own title is kept.
 * Geometric changes are pixel-equal as measured.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fix } from '../../src/flow/fix.js';
import { EDIT_LOG_NAMESPACE } from '../../src/convert/edit-log.js';
import { packageVersion } from '../../src/util/package-root.js';
import { DIFFERENCE_BOUNDS } from '../../src/model/difference.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-editlog-'));

const MAKE = `
import sys, pikepdf
from reportlab.pdfgen import canvas
from reportlab.lib.colors import CMYKColor
MM = 72 / 25.4
# sleeves first: left sleeve, right sleeve, front, back
layers = [((460, 260), (0, 0, 1, 0)), ((460, 260), (0.8, 0, 1, 0)), ((560, 750), (0, 1, 1, 0)), ((560, 750), (1, 0.6, 0, 0))]
c = canvas.Canvas(sys.argv[1])
for (w, h), col in layers:
    c.setPageSize((w * MM, h * MM))
    c.setFillColor(CMYKColor(*col))
    c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
    c.setFillColor(CMYKColor(0, 0, 0, 1))
    c.rect(w * MM * 0.1, h * MM * 0.6, w * MM * 0.3, h * MM * 0.2, stroke=0, fill=1)
    c.showPage()
c.save()
pdf = pikepdf.open(sys.argv[1], allow_overwriting_input=True)
with pdf.open_metadata() as meta:
    meta["dc:title"] = "Summer shirt"
pdf.save(sys.argv[1])
`;

const READ = `
import sys, json, pikepdf
pdf = pikepdf.open(sys.argv[1])
meta = pdf.open_metadata()
ns = "{${EDIT_LOG_NAMESPACE}}"
print(json.dumps({"title": str(meta.get("dc:title")), "sha": meta.get(ns + "originalSha256"), "tool": meta.get(ns + "tool"), "version": meta.get(ns + "toolVersion")}))
`;

describe('the edit log in the fixed file (issue 48)', () => {
  it('names the original, the tool and each change with its difference, read by pikepdf and exiftool', async () => {
    writeFileSync(join(dir, 'make.py'), MAKE);
    const input = join(dir, 'shirt.pdf');
    execFileSync('/usr/bin/python3', [join(dir, 'make.py'), input]);
    const original = new Uint8Array(readFileSync(input));
    const r = await fix(original, { sku: 'T-SHIRT-M' }, { reorder: true, approve: 'all' }, { pool: false, raster: false });
    expect(r.bytes).not.toBeNull();
    const out = join(dir, 'shirt.fixed.pdf');
    writeFileSync(out, r.bytes!);
    const codes = r.changes.map((c) => c.code);
    expect(codes).toContain('page-order-mismatch');
    expect(codes).toContain('colour-space-not-rgb');
    // Every colour change carries its page's measured difference, within the colour bound.
    const colour = r.changes.filter((c) => c.code === 'colour-space-not-rgb');
    for (const c of colour) {
      expect(c.difference, `page ${c.page}`).toBeDefined();
      expect(c.difference!.meanDeltaE00).toBeLessThanOrEqual(DIFFERENCE_BOUNDS.colour.meanDeltaE00);
    }

    // pikepdf: the namespace's scalar properties, and the file's own title kept.
    writeFileSync(join(dir, 'read.py'), READ);
    const read = JSON.parse(execFileSync('/usr/bin/python3', [join(dir, 'read.py'), out], { encoding: 'utf8' })) as Record<string, string>;
    expect(read.sha).toBe(createHash('sha256').update(original).digest('hex'));
    expect(read.tool).toBe('print-preflight');
    expect(read.version).toBe(packageVersion());
    expect(read.title).toBe('Summer shirt');

    // exiftool: the changes, each with its code, page, action and difference.
    const exif = JSON.parse(execFileSync('exiftool', ['-j', '-struct', '-XMP-ppedit:all', out], { encoding: 'utf8' }))[0] as { OriginalSha256: string; Changes: Record<string, unknown>[] };
    expect(exif.OriginalSha256).toBe(read.sha);
    expect(exif.Changes).toEqual(
      r.changes.map((c) => ({
        Code: c.code,
        Action: c.action,
        ...(c.page === null ? {} : { Page: c.page }),
        ...(c.difference ? { MeanDeltaE00: c.difference.meanDeltaE00, P95DeltaE00: c.difference.p95DeltaE00, ChangedShare: c.difference.changedShare } : {}),
      })),
    );
  }, 120_000);

  it('a page whose /Rotate is baked in is pixel-equal as measured (geometric changes change nothing that prints)', async () => {
    const script = `
import sys, pikepdf
from reportlab.pdfgen import canvas
MM = 72 / 25.4
c = canvas.Canvas(sys.argv[1])
for (w, h) in [(750, 560), (560, 750), (460, 260), (460, 260)]:
    c.setPageSize((w * MM, h * MM))
    c.setFillColorRGB(0.2, 0.5, 0.8)
    c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
    c.setFillColorRGB(0.9, 0.8, 0.1)
    c.rect(w * MM * 0.1, h * MM * 0.1, w * MM * 0.3, h * MM * 0.5, stroke=0, fill=1)
    c.showPage()
c.save()
pdf = pikepdf.open(sys.argv[1], allow_overwriting_input=True)
pdf.pages[0].obj.Rotate = 90
pdf.save(sys.argv[1])
`;
    writeFileSync(join(dir, 'rotated.py'), script);
    const input = join(dir, 'rotated.pdf');
    execFileSync('/usr/bin/python3', [join(dir, 'rotated.py'), input]);
    const r = await fix(new Uint8Array(readFileSync(input)), { sku: 'T-SHIRT-M' }, { approve: 'all' }, { pool: false, raster: false });
    const baked = r.changes.find((c) => c.code === 'page-rotate-set');
    expect(baked?.difference, JSON.stringify(r)).toBeDefined();
    expect(baked!.difference!.changedShare).toBeLessThanOrEqual(DIFFERENCE_BOUNDS.geometry.changedShare);
  }, 120_000);
});
