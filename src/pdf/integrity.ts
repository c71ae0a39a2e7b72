/**
 * File-level integrity facts that pdf-lib's tolerant parser hides: whether the cross-reference
 * data a strict reader follows is intact, and whether the file carries actions that run code.
 */
import type { PDFContext, PDFObject } from 'pdf-lib';
import { PDFObjectParser, withParseBudget } from './pdf-lib.js';
import { BudgetExceededError, type DecodeBudget } from './decode-budget.js';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFStream, nameOf, numberOf, resolve } from './objects.js';
import { StreamDecodeError, StreamTooLargeError, decodeStream } from './streams.js';
import { own } from '../util/own.js';

/** What is wrong with the cross-reference data: readers rebuild it ("repaired") or cannot ("damaged"). */
export interface XrefProblem {
  kind: 'repaired' | 'damaged' | 'too-complex';
  detail: string;
}

/** Most cross-reference sections followed through /Prev; most in-use entries checked in all. */
const MAX_SECTIONS = 64;
const MAX_ENTRIES_CHECKED = 500_000;

/**
 * Checks the cross-reference data a strict reader follows from the last `startxref`: every
 * section of the /Prev chain must be an `xref` table (all its subsections) or a cross-reference
 * stream, and every in-use entry must point at the object it names. Returns what is wrong, or null.
 */
export function xrefProblem(bytes: Uint8Array, context: PDFContext, budget?: DecodeBudget): XrefProblem | null {
  const tailStart = Math.max(0, bytes.length - 4096);
  const tail = latin1(bytes, tailStart, bytes.length - tailStart);
  const at = tail.lastIndexOf('startxref');
  const repaired = (detail: string): XrefProblem => ({ kind: 'repaired', detail });
  if (at < 0) return repaired('the file has no cross-reference table (no startxref)');
  const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
  if (!m) return repaired('the startxref entry has no offset');
  let offset = Number(m[1]);
  const decodeBudget = budget;
  const entriesLeft = { entries: MAX_ENTRIES_CHECKED };
  const visited = new Set<number>();
  for (let section = 0; section < MAX_SECTIONS && offset !== undefined; section++) {
    if (visited.has(offset)) return repaired(`the cross-reference sections loop back to byte ${offset}`);
    visited.add(offset);
    if (offset >= bytes.length) return repaired(`a cross-reference offset points past the end of the file (${offset})`);
    const pointer = section === 0 ? 'startxref' : '/Prev';
    const head = latin1(bytes, offset, 64);
    let next: { problem: XrefProblem | null; prev: number | undefined };
    // qpdf reads `xref` exactly at the offset: white space before it is damage there (it warns
    // and rebuilds), while an xref stream is read like any object, after white space and comments.
    const table = /^[\0\t\n\f\r ]*xref(?=[\0\t\n\f\r ])/.exec(head);
    if (table && table[0].length > 4) {
      return repaired(`${pointer} points at byte ${offset}, ${table[0].length - 4} bytes before its cross-reference table (white space in between)`);
    }
    if (table) next = xrefTable(bytes, offset, entriesLeft, context, decodeBudget);
    else if (objectHeaderAt(bytes, offset)) next = xrefStream(bytes, offset, context, entriesLeft, decodeBudget);
    else return repaired(`${pointer} points at byte ${offset}, where there is no cross-reference table`);
    if (next.problem) return next.problem;
    offset = next.prev as number;
  }
  return null;
}

/** `n` bytes from `from` as text; what lies past the end of the file reads as nothing. */
function latin1(bytes: Uint8Array, from: number, n: number): string {
  if (!(from >= 0) || from >= bytes.length) return '';
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, Math.min(n, bytes.length - from))).toString('latin1');
}

/** PDF white space (ISO 32000-2 §7.2.3): NUL, HT, LF, FF, CR, SP. */
const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));
/** Most bytes of white space and comments skipped before an object's header. */
const MAX_SKIP = 4096;

/**
 * The `num gen obj` header at `offset`, read as a strict reader's tokenizer does (qpdf's
 * readObjectAtOffset): white space and comments before and between its three tokens are skipped;
 * anything else there is not a header. Null when there is none.
 */
export function objectHeaderAt(bytes: Uint8Array, offset: number): { num: number; gen: number; end: number } | null {
  let at = offset;
  const limit = Math.min(bytes.length, offset + MAX_SKIP);
  const skip = () => {
    while (at < limit) {
      const c = bytes[at]!;
      if (WHITE.has(c)) at++;
      else if (c === 0x25 /* % */) {
        while (at < limit && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++;
      } else break;
    }
  };
  const integer = (): number | null => {
    skip();
    const start = at;
    while (at < limit && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at++;
    if (at === start || at - start > 10 || !ends(at)) return null;
    return Number(latin1(bytes, start, at - start));
  };
  const ends = (i: number) => i >= bytes.length || WHITE.has(bytes[i]!) || DELIMITERS.has(bytes[i]!);
  const num = integer();
  if (num === null) return null;
  const gen = integer();
  if (gen === null) return null;
  skip();
  if (latin1(bytes, at, 3) !== 'obj' || !ends(at + 3)) return null;
  return { num, gen, end: at + 3 };
}

/** True when `num gen obj` starts at `offset` (after white space and comments). */
function objectAt(bytes: Uint8Array, offset: number, num: number, gen: number): boolean {
  const header = objectHeaderAt(bytes, offset);
  return !!header && header.num === num && header.gen === gen;
}

function checkEntry(bytes: Uint8Array, num: number, gen: number, offset: number, budget: { entries: number }): XrefProblem | null {
  if (budget.entries-- <= 0) return null;
  if (offset < bytes.length && objectAt(bytes, offset, num, gen)) return null;
  return { kind: 'repaired', detail: `the cross-reference table says object ${num} is at byte ${offset}, but it is not there` };
}

/** A classic `xref` table: subsections `first count` with 20-byte entries, then `trailer << … >>`. */
function xrefTable(
  bytes: Uint8Array,
  offset: number,
  budget: { entries: number },
  context: PDFContext,
  decodeBudget: DecodeBudget | undefined,
): { problem: XrefProblem | null; prev: number | undefined } {
  const malformed = { problem: { kind: 'repaired' as const, detail: 'the cross-reference table is malformed' }, prev: undefined };
  let at = offset + latin1(bytes, offset, 64).indexOf('xref') + 4;
  for (let sub = 0; sub < 100_000; sub++) {
    const header = /^\s*(\d+)\s+(\d+)[ \t]*(?:\r\n|\r|\n)?/.exec(latin1(bytes, at, 48));
    if (!header) break;
    const first = Number(header[1]);
    const count = Number(header[2]);
    at += header[0].length;
    const text = latin1(bytes, at, count * 21 + 16);
    const entry = /\s*(\d{1,10})\s+(\d{1,5})\s+([nf])(?=\s)/y;
    for (let i = 0; i < count; i++) {
      const e = entry.exec(text);
      if (!e) return malformed;
      if (e[3] === 'n') {
        const problem = checkEntry(bytes, first + i, Number(e[2]), Number(e[1]), budget);
        if (problem) return { problem, prev: undefined };
      }
    }
    at += entry.lastIndex;
  }
  const keyword = /^\s*trailer\b/.exec(latin1(bytes, at, 64));
  if (!keyword) return malformed;
  // The trailer dictionary itself, parsed: its end is its own `>>`, not the next section's text.
  let trailer: PDFObject | undefined;
  try {
    trailer = PDFObjectParser.forBytes(bytes.subarray(at + keyword[0].length), context).parseObject();
  } catch {
    trailer = undefined;
  }
  if (!(trailer instanceof PDFDict)) return malformed;
  if (trailer.get(PDFName.of('Size')) === undefined) return { problem: { kind: 'repaired', detail: 'the trailer has no /Size' }, prev: undefined };
  // A hybrid file's trailer names a cross-reference stream that readers of PDF 1.5 follow too.
  const stm = numberOf(trailer.get(PDFName.of('XRefStm')));
  if (stm !== undefined) {
    if (!objectHeaderAt(bytes, stm)) return { problem: { kind: 'repaired', detail: `the trailer's /XRefStm points at byte ${stm}, where there is no cross-reference stream` }, prev: undefined };
    const hybrid = xrefStream(bytes, stm, context, budget, decodeBudget);
    if (hybrid.problem) return { problem: hybrid.problem, prev: undefined };
  }
  return { problem: null, prev: numberOf(trailer.get(PDFName.of('Prev'))) };
}

/** A cross-reference stream (§7.5.8): decodable, and its type-1 entries point at their objects. */
function xrefStream(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
  budget: { entries: number },
  decodeBudget: DecodeBudget | undefined,
): { problem: XrefProblem | null; prev: number | undefined } {
  const none = { problem: null, prev: undefined };
  const head = objectHeaderAt(bytes, offset)!;
  // pdf-lib reads cross-reference streams but does not keep them: parse this one where it is.
  let stream: PDFObject | undefined;
  try {
    stream = withParseBudget(decodeBudget, () => PDFObjectParser.forBytes(bytes.subarray(head.end), context).parseObject());
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    stream = undefined;
  }
  if (!(stream instanceof PDFRawStream) || nameOf(stream.dict.get(PDFName.of('Type'))) !== 'XRef') {
    return { problem: { kind: 'repaired', detail: `a cross-reference offset points at object ${head.num}, which is not a cross-reference stream` }, prev: undefined };
  }
  let data: Uint8Array;
  try {
    data = decodeStream(context, stream, { maxBytes: 64 * 1024 * 1024, budget: decodeBudget, what: 'the cross-reference stream' });
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    if (error instanceof StreamTooLargeError)
      return { problem: { kind: 'too-complex', detail: `the cross-reference stream ${error.message.replace(/^stream /, '')} (a decompression bomb?)` }, prev: undefined };
    const why = error instanceof StreamDecodeError ? error.message : String(error);
    return { problem: { kind: 'damaged', detail: `the cross-reference stream cannot be decoded (${why})` }, prev: undefined };
  }
  const widths = numbers(context, stream.dict.get(PDFName.of('W')));
  const size = numberOf(resolve(context, stream.dict.get(PDFName.of('Size')))) ?? 0;
  const index = numbers(context, stream.dict.get(PDFName.of('Index')));
  const ranges = index.length >= 2 ? index : [0, size];
  const prev = numberOf(resolve(context, stream.dict.get(PDFName.of('Prev'))));
  // All widths 0 would make every row empty: a loop over /Size rows that reads nothing.
  if (widths.length !== 3 || widths.some((w) => w < 0 || w > 8) || widths.every((w) => w === 0)) {
    return { problem: { kind: 'repaired', detail: 'the cross-reference stream has no valid /W' }, prev: undefined };
  }
  const [w0, w1, w2] = widths as [number, number, number];
  const rowLength = w0 + w1 + w2;
  const field = (at: number, w: number) => {
    let v = 0;
    for (let i = 0; i < w; i++) v = v * 256 + data[at + i]!;
    return v;
  };
  let row = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r]!;
    for (let i = 0; i < ranges[r + 1]!; i++, row++) {
      const at = row * rowLength;
      if (at + rowLength > data.length) {
        return { problem: { kind: 'repaired', detail: 'the cross-reference stream is shorter than its /Index says' }, prev: undefined };
      }
      const type = w0 === 0 ? 1 : field(at, w0);
      // The stream's own entry is never followed (it has been read already): qpdf does not check it.
      if (type !== 1 || first + i === head.num) continue;
      if (budget.entries <= 0) return { ...none, prev };
      const problem = checkEntry(bytes, first + i, field(at + w0 + w1, w2), field(at + w0, w1), budget);
      if (problem) return { problem, prev: undefined };
    }
  }
  return { ...none, prev };
}

function numbers(context: PDFContext, obj: PDFObject | undefined): number[] {
  const arr = resolve(context, obj);
  if (!(arr instanceof PDFArray)) return [];
  const out: number[] = [];
  for (let i = 0; i < arr.size(); i++) out.push(numberOf(resolve(context, arr.get(i))) ?? -1);
  return out;
}

/**
 * A stream whose /Length disagrees with its data (the tolerant parser found `endstream` elsewhere).
 * Strict readers take /Length at its word and read garbage.
 */
export function streamLengthProblem(context: PDFContext, bytes: Uint8Array): string | null {
  // Each look at the file searches it: a bounded number, so a hostile file cannot make it quadratic.
  let lookups = 0;
  for (const [ref, obj] of context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    const declared = numberOf(resolve(context, obj.dict.get(PDFName.of('Length'))));
    if (declared === undefined) return `stream ${ref.objectNumber} ${ref.generationNumber} R has no valid /Length`;
    if (Math.abs(declared - obj.contents.length) <= 2) continue;
    if (lookups++ >= MAX_LENGTH_LOOKUPS) return null;
    if (!lengthHolds(bytes, ref.objectNumber, ref.generationNumber, declared)) {
      return `stream ${ref.objectNumber} ${ref.generationNumber} R says /Length ${declared} but holds ${obj.contents.length} bytes`;
    }
  }
  return null;
}

const MAX_LENGTH_LOOKUPS = 64;

/**
 * pdf-lib finds the end of a stream whose /Length is indirect by searching for `endstream`, and
 * stops early when the data itself contains that word. The declared /Length holds when the stream
 * data of that length, in the file, is followed by `endstream`.
 */
function lengthHolds(bytes: Uint8Array, num: number, gen: number, declared: number): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const label = `${num} ${gen} obj`;
  let header = buf.lastIndexOf(label);
  while (header > 0 && buf[header - 1]! >= 0x30 && buf[header - 1]! <= 0x39) header = buf.lastIndexOf(label, header - 1);
  if (header < 0) return false;
  const keyword = buf.indexOf('stream', header);
  if (keyword < 0) return false;
  let start = keyword + 6;
  if (buf[start] === 0x0d) start++;
  if (buf[start] === 0x0a) start++;
  return /^\s*endstream/.test(latin1(bytes, start + declared, 24));
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

/** A backstop far above what the parser's value budget lets into a file (direct objects are a tree: each is met once). */
const MAX_ACTIVE_CONTENT_VISITS = 50_000_000;

const ACTIONS: Readonly<Record<string, string>> = {
  JavaScript: 'JavaScript',
  Launch: 'a Launch action (starts a program)',
  ImportData: 'an ImportData action',
  SubmitForm: 'a SubmitForm action (sends data)',
  Rendition: 'a Rendition action (plays media)',
};

/**
 * Actions that run code or programs, anywhere in the file: every value of every object is looked
 * at, however deep it is nested — an action's /Next chain (a dictionary or an array of them),
 * /OpenAction, the /AA of the catalog, pages, annotations and form fields, the JavaScript name tree,
 * outlines — so a script 64 actions down a chain is found as surely as one at the top. Indirect
 * objects are each taken once from the file's object table and references are not followed, so
 * chains that loop back through references end there; the walk is iterative (no recursion to
 * overflow), and the values it can meet are those the parser's budget let in. An action type
 * given indirectly (/S 12 0 R) is read as readers read it.
 */
export function activeContent(context: PDFContext): string[] {
  const found = new Set<string>();
  const stack: PDFObject[] = [];
  for (const [, obj] of context.enumerateIndirectObjects()) stack.push(obj);
  for (let visits = 0; stack.length && visits < MAX_ACTIVE_CONTENT_VISITS; visits++) {
    const obj = stack.pop()!;
    const dict = obj instanceof PDFDict ? obj : obj instanceof PDFStream ? obj.dict : undefined;
    if (dict) {
      const s = nameOf(resolve(context, dict.get(PDFName.of('S'))));
      const action = s === undefined ? undefined : own(ACTIONS, s);
      if (action) found.add(action);
      if (dict.get(PDFName.of('JS')) !== undefined) found.add('JavaScript');
      for (const [, v] of dict.entries()) if (v instanceof PDFDict || v instanceof PDFArray) stack.push(v);
    } else if (obj instanceof PDFArray) {
      for (let i = 0; i < obj.size(); i++) {
        const v = obj.get(i);
        if (v instanceof PDFDict || v instanceof PDFArray) stack.push(v);
      }
    }
  }
  return [...found].sort();
}
