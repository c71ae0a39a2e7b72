/**
 * PDFium compiled to WebAssembly (@hyzyla/pdfium; PDFium is BSD-3-Clause/Apache-2.0, the wrapper
 * MIT). It paints vector pages 3–4× faster than pdf.js, which builds and fills every path in
 * JavaScript; pdf.js stays for pages it reads better (see renderer.ts). Loaded by the first page
 * that needs it; a worker that never draws a vector page never compiles the 4 MB module.
 */
import type { PDFiumDocument, PDFiumLibrary } from '@hyzyla/pdfium';
import type { RawPixels } from './pixels.js';
import { fitSize } from './render.js';

let library: Promise<PDFiumLibrary> | undefined;
let generation = 0;

/**
 * After a page that grew PDFium's heap past this, the instance is dropped so that the memory goes
 * back (a WebAssembly heap never shrinks; its build caps it at 2 GB).
 */
export const PDFIUM_KEEP_HEAP_BYTES = 512 * 1024 * 1024;

function pdfium(): Promise<PDFiumLibrary> {
  library ??= import('@hyzyla/pdfium').then((m) => m.PDFiumLibrary.init());
  return library;
}

/**
 * Forgets the library after a failure: a trap inside WebAssembly can leave PDFium's heap in any
 * state, so the next page gets a fresh instance instead of a possibly corrupt one.
 */
export function resetPdfium(): void {
  const old = library;
  library = undefined;
  generation++;
  old?.then((l) => l.destroy()).catch(() => undefined);
}

/** A document opened by one PDFium instance; it is stale once that instance is dropped. */
export interface PdfiumHandle {
  doc: PDFiumDocument;
  generation: number;
}

/** Opens a PDF with PDFium (the bytes are copied into its heap). */
export async function openWithPdfium(bytes: Uint8Array): Promise<PdfiumHandle> {
  const mine = generation;
  return { doc: await (await pdfium()).loadDocument(bytes), generation: mine };
}

/** Whether a handle still belongs to the live PDFium instance. */
export function isLive(handle: PdfiumHandle): boolean {
  return handle.generation === generation && library !== undefined;
}

/** Bytes of PDFium's WebAssembly heap (0 before it is loaded). */
export async function pdfiumHeapBytes(): Promise<number> {
  if (!library) return 0;
  // The wrapper keeps its Emscripten module in a field it does not declare.
  const module = (await library as unknown as { module?: { HEAPU8?: Uint8Array } }).module;
  return module?.HEAPU8?.byteLength ?? 0;
}

/**
 * Renders one page at `maxPx` on its longest side, on white. PDFium applies /Rotate and shows the
 * CropBox (clipped to the MediaBox); it ignores /UserUnit, which only scales a page and so does
 * not change a render fitted to a pixel size.
 */
export async function renderWithPdfium(handle: PdfiumHandle, pageNumber: number, maxPx: number, transparent = false): Promise<RawPixels> {
  if (!isLive(handle)) throw new Error('the PDFium instance that opened this document was dropped');
  const page = handle.doc.getPage(pageNumber - 1);
  const { originalWidth, originalHeight } = page.getOriginalSize();
  if (!(originalWidth > 0 && originalHeight > 0)) throw new Error(`PDFium reads a page size of ${originalWidth} × ${originalHeight} pt`);
  const { width, height } = fitSize(originalWidth, originalHeight, maxPx);
  // `width`/`height` at scale 1 give the exact pixel size; 'bitmap' returns RGBA bytes.
  // `transparent`: what the page leaves unpainted stays transparent (pixels.ts's flattenOnWhite measures it).
  const out = await page.render({ width, height, scale: 1, render: 'bitmap', transparent });
  return { data: out.data, width: out.width, height: out.height, channels: 4 };
}

