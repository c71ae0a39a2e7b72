/**
 * pdf-lib, loaded with require(), and only the part that reads a file: its object model and
 * parsers, by their own files. An ESM `import` of pdf-lib makes Node scan every re-exported file
 * for named exports (cjs-module-lexer), which doubles its load time; and its document API (pages,
 * forms, fonts, PNG and JPEG embedders) is half of what it loads. Structure reading, the pool's
 * workers and the CLI's `check` load only this (~60 ms here instead of ~90); the document API is
 * in pdf-lib-document.ts, for the commands that write PDFs. A class is the same object either way
 * (one CommonJS module per file), so `instanceof` holds across both.
 * Every value import of pdf-lib in src/ goes through these two modules; types may come from 'pdf-lib'.
 *
 * Loading this module also makes pdf-lib keep no state across files (see {@link installObjectPools}):
 * its pools of references and names become weak, so what one file made goes with that file.
 */
import { createRequire } from 'node:module';
import type { PDFContext } from 'pdf-lib';
import type { DecodeBudget } from './decode-budget.js';

const require = createRequire(import.meta.url);
const core = <T>(file: string): T => (require(`pdf-lib/cjs/core/${file}`) as { default: T }).default;
type PdfLib = typeof import('pdf-lib');

export const PDFArray = core<PdfLib['PDFArray']>('objects/PDFArray');
export const PDFBool = core<PdfLib['PDFBool']>('objects/PDFBool');
export const PDFDict = core<PdfLib['PDFDict']>('objects/PDFDict');
export const PDFHexString = core<PdfLib['PDFHexString']>('objects/PDFHexString');
export const PDFName = core<PdfLib['PDFName']>('objects/PDFName');
export const PDFNumber = core<PdfLib['PDFNumber']>('objects/PDFNumber');
export const PDFRawStream = core<PdfLib['PDFRawStream']>('objects/PDFRawStream');
export const PDFRef = core<PdfLib['PDFRef']>('objects/PDFRef');
export const PDFStream = core<PdfLib['PDFStream']>('objects/PDFStream');
export const PDFString = core<PdfLib['PDFString']>('objects/PDFString');
export const PDFInvalidObject = core<PdfLib['PDFInvalidObject']>('objects/PDFInvalidObject');
export const PDFObjectParser = core<PdfLib['PDFObjectParser']>('parser/PDFObjectParser');
export const PDFObjectStreamParser = core<PdfLib['PDFObjectStreamParser']>('parser/PDFObjectStreamParser');
export const PDFParser = core<PdfLib['PDFParser']>('parser/PDFParser');
/** pdf-lib's byte cursor, for a parser that must know where it stopped (pdf/recover.ts). */
export const ByteStream = core<typeof import('pdf-lib/cjs/core/parser/ByteStream.js').default>('parser/ByteStream');
export const PDFCatalog = core<{ fromMapWithContext(map: Map<unknown, unknown>, context: PDFContext): PDFDict }>('structures/PDFCatalog');
export const PDFPageTree = core<{ fromMapWithContext(map: Map<unknown, unknown>, context: PDFContext): PDFDict }>('structures/PDFPageTree');
export const PDFPageLeaf = core<{ fromMapWithContext(map: Map<unknown, unknown>, context: PDFContext): PDFDict }>('structures/PDFPageLeaf');
/** pdf-lib's parsing errors (their messages carry the position). */
export const pdfLibErrors = require('pdf-lib/cjs/core/errors') as Record<string, new (...args: never[]) => Error>;
/** pdf-lib's keyword byte sequences (`obj`, `endobj`, `stream`, `xref`…). */
export const Keywords = (require('pdf-lib/cjs/core/syntax/Keywords') as { Keywords: Record<string, number[]> }).Keywords;
const { IsIrregular } = require('pdf-lib/cjs/core/syntax/Irregular') as { IsIrregular: Uint8Array };

/** The budget of the file being parsed now, if any: parsing is synchronous, so there is one at a time. */
let activeBudget: DecodeBudget | undefined;

/**
 * Runs `fn` (synchronous) with `budget` charged for every reference and value pdf-lib creates.
 * @example
 * const obj = withParseBudget(budget, () => PDFObjectParser.forBytes(bytes, context).parseObject());
 */
export function withParseBudget<T>(budget: DecodeBudget | undefined, fn: () => T): T {
  const outer = activeBudget;
  activeBudget = budget;
  try {
    return fn();
  } finally {
    activeBudget = outer;
  }
}

/**
 * Where a stream's data, as parsed from `bytes` by parsePdf (pdf/parse.ts: stream contents are
 * views of the file's bytes), lies in `bytes`; null when it is not a view of them (an object
 * stream's member, a decrypted stream).
 * @example
 * const at = streamOffset(bytes, stream.contents); // byte offset of the data in the file
 */
export function streamOffset(bytes: Uint8Array, contents: Uint8Array): number | null {
  if (contents.buffer !== bytes.buffer) return null;
  const offset = contents.byteOffset - bytes.byteOffset;
  return offset >= 0 && offset + contents.length <= bytes.length ? offset : null;
}

/** The budget of the parse running now (for the parser's own bounds). */
export function parseBudget(): DecodeBudget | undefined {
  return activeBudget;
}

/**
 * pdf-lib keeps every PDFRef it ever made in a module-wide Map keyed by "num gen R", and every
 * PDFName likewise: nothing ever leaves them. One hostile file (a cross-reference stream declaring
 * /Size 300000000000000) filled the reference pool to V8's Map limit, and every later file read in
 * the same process failed with "Map maximum size exceeded". Here:
 * - references come from a pool of the file being parsed: each parse starts a new one (the last
 *   file's goes with its document), and each new reference is charged to the file's budget, so a
 *   file naming too many objects is refused before the pool grows. Within a file a reference is
 *   one instance, as pdf-lib needs; a reference to look up by number in a document parsed earlier
 *   comes from {@link refIn}, not from `PDFRef.of`;
 * - names stay one instance per name for as long as anything holds them (documents compare them by
 *   identity), but are held weakly: what only a finished file used is swept away.
 */
function installObjectPools(): void {
  type Ref = import('pdf-lib').PDFRef;
  type Name = import('pdf-lib').PDFName;
  const refProto = PDFRef.prototype;
  (PDFRef as unknown as { of: (n: number, g?: number) => Ref }).of = (objectNumber: number, generationNumber = 0) => {
    const pool = generationNumber === 0 ? refs.first : refs.other;
    const key = generationNumber === 0 ? objectNumber : `${objectNumber} ${generationNumber}`;
    let ref = (pool as Map<number | string, Ref>).get(key);
    if (!ref) {
      activeBudget?.chargeObject();
      ref = Object.assign(Object.create(refProto) as Ref, { objectNumber, generationNumber, tag: `${objectNumber} ${generationNumber} R` });
      (pool as Map<number | string, Ref>).set(key, ref);
    }
    return ref;
  };
  const names = new WeakPool<Name>();
  const nameProto = PDFName.prototype;
  // The names pdf-lib keeps as statics (PDFName.Length…) are the instances for their keys, for good.
  for (const value of Object.values(PDFName)) {
    if (value instanceof PDFName) names.keep(decodeNameText(value.asString().slice(1)), value);
  }
  (PDFName as unknown as { of: (name: string) => Name }).of = (name: string) => {
    const decoded = decodeNameText(name);
    return names.get(decoded, () => {
      activeBudget?.chargeName();
      return Object.assign(Object.create(nameProto) as Name, { encodedName: encodeName(decoded) });
    });
  };
}

/** The reference pool of the file parsed last (object numbers of generation 0 apart: the usual case). */
const refs = { first: new Map<number, unknown>(), other: new Map<string, unknown>() };

/** How many references the pool holds now (they are the last file's: for tests and diagnostics). */
export function referencePoolSize(): number {
  return refs.first.size + refs.other.size;
}

/** A new reference pool for the file about to be parsed; the last file's goes with its document. */
export function newReferencePool(): void {
  refs.first = new Map();
  refs.other = new Map();
}

const indexes = new WeakMap<PDFContext, Map<string, import('pdf-lib').PDFRef>>();

/**
 * The reference of object `num gen` in `context` — the instance its objects use — or undefined.
 * @example
 * const stream = context.lookup(refIn(context, 12, 0));
 */
export function refIn(context: PDFContext, objectNumber: number, generationNumber: number): import('pdf-lib').PDFRef | undefined {
  let index = indexes.get(context);
  if (!index) {
    index = new Map();
    for (const [ref] of context.enumerateIndirectObjects()) index.set(ref.tag, ref);
    indexes.set(context, index);
  }
  return index.get(`${objectNumber} ${generationNumber} R`);
}

/** One instance per key while anything holds it, swept when the pool has doubled since it was last swept. */
class WeakPool<T extends object> {
  private readonly pool = new Map<string, WeakRef<T>>();
  private readonly kept = new Map<string, T>();
  private sweepAt = 10_000;

  keep(key: string, value: T): void {
    this.kept.set(key, value);
  }

  get(key: string, make: () => T): T {
    const hit = this.kept.get(key) ?? this.pool.get(key)?.deref();
    if (hit) return hit;
    const made = make();
    this.pool.set(key, new WeakRef(made));
    if (this.pool.size > this.sweepAt) this.sweep();
    return made;
  }

  private sweep(): void {
    for (const [key, ref] of this.pool) if (ref.deref() === undefined) this.pool.delete(key);
    this.sweepAt = Math.max(10_000, this.pool.size * 2);
  }
}

/** `#xx` escapes of a name decoded, as pdf-lib's PDFName.of does. */
function decodeNameText(name: string): string {
  return name.includes('#') ? name.replace(/#([\dABCDEF]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : name;
}

/** A decoded name written as PDF writes it (irregular characters as `#xx`), as pdf-lib's PDFName does. */
function encodeName(name: string): string {
  let out = '/';
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    out += code >= 0x21 && code <= 0x7e && !IsIrregular[code] ? name[i] : `#${code.toString(16).padStart(2, '0').toUpperCase()}`;
  }
  return out;
}

installObjectPools();

export type PDFArray = import('pdf-lib').PDFArray;
export type PDFBool = import('pdf-lib').PDFBool;
export type PDFDict = import('pdf-lib').PDFDict;
export type PDFHexString = import('pdf-lib').PDFHexString;
export type PDFName = import('pdf-lib').PDFName;
export type PDFNumber = import('pdf-lib').PDFNumber;
export type PDFObjectParser = import('pdf-lib').PDFObjectParser;
export type PDFObjectStreamParser = import('pdf-lib').PDFObjectStreamParser;
export type PDFRawStream = import('pdf-lib').PDFRawStream;
export type PDFRef = import('pdf-lib').PDFRef;
export type PDFStream = import('pdf-lib').PDFStream;
export type PDFString = import('pdf-lib').PDFString;
export type { PDFContext, PDFObject, PDFPage } from 'pdf-lib';
