/**
 * Deep nesting is refused from the bytes, before pdf-lib's recursive parser sees them: the answer
 * must not depend on the stack of the thread that reads the file (the calling thread's is smaller
 * than a pool worker's).
 */
import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../../../src/pdf/integrity.js';
import { preflight } from '../../../src/flow/preflight.js';
// @ts-expect-error plain ESM helper without types
import { stream, writePdf } from '../../hostile/pdf-writer.mjs';

const enc = (s: string) => new TextEncoder().encode(s);

describe('nesting read from the bytes', () => {
  it.each([
    ['arrays 300 deep', `1 0 obj ${'['.repeat(300)}${']'.repeat(300)} endobj`, true],
    ['dictionaries 300 deep', `1 0 obj ${'<< /A '.repeat(300)}1${' >>'.repeat(300)} endobj`, true],
    ['arrays 200 deep', `1 0 obj ${'['.repeat(200)}${']'.repeat(200)} endobj`, false],
    ['brackets in a literal string', `1 0 obj (${'['.repeat(300)} \\) ${'['.repeat(300)}) endobj`, false],
    ['brackets in a comment', `%${'['.repeat(300)}\n1 0 obj [1] endobj`, false],
    ['brackets in stream data', `1 0 obj << /Length 600 >>\nstream\n${'[<<'.repeat(300)}\nendstream endobj`, false],
    ['many shallow objects in a row', Array.from({ length: 400 }, (_, i) => `${i + 1} 0 obj [[1]] endobj`).join('\n'), false],
    ['hex strings are not dictionaries', `1 0 obj [${'<ABCD> '.repeat(400)}] endobj`, false],
  ])('%s → %s', (_name, text, deep) => {
    expect(nestedDeeperThan(enc(text), 256)).toBe(deep);
  });

  it.each([['the pool', undefined], ['this thread', false as const]])(
    'reports a 100,000-deep array as too complex, in %s',
    async (_where, pool) => {
      const bytes = writePdf([
        `<< /Type /Catalog /Pages 2 0 R /Junk ${'['.repeat(100_000)}${']'.repeat(100_000)} >>`,
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>',
        stream('', '0 0 m 10 10 l S'),
      ]) as Uint8Array;
      const report = await preflight(bytes, { sku: 'TANKTOP-M' }, pool === false ? { pool } : {});
      expect(report.findings.map((f) => f.code)).toContain('pdf-too-complex');
    },
    60_000,
  );
});
