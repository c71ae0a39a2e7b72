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
  const module = ((await library) as unknown as { module?: { HEAPU8?: Uint8Array } }).module;
  return module?.HEAPU8?.byteLength ?? 0;
}

/** FPDF_RenderPageBitmap flags (fpdfview.h). */
const FPDF_ANNOT = 0x01;
const FPDF_PRINTING = 0x800;
const FPDF_REVERSE_BYTE_ORDER = 0x10;
const FPDF_BITMAP_BGRA = 4;

/** The wrapper's page, by the fields it does not declare: its Emscripten module and FPDF_PAGE handle. */
interface PageInternals {
  module: {
    HEAPU8: Uint8Array;
    wasmExports: { malloc(size: number): number; free(ptr: number): void };
    _FPDFBitmap_CreateEx(width: number, height: number, format: number, buffer: number, stride: number): number;
    _FPDFBitmap_FillRect(bitmap: number, left: number, top: number, width: number, height: number, colour: number): void;
    _FPDFBitmap_Destroy(bitmap: number): void;
    _FPDF_RenderPageBitmap(bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number): void;
    _FPDF_ClosePage(page: number): void;
  };
  pageIdx: number;
}

/**
 * Renders one page at `maxPx` on its longest side, on white, as it prints: optional content by its
 * print state (FPDF_PRINTING), annotations only when asked (PDFium draws them as a viewer shows
 * them, non-printing ones included; see pdfiumDrawsAnnotations in renderer.ts) and grayscale
 * anti-aliased text (the wrapper asks for LCD text, whose coloured
 * fringes are not on paper). PDFium applies /Rotate and shows the CropBox (clipped to the
 * MediaBox); it ignores /UserUnit, which only scales a page and so does not change a render fitted
 * to a pixel size. `transparent`: what the page leaves unpainted stays transparent (pixels.ts's
 * flattenOnWhite measures it, then puts the page on white).
 */
export async function renderWithPdfium(
  handle: PdfiumHandle,
  pageNumber: number,
  maxPx: number,
  { annotations = false, transparent = false }: { annotations?: boolean; transparent?: boolean } = {},
): Promise<RawPixels> {
  if (!isLive(handle)) throw new Error('the PDFium instance that opened this document was dropped');
  const page = handle.doc.getPage(pageNumber - 1);
  const { module: m, pageIdx } = page as unknown as PageInternals;
  if (!pageIdx) throw new Error(`PDFium cannot load page ${pageNumber}`);
  let buffer = 0;
  let bitmap = 0;
  try {
    const { originalWidth, originalHeight } = page.getOriginalSize();
    if (!(originalWidth > 0 && originalHeight > 0)) throw new Error(`PDFium reads a page size of ${originalWidth} × ${originalHeight} pt`);
    const { width, height } = fitSize(originalWidth, originalHeight, maxPx);
    const size = width * height * 4;
    buffer = m.wasmExports.malloc(size);
    if (!buffer) throw new Error(`PDFium cannot allocate a ${width} × ${height} bitmap`);
    bitmap = m._FPDFBitmap_CreateEx(width, height, FPDF_BITMAP_BGRA, buffer, width * 4);
    if (!bitmap) throw new Error(`PDFium cannot create a ${width} × ${height} bitmap`);
    m._FPDFBitmap_FillRect(bitmap, 0, 0, width, height, transparent ? 0x00000000 : 0xffffffff);
    m._FPDF_RenderPageBitmap(bitmap, pageIdx, 0, 0, width, height, 0, FPDF_PRINTING | FPDF_REVERSE_BYTE_ORDER | (annotations ? FPDF_ANNOT : 0));
    // A copy: the heap may grow (and move) with the next allocation.
    return { data: m.HEAPU8.slice(buffer, buffer + size), width, height, channels: 4 };
  } finally {
    if (bitmap) m._FPDFBitmap_Destroy(bitmap);
    if (buffer) m.wasmExports.free(buffer);
    m._FPDF_ClosePage(pageIdx);
  }
}
