/**
 * The classes of real-world files issue 13 lists, each on small files real producers make at test
 * time (pikepdf/qpdf, PIL, reportlab: see producers/realworld_cases.py), with poppler and qpdf as
 * oracles where they have a say.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { DocumentFacts, FontUse } from '../../../src/pdf/facts.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { jpxColourSpace } from '../../../src/pdf/jpx.js';
import { checkColourSpace } from '../../../src/rules/check-colour-space.js';
import { checkDocument, mergeProblems } from '../../../src/rules/check-document.js';
import { checkFontsEmbedded, checkFontsReadable } from '../../../src/rules/check-fonts.js';
import { checkImageResolution } from '../../../src/rules/check-image-resolution.js';
import { context, doc, image, page } from '../../helpers/facts.js';

// The lenient reader is the real one, only counted: each call searches the whole file.
const recoverCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/pdf/recover.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/pdf/recover.js')>();
  return {
    ...real,
    recoverDictionary: (...args: Parameters<typeof real.recoverDictionary>) => {
      recoverCalls.count++;
      return real.recoverDictionary(...args);
    },
  };
});

let dir: string;
const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const inspect = (name: string) => inspectPdf(read(name));
const widths = (facts: DocumentFacts, p = 0) => facts.pages[p]!.images.map((i) => i.widthPx).sort((a, b) => a - b);
const kinds = (facts: DocumentFacts) => facts.problems.map((p) => p.kind);

/** A PDF written by hand (one byte per character): objects 1… in order, a classic xref table and a trailer with /Root 1 0 R. */
function handMade(objects: readonly string[]): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets = objects.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj ${o} endobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pp-realworld-'));
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'producers', 'realworld_cases.py'), dir], { stdio: 'pipe' });
}, 120_000);

describe('pages are never skipped', () => {
  it('reads /Contents given as a reference to an array of indirect streams', async () => {
    const facts = await inspect('contents-indirect-array.pdf');
    expect(facts.pages[0]!.notes).toEqual([]);
    expect(facts.pages[0]!.images.map((i) => [i.widthPx, i.placedWidthPt])).toEqual([[100, 72]]);
  });
});

describe('printable annotations are inspected like page content', () => {
  it('takes stamps, widgets (by /AS) and FreeText with the Print flag, placed by Rect; leaves out the rest', async () => {
    const facts = await inspect('annotations.pdf');
    const p = facts.pages[0]!;
    // 100: printing stamp; 70: the widget's Off state (CMYK); 90: NoView still prints.
    // Left out: 51 (no Print flag), 52 (Hidden), 53 (the widget's On state, not shown).
    expect(widths(facts)).toEqual([70, 90, 100]);
    const stamp = p.images.find((i) => i.widthPx === 100)!;
    expect(stamp.via).toEqual(['annotation Stamp']);
    expect(stamp.bbox).toEqual([100, 100, 500, 500]);
    expect(stamp.ppiX).toBeCloseTo(18, 5);
    expect(p.fonts.map((f) => [f.baseFont, f.embedded])).toEqual([['Helvetica', false]]);
    // Judged like page content: low resolution, CMYK, unembedded font.
    const ctx = await context(facts);
    // Placed at 18 ppi; the square page is printed at the square layer's size, so lower still.
    const stampFinding = checkImageResolution(ctx).find((d) => d.message.includes('100 × 100 px'));
    expect(stampFinding?.details?.placedPpi).toBe(18);
    expect(stampFinding?.details?.ppi).toBeLessThan(18);
    expect(checkColourSpace(ctx).map((d) => d.details?.colourSpace)).toEqual(['DeviceCMYK']);
    expect(checkFontsEmbedded(ctx).map((d) => d.actual)).toEqual(['not embedded: Helvetica (Type1)']);
  });

  it('differs from poppler’s screen view exactly by the flags that separate screen from paper', async () => {
    // pdfimages draws annotations as shown on screen: it takes the one without the Print flag (51)
    // and leaves out the NoView one (90); hidden (52) and off-state (53) appearances neither shows.
    const listed = execFileSync('pdfimages', ['-list', join(dir, 'annotations.pdf')], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => Number(l.trim().split(/\s+/)[3]))
      .sort((a, b) => a - b);
    expect(listed).toEqual([51, 70, 100]);
    const ours = widths(await inspect('annotations.pdf'));
    expect(ours.filter((w) => !listed.includes(w))).toEqual([90]);
    expect(listed.filter((w) => !ours.includes(w))).toEqual([51]);
  });
});

describe('hidden optional content is never judged', () => {
  it('skips OFF groups, print-usage OFF, OCMDs that evaluate hidden and XObjects with a hidden /OC', async () => {
    const facts = await inspect('optional-content.pdf');
    // 11 ON; 12 OFF; 13 print state OFF; 14 AllOn(on, off); 15 AnyOn(on, off); 16 Not(off);
    // 17 And(on, off); 18 XObject /OC off.
    expect(widths(facts)).toEqual([11, 15, 16]);
    // The CMYK fill inside the OFF group is not a colour the page prints; the gray in /Span is.
    expect(facts.pages[0]!.colours.map((c) => c.colourSpace.family)).toEqual(['DeviceGray']);
  });

  it('agrees with poppler except for the print-usage group, which poppler shows on screen', () => {
    const listed = execFileSync('pdfimages', ['-list', join(dir, 'optional-content.pdf')], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => Number(l.trim().split(/\s+/)[3]));
    expect(listed.sort((a, b) => a - b)).toEqual([11, 13, 15, 16]);
  });
});

describe('colour', () => {
  it.each([
    ['rgb', 'DeviceRGB', []],
    ['cmyk', 'DeviceCMYK', ['DeviceCMYK']],
  ] as const)('judges a stencil mask painted with a %s shading pattern by the shading colour space', async (name, family, flagged) => {
    const facts = await inspect(`stencil-shading-${name}.pdf`);
    expect(facts.pages[0]!.colours.map((c) => [c.use, c.colourSpace.family])).toEqual([['stencil', family]]);
    const drafts = checkColourSpace(await context(facts));
    expect(drafts.map((d) => d.details?.colourSpace)).toEqual(flagged);
  });

  it('reads a JPEG 2000 image’s colour space from its JP2 header or codestream, as poppler does', async () => {
    const facts = await inspect('jpx-no-colorspace.pdf');
    const ours = facts.pages[0]!.images.map((i) => i.colourSpace?.model);
    const poppler = execFileSync('pdfimages', ['-list', join(dir, 'jpx-no-colorspace.pdf')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/)[5]);
    expect(ours).toEqual(['rgb', 'gray', 'rgb', 'gray']);
    expect(ours).toEqual(poppler);
    expect(facts.pages[0]!.images.map((i) => i.colourSpace?.label)).toEqual(['JPEG 2000 sRGB', 'JPEG 2000 greyscale', 'JPEG 2000 3-component (rgb)', 'JPEG 2000 1-component (gray)']);
  });

  it('gives no colour space for bytes that are not JPEG 2000', () => {
    expect(jpxColourSpace(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]))).toBeUndefined();
    expect(jpxColourSpace(new Uint8Array(0))).toBeUndefined();
  });
});

describe('page tree', () => {
  it('counts a page listed twice in /Kids twice, as qpdf does', async () => {
    const facts = await inspect('page-listed-twice.pdf');
    const qpdf = execFileSync('qpdf', ['--show-npages', join(dir, 'page-listed-twice.pdf')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    expect(facts.pageCount).toBe(2);
    expect(facts.pageCount).toBe(Number(qpdf.trim()));
    expect(facts.problems).toEqual([]);
  });

  it('keeps 20,000 entries that point at missing objects in place, searching the file for at most 64 of them', async () => {
    const kids = Array.from({ length: 20_000 }, (_, i) => `${100_000 + i} 0 R`).join(' ');
    recoverCalls.count = 0;
    const facts = await inspectPdf(handMade(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count 20000 /MediaBox [0 0 100 100] >>`]));
    expect(facts.pageCount).toBe(20_000);
    expect(facts.pages[0]!.unreadable).toBe('its object (100000 0 R) does not exist');
    expect(facts.pages[19_999]!.unreadable).toBe('its object (119999 0 R) does not exist');
    expect(recoverCalls.count).toBe(64);
  }, 60_000);

  it.each([
    ['a root without /Count', ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>'], 'the page tree has no /Count'],
    [
      'a root /Count that is not a number',
      ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count (1) >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>'],
      'the page tree has no /Count',
    ],
    [
      'a /Pages that is a page',
      ['<< /Type /Catalog /Pages 3 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>'],
      "the catalog's /Pages is a page",
    ],
  ])('counts no pages in %s, as qpdf and MuPDF do, and calls the file damaged', async (_name, objects, detail) => {
    const bytes = handMade(objects);
    const file = join(dir, `no-count-${objects.length}-${detail.length}-${objects[1]!.length}.pdf`);
    writeFileSync(file, bytes);
    const facts = await inspectPdf(bytes);
    expect(facts.pageCount).toBe(0);
    expect(facts.problems.find((p) => p.kind === 'damaged')?.detail).toContain(detail);
    expect(oraclePageCounts(file)).toEqual({ qpdf: '0', mupdf: '0' });
  });

  it('follows the newest trailer’s /Root when it names the Info dictionary: no pages and damaged, as qpdf and MuPDF read it (pdf.js issue9418.pdf)', async () => {
    // reportlab's file with an incremental update whose trailer names its own /Info object as /Root.
    const base = Buffer.from(read('reportlab-plain.pdf'));
    const text = base.toString('latin1');
    const size = Number(/\/Size (\d+)/.exec(text)![1]);
    const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
    const obj = `\n${size} 0 obj\n<< /Producer (an update) /CreationDate (D:20180130101459Z) >>\nendobj\n`;
    const xrefAt = base.length + obj.length;
    const xref = `xref\n0 1\n0000000000 65535 f \n${size} 1\n${String(base.length + 1).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${size} 0 R /Info ${size} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const bytes = new Uint8Array(Buffer.concat([base, Buffer.from(obj + xref, 'latin1')]));
    const file = join(dir, 'root-is-info.pdf');
    writeFileSync(file, bytes);
    expect(oraclePageCounts(file)).toEqual({ qpdf: '0', mupdf: '0' });
    const facts = await inspectPdf(bytes);
    expect(facts.pageCount).toBe(0);
    const damaged = facts.problems.find((p) => p.kind === 'damaged')?.detail;
    expect(damaged).toContain(`the trailer's /Root (${size} 0 R) names the document information dictionary, not the document catalog`);
    expect(damaged).toMatch(/a catalog \(\d+ 0 R\) that other readers may print from is elsewhere/);
    // The file as reportlab wrote it still reads its page.
    expect((await inspect('reportlab-plain.pdf')).pageCount).toBe(1);
  });

  it('does not read a stream inside a page tree node: the node is unreadable and the file has no pages, as qpdf and MuPDF read it (poppler-test mask.pdf)', async () => {
    // A Flate-compressed image mask, as in mask.pdf: binary data, which qpdf reads as so many bad
    // tokens that it gives up on the node (with a few bytes it would read on; MuPDF never does).
    const mask = Buffer.from(deflateSync(Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 2654435761) >>> 24)))).toString('latin1');
    const image = `<< /Type /XObject /Subtype /Image /Width 128 /Height 128 /ImageMask true /BitsPerComponent 1 /Filter /FlateDecode /Length ${mask.length} >>\nstream\n${mask}\nendstream\n`;
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [3 0 R] /Resources << /XObject << /Im ${image} >> >> /Count 1 /MediaBox [0 0 100 100] >>`,
      '<< /Type /Page /Parent 2 0 R >>',
    ];
    const bytes = handMade(objects);
    const file = join(dir, 'stream-in-page-tree.pdf');
    writeFileSync(file, bytes);
    expect(oraclePageCounts(file)).toEqual({ qpdf: '0', mupdf: '0' });
    const facts = await inspectPdf(bytes);
    expect(facts.pageCount).toBe(0);
    expect(facts.problems).toContainEqual({ kind: 'damaged', detail: 'the root of the page tree (2 0 R) cannot be read as a dictionary, so no page can be found (qpdf and MuPDF read no pages)' });
    // The same node with the image as an indirect object (as the standard wants) has its page.
    const fixed = handMade([objects[0]!, '<< /Type /Pages /Kids [3 0 R] /Resources << /XObject << /Im 4 0 R >> >> /Count 1 /MediaBox [0 0 100 100] >>', objects[2]!, image]);
    expect((await inspectPdf(fixed)).pageCount).toBe(1);
  });

  it('still calls a node that is its own ancestor a cycle', async () => {
    const facts = await inspect('page-tree-cycle.pdf');
    expect(facts.problems).toContainEqual({ kind: 'damaged', detail: 'the page tree contains a cycle' });
    expect(facts.pageCount).toBe(1);
  });
});

/** The page counts qpdf (`--show-npages`) and MuPDF (`mutool info`, no "Pages:" line read as 0) give a file. */
function oraclePageCounts(file: string): { qpdf: string; mupdf: string } {
  return {
    qpdf: spawnSync('qpdf', ['--show-npages', file], { encoding: 'utf8' }).stdout.trim(),
    mupdf: /^Pages:\s+(\d+)/m.exec(spawnSync('mutool', ['info', file], { encoding: 'utf8' }).stdout)?.[1] ?? '0',
  };
}

/** qpdf --check: clean, or must reconstruct the cross-reference table. */
function qpdfCheck(path: string): 'clean' | 'reconstructs' | 'errors' {
  const r = spawnSync('qpdf', ['--check', path], { encoding: 'utf8' });
  const text = `${r.stdout}${r.stderr}`;
  if (/reconstruct/i.test(text)) return 'reconstructs';
  return r.status === 0 ? 'clean' : 'errors';
}

/**
 * Appends an incremental update to reportlab's file: a new /Info object and an xref with two
 * subsections. `before` goes in front of the object (white space, a comment line), and the entry
 * points at its start when `atBefore`; `xrefLead` goes in front of `xref`, where startxref points.
 */
function withUpdate(offsetShift: number, { before = '', atBefore = false, xrefLead = '' } = {}): Uint8Array {
  const base = Buffer.from(read('reportlab-plain.pdf'));
  const text = base.toString('latin1');
  const root = /\/Root (\d+ \d+ R)/.exec(text)![1];
  const size = Number(/\/Size (\d+)/.exec(text)![1]);
  const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const num = size; // a new object: the subsection "N 1" starts past the first one
  const objAt = base.length + 1 + (atBefore ? 0 : before.length);
  const obj = `\n${before}${num} 0 obj\n<< /Producer (incremental update) >>\nendobj\n${xrefLead}`;
  const xrefAt = base.length + obj.length - xrefLead.length;
  const pad = (n: number) => String(n).padStart(10, '0');
  const xref =
    `xref\n0 1\n0000000000 65535 f \n${num} 1\n${pad(objAt + offsetShift)} 00000 n \n` + `trailer\n<< /Size ${size + 1} /Root ${root} /Info ${num} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([base, Buffer.from(obj + xref, 'latin1')]));
}

describe('cross-reference damage, with qpdf --check as the oracle', () => {
  it.each([
    ['an update whose xref has a second subsection (N 1)', 0, 'clean', []],
    ['the same update with a wrong offset', 7, 'reconstructs', ['repaired']],
  ] as const)('%s', async (_name, shift, oracle, expected) => {
    const bytes = withUpdate(shift);
    const path = join(dir, `update-${shift}.pdf`);
    writeFileSync(path, bytes);
    expect(qpdfCheck(path)).toBe(oracle);
    expect(kinds(await inspectPdf(bytes))).toEqual(expected);
  });

  it.each([
    ['an entry pointing at a comment line before its object', { before: '% made by hand\n', atBefore: true }, 'clean', []],
    ['an entry pointing at white space before its object', { before: '\n\n  ', atBefore: true }, 'clean', []],
    ['startxref pointing at white space before `xref`', { xrefLead: '\n\n   ' }, 'reconstructs', ['repaired']],
  ] as const)('%s: as qpdf --check says', async (name, layout, oracle, expected) => {
    const bytes = withUpdate(0, layout);
    const path = join(dir, `update-${name.length}.pdf`);
    writeFileSync(path, bytes);
    expect(qpdfCheck(path)).toBe(oracle);
    expect(kinds(await inspectPdf(bytes))).toEqual(expected);
  });

  it('reads a trailer only to its own end: a section followed at once by the next one is no loop', async () => {
    // As Acrobat's PDFBOX-4531 file: an update whose xref follows the first trailer directly.
    const base = Buffer.from(read('reportlab-plain.pdf'));
    const text = base.toString('latin1');
    const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
    const size = Number(/\/Size (\d+)/.exec(text)![1]);
    const root = /\/Root (\d+ \d+ R)/.exec(text)![1];
    const cut = text.lastIndexOf('startxref');
    const update = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size ${size} /Root ${root} /Prev ${prev} >>\nstartxref\n${cut}\n%%EOF\n`;
    const bytes = new Uint8Array(Buffer.concat([base.subarray(0, cut), Buffer.from(update, 'latin1')]));
    const path = join(dir, 'trailer-then-xref.pdf');
    writeFileSync(path, bytes);
    expect(qpdfCheck(path)).toBe('clean');
    expect(kinds(await inspectPdf(bytes))).toEqual([]);
  });

  it('reads an xref stream after a comment, and does not check the stream’s own entry (qpdf never follows it)', async () => {
    const path = join(dir, 'xref-stream-comment.pdf');
    execFileSync('qpdf', ['--object-streams=generate', join(dir, 'reportlab-plain.pdf'), path]);
    const bytes = Buffer.from(readFileSync(path));
    const text = bytes.toString('latin1');
    const xrefAt = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
    // A comment line in front of the xref stream; startxref and the stream's own entry still point
    // at the comment (pdf-lib's with_comments.pdf has exactly this shape).
    const commented = Buffer.concat([bytes.subarray(0, xrefAt), Buffer.from('% a comment before the xref stream\n', 'latin1'), bytes.subarray(xrefAt)]);
    const tail = commented.toString('latin1');
    const fixed = Buffer.from(`${tail.slice(0, tail.lastIndexOf('startxref'))}startxref\n${xrefAt}\n%%EOF\n`, 'latin1');
    writeFileSync(path, fixed);
    expect(qpdfCheck(path)).toBe('clean');
    expect(kinds(await inspectPdf(new Uint8Array(fixed)))).toEqual([]);
  });

  it('calls an xref stream with an unknown filter damage', async () => {
    const path = join(dir, 'object-streams.pdf');
    execFileSync('qpdf', ['--object-streams=generate', join(dir, 'reportlab-plain.pdf'), path]);
    const bytes = Buffer.from(readFileSync(path));
    const xrefType = bytes.lastIndexOf('/Type /XRef');
    const objStart = bytes.lastIndexOf(' obj', xrefType);
    const filter = bytes.indexOf('/FlateDecode', objStart);
    expect(filter).toBeGreaterThan(objStart);
    expect(filter).toBeLessThan(bytes.indexOf('stream', xrefType));
    bytes.write('/FlateDecodX', filter, 'latin1');
    writeFileSync(path, bytes);
    expect(qpdfCheck(path)).not.toBe('clean');
    const facts = await inspectPdf(new Uint8Array(bytes));
    expect(facts.problems.filter((p) => p.kind === 'damaged').map((p) => p.detail)).toEqual(['the cross-reference stream cannot be decoded (unsupported filter FlateDecodX)']);
  });

  it('finds no damage in files qpdf finds clean', async () => {
    for (const name of ['reportlab-plain.pdf', 'annotations.pdf', 'optional-content.pdf', 'jpx-no-colorspace.pdf']) {
      expect(qpdfCheck(join(dir, name))).toBe('clean');
      expect(kinds(await inspect(name))).toEqual([]);
    }
  });
});

describe('labels', () => {
  it('calls a file with a %PDF header but no usable /Root damaged, not "not a PDF"', async () => {
    const text = Buffer.from(read('reportlab-plain.pdf')).toString('latin1').replace('/Root', '/Rooo').replace('/Catalog', '/Catalox');
    const facts = await inspectPdf(new Uint8Array(Buffer.from(text, 'latin1')));
    expect(kinds(facts)).toEqual(['damaged']);
    expect(checkDocument(await context(facts)).map((d) => d.code)).toEqual(['pdf-damaged']);
  });

  it('merges one problem found on many pages into one finding with a count', () => {
    const problems = [
      ...[1, 2, 3, 5].map((p) => ({ kind: 'damaged' as const, detail: `page ${p}: Form XObject /X draws itself` })),
      { kind: 'damaged' as const, detail: 'the page tree declares 9 pages but 5 can be read' },
      { kind: 'too-complex' as const, detail: 'page 4: more than 10 operators' },
    ];
    expect(mergeProblems(problems)).toEqual([
      { kind: 'damaged', count: 5, detail: 'pages 1–3, 5: Form XObject /X draws itself; the page tree declares 9 pages but 5 can be read' },
      { kind: 'too-complex', count: 1, detail: 'page 4: more than 10 operators' },
    ]);
  });

  it('gives one pdf-damaged finding, not one per page', async () => {
    const problems = Array.from({ length: 31 }, (_, i) => ({ kind: 'damaged' as const, detail: `page ${i + 1}: content stream is malformed` }));
    const drafts = checkDocument(await context(doc([page(1, 2040, 2040), page(2, 2040, 2040)], { problems })));
    expect(drafts).toHaveLength(1);
    expect(drafts[0]!.details).toEqual({ occurrences: 31 });
    expect(drafts[0]!.actual).toBe('pages 1–31: content stream is malformed');
  });
});

describe('font-unusable only from the fonts themselves', () => {
  it('never from a renderer warning (pdf.js: fonts, images, shadings or Flate), only from a font program that cannot be drawn', async () => {
    const raster = (warnings: string[]) =>
      new Map([[1, { index: 1, widthPx: 10, heightPx: 10, method: 'pdfjs' as const, ms: 1, warnings, inkCoverage: 1, edgeGapPx: { top: 0, right: 0, bottom: 0, left: 0 } }]]);
    const warnings = [
      'TT: undefined function: 21',
      "Incorrect 'loca' table length -- attempting to fix it.",
      'Invalid CFFDict value: "NaN" for key "3075".',
      'Unable to decode image "img_p0_1": "JpxError: cmap box"',
    ];
    const font = (program: FontUse['program']): FontUse => ({ name: 'F1', ref: '5 0 R', baseFont: 'ABCDEF+Calibri', subtype: 'TrueType', embedded: true, program });
    const sound = { format: 'TrueType' as const, glyphs: 40, failedGlyphs: 0, problem: null, firstFailure: null, unchecked: null };
    const withFonts = (fonts: FontUse[]) => context(doc([page(1, 2040, 2040, { fonts })]));
    expect(checkFontsReadable({ ...(await withFonts([font(sound)])), raster: raster(warnings) })).toEqual([]);
    expect(checkFontsReadable(await withFonts([font({ ...sound, unchecked: 'the program decodes to more than 32 MB' })]))).toEqual([]);
    const broken = checkFontsReadable(await withFonts([font({ ...sound, failedGlyphs: 3, firstFailure: 'glyph 7: its contour end points are out of order' })]));
    expect(broken.map((d) => [d.code, d.page, d.actual])).toEqual([
      ['font-unusable', 1, 'ABCDEF+Calibri (TrueType): 3 of its 40 glyphs cannot be drawn (glyph 7: its contour end points are out of order)'],
    ]);
  });
});

describe('ppi is compared at the precision it is printed with', () => {
  it.each([
    // 2040 mm placement: 100 ppi needs 8031.5 px.
    ['99.95 ppi rounds to 100: no finding', 8031.5 * 0.9995, null],
    ['99.94 ppi is 99.9', 8031.5 * 0.9994, '99.9 ppi; the minimum is 100 ppi'],
    ['98 ppi', 8031.5 * 0.98, '98 ppi; the minimum is 100 ppi'],
  ] as const)('%s', async (_n, px, text) => {
    const img = image(8000, 8000, 2040, 2040);
    const wPt = img.placedWidthPt;
    const placed = { ...img, ppiX: (px * 72) / wPt, ppiY: (px * 72) / wPt };
    const drafts = checkImageResolution(await context(doc([page(1, 2040, 2040, { images: [placed] }), page(2, 2040, 2040)])));
    if (text === null) expect(drafts).toEqual([]);
    else expect(drafts.map((d) => d.message.includes(text))).toEqual([true]);
  });
});
