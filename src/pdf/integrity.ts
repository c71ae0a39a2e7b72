/**
 * File-level integrity facts that pdf-lib's tolerant parser hides: whether the cross-reference
 * data a strict reader follows is intact, and whether the file carries actions that run code.
 */
import type { PDFContext, PDFObject } from 'pdf-lib';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFStream, nameOf, numberOf, resolve } from './objects.js';

/**
 * Checks the last `startxref`: it must point at an `xref` table or a cross-reference stream, and
 * the table's in-use entries must point at the objects they name. Returns what is wrong, or null.
 */
export function xrefProblem(bytes: Uint8Array): string | null {
  const tailStart = Math.max(0, bytes.length - 4096);
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + tailStart, bytes.length - tailStart).toString('latin1');
  const at = tail.lastIndexOf('startxref');
  if (at < 0) return 'the file has no cross-reference table (no startxref)';
  const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
  if (!m) return 'the startxref entry has no offset';
  const offset = Number(m[1]);
  if (offset >= bytes.length) return `startxref points past the end of the file (${offset})`;
  const text = (from: number, n: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, Math.min(n, bytes.length - from))).toString('latin1');
  const head = text(offset, 64);
  if (/^\s*\d+\s+\d+\s+obj\b/.test(head)) return null; // a cross-reference stream
  if (!/^\s*xref\b/.test(head)) return `startxref points at byte ${offset}, where there is no cross-reference table`;
  // Sample the first subsection's in-use entries.
  const table = text(offset, 20 * 64 + 64);
  const sub = /xref\s+(\d+)\s+(\d+)\s+/.exec(table);
  if (!sub) return 'the cross-reference table is malformed';
  const first = Number(sub[1]);
  const entries = table.slice(sub.index + sub[0].length).match(/(\d{10}) (\d{5}) ([nf])/g) ?? [];
  for (let i = 0; i < Math.min(entries.length, 20); i++) {
    const [off, gen, kind] = entries[i]!.split(' ');
    if (kind !== 'n') continue;
    const num = first + i;
    const at2 = Number(off);
    if (!new RegExp(`^\\s*${num}\\s+${Number(gen)}\\s+obj\\b`).test(text(at2, 32))) {
      return `the cross-reference table says object ${num} is at byte ${at2}, but it is not there`;
    }
  }
  return null;
}

/**
 * A stream whose /Length disagrees with its data (the tolerant parser found `endstream` elsewhere).
 * Strict readers take /Length at its word and read garbage.
 */
export function streamLengthProblem(context: PDFContext): string | null {
  for (const [ref, obj] of context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    const declared = numberOf(resolve(context, obj.dict.get(PDFName.of('Length'))));
    if (declared === undefined) return `stream ${ref.objectNumber} ${ref.generationNumber} R has no valid /Length`;
    if (Math.abs(declared - obj.contents.length) > 2) {
      return `stream ${ref.objectNumber} ${ref.generationNumber} R says /Length ${declared} but holds ${obj.contents.length} bytes`;
    }
  }
  return null;
}

/**
 * True when the file's bytes nest arrays or dictionaries deeper than `stopAt`, read before any
 * parser sees them. pdf-lib parses nesting by recursion: a deep enough file overflows the stack,
 * and with tolerant parsing the object is silently dropped — how deep "deep enough" is depends on
 * the thread's stack size. Strings, comments and stream data are skipped (stream data by its
 * `endstream`), so binary content cannot count as brackets.
 */
export function nestedDeeperThan(bytes: Uint8Array, stopAt: number): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 0x5b || (c === 0x3c && buf[i + 1] === 0x3c)) {
      // [ or <<
      if (++depth > stopAt) return true;
      if (c === 0x3c) i++;
    } else if (c === 0x5d || (c === 0x3e && buf[i + 1] === 0x3e)) {
      // ] or >>
      if (depth > 0) depth--;
      if (c === 0x3e) i++;
    } else if (c === 0x28) {
      // (literal string): balanced parentheses, backslash escapes
      let open = 1;
      for (i++; i < buf.length && open > 0; i++) {
        const s = buf[i]!;
        if (s === 0x5c) i++;
        else if (s === 0x28) open++;
        else if (s === 0x29) open--;
      }
      i--;
    } else if (c === 0x3c) {
      // <hex string>
      const end = buf.indexOf(0x3e, i + 1);
      i = end < 0 ? buf.length : end;
    } else if (c === 0x25) {
      // % comment to the end of the line
      while (i < buf.length && buf[i] !== 0x0a && buf[i] !== 0x0d) i++;
    } else if (c === 0x73 && buf[i + 1] === 0x74 && buf.toString('latin1', i, i + 6) === 'stream' && !isRegular(buf[i - 1]) && !isRegular(buf[i + 6])) {
      const end = buf.indexOf('endstream', i + 6, 'latin1');
      if (end < 0) return false;
      i = end + 8;
      depth = 0; // a stream ends its object
    } else if (c === 0x65 && buf.toString('latin1', i, i + 6) === 'endobj') {
      depth = 0;
      i += 5;
    }
  }
  return false;
}

function isRegular(c: number | undefined): boolean {
  return c !== undefined && !(c <= 0x20 || '()<>[]{}/%'.includes(String.fromCharCode(c)));
}

/** The deepest nesting of arrays and dictionaries in the file's objects (iterative: no recursion to overflow). */
export function maxNesting(context: PDFContext, stopAt: number): number {
  let deepest = 0;
  for (const [, root] of context.enumerateIndirectObjects()) {
    const stack: [PDFObject, number][] = [[root, 0]];
    while (stack.length) {
      const [obj, depth] = stack.pop()!;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAt) return deepest;
      const dict = obj instanceof PDFDict ? obj : obj instanceof PDFStream ? obj.dict : undefined;
      if (dict) for (const [, v] of dict.entries()) stack.push([v, depth + 1]);
      else if (obj instanceof PDFArray) for (let i = 0; i < obj.size(); i++) stack.push([obj.get(i), depth + 1]);
    }
  }
  return deepest;
}

const ACTIONS: Record<string, string> = {
  JavaScript: 'JavaScript',
  Launch: 'a Launch action (starts a program)',
  ImportData: 'an ImportData action',
  SubmitForm: 'a SubmitForm action (sends data)',
  Rendition: 'a Rendition action (plays media)',
};

/** Actions that run code or programs, anywhere in the file (JavaScript name tree included). */
export function activeContent(context: PDFContext): string[] {
  const found = new Set<string>();
  const seen = new Set<PDFObject>();
  const visit = (obj: PDFObject | undefined, depth: number) => {
    if (!obj || depth > 64 || seen.has(obj)) return;
    seen.add(obj);
    const dict = obj instanceof PDFDict ? obj : obj instanceof PDFStream ? obj.dict : undefined;
    if (dict) {
      const s = nameOf(dict.get(PDFName.of('S')));
      if (s && ACTIONS[s]) found.add(ACTIONS[s]!);
      if (dict.get(PDFName.of('JS')) !== undefined) found.add('JavaScript');
      for (const [, v] of dict.entries()) if (!(v instanceof PDFStream) || dict.get(PDFName.of('Type')) !== undefined) visit(v, depth + 1);
    } else if (obj instanceof PDFArray) {
      for (let i = 0; i < obj.size(); i++) visit(obj.get(i), depth + 1);
    }
  };
  for (const [, obj] of context.enumerateIndirectObjects()) visit(obj, 0);
  return [...found].sort();
}
