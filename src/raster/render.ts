/** Renders one page with pdf.js onto a canvas of an exact pixel size, white background. */
import type { PDFDocumentProxy } from './pdfjs.js';
import type { RawPixels } from './pixels.js';

/** Pixel size of a page of `widthPt` × `heightPt` whose longest side becomes `maxPx`. */
export function fitSize(widthPt: number, heightPt: number, maxPx: number): { width: number; height: number } {
  const scale = maxPx / Math.max(widthPt, heightPt);
  return { width: Math.max(1, Math.round(widthPt * scale)), height: Math.max(1, Math.round(heightPt * scale)) };
}

/**
 * `transparent`: draw on a transparent background instead of white, so that what the page leaves
 * unpainted can be measured (pixels.ts's flattenOnWhite then puts it on paper).
 */
export async function renderWithPdfjs(doc: PDFDocumentProxy, pageNumber: number, maxPx: number, transparent = false): Promise<RawPixels> {
  const page = await doc.getPage(pageNumber);
  try {
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
      await page.render({ canvasContext: context as never, canvas: canvas as never, viewport, transform, intent: 'print', background: transparent ? 'rgba(0,0,0,0)' : 'white' })
        .promise;
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
