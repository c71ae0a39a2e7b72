/**
 * pdf-lib's parser, bounded. pdf-lib reads a whole file eagerly and tolerantly, which is what a
 * preflight wants, but nothing in it is bounded: a cross-reference stream's /Size drives a loop
 * (300,000,000,000,000 iterations for one 6 KB file), object streams and cross-reference streams
 * are inflated whole, a name or string may be gigabytes, a stream without `endstream` is searched
 * for to the end of the file — once per such stream, and junk between objects costs an exception
 * per byte. Here the same parser runs with those parts replaced:
 * - one synchronous pass (pdf-lib's own is async only to yield between objects), so the file's
 *   {@link DecodeBudget} is charged for every reference and value pdf-lib creates (pdf-lib.ts);
 * - object streams are decoded by our bounded filters under the budget; the entries of
 *   cross-reference tables and streams are skipped, not expanded (pdf-lib never used them: it reads
 *   the objects where they are; integrity.ts checks them against the bytes, within its own caps);
 * - names, numbers and strings have a length limit, arrays and dictionaries an entry limit;
 * - the searches for `endstream`, `endobj` and the next object are linear over the file however
 *   many streams are unterminated: the `stream`/`endstream` nesting pdf-lib follows is resolved once
 *   for the whole file (memoised), and `endobj` is found with a remembered forward search.
 * Results are pdf-lib's for every file it parses within the bounds.
 */
import {
  ByteStream,
  Keywords,
  PDFArray,
  PDFCatalog,
  PDFDict,
  PDFHexString,
  PDFInvalidObject,
  PDFName,
  PDFObjectParser,
  PDFPageLeaf,
  PDFPageTree,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFString,
  newReferencePool,
  parseBudget,
  pdfLibErrors,
  withParseBudget,
  type PDFContext,
  type PDFObject,
} from './pdf-lib.js';
import { DEFAULT_DECODE_LIMITS, DecodeBudget, BudgetExceededError, formatBytes } from './decode-budget.js';
import { StreamTooLargeError, decodeStream } from './streams.js';
import { scanOf } from './keyword-scan.js';

/** pdf-lib's byte stream, as its parsers use it. */
interface Bytes {
  bytes: Uint8Array;
  length: number;
  idx: number;
  offset(): number;
  moveTo(offset: number): void;
  done(): boolean;
  peek(): number;
  peekAhead(steps: number): number;
  next(): number;
  assertNext(byte: number): number;
  position(): { line: number; column: number; offset: number };
  slice(start: number, end: number): Uint8Array;
}

/** pdf-lib's parser internals used here (not in its type declarations). */
interface Parser {
  bytes: Bytes;
  context: PDFContext;
  parseHeader(): unknown;
  parseIndirectObjectHeader(): PDFRef;
  parseObject(): PDFObject;
  parseRawInt(): number;
  parseDict(): PDFDict;
  skipWhitespace(): void;
  skipWhitespaceAndComments(): void;
  matchKeyword(keyword: number[]): boolean;
  maybeParseTrailerDict(): void;
  maybeParseTrailer(): void;
  maybeRecoverRoot(): void;
}

const E = pdfLibErrors as unknown as Record<string, new (...args: unknown[]) => Error>;
const WHITESPACE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITESPACE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
/** Most bytes one object stream may decode to. */
const MAX_OBJECT_STREAM_BYTES = 64 * 1024 * 1024;

const limits = () => parseBudget()?.limits ?? DEFAULT_DECODE_LIMITS;

/** A bound that stops this token (the object it is in is not read; the read goes on). */
function tokenBound(parser: Parser, what: string): never {
  parseBudget()?.note(`${what}; the object holding it was not read`);
  throw new E.PDFParsingError!(parser.bytes.position(), what);
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}

/**
 * Runs `fn` with the console silent: pdf-lib reports recoverable parse problems on console.warn and
 * console.log, and a library's output stays clean.
 * @example
 * const context = await quietly(() => parsePdf(bytes));
 */
export async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  // Overlapping calls share one silence: each saving and restoring the console by itself, the
  // later one to start would restore the silenced console, and the caller's console.log stay mute.
  if (quiet++ === 0) {
    saved = { warn: console.warn, log: console.log, error: console.error };
    console.warn = console.log = console.error = () => undefined;
  }
  try {
    return await fn();
  } finally {
    if (--quiet === 0 && saved) Object.assign(console, saved);
  }
}

let quiet = 0;
let saved: Pick<Console, 'warn' | 'log' | 'error'> | undefined;

/**
 * Parses a whole file into pdf-lib's object model, as `PDFDocument.load` does with
 * `{ parseSpeed: Fastest, throwOnInvalidObject: false, capNumbers: false }` — without building a
 * document (which reads nothing more: its constructor only looks up /Root and /Encrypt) — and
 * under `budget`: a spent budget rejects with {@link BudgetExceededError}.
 *
 * @example
 * const context = await parsePdf(bytes, new DecodeBudget());
 * const root = context.lookup(context.trailerInfo.Root);
 */
export async function parsePdf(bytes: Uint8Array, budget: DecodeBudget = new DecodeBudget()): Promise<PDFContext> {
  const parser = PDFParser.forBytesWithOptions(bytes, Number.POSITIVE_INFINITY, false, false) as unknown as Parser;
  // A stream's contents is a view of `bytes`, not a copy (pdf-lib copies each stream's data, which
  // doubled the memory of a structure read): read-only, and where it lies in the file is known
  // (streamOffset in pdf-lib.ts).
  const cursor = parser.bytes as Bytes & { bytes: Uint8Array };
  cursor.slice = (start, end) => cursor.bytes.subarray(start, end);
  return withParseBudget(budget, () => parseDocument(parser, budget));
}

function parseDocument(parser: Parser, budget: DecodeBudget): PDFContext {
  // Synchronous from here to the end: no other file's parse runs in between.
  newReferencePool();
  const { context } = parser;
  (context as unknown as { header: unknown }).header = parser.parseHeader();
  let previous = -1;
  while (!parser.bytes.done()) {
    parseIndirectObjects(parser, budget);
    skipCrossRefSection(parser);
    parser.maybeParseTrailerDict();
    parser.maybeParseTrailer();
    skipJibberish(parser);
    const offset = parser.bytes.offset();
    if (offset === previous) throw new E.StalledParserError!(parser.bytes.position());
    previous = offset;
    budget.check();
  }
  // pdf-lib replaces a /Root that is not /Type /Catalog by the last catalog in the file. A /Root
  // that is a dictionary stays what the trailer names, as qpdf, MuPDF and poppler read it (a
  // trailer naming the Info dictionary gives no pages: inspect.ts says so); only a /Root that is
  // missing or not a dictionary is searched for.
  if (!(context.lookup(context.trailerInfo.Root as PDFObject) instanceof PDFDict)) parser.maybeRecoverRoot();
  if (context.lookup(PDFRef.of(0))) context.delete(PDFRef.of(0));
  budget.checkHeap();
  return context;
}

function parseIndirectObjects(parser: Parser, budget: DecodeBudget): void {
  const { bytes } = parser;
  parser.skipWhitespaceAndComments();
  while (!bytes.done() && isDigit(bytes.peek())) {
    const start = bytes.offset();
    try {
      parseIndirectObject(parser, budget);
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
      budget.check();
      bytes.moveTo(start);
      parseInvalidObject(parser);
    }
    parser.skipWhitespaceAndComments();
    skipJibberish(parser);
    budget.check();
  }
}

function parseIndirectObject(parser: Parser, budget: DecodeBudget): void {
  const ref = parser.parseIndirectObjectHeader();
  parser.skipWhitespaceAndComments();
  const object = parser.parseObject();
  parser.skipWhitespaceAndComments();
  parser.matchKeyword(Keywords.endobj!);
  const type = object instanceof PDFRawStream ? object.dict.lookup(PDFName.of('Type')) : undefined;
  if (type === PDFName.of('ObjStm')) parseObjectStream(parser.context, object as PDFRawStream, ref, budget);
  else if (type === PDFName.of('XRef')) {
    // Only its trailer entries are used (as pdf-lib does); its rows are checked by integrity.ts.
    const dict = (object as PDFRawStream).dict;
    parser.context.trailerInfo = {
      Root: dict.get(PDFName.of('Root')),
      Encrypt: dict.get(PDFName.of('Encrypt')),
      Info: dict.get(PDFName.of('Info')),
      ID: dict.get(PDFName.of('ID')),
    };
  } else parser.context.assign(ref, object);
}

/**
 * The objects of an object stream (§7.5.7), decoded under the budget. Objects are parsed where
 * /First and their offsets say, as pdf-lib does; the bytes each one takes are charged as decoded
 * again, so offsets that overlap cannot make a small stream parse for ever.
 */
export function parseObjectStream(context: PDFContext, stream: PDFRawStream, ref: { objectNumber: number; generationNumber: number }, budget: DecodeBudget): void {
  const what = `object stream ${ref.objectNumber} ${ref.generationNumber} R`;
  let data: Uint8Array;
  try {
    data = decodeStream(context, stream, { maxBytes: MAX_OBJECT_STREAM_BYTES, budget, what });
  } catch (error) {
    // Its objects are lost as pdf-lib would lose them, and the report says why.
    if (error instanceof StreamTooLargeError) budget.note(`an object stream (${what.slice(14)}) that ${error.message.replace(/^stream /, '')}; its objects were not read`);
    throw error;
  }
  const first = (stream.dict.lookup(PDFName.of('First')) as unknown as { asNumber(): number }).asNumber();
  const count = (stream.dict.lookup(PDFName.of('N')) as unknown as { asNumber(): number }).asNumber();
  const parser = PDFObjectParser.forBytes(data, context) as unknown as Parser;
  const entries: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    parser.skipWhitespaceAndComments();
    const objectNumber = parser.parseRawInt();
    parser.skipWhitespaceAndComments();
    entries.push([objectNumber, parser.parseRawInt()]);
  }
  for (const [objectNumber, offset] of entries) {
    parser.bytes.moveTo(first + offset);
    const object = parser.parseObject();
    budget.chargeDecoded(Math.max(0, parser.bytes.offset() - first - offset), what);
    context.assign(PDFRef.of(objectNumber, 0), object);
  }
}

/**
 * An object that does not parse: kept as raw bytes up to its `endobj`, as pdf-lib does, with the
 * `endobj` found by a forward search that remembers its last answer (linear over the file).
 */
function parseInvalidObject(parser: Parser): void {
  const { bytes } = parser;
  const startPos = bytes.position();
  const ref = parser.parseIndirectObjectHeader();
  parser.skipWhitespaceAndComments();
  const start = bytes.offset();
  const end = scanOf(bytes.bytes).next('endobj', start);
  if (end < 0) throw new E.PDFInvalidObjectParsingError!(startPos);
  bytes.moveTo(end + 6);
  parser.context.assign(ref, PDFInvalidObject.of(bytes.slice(start, end)));
}

/** `xref` and its subsections, read past without making a reference per entry. */
function skipCrossRefSection(parser: Parser): void {
  const { bytes } = parser;
  parser.skipWhitespaceAndComments();
  if (!parser.matchKeyword(Keywords.xref!)) return;
  parser.skipWhitespaceAndComments();
  while (!bytes.done() && isDigit(bytes.peek())) {
    parser.parseRawInt();
    parser.skipWhitespaceAndComments();
    parser.parseRawInt();
    parser.skipWhitespaceAndComments();
    const byte = bytes.peek();
    if (byte === 0x6e || byte === 0x66) bytes.next(); // n, f
    parser.skipWhitespaceAndComments();
    parseBudget()?.work();
  }
}

/**
 * Skips what lies between objects up to the next `xref`, `trailer`, `startxref` or object header,
 * as pdf-lib's skipJibberish does — looking for a header only where a digit run starts, and past a
 * digit run that does not start one, so junk costs one pass.
 */
function skipJibberish(parser: Parser): void {
  parser.skipWhitespaceAndComments();
  const { bytes } = parser;
  const b = bytes.bytes;
  const n = bytes.length;
  let i = bytes.offset();
  while (i < n) {
    const c = b[i]!;
    if (c >= 0x20 && c <= 0x7e) {
      if ((c === 0x78 && startsWith(b, i, 'xref')) || (c === 0x74 && startsWith(b, i, 'trailer')) || (c === 0x73 && startsWith(b, i, 'startxref'))) break;
      if (isDigit(c)) {
        const header = objectHeaderAt(b, i);
        if (header === true) break;
        i = header;
        continue;
      }
    }
    i++;
  }
  bytes.moveTo(i);
  parseBudget()?.work(i >>> 6);
}

function startsWith(b: Uint8Array, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** True when `num gen obj` starts at `at` (comments allowed between, as pdf-lib allows); else where the first digit run ends. */
function objectHeaderAt(b: Uint8Array, at: number): true | number {
  let i = at;
  while (isDigit(b[i])) i++;
  const runEnd = i;
  i = skipSpace(b, i);
  if (!isDigit(b[i])) return runEnd;
  while (isDigit(b[i])) i++;
  i = skipSpace(b, i);
  return startsWith(b, i, 'obj') ? true : runEnd;
}

function skipSpace(b: Uint8Array, at: number): number {
  let i = at;
  for (;;) {
    while (i < b.length && WHITESPACE[b[i]!]) i++;
    if (b[i] !== 0x25) return i;
    while (i < b.length && b[i] !== 0x0a && b[i] !== 0x0d) i++;
  }
}

/**
 * A value inside a dictionary or array. A stream there is not PDF (streams are indirect objects
 * only, ISO 32000-2 §7.3.8): qpdf and MuPDF give up on the object that holds it, and so does this
 * parser, where pdf-lib would read it as a stream (poppler-test mask.pdf: a page tree node holding
 * an image stream, which qpdf and MuPDF read as no pages).
 */
function directObject(parser: Parser): PDFObject {
  const start = parser.bytes.position();
  const value = parser.parseObject();
  if (value instanceof PDFRawStream) throw new E.PDFParsingError!(start, 'a stream inside a dictionary or array (streams must be indirect objects)');
  return value;
}

/** The bounded replacements of pdf-lib's token and container parsers, installed once. */
function installParserBounds(): void {
  const object = PDFObjectParser.prototype as unknown as Record<string, (this: Parser, ...args: unknown[]) => unknown>;
  const parseObject = object.parseObject!;
  object.parseObject = function parseObjectCounted() {
    parseBudget()?.chargeValue();
    return parseObject.call(this);
  };

  object.parseName = function parseName() {
    const { bytes } = this;
    bytes.assertNext(0x2f);
    const b = bytes.bytes;
    const start = bytes.offset();
    const max = limits().maxTokenBytes;
    let i = start;
    while (i < bytes.length && !WHITESPACE[b[i]!] && !DELIMITER[b[i]!]) {
      if (i - start >= max) tokenBound(this, `a name longer than ${formatBytes(max)}`);
      i++;
    }
    bytes.moveTo(i);
    if (i - start >= 32) parseBudget()?.chargeValue((i - start) >>> 5);
    return PDFName.of(latin1(b, start, i));
  };

  object.parseString = function parseString() {
    const { bytes } = this;
    const b = bytes.bytes;
    const start = bytes.offset();
    const max = limits().maxStringBytes;
    let depth = 0;
    let escaped = false;
    for (let i = start; i < bytes.length; i++) {
      const c = b[i]!;
      if (!escaped) {
        if (c === 0x28) depth++;
        else if (c === 0x29) depth--;
      }
      escaped = c === 0x5c ? !escaped : false;
      if (depth === 0) {
        bytes.moveTo(i + 1);
        if (i - start >= 32) parseBudget()?.chargeValue((i - start) >>> 5);
        return PDFString.of(latin1(b, start + 1, i));
      }
      if (i - start > max) tokenBound(this, `a string longer than ${formatBytes(max)}`);
    }
    bytes.moveTo(bytes.length);
    throw new E.UnbalancedParenthesisError!(bytes.position());
  };

  object.parseHexString = function parseHexString() {
    const { bytes } = this;
    bytes.assertNext(0x3c);
    const b = bytes.bytes;
    const start = bytes.offset();
    const max = limits().maxStringBytes * 2;
    let i = start;
    while (i < bytes.length && b[i] !== 0x3e) {
      if (i - start >= max) tokenBound(this, `a string longer than ${formatBytes(max / 2)}`);
      i++;
    }
    bytes.moveTo(i);
    bytes.assertNext(0x3e);
    if (i - start >= 64) parseBudget()?.chargeValue((i - start) >>> 6);
    return PDFHexString.of(latin1(b, start, i));
  };

  object.parseArray = function parseArray() {
    const { bytes } = this;
    bytes.assertNext(0x5b);
    this.skipWhitespaceAndComments();
    const array = PDFArray.withContext(this.context);
    const max = limits().maxContainerItems;
    while (bytes.peek() !== 0x5d) {
      if (array.size() >= max) tokenBound(this, `an array of more than ${max} items`);
      array.push(directObject(this));
      this.skipWhitespaceAndComments();
    }
    bytes.assertNext(0x5d);
    return array;
  };

  object.parseDict = function parseDict() {
    const { bytes } = this;
    bytes.assertNext(0x3c);
    bytes.assertNext(0x3c);
    this.skipWhitespaceAndComments();
    const map = new Map<PDFName, PDFObject>();
    const max = limits().maxContainerItems;
    while (!bytes.done() && bytes.peek() !== 0x3e && bytes.peekAhead(1) !== 0x3e) {
      if (map.size >= max) tokenBound(this, `a dictionary of more than ${max} entries`);
      const key = (this as unknown as { parseName(): PDFName }).parseName();
      map.set(key, directObject(this));
      this.skipWhitespaceAndComments();
    }
    this.skipWhitespaceAndComments();
    bytes.assertNext(0x3e);
    bytes.assertNext(0x3e);
    const type = map.get(PDFName.of('Type'));
    if (type === PDFName.of('Catalog')) return PDFCatalog.fromMapWithContext(map, this.context);
    if (type === PDFName.of('Pages')) return PDFPageTree.fromMapWithContext(map, this.context);
    if (type === PDFName.of('Page')) return PDFPageLeaf.fromMapWithContext(map, this.context);
    return PDFDict.fromMapWithContext(map as never, this.context);
  };

  object.findEndOfStreamFallback = function findEndOfStreamFallback(startPos: unknown) {
    const { bytes } = this;
    const found = scanOf(bytes.bytes).streamEvents().endOf(bytes.offset());
    if (!found) throw new E.PDFStreamParsingError!(startPos);
    bytes.moveTo(found.after);
    parseBudget()?.work();
    return found.end;
  };

  // Numbers: a run of digits is read up to the token limit (pdf-lib builds it one character at a time).
  const base = Object.getPrototypeOf(PDFObjectParser.prototype) as Record<string, (this: Parser) => number>;
  for (const method of ['parseRawInt', 'parseRawNumber'] as const) {
    const original = base[method]!;
    base[method] = function boundedNumber() {
      const { bytes } = this;
      const b = bytes.bytes;
      const max = limits().maxTokenBytes;
      let i = bytes.offset();
      while (i < bytes.length && (isDigit(b[i]) || b[i] === 0x2e || b[i] === 0x2b || b[i] === 0x2d)) {
        if (i - bytes.offset() >= max) tokenBound(this, `a number longer than ${formatBytes(max)}`);
        i++;
      }
      return original.call(this);
    };
  }

  // Anyone loading a document through pdf-lib's own API (the commands that write PDFs) gets the
  // bounded parser too, with the default budget.
  (PDFParser.prototype as unknown as { parseDocument(): Promise<PDFContext> }).parseDocument = async function boundedParseDocument(this: Parser) {
    const budget = parseBudget() ?? new DecodeBudget();
    return withParseBudget(budget, () => parseDocument(this, budget));
  };

  // pdf-lib decodes object and cross-reference streams with its own unbounded decoders.
  (ByteStream as { fromPDFRawStream(stream: PDFRawStream): unknown }).fromPDFRawStream = (stream: PDFRawStream) =>
    ByteStream.of(decodeStream(stream.dict.context, stream, { maxBytes: MAX_OBJECT_STREAM_BYTES, budget: parseBudget(), what: 'a stream pdf-lib reads' }));
}

installParserBounds();
