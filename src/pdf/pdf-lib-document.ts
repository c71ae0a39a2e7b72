/**
 * pdf-lib's document API (create, load, copy and draw pages), loaded with require() by the
 * commands that write PDFs (assemble, fix, reorder). Reading a file's structure needs only
 * pdf-lib.ts, which loads pdf-lib's object model and parsers and not this.
 */
import { createRequire } from 'node:module';

type PdfLib = typeof import('pdf-lib');
const lib = createRequire(import.meta.url)('pdf-lib') as PdfLib;

export const { PDFDocument, ParseSpeeds, concatTransformationMatrix, drawObject, popGraphicsState, pushGraphicsState } = lib;
export type PDFDocument = import('pdf-lib').PDFDocument;
