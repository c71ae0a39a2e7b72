/**
 * Which engine draws a page. There is one way in for callers — a render task — and three
 * engines behind it; the report names the one that drew each page (`raster.method`):
 * - `image`: the page is one JPEG covering it (fast-path.ts): sharp decodes it with shrink-on-load.
 * - `pdfium`: pages of vector art. PDFium (WebAssembly) paints paths 3–4× faster than pdf.js.
 * - `pdfjs`: everything else, and whatever PDFium fails on. pdf.js keeps the pages whose fonts are
 *   embedded, because its warnings about unreadable fonts are what `font-unusable` reports, and
 *   pages with large images, which PDFium decodes whole into a WebAssembly heap that never shrinks.
 */
import type { PageFacts } from '../pdf/facts.js';

export type Renderer = 'image' | 'pdfium' | 'pdfjs';

/** Pages drawing an image with more pixels than this stay with pdf.js (4,000 × 4,000). */
export const PDFIUM_MAX_IMAGE_PIXELS = 16_000_000;

/** The engine for a page that the image fast path does not take (or gives back). */
export function pageRenderer(page: Pick<PageFacts, 'fonts' | 'images'>): 'pdfium' | 'pdfjs' {
  if (page.fonts.some((f) => f.embedded)) return 'pdfjs';
  if (page.images.some((i) => i.widthPx * i.heightPx > PDFIUM_MAX_IMAGE_PIXELS)) return 'pdfjs';
  return 'pdfium';
}
