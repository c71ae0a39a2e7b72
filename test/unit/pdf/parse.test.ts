/**
 * pdf-lib's parser under the decode budget (src/pdf/parse.ts): token and container limits drop the
 * object that holds them and say so; names, values and objects are counted for the file; object
 * and cross-reference streams decode under the budget; stream ends are found by pdf-lib's own rule
 * (a `stream` keyword in the data opens a level); and the budget's clock and heap ceiling stop a
 * read that the byte budgets did not. The commands that write PDFs (fix, reorder, assemble) load
 * their documents through the same parser and budget.
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { reorderPages } from '../../../src/convert/reorder.js';
import { BudgetExceededError, DEFAULT_DECODE_LIMITS, DecodeBudget } from '../../../src/pdf/decode-budget.js';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { loadDocument } from '../../../src/pdf/pdf-lib-document.js';
import { PDFInvalidObject, PDFRawStream, PDFRef } from '../../../src/pdf/pdf-lib.js';
import { parsePdf } from '../../../src/pdf/parse.js';
import { decodeFilters } from '../../../src/pdf/streams.js';
// @ts-expect-error plain ESM helper without types
import { onePage, stream, writePdf } from '../../hostile/pdf-writer.mjs';

const problems = async (bytes: Uint8Array, limits: object) => {
  const facts = await inspectPdf(bytes, { limits });
  return { facts, said: facts.problems.map((p) => `${p.kind}: ${p.detail}`) };
};

describe('token and container limits', () => {
  it.each([
    ['a name', `/Junk /${'N'.repeat(2000)}`, { maxTokenBytes: 1024 }, 'a name longer than 1 KiB'],
    ['a number', `/Junk ${'0'.repeat(1999)}1`, { maxTokenBytes: 1024 }, 'a number longer than 1 KiB'],
    ['a string', `/Junk (${'s'.repeat(5000)})`, { maxStringBytes: 4096 }, 'a string longer than 4 KiB'],
    ['a hex string', `/Junk <${'ab'.repeat(5000)}>`, { maxStringBytes: 4096 }, 'a string longer than 4 KiB'],
    ['an array', `/Junk [${'1 '.repeat(300)}]`, { maxContainerItems: 256 }, 'an array of more than 256 items'],
    ['a dictionary', `/Junk << ${Array.from({ length: 300 }, (_, i) => `/K${i} 1`).join(' ')} >>`, { maxContainerItems: 256 }, 'a dictionary of more than 256 entries'],
  ])('%s past its limit: the object holding it is not read, and the report says why', async (_what, junk, limits, bound) => {
    const { facts, said } = await problems(onePage({ pageExtra: junk }), limits);
    expect(said).toContain(`too-complex: the file has ${bound}; the object holding it was not read`);
    // The page object held it: without it there is no page (and no renderer is given the file).
    expect(facts.unrenderable).toBe(true);
    // Within the limit the same file is read.
    const fine = await problems(onePage({ pageExtra: junk }), {});
    expect(fine.said).toEqual([]);
    expect(fine.facts.pages).toHaveLength(1);
  });

  it('counts the names new to the process, the values and the objects of a file', async () => {
    const names = Array.from({ length: 600 }, (_, i) => `/Unique${Date.now()}x${i} 1`).join(' ');
    expect((await problems(onePage({ catalogExtra: `/Junk << ${names} >>` }), { maxNames: 500 })).said).toEqual(['too-complex: the file uses more than 500 distinct names']);
    expect((await problems(onePage({ catalogExtra: `/Junk [${'1 '.repeat(2000)}]` }), { maxParsedValues: 1000 })).said).toEqual([
      'too-complex: the file holds more than 1,000 values (numbers, names, arrays…; a string counts one per 32 bytes)',
    ]);
    // A long string weighs one value per 32 bytes.
    expect((await problems(onePage({ catalogExtra: `/Junk (${'s'.repeat(64_000)})` }), { maxParsedValues: 1000 })).said).toHaveLength(1);
  });
});

describe('streams the parser decodes', () => {
  it('an object stream over its limit: its objects are not read, and the report says why', async () => {
    const bomb = deflateSync(deflateSync(Buffer.alloc(80 * 1024 * 1024, 0x20)));
    const { facts, said } = await problems(onePage({ extra: [stream('/Type /ObjStm /N 1 /First 4 /Filter [/FlateDecode /FlateDecode]', bomb)] }), {});
    expect(said).toEqual(['too-complex: the file has an object stream (5 0 R) that decodes to more than 64 MiB; its objects were not read']);
    expect(facts.unrenderable).toBe(true);
  });

  it('an object stream is read through our filters: its objects are there', async () => {
    const objects = '6 0 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
    const file = onePage({
      content: 'BT /F1 12 Tf (x) Tj ET',
      resources: '/Font << /F1 6 0 R >>',
      extra: [stream('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', deflateSync(Buffer.from(objects)))],
    });
    const facts = await inspectPdf(file);
    expect(facts.pages[0]!.fonts.map((f) => f.baseFont)).toEqual(['Helvetica']);
  });
});

describe("stream ends, by pdf-lib's rule", () => {
  it('a `stream` keyword in the data opens a level; an unterminated stream is an invalid object, the rest is read', async () => {
    const nested = '<< /Length 99 0 R >>\nstream\nabc stream def\nendstream\nghi\nendstream';
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>',
      nested,
      '<< /Length 99 0 R >>\nstream\nno end',
      '<< /Five 5 >>',
    ]);
    const context = await parsePdf(bytes);
    const four = context.lookup(PDFRef.of(4, 0));
    expect(four).toBeInstanceOf(PDFRawStream);
    expect(Buffer.from((four as PDFRawStream).contents).toString('latin1')).toBe('abc stream def\nendstream\nghi');
    expect(context.lookup(PDFRef.of(5, 0))).toBeInstanceOf(PDFInvalidObject);
    expect(String(context.lookup(PDFRef.of(6, 0)))).toContain('/Five 5');
  });

  it('many unterminated streams each become invalid objects; the page before them is read', async () => {
    const broken = Array.from({ length: 2_000 }, () => '<< /Length 9999 0 R >>\nstream\nABCDEFGH');
    const bytes = writePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>', ...broken, stream('', 'end')]);
    const budget = new DecodeBudget();
    const facts = await inspectPdf(bytes, { budget });
    expect(facts.pages).toHaveLength(1);
    expect(budget.spent.objects).toBeGreaterThanOrEqual(2_000);
  });
});

describe('the clock and the heap', () => {
  it('a read past its time is a timeout finding, decided by the budget', async () => {
    // A clock that moves 300 ms at each look: the budget looks every 65,536 values.
    let now = 0;
    const budget = new DecodeBudget({ maxStructureMs: 1_000 }, { now: () => (now += 300) });
    const facts = await inspectPdf(onePage({ catalogExtra: `/Junk [${'1 '.repeat(500_000)}]` }), { budget });
    expect(facts.problems).toEqual([{ kind: 'timeout', detail: "reading the file's structure took more than 1 s" }]);
  });

  it('a read in a thread without a heap cap stops at its heap ceiling', () => {
    const budget = new DecodeBudget({}, { heapCeilingBytes: 1 });
    expect(() => decodeFilters(deflateSync(Buffer.alloc(16 * 1024 * 1024)), ['FlateDecode'], [], { maxBytes: 64 * 1024 * 1024, budget })).toThrow(/needed more than 1 bytes of memory/);
  });
});

describe('documents for the commands that write PDFs (loadDocument)', () => {
  it('gives the document PDFDocument.load gives, and its parse draws on the budget', async () => {
    const bytes = new Uint8Array(readFileSync('test/corpus/files/qpdf-tshirt-M-object-streams.pdf'));
    const { doc, budget } = await loadDocument(bytes, DEFAULT_DECODE_LIMITS);
    const theirs = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(theirs.getPageCount());
    expect(doc.getPages().map((p) => p.getSize())).toEqual(theirs.getPages().map((p) => p.getSize()));
    expect(budget.spent.values).toBeGreaterThan(0);
    expect(budget.spent.decoded).toBeGreaterThan(0); // its object streams, through our filters
  });

  it('a file over a limit stops with BudgetExceededError, for fix and reorder as for the checks', async () => {
    const bytes = onePage({ catalogExtra: `/Junk [${Array.from({ length: 300 }, (_, i) => `[${i}]`).join(' ')}]` });
    await expect(loadDocument(bytes, { ...DEFAULT_DECODE_LIMITS, maxParsedValues: 200 })).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(reorderPages(bytes, [1], { ...DEFAULT_DECODE_LIMITS, maxParsedValues: 200 })).rejects.toBeInstanceOf(BudgetExceededError);
    expect((await loadDocument(bytes, DEFAULT_DECODE_LIMITS)).doc.getPageCount()).toBe(1);
  });
});
