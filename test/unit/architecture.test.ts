/**
 * The import rule of docs/architecture.md: rooms import only rooms on lower floors, no circle
 * between rooms, every file in a room of the table, no file of src/ over 600 lines. The floor table
 * is read from the doc itself; the same checker is fed synthetic graphs to show it fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHouse, floorsFromDoc, type ImportEdge, importedNames, readGraph, repoRoot, roomCircles, roomGraph, sourceFiles } from '../helpers/import-rule.js';

const floors = floorsFromDoc(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8'));
const rules = { floors, maxLines: 600 };

describe('the house of src/', () => {
  const files = [...sourceFiles(repoRoot, 'src'), ...sourceFiles(repoRoot, 'workers')];
  const { edges, lines } = readGraph(repoRoot, files);

  it('reads the floor table and the whole tree', () => {
    expect(floors.get('errors.ts')).toBe(1);
    expect(floors.get('cli')).toBeGreaterThan(floors.get('flow')!);
    expect(Math.max(...floors.values())).toBeLessThanOrEqual(12);
    expect(files.length).toBeGreaterThan(200);
    // A graph read wrongly (every name a package, say) would pass vacuously.
    expect(edges.filter((e) => e.to.startsWith('src/')).length).toBeGreaterThan(1000);
    for (const e of edges) expect(lines.has(e.to), `${e.from} imports ${e.to}, which is not a file of the tree`).toBe(true);
  });

  it('breaks no rule: nothing up or sideways, no circle, every file in a room, none over 600 lines', () => {
    const violations = checkHouse(edges, lines, rules);
    const graph = [...roomGraph(edges)].map(([a, t]) => `${a} -> ${[...t.keys()].sort().join(' ')}`).join('\n');
    expect(violations, `rooms and what they import:\n${graph}`).toEqual([]);
  });

  it('places every room of the table that exists, and names no room that does not', () => {
    const present = new Set(files.map((f) => (f.startsWith('workers/') ? 'workers' : f.split('/')[1]!)));
    expect([...floors.keys()].filter((r) => !present.has(r))).toEqual([]);
  });
});

describe('the checker fails where it must', () => {
  const small = {
    floors: new Map([
      ['util', 1],
      ['model', 2],
      ['pdf', 3],
      ['rules', 3],
      ['cli', 4],
    ]),
    maxLines: 600,
  };
  const lines = new Map([
    ['src/util/a.ts', 10],
    ['src/model/b.ts', 10],
    ['src/pdf/c.ts', 10],
    ['src/rules/d.ts', 10],
    ['src/cli/e.ts', 10],
  ]);
  const e = (from: string, to: string): ImportEdge => ({ from, to });

  it('passes a graph that only goes down', () => {
    expect(checkHouse([e('src/cli/e.ts', 'src/pdf/c.ts'), e('src/pdf/c.ts', 'src/model/b.ts'), e('src/model/b.ts', 'src/util/a.ts')], lines, small)).toEqual([]);
  });

  it('fails an import going up a floor', () => {
    const v = checkHouse([e('src/model/b.ts', 'src/pdf/c.ts')], lines, small);
    expect(v.map((x) => x.kind)).toEqual(['up']);
    expect(v[0]!.detail).toContain('src/model/b.ts (model, floor 2) imports src/pdf/c.ts (pdf, floor 3)');
  });

  it('fails an import sideways, between two rooms of one floor', () => {
    expect(checkHouse([e('src/pdf/c.ts', 'src/rules/d.ts')], lines, small).map((x) => x.kind)).toEqual(['sideways']);
  });

  it('fails a circle between rooms, and names its rooms', () => {
    const v = checkHouse([e('src/util/a.ts', 'src/model/b.ts'), e('src/model/b.ts', 'src/util/a.ts')], lines, small);
    expect(v.map((x) => x.kind).sort()).toEqual(['circle', 'up']);
    expect(v.find((x) => x.kind === 'circle')!.detail).toBe('circle between model, util');
    expect(roomCircles(roomGraph([e('src/a/x.ts', 'src/b/x.ts'), e('src/b/x.ts', 'src/c/x.ts'), e('src/c/x.ts', 'src/a/x.ts')]))).toEqual([['a', 'b', 'c']]);
  });

  it('fails a file over 600 lines and a file in no room', () => {
    const v = checkHouse([], new Map([...lines, ['src/pdf/long.ts', 601], ['src/newroom/x.ts', 5]]), small);
    expect(v.map((x) => x.kind).sort()).toEqual(['no-room', 'too-long']);
  });

  it('reads imports as TypeScript does: static, type-only, re-exports and import() — not strings or comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../model/b.js';",
      "export { c } from './c.js';",
      "const d = await import('../pdf/d.js');",
      "// import { no } from './comment.js';",
      'const s = "import { no } from \'./string.js\'";',
      "import sharp from 'sharp';",
    ].join('\n');
    expect(importedNames(text).sort()).toEqual(['../model/b.js', '../pdf/d.js', './a.js', './c.js', 'sharp']);
  });

  it('reads the floor table of the doc, folders with their slash dropped', () => {
    expect([...floorsFromDoc('| floor | rooms |\n|---|---|\n| 2 | `util/`, `x.ts` | why |\n| 1 | `errors.ts` | base |\n')]).toEqual([
      ['util', 2],
      ['x.ts', 2],
      ['errors.ts', 1],
    ]);
  });
});
