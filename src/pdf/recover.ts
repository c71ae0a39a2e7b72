/**
 * Reads a page object again from the file's bytes when pdf-lib could not: a dictionary with a
 * syntax error (pdf-lib keeps it as an unparsed object), or an object lost because its neighbour
 * had no `endobj` (pdf-lib's fallback reads up to the next `endobj`, swallowing it). Readers that
 * print such files (qpdf, PDFium, poppler) read them leniently — qpdf skips unknown tokens with a
 * warning — and keep the page where the page tree puts it; so do we.
 */
import type { PDFContext, PDFObject } from 'pdf-lib';
import { ByteStream, PDFObjectParser } from './pdf-lib.js';
import { PDFDict, PDFName, type PDFRef } from './objects.js';
import { objectHeaderAt } from './integrity.js';

/** Most bytes of one object read again: a page dictionary is a few hundred bytes. */
const MAX_OBJECT_BYTES = 64 * 1024;
/** Most places in the file where the object's header is looked for. */
const MAX_HEADERS = 64;
/** Most tokens skipped as unreadable in one dictionary before giving up on it. */
const MAX_SKIPPED = 64;

/** pdf-lib's object parser, telling how far it has read. */
class TrackingParser extends PDFObjectParser {
  static over(bytes: Uint8Array, context: PDFContext): TrackingParser {
    return new TrackingParser(ByteStream.of(bytes), context);
  }

  get at(): number {
    return this.bytes.offset();
  }

  moveTo(offset: number): void {
    this.bytes.moveTo(offset);
  }
}

export interface RecoveredObject {
  dict: PDFDict;
  /** Tokens that had to be skipped (0: the object parses, it was only lost by its neighbour). */
  skipped: number;
}

/**
 * The dictionary of object `ref`, read from the file's last `num gen obj` for it, leniently:
 * tokens that do not parse are skipped. Undefined when no such object holds a dictionary.
 * @example
 * const page = recoverDictionary(bytes, context, PDFRef.of(5, 0));
 */
export function recoverDictionary(bytes: Uint8Array, context: PDFContext, ref: PDFRef): RecoveredObject | undefined {
  const body = lastObjectBody(bytes, ref.objectNumber, ref.generationNumber);
  if (!body) return undefined;
  try {
    const strict = TrackingParser.over(body, context).parseObject();
    if (strict instanceof PDFDict) return { dict: strict, skipped: 0 };
  } catch {
    // read leniently below
  }
  const start = firstDictionary(body);
  if (start < 0) return undefined;
  const parser = TrackingParser.over(body, context);
  const budget = { skipped: 0 };
  const dict = lenientDictionary(parser, body, start, context, budget, 0);
  // What is left must still be a page tree node: a page or a /Pages node names one of these.
  if (!dict || budget.skipped > MAX_SKIPPED || !PAGE_KEYS.some((k) => dict.has(PDFName.of(k)))) return undefined;
  return { dict, skipped: budget.skipped };
}

const PAGE_KEYS = ['Type', 'Contents', 'MediaBox', 'Resources', 'Parent', 'Kids'];

/**
 * The bytes of the last `num gen obj … ` in the file: up to its `endobj`, or to the next object's
 * header when `endobj` is missing.
 */
function lastObjectBody(bytes: Uint8Array, num: number, gen: number): Uint8Array | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const label = Buffer.from(`${num} ${gen} obj`, 'latin1');
  let found = -1;
  let from = buf.length;
  for (let tries = 0; tries < MAX_HEADERS && from > 0; tries++) {
    const at = buf.lastIndexOf(label, from - 1);
    if (at < 0) break;
    const before = at === 0 ? 0x0a : buf[at - 1]!;
    if (!(before >= 0x30 && before <= 0x39)) {
      found = at;
      break;
    }
    from = at;
  }
  if (found < 0) return undefined;
  const header = objectHeaderAt(bytes, found);
  if (!header) return undefined;
  const end = Math.min(buf.length, header.end + MAX_OBJECT_BYTES);
  const window = buf.subarray(header.end, end);
  let stop = window.indexOf('endobj', 0, 'latin1');
  // Without `endobj`, the object ends where the next one begins.
  const next = /[\r\n]\s*\d+\s+\d+\s+obj\b/.exec(window.toString('latin1'));
  if (next && (stop < 0 || next.index < stop)) stop = next.index;
  return new Uint8Array(window.subarray(0, stop < 0 ? window.length : stop));
}

function firstDictionary(body: Uint8Array): number {
  for (let i = 0; i + 1 < body.length; i++) if (body[i] === 0x3c && body[i + 1] === 0x3c) return i;
  return -1;
}

const isSpace = (c: number | undefined) => c === 0x00 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;

/** Skips white space and comments from `at`. */
function skipSpace(body: Uint8Array, at: number): number {
  while (at < body.length) {
    if (isSpace(body[at])) at++;
    else if (body[at] === 0x25) while (at < body.length && body[at] !== 0x0a && body[at] !== 0x0d) at++;
    else break;
  }
  return at;
}

/** Skips one token that does not parse: a run of regular characters, or one delimiter. */
function skipToken(body: Uint8Array, at: number): number {
  const regular = (c: number) => !isSpace(c) && !'()<>[]{}/%'.includes(String.fromCharCode(c));
  if (at < body.length && !regular(body[at]!)) return at + 1;
  while (at < body.length && regular(body[at]!)) at++;
  return at;
}

/**
 * `<< /Key value … >>` from `start`, keeping every pair whose value parses and skipping tokens
 * that do not (qpdf does the same, "treating as string"). A nested dictionary is read the same way.
 */
function lenientDictionary(parser: TrackingParser, body: Uint8Array, start: number, context: PDFContext, budget: { skipped: number }, depth: number): PDFDict | undefined {
  if (depth > 16) return undefined;
  const dict = PDFDict.withContext(context);
  let at = start + 2;
  while (budget.skipped <= MAX_SKIPPED) {
    at = skipSpace(body, at);
    if (at >= body.length) {
      parser.moveTo(body.length);
      return dict; // cut short: keep what was read
    }
    if (body[at] === 0x3e && body[at + 1] === 0x3e) {
      parser.moveTo(at + 2);
      return dict;
    }
    if (body[at] !== 0x2f /* / */) {
      budget.skipped++;
      at = skipToken(body, at);
      continue;
    }
    parser.moveTo(at);
    const key = parser.parseObject();
    at = skipSpace(body, parser.at);
    if (!(key instanceof PDFName)) continue;
    let value: PDFObject | undefined;
    try {
      parser.moveTo(at);
      value = parser.parseObject();
      at = parser.at;
    } catch {
      if (body[at] === 0x3c && body[at + 1] === 0x3c) {
        value = lenientDictionary(parser, body, at, context, budget, depth + 1);
        at = parser.at;
      } else {
        budget.skipped++;
        at = skipToken(body, at);
      }
    }
    if (value !== undefined) dict.set(key, value);
  }
  return undefined;
}
