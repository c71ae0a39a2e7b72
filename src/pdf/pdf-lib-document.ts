/**
 * pdf-lib's document API (create, load, copy and draw pages), loaded with require() by the
 * commands that write PDFs (assemble, fix, reorder). Reading a file's structure needs only
 * pdf-lib.ts, which loads pdf-lib's object model and parsers and not this.
 */
import { createRequire } from 'node:module';
import { getHeapStatistics } from 'node:v8';
import type { PDFContext } from 'pdf-lib';
import { DecodeBudget } from './decode-budget.js';
import type { DecodeLimits } from './decode-limits.js';
import { parsePdf, quietly } from './parse.js';
import { looksLikePdfObjects, pdfHeaderVersion, withHeader } from './header.js';

type PdfLib = typeof import('pdf-lib');
const lib = createRequire(import.meta.url)('pdf-lib') as PdfLib;

export const { PDFDocument, PDFCatalog, PDFPageLeaf, PDFPageTree, ParseSpeeds, concatTransformationMatrix, drawObject, popGraphicsState, pushGraphicsState } = lib;
export type PDFDocument = import('pdf-lib').PDFDocument;
export type PDFCatalog = import('pdf-lib').PDFCatalog;

/**
 * Memory the parse of a document in the calling thread may add to its heap before it stops: no
 * `resourceLimits` guards this thread as they guard a worker.
 */
const LOAD_HEAP_MB = 768;

/**
 * A document of untrusted bytes, for the commands that write PDFs (fix, reorder, assemble): parsed
 * as `PDFDocument.load(bytes, { parseSpeed: Fastest, throwOnInvalidObject: false, updateMetadata:
 * false })` would, but by {@link parsePdf} — under the file's decode budget, with linear searches
 * and bounded tokens, and with a heap ceiling — so a hostile file stops with
 * {@link BudgetExceededError} in seconds instead of holding the calling thread for minutes or
 * taking the process down. pdf-lib's warnings on the console are kept quiet.
 * @param limits the decode limits in force (the operator's, lowered by the call)
 * @param options.ignoreEncryption as `PDFDocument.load`'s (default false: an encrypted file throws)
 * @example
 * const { doc, budget } = await loadDocument(bytes, DEFAULT_DECODE_LIMITS);
 * decodeStream(doc.context, stream, { maxBytes: 1 << 24, budget }); // draws on the same budget
 */
export async function loadDocument(bytes: Uint8Array, limits: DecodeLimits, options: { ignoreEncryption?: boolean } = {}): Promise<{ doc: PDFDocument; budget: DecodeBudget; parsed: Uint8Array }> {
  const budget = new DecodeBudget(limits, { heapCeilingBytes: getHeapStatistics().used_heap_size + LOAD_HEAP_MB * 1024 * 1024 });
  // A file that holds PDF objects without a `%PDF-` header is read with one put in front, as the
  // check (inspect.ts) and qpdf, poppler and pdf.js read it.
  const parseBytes = pdfHeaderVersion(bytes) === null && looksLikePdfObjects(bytes) ? withHeader(bytes) : bytes;
  const context = await quietly(() => parsePdf(parseBytes, budget));
  // What PDFDocument.load does once it has the context (its constructor is not in the typings).
  const Document = PDFDocument as unknown as new (context: PDFContext, ignoreEncryption: boolean, updateMetadata: boolean) => PDFDocument;
  return { doc: new Document(context, options.ignoreEncryption ?? false, false), budget, parsed: parseBytes };
}
