/**
 * A pool worker reads structure, draws pages and probes images without loading zod: its start-up
 * and its first page are on the path of every check (the pool validates what it sends and gets
 * back; the worker checks a task's kind only). Transforms (fix, reorder, assemble) are the one path
 * that builds schemas in the worker. Read from the sources: every value import, static or dynamic,
 * from the worker's entry, not entering the transform module.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../../src');
/** Where the worker's transform path starts: it may load schemas. */
const TRANSFORM = join(src, 'convert/transform.ts');

/** Value imports of a module (static and dynamic), as resolved .ts paths or package names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+'([^']+)'/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\('([^']+)'\)/g)].map((m) => m[1]!),
  ];
  return specs.map((s) => (s.startsWith('.') ? resolve(dirname(file), s).replace(/\.js$/, '.ts') : s));
}

/** Every package the worker can load outside its transform path, with the chain that loads it. */
function packagesOfWorker(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file) || file === TRANSFORM) return;
    seen.add(file);
    for (const dep of importsOf(file)) {
      if (dep.startsWith('/')) walk(dep, [...chain, relative(src, dep)]);
      else if (!dep.startsWith('node:') && !found.has(dep)) found.set(dep, chain);
    }
  };
  walk(join(src, 'pool/worker-main.ts'), ['pool/worker-main.ts']);
  return found;
}

describe("the pool worker's imports", () => {
  it('load no zod outside the transform path', () => {
    const packages = packagesOfWorker();
    // The walk reaches the renderers and the structure reader (so it can see an import at all).
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['piscina', 'sharp']));
    expect(packages.get('zod'), `zod is loaded by ${packages.get('zod')?.join(' → ')}`).toBeUndefined();
  });
});
