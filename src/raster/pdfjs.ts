/**
 * pdf.js in Node: the legacy build (the modern one needs DOMMatrix), with its font and CMap data
 * given as plain folders, script evaluation off, and its own canvas factory (@napi-rs/canvas).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let loaded: Promise<PdfJs> | undefined;

export function pdfjs(): Promise<PdfJs> {
  loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return loaded;
}

let dataDirs: { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } | undefined;
function dirs() {
  if (!dataDirs) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    dataDirs = {
      standardFontDataUrl: `${join(root, 'standard_fonts')}/`,
      cMapUrl: `${join(root, 'cmaps')}/`,
      wasmUrl: `${join(root, 'wasm')}/`,
    };
  }
  return dataDirs;
}

/** Opens a PDF with pdf.js. `bytes` is copied: pdf.js detaches the buffer it is given. */
export async function openWithPdfjs(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    ...dirs(),
    cMapPacked: true,
    isEvalSupported: false,
    enableXfa: false,
    verbosity: 0,
    stopAtErrors: false,
  });
  return task.promise;
}

export type { PDFDocumentProxy };
