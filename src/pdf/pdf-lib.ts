/**
 * pdf-lib, loaded with require(). pdf-lib ships CommonJS; an ESM `import` of it makes Node scan
 * every re-exported file for named exports (cjs-module-lexer), which doubles its load time
 * (~250 ms instead of ~125 ms on the benchmark machine) — paid by the CLI and by every pool worker.
 * Every value import of pdf-lib in src/ goes through this module; types may come from 'pdf-lib'.
 */
/**
 * pdf-lib, loaded with require(), and only the part that reads a file: its object model and
 * parsers, by their own files. An ESM `import` of pdf-lib makes Node scan every re-exported file
 * for named exports (cjs-module-lexer), which doubles its load time; and its document API (pages,
 * forms, fonts, PNG and JPEG embedders) is half of what it loads. Structure reading, the pool's
 * workers and the CLI's `check` load only this (~60 ms here instead of ~90); the document API is
 * in pdf-lib-document.ts, for the commands that write PDFs. A class is the same object either way
 * (one CommonJS module per file), so `instanceof` holds across both.
 * Every value import of pdf-lib in src/ goes through these two modules; types may come from 'pdf-lib'.
 */
import { createRequire } from 'node:module';
import type { PDFContext } from 'pdf-lib';

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
export const PDFObjectParser = core<PdfLib['PDFObjectParser']>('parser/PDFObjectParser');
export const PDFObjectStreamParser = core<PdfLib['PDFObjectStreamParser']>('parser/PDFObjectStreamParser');
const PDFParser = core<PdfLib['PDFParser']>('parser/PDFParser');

/**
 * Parses a whole file into pdf-lib's object model, as `PDFDocument.load` does with
 * `{ parseSpeed: Fastest, throwOnInvalidObject: false, capNumbers: false }` — without building a
 * document (which reads nothing more: its constructor only looks up /Root and /Encrypt).
 *
 * A stream's `contents` is a view of `bytes`, not a copy (pdf-lib copies each stream's data, which
 * doubled the memory of a structure read): treat it as read-only, and its `byteOffset` minus that of
 * `bytes` is where the stream's data lies in the file (see {@link streamOffset}).
 *
 * @example
 * const context = await parsePdf(bytes);
 * const root = context.lookup(context.trailerInfo.Root);
 */
export function parsePdf(bytes: Uint8Array): Promise<PDFContext> {
  const parser = PDFParser.forBytesWithOptions(bytes, Number.POSITIVE_INFINITY, false, false);
  const stream = (parser as unknown as { bytes: { bytes: Uint8Array; slice(start: number, end: number): Uint8Array } }).bytes;
  stream.slice = (start, end) => stream.bytes.subarray(start, end);
  return parser.parseDocument();
}

/** Where a stream's data, as parsed from `bytes` by {@link parsePdf}, lies in `bytes`; null when it is not a view of them (an object stream's member). */
export function streamOffset(bytes: Uint8Array, contents: Uint8Array): number | null {
  if (contents.buffer !== bytes.buffer) return null;
  const offset = contents.byteOffset - bytes.byteOffset;
  return offset >= 0 && offset + contents.length <= bytes.length ? offset : null;
}

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
