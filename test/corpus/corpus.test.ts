/**
 * The corpus: files made by Ghostscript, cairo, reportlab, pikepdf, qpdf, img2pdf and ImageMagick
 * (test/corpus/make-corpus.sh), each with hand-written expectations (cases.json: verdict, codes
 * that must and must not appear) and a reviewed expected report (expected/*.json), compared byte
 * for byte apart from timings. `UPDATE_CORPUS=1 npx vitest run test/corpus` rewrites the reports.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/flow/preflight.js';
import type { Report } from '../../src/report/schema.js';
import { ReportSchema } from '../../src/report/schema.js';
import { expectPublished } from '../helpers/contracts.js';

interface Case {
  file: string;
  producer: string;
  target: { product: string; variant: string } | { sku: string };
  verdict: 'pass' | 'warn' | 'fail';
  must: string[];
  mustNot: string[];
  why: string;
}

const dir = 'test/corpus';
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Case[];

function stable(report: Report): Report {
  const { timings: _t, ...rest } = report;
  return { ...rest, tool: { ...rest.tool, version: '*' } } as Report;
}

describe('corpus from other producers', () => {
  it('covers at least four producers besides our own code', () => {
    const producers = new Set(cases.map((c) => c.producer));
    for (const p of ['ghostscript', 'img2pdf', 'reportlab', 'pikepdf', 'qpdf', 'cairo', 'imagemagick']) expect(producers).toContain(p);
  });

  it('the bundled manifest (the README batch example) names each file with its case target', async () => {
    const { readManifest } = await import('../../src/batch/discover.js');
    const manifest = await readManifest(join(dir, 'files', 'manifest.csv'));
    expect(Object.fromEntries(manifest)).toEqual(Object.fromEntries(cases.map((c) => [c.file, c.target])));
  });

  it.each(cases)('$file ($why)', async (c) => {
    const report = await preflight(join(dir, 'files', c.file), c.target);
    expect(ReportSchema.safeParse(report).success).toBe(true);
    // The report as `check --json` and the service write it, against the published schema.
    expectPublished('report', JSON.stringify(report, null, 2), c.file);
    const codes = new Set(report.findings.map((f) => f.code));
    expect({ file: c.file, verdict: report.verdict }).toEqual({ file: c.file, verdict: c.verdict });
    for (const code of c.must) expect([...codes], `${c.file} must report ${code}`).toContain(code);
    for (const code of c.mustNot) expect([...codes], `${c.file} must not report ${code}`).not.toContain(code);

    const expectedPath = join(dir, 'expected', c.file.replace(/\.pdf$/, '.json'));
    const actual = `${JSON.stringify(stable(report), null, 2)}\n`;
    if (process.env.UPDATE_CORPUS) writeFileSync(expectedPath, actual);
    expect(existsSync(expectedPath), `${expectedPath} is missing: run with UPDATE_CORPUS=1 and review it`).toBe(true);
    expect(actual).toBe(readFileSync(expectedPath, 'utf8'));
  });

  it('gives the same report bytes twice (apart from timings)', async () => {
    const c = cases.find((x) => x.file === 'pikepdf-tanktop-forms-inline-stencil.pdf')!;
    const a = await preflight(join(dir, 'files', c.file), c.target);
    const b = await preflight(join(dir, 'files', c.file), c.target);
    expect(JSON.stringify(stable(a))).toBe(JSON.stringify(stable(b)));
  });
});
