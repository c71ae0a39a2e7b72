/**
 * The problem table (src/service/problem.ts) is the one list of problem codes: each is documented in
 * docs/service.md with its status, every code the source throws or documents is in it, and every
 * library error code answers as one of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, PreflightError } from '../../../src/errors.js';
import { isProblemCode, Problem, PROBLEM_CODE_PATTERN, PROBLEMS, problemTitle, toProblem } from '../../../src/service/problem.js';
import { repoRoot, sourceFiles } from '../../helpers/import-rule.js';

/** The problem codes a source text names: `new Problem('code'`, and (in the service's route docs) `codes: [...]`. */
function codesNamed(text: string, routeDocs: boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/new Problem\(\s*'([^']+)'/g)) out.push(m[1]!);
  if (routeDocs) for (const m of text.matchAll(/codes: \[([^\]]*)\]/g)) for (const c of m[1]!.matchAll(/'([^']+)'/g)) out.push(c[1]!);
  return out;
}

/** The rows of the doc's table: `| \`code\` | status | … |`. */
function documented(markdown: string): Map<string, number> {
  const section = markdown.slice(markdown.indexOf('## Problem codes'));
  return new Map([...section.matchAll(/^\| `([a-z0-9-]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
}

const codes = Object.keys(PROBLEMS);

describe('the problem table', () => {
  it('holds kebab-case codes with an error status and its reason phrase as the title', () => {
    expect(codes.length).toBeGreaterThan(50);
    for (const [code, entry] of Object.entries(PROBLEMS)) {
      expect(code).toMatch(PROBLEM_CODE_PATTERN);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.title, code).toBe(problemTitle(entry.status));
      expect(entry.when.length, code).toBeGreaterThan(10);
    }
  });

  it('is documented whole in docs/service.md, each code with its status, and the doc names no other', () => {
    const doc = documented(readFileSync(join(repoRoot, 'docs/service.md'), 'utf8'));
    expect(Object.fromEntries(doc)).toEqual(Object.fromEntries(Object.entries(PROBLEMS).map(([c, e]) => [c, e.status])));
  });

  it('holds every code the source throws or documents', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(repoRoot, 'src')) for (const c of codesNamed(readFileSync(join(repoRoot, file), 'utf8'), file.startsWith('src/service/'))) used.add(c);
    expect(used.size).toBeGreaterThan(40);
    expect([...used].filter((c) => !isProblemCode(c))).toEqual([]);
  });

  it('the source scan finds a code missing from the table', () => {
    const text = "throw new Problem('chek-not-found', 'x');\nconst r = { 404: { description: 'x', codes: ['check-not-found', 'mokup-not-found'] } };";
    expect(codesNamed(text, true).filter((c) => !isProblemCode(c))).toEqual(['chek-not-found', 'mokup-not-found']);
    expect([...documented('## Problem codes\n| `a-b` | 404 | x |\n')]).toEqual([['a-b', 404]]);
  });

  it('answers every library error as a code of the table, at its status, with the old spelling beside it', () => {
    for (const code of ERROR_CODES) {
      const problem = toProblem(new PreflightError(code, 'm'));
      expect(isProblemCode(problem.code), code).toBe(true);
      expect(problem.status, code).toBe(PROBLEMS[problem.code].status);
      // Storage and the layer refusals were answered in kebab-case from the start: no older spelling to carry.
      expect(problem.legacyCode, code).toBe(['ERR_STORAGE_UNAVAILABLE', 'ERR_LAYER_TOO_LARGE', 'ERR_LAYER_UNREADABLE'].includes(code) ? null : code);
    }
    expect(toProblem(new PreflightError('ERR_UNKNOWN_SKU', 'No product has SKU "X".'))).toMatchObject({ code: 'unknown-sku', status: 422, extra: { errors: [{ path: 'sku' }] } });
  });

  it('takes its status from the table, and another only for a refusal fastify made', () => {
    expect(new Problem('check-not-found', 'x').status).toBe(404);
    expect(new Problem('queue-unavailable', 'x').status).toBe(503);
    expect(toProblem(Object.assign(new Error('Not acceptable'), { statusCode: 406 }))).toMatchObject({ code: 'request-invalid', status: 406 });
    expect(toProblem(Object.assign(new SyntaxError('Unexpected token } in JSON'), { statusCode: 400 }))).toMatchObject({ code: 'body-invalid', status: 400 });
    expect(toProblem(new Error('boom'))).toMatchObject({ code: 'internal', status: 500 });
  });
});
