/**
 * Every page size finite or a note (issue 46): pikepdf pages whose /UserUnit or box overflows a
 * double — /UserUnit 1e300, /UserUnit 100,000 (past ISO 32000-2's 75,000), a MediaBox of ±1.7e308 —
 * are measured with /UserUnit 1 or as US Letter, each said in a note, and the CLI's report of the
 * file is valid against the published report schema (ajv), with no page "scaled to 0 %".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { expectPublished } from '../../helpers/contracts.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-page-size-edges-'));
const bin = join(import.meta.dirname, '../../../bin/print-preflight.js');

const MAKE = `
import sys, pikepdf
pdf = pikepdf.new()
for uu, box in [(1e300, [0, 0, 612, 792]), (2.0, [0, 0, 612, 792]), (1.0, [-1.7e308, -1.7e308, 1.7e308, 1.7e308]), (100000, [0, 0, 612, 792])]:
    pdf.pages.append(pikepdf.Page(pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=box, UserUnit=uu, Contents=pdf.make_stream(b"0 0 1 rg 0 0 100 100 re f"))))
pdf.save(sys.argv[1])
`;

describe('page sizes at the edges of IEEE doubles', () => {
  it('are finite, with a note for each size that could not be used as written; the report is schema-valid', async () => {
    writeFileSync(join(dir, 'make.py'), MAKE);
    const file = join(dir, 'edges.pdf');
    execFileSync('/usr/bin/python3', [join(dir, 'make.py'), file]);
    const facts = await inspectPdf(new Uint8Array(readFileSync(file)));
    expect(facts.pages.map((p) => [p.widthMm, p.heightMm, p.userUnit])).toEqual([
      [215.9, 279.4, 1],
      [431.8, 558.8, 2],
      [215.9, 279.4, 1],
      [215.9, 279.4, 1],
    ]);
    const notes = facts.pages.map((p) => p.notes.join(' '));
    expect(notes[0]).toMatch(/\/UserUnit 1e\+300 is invalid/);
    expect(notes[2]).toMatch(/too large to measure; US Letter/);
    expect(notes[3]).toMatch(/\/UserUnit 100000 is invalid/);

    const r = spawnSync(process.execPath, [bin, 'check', file, '--sku', 'T-SHIRT-M', '--no-raster', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    const report = expectPublished<{ findings: { message: string }[] }>('report', r.stdout);
    expect(report.findings.filter((f) => / 0 %/.test(f.message))).toEqual([]);
  }, 60_000);
});
