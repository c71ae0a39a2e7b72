/**
 * Real PDFs at the edges of IEEE doubles (issue 46), made at test time by pikepdf
 * (producers/edge_numbers.py): MediaBoxes of denormal, negative, 2^53 + 1, 1e308 and MAX_VALUE
 * sizes; /UserUnit 0.9999999999, a denormal and 1e-308; `cm` operands that overflow to Infinity, make
 * Infinity − Infinity (NaN) when multiplied, are all zero, denormal or 2^53 ± 1; line widths and font
 * sizes of 1e308, a denormal, negative; rectangles of ±MAX_VALUE. Each goes through the library's
 * `check` (the pipeline the CLI and the service run, rendering included) with the inspection in a
 * worker-shaped task (the local executor parses the facts with their schema, as the pool does):
 * every report is valid against schemas/report.schema.json (ajv), no message, expected or actual
 * writes NaN, Infinity or undefined, and the file is never called malformed as a whole.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/flow/check.js';
import { expectPublished } from '../helpers/contracts.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-edge-numbers-'));
const names = execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'producers', 'edge_numbers.py'), dir], { encoding: 'utf8' })
  .trim()
  .split('\n');

/** Words a message must never write: a number that is none, or a value that was never set. */
const UNWRITTEN = /NaN|Infinity|undefined/;

describe('PDFs with numbers at the edges of IEEE doubles, through check', () => {
  it('made every case', () => {
    expect(names.length).toBeGreaterThanOrEqual(20);
  });

  it.each(names)(
    '%s: a schema-valid report, no NaN, Infinity or undefined in its text',
    async (name) => {
      const { report } = await check(join(dir, `${name}.pdf`), { product: 'duvet-cover', variant: '200x200' }, { pool: false });
      const json = JSON.stringify(report);
      expectPublished('report', json, `${name}'s report`);
      for (const f of report.findings) {
        expect(`${f.message} ${f.expected ?? ''} ${f.actual ?? ''}`, `${name}: ${f.code}`).not.toMatch(UNWRITTEN);
      }
      // The whole file is never given up for one number: its page is read and judged.
      expect(report.findings.map((f) => f.code)).not.toContain('pdf-damaged');
      expect(report.pages.length).toBe(1);
    },
    60_000,
  );
});
