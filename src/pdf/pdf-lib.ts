/**
 * pdf-lib, loaded with require(). pdf-lib ships CommonJS; an ESM `import` of it makes Node scan
 * every re-exported file for named exports (cjs-module-lexer), which doubles its load time
 * (~250 ms instead of ~125 ms on the benchmark machine) — paid by the CLI and by every pool worker.
 * Every value import of pdf-lib in src/ goes through this module; types may come from 'pdf-lib'.
 */
import { createRequire } from 'node:module';

type PdfLib = typeof import('pdf-lib');
const lib = createRequire(import.meta.url)('pdf-lib') as PdfLib;

export const {
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFObjectStreamParser,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  ParseSpeeds,
  concatTransformationMatrix,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
} = lib;

export type PDFArray = import('pdf-lib').PDFArray;
export type PDFBool = import('pdf-lib').PDFBool;
export type PDFDict = import('pdf-lib').PDFDict;
export type PDFDocument = import('pdf-lib').PDFDocument;
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
