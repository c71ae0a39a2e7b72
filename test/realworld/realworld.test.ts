/**
 * The real-world comparison (compare.ts, run over the public corpus by `npm run realworld -- DIR`)
 * run in CI over files Debian producers make at test time: pikepdf/qpdf, PIL and reportlab
 * (test/unit/pdf/producers/realworld_cases.py), Ghostscript and qpdf's object streams. It must agree
 * with poppler and qpdf on them, explain its two known differences, and catch planted ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { compareFacts, compareFile, formatPixelDistribution, formatSummary, ourFacts, summarise, type FileResult, type KnownDifference } from './compare.js';
import type { FilePreviews } from './previews.js';

let dir: string;
let results: FileResult[];

/** The differences these generated files are known to have, for the reasons given. */
const KNOWN: KnownDifference[] = [
  {
    file: 'annotations.pdf',
    aspect: 'images',
    where: 'page 1',
    explanation: 'pdfimages shows annotations as on screen: the stamp without the Print flag, not the NoView one.',
  },
  {
    file: 'optional-content.pdf',
    aspect: 'images',
    where: 'page 1',
    explanation: 'The group whose /Usage /Print /PrintState is OFF shows on screen (poppler) but does not print (us).',
  },
];

const PS = `%!PS
<< /PageSize [300 200] >> setpagedevice
/Helvetica findfont 24 scalefont setfont 20 150 moveto (Ghostscript) show
gsave 40 20 translate 120 80 scale
8 4 8 [8 0 0 -4 0 4] {<ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00>} false 3 colorimage
grestore showpage
<< /PageSize [200 300] >> setpagedevice 0 0 1 setrgbcolor 0 0 200 300 rectfill showpage
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pp-realworld-oracle-'));
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, '..', 'unit', 'pdf', 'producers', 'realworld_cases.py'), dir], { stdio: 'pipe' });
  writeFileSync(join(dir, 'gs.ps'), PS);
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', `-sOutputFile=${join(dir, 'ghostscript.pdf')}`, join(dir, 'gs.ps')]);
  execFileSync('qpdf', ['--object-streams=generate', join(dir, 'ghostscript.pdf'), join(dir, 'ghostscript-objstm.pdf')]);
  results = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort()) {
    const path = join(dir, file);
    results.push(await compareFile(file, path, new Uint8Array(readFileSync(path))));
  }
}, 180_000);

describe('real-world comparison on files Debian producers make', () => {
  it('agrees with poppler and qpdf on every generated file, apart from the reviewed differences', () => {
    const summary = summarise(results, KNOWN);
    expect(summary.unexplained).toEqual([]);
    expect(summary.stale).toEqual([]);
    expect(summary.explained.map((d) => d.file)).toEqual(['annotations.pdf', 'optional-content.pdf']);
    // Something was compared in every aspect: pages, images, fonts (Ghostscript embeds Helvetica's
    // substitute; reportlab's FreeText uses it unembedded) and damage (qpdf finds every file clean).
    for (const aspect of ['pages', 'images', 'fonts', 'damage'] as const) expect(summary.compared[aspect]).toBeGreaterThan(0);
    expect(summary.agreed.damage).toBe(summary.compared.damage);
    expect(formatSummary(summary)).toContain('| pages |');
  });

  it('counts a page listed twice as poppler does, and a cycle as one page', () => {
    const twice = results.find((r) => r.file === 'page-listed-twice.pdf')!;
    expect(twice.differences).toEqual([]);
    expect(twice.compared.pages).toBe(5); // the count (poppler's, qpdf's, MuPDF's) and two sizes
  });

  it('fails on a difference nobody reviewed: pages, images, fonts and damage', async () => {
    const path = join(dir, 'ghostscript.pdf');
    const { facts } = await ourFacts(new Uint8Array(readFileSync(path)));
    const good = results.find((r) => r.file === 'ghostscript.pdf')!;
    expect(good.differences).toEqual([]);
    const { oracleFacts } = await import('./compare.js');
    const oracle = await oracleFacts(path, facts.pageCount);
    const planted = compareFacts(
      'ghostscript.pdf',
      {
        ...facts,
        sizes: [{ widthPt: 301, heightPt: 200 }, ...facts.sizes.slice(1)],
        images: [[...facts.images[0]!, '1×1 cmyk'], ...facts.images.slice(1)],
        fonts: new Map([...facts.fonts].map(([ref, embedded]) => [ref, !embedded])),
        damage: 'repaired',
      },
      oracle,
    );
    expect(planted.differences.map((d) => [d.aspect, d.where])).toEqual([
      ['pages', 'page 1 size'],
      ['images', 'page 1'],
      ...[...facts.fonts.keys()].sort().map((ref) => ['fonts', `font ${ref} R`]),
      ['damage', 'file'],
    ]);
    const summary = summarise([...results, planted], KNOWN);
    expect(summary.unexplained).toHaveLength(planted.differences.length);
  });

  it('compares page counts with qpdf and MuPDF too', () => {
    const good = results.find((r) => r.file === 'ghostscript.pdf')!;
    expect(good.compared.pages).toBe(5); // poppler's, qpdf's and MuPDF's counts, two sizes
    expect(good.agreed.pages).toBe(5);
  });

  it('reports a reviewed difference that no longer occurs as stale', () => {
    const stale: KnownDifference = { file: 'ghostscript.pdf', aspect: 'images', explanation: 'planted' };
    expect(summarise(results, [...KNOWN, stale]).stale).toEqual([stale]);
  });
});

/**
 * The pixel and blank-page aspects, with Ghostscript's print rendering as the oracle (poppler and
 * MuPDF asked where it and we differ), on the classes of issue 27 that producers make at test
 * time (test/unit/raster/producers/printed_cases.py).
 */
describe('previews against Ghostscript, poppler and MuPDF', () => {
  const pool = new PreflightPool({ maxThreads: 2, taskTimeoutMs: 120_000 });
  let printed: string;
  let compared: FileResult[];
  const NAMES = ['widgets.pdf', 'image-devicen.pdf', 'blend-difference.pdf', 'knockout.pdf', 'swallowed-page.pdf'];

  beforeAll(async () => {
    printed = mkdtempSync(join(tmpdir(), 'pp-realworld-printed-'));
    execFileSync('/usr/bin/python3', [join(import.meta.dirname, '..', 'unit', 'raster', 'producers', 'printed_cases.py'), printed], { stdio: 'pipe' });
    compared = [];
    for (const name of NAMES) compared.push(await compareFile(name, join(printed, name), new Uint8Array(readFileSync(join(printed, name))), pool));
  }, 300_000);
  afterAll(() => pool.destroy());

  it('agrees on every page: pixels and blank verdicts', () => {
    const summary = summarise(compared, []);
    expect(summary.unexplained).toEqual([]);
    expect(summary.compared.pixels).toBe(9); // five pages of swallowed-page.pdf, one of each other file
    expect(summary.agreed.pixels).toBe(9);
    expect(summary.agreed.blank).toBe(summary.compared.blank);
    expect(formatPixelDistribution(compared)).toContain('| all | 9 |');
    // The knockout group is said to be approximate on its page (within the tolerance here).
    expect(compared.find((r) => r.file === 'knockout.pdf')!.previews!.pages[0]!.approximate).toMatch(/knockout/);
  });

  it('numbers the pages of a file with a broken page object as qpdf, MuPDF and poppler do', () => {
    const broken = compared.find((r) => r.file === 'swallowed-page.pdf')!;
    expect(broken.differences.filter((d) => d.aspect === 'pages')).toEqual([]);
    expect(broken.compared.pages).toBe(3 + 5); // three counts, five sizes
  });

  it('fails on a page drawn otherwise than every reader draws it, and on a blank verdict they do not share', () => {
    const widgets = compared.find((r) => r.file === 'widgets.pdf')!;
    const page = widgets.previews!.pages[0]!;
    const planted: FilePreviews = { ...widgets.previews!, pages: [{ ...page, verdict: 'differ', blankOurs: !page.blankOurs }] };
    const zero = { pageCount: 1, sizes: [], images: [], patternImages: 0, maskGroupImages: 0, pagesNotInspected: 0, fonts: new Map(), damage: 'unknown' as const };
    const result = compareFacts('widgets.pdf', zero, zero, planted);
    expect(result.differences.map((d) => [d.aspect, d.where, d.flagged ?? false])).toEqual([
      ['pixels', 'page 1', false],
      ['blank', 'page 1', false],
    ]);
    expect(summarise([result], []).unexplained).toHaveLength(2);
    // A page the report itself calls approximate is a flagged difference: explained, not failed.
    const flagged = compareFacts('widgets.pdf', zero, zero, { ...planted, pages: [{ ...page, verdict: 'approximate', approximate: 'planted' }] });
    expect(flagged.differences.map((d) => [d.aspect, d.flagged])).toEqual([['pixels', true]]);
    expect(summarise([flagged], []).unexplained).toEqual([]);
  });
});
