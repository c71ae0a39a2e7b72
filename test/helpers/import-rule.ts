/**
 * The import rule of docs/architecture.md, as a function of a graph: the test feeds it the real
 * graph of src/ and synthetic ones, so the same code that passes the house is shown to fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

/** One import of one file: the file it names, relative to the repository root (`src/pdf/parse.ts`). */
export interface ImportEdge {
  from: string;
  to: string;
}

export interface HouseRules {
  /** Room name (`pdf`, `errors.ts`) → floor number, 1 the lowest. */
  floors: ReadonlyMap<string, number>;
  /** Files allowed over the line limit: none today, and none wanted. */
  maxLines: number;
}

export interface Violation {
  kind: 'up' | 'sideways' | 'circle' | 'no-room' | 'too-long';
  detail: string;
}

/**
 * The room a file of src/ or workers/ lives in: the folder under src/ (`src/pdf/content/x.ts` is in
 * `pdf`), a file straight under src/ is a room of its own (`errors.ts`), and workers/ is one room.
 */
export function roomOf(file: string): string | null {
  const parts = file.split('/');
  if (parts[0] === 'workers') return 'workers';
  return parts[0] === 'src' && parts.length >= 2 ? parts[1]! : null;
}

/**
 * Every module a source text names: static imports (type-only too: a type tie is a tie of the
 * design), `export … from`, and `import('…')` with a literal name. TypeScript's own scanner reads
 * them, so an import inside a string or a comment is not taken for one.
 */
export function importedNames(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The repository-relative file a relative module name points at (`.js` written for `.ts`), or null for a package. */
export function resolveImport(fromFile: string, name: string): string | null {
  if (!name.startsWith('.')) return null;
  const joined = posix.normalize(posix.join(posix.dirname(fromFile), name));
  return joined.replace(/\.js$/, '.ts');
}

/** The files of a folder, recursively, as repository-relative paths. */
export function sourceFiles(root: string, folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, folder));
  return out.sort();
}

/** The import graph of the given files and their line counts. */
export function readGraph(root: string, files: readonly string[]): { edges: ImportEdge[]; lines: Map<string, number> } {
  const edges: ImportEdge[] = [];
  const lines = new Map<string, number>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    for (const name of importedNames(text)) {
      const to = resolveImport(file, name);
      if (to) edges.push({ from: file, to });
    }
  }
  return { edges, lines };
}

/** Room → the rooms it imports, with one file pair kept per tie to name it in a failure. */
export function roomGraph(edges: readonly ImportEdge[]): Map<string, Map<string, ImportEdge>> {
  const rooms = new Map<string, Map<string, ImportEdge>>();
  for (const e of edges) {
    const a = roomOf(e.from);
    const b = roomOf(e.to);
    if (!a || !b || a === b) continue;
    let ties = rooms.get(a);
    if (!ties) rooms.set(a, (ties = new Map()));
    if (!ties.has(b)) ties.set(b, e);
  }
  return rooms;
}

/** Circles between rooms (strongly connected groups of two or more), by Tarjan's algorithm. */
export function roomCircles(rooms: ReadonlyMap<string, ReadonlyMap<string, ImportEdge>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const nodes = new Set<string>([...rooms.keys(), ...[...rooms.values()].flatMap((t) => [...t.keys()])]);
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of rooms.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) circles.push(group.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v);
  return circles;
}

/**
 * Everything that breaks the rule: a room importing a room on its own floor or one above, a circle
 * between rooms, a file in no room of the table, a file over the line limit.
 */
export function checkHouse(edges: readonly ImportEdge[], lines: ReadonlyMap<string, number>, rules: HouseRules): Violation[] {
  const out: Violation[] = [];
  for (const file of lines.keys()) {
    const room = roomOf(file);
    if (!room || !rules.floors.has(room)) out.push({ kind: 'no-room', detail: `${file} is in no room of the floor table (${room ?? 'outside src/'})` });
  }
  for (const [file, n] of lines) if (n > rules.maxLines) out.push({ kind: 'too-long', detail: `${file} has ${n} lines (at most ${rules.maxLines})` });
  const rooms = roomGraph(edges);
  for (const [a, ties] of rooms) {
    const fa = rules.floors.get(a);
    for (const [b, e] of ties) {
      const fb = rules.floors.get(b);
      if (fa === undefined || fb === undefined) continue;
      if (fb > fa) out.push({ kind: 'up', detail: `${e.from} (${a}, floor ${fa}) imports ${e.to} (${b}, floor ${fb})` });
      else if (fb === fa) out.push({ kind: 'sideways', detail: `${e.from} (${a}) imports ${e.to} (${b}), both on floor ${fa}` });
    }
  }
  for (const group of roomCircles(rooms)) out.push({ kind: 'circle', detail: `circle between ${group.join(', ')}` });
  return out;
}

/**
 * The floor table of docs/architecture.md: rows `| 3 | `pdf/`, `profile/` | … |`. Rooms are
 * written as in the code: a folder with its slash, a file with its extension.
 */
export function floorsFromDoc(markdown: string): Map<string, number> {
  const floors = new Map<string, number>();
  for (const line of markdown.split('\n')) {
    const row = /^\|\s*(\d+)\s*\|([^|]+)\|/.exec(line);
    if (!row) continue;
    for (const m of row[2]!.matchAll(/`([^`]+)`/g)) floors.set(m[1]!.replace(/\/$/, ''), Number(row[1]));
  }
  return floors;
}

export const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..', '..');
