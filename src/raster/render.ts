/** Renders one page with pdf.js onto a canvas of an exact pixel size, white background. */
import { pdfjs, registerCjkFace, type PDFDocumentProxy } from './pdfjs.js';
import { withGraphicsPatches } from './pdfjs-graphics.js';
import type { RawPixels } from './pixels.js';

/** pdf.js draws another page at this index than the page tree walk found there. */
export class PageMismatchError extends Error {}

/** Pixel size of a page of `widthPt` × `heightPt` whose longest side becomes `maxPx`. */
export function fitSize(widthPt: number, heightPt: number, maxPx: number): { width: number; height: number } {
  const scale = maxPx / Math.max(widthPt, heightPt);
  return { width: Math.max(1, Math.round(widthPt * scale)), height: Math.max(1, Math.round(heightPt * scale)) };
}

/**
 * Draws page `pageNumber` as it prints: `intent: 'print'` with `AnnotationMode.ENABLE`, so that
 * annotations with the Print flag — form fields included — are drawn from their appearance
 * streams onto the page, as printers draw them (pdf.js's default keeps form fields for an HTML
 * layer and leaves them off the canvas). `expectRef` ("12 0 R") is the page object our page tree
 * walk found at that place: pdf.js stops counting pages at an unreadable page object, so after
 * one its page N may be another page; then this throws {@link PageMismatchError}. `transparent`:
 * draw on a transparent background instead of white, so that what the page leaves unpainted can be
 * measured (pixels.ts's flattenOnWhite then puts it on paper).
 */
export async function renderWithPdfjs(doc: PDFDocumentProxy, pageNumber: number, maxPx: number, expectRef?: string | null, transparent = false): Promise<RawPixels> {
  if (pageNumber > doc.numPages) throw new PageMismatchError(`pdf.js reads ${doc.numPages} pages: it cannot reach page ${pageNumber}`);
  const page = await doc.getPage(pageNumber);
  try {
    const ref = page.ref ? `${page.ref.num} ${page.ref.gen} R` : null;
    if (expectRef && ref && ref !== expectRef) throw new PageMismatchError(`pdf.js reads object ${ref} as page ${pageNumber}, where the page tree has ${expectRef}`);
    const { AnnotationMode } = await pdfjs();
    // getViewport applies /Rotate and /UserUnit; the view is the CropBox clipped to the MediaBox.
    const unit = page.getViewport({ scale: 1 });
    const { width, height } = fitSize(unit.width, unit.height, maxPx);
    const viewport = page.getViewport({ scale: Math.max(width / unit.width, height / unit.height) });
    const factory = doc.canvasFactory as CanvasFactoryLike;
    const entry = factory.create(width, height);
    try {
      const { canvas, context } = entry;
      // Stretch by the rounding remainder so the page fills every pixel (no unpainted last column).
      const transform = [width / viewport.width, 0, 0, height / viewport.height, 0, 0];
      const task = page.render({
        canvasContext: context as never,
        canvas: canvas as never,
        viewport,
        transform,
        intent: 'print',
        annotationMode: AnnotationMode.ENABLE,
        background: transparent ? 'rgba(0,0,0,0)' : 'white',
      });
      withGraphicsPatches(task, registerCjkFace());
      await task.promise;
      const image = context.getImageData(0, 0, width, height);
      return { data: image.data, width, height, channels: 4 };
    } finally {
      // Frees the canvas's pixels now (a zero-size surface), not when the GC gets to it.
      factory.destroy(entry);
    }
  } finally {
    page.cleanup();
  }
}

interface CanvasEntry {
  canvas: { width: number; height: number };
  context: { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}
/** pdf.js's canvas factory (on @napi-rs/canvas in Node); typed loosely in pdf.js's declarations. */
interface CanvasFactoryLike {
  create(width: number, height: number): CanvasEntry;
  destroy(entry: CanvasEntry): void;
}
