/**
 * Which engine draws a page. There is one way in for callers — a render task — and three
 * engines behind it; the report names the one that drew each page (`raster.method`):
 * - `image`: the page is one JPEG covering it (fast-path.ts): sharp decodes it with shrink-on-load.
 * - `pdfium`: pages of vector art. PDFium (WebAssembly) paints paths 3–4× faster than pdf.js.
 * - `pdfjs`: everything else, and whatever PDFium fails on. pdf.js keeps the pages whose fonts are
 *   embedded, because its warnings about unreadable fonts are what `font-unusable` reports, and
 *   pages with large images or very many paths, which PDFium would hold in a WebAssembly heap
 *   that the worker's heap cap does not bound, and pages with ICC-based images, which PDFium draws
 *   slower. (One-JPEG pages, the usual ICC-based ones, go to the image fast path first.)
 */
import type { PageFacts } from '../pdf/facts.js';

export type Renderer = 'image' | 'pdfium' | 'pdfjs';

/** Pages drawing an image with more pixels than this stay with pdf.js (4,000 × 4,000). */
export const PDFIUM_MAX_IMAGE_PIXELS = 16_000_000;
/**
 * Pages with more painting operators than this stay with pdf.js, whose memory the worker's heap
 * cap bounds (a page too heavy for it gets `pdf-too-complex`). PDFium keeps ~330 bytes per path
 * in a WebAssembly heap outside that cap: a million paths is ~330 MB.
 */
export const PDFIUM_MAX_PAINT_OPERATORS = 1_000_000;

/** The engine for a page that the image fast path does not take (or gives back). */
export function pageRenderer(page: Pick<PageFacts, 'fonts' | 'images' | 'colours'>): 'pdfium' | 'pdfjs' {
  if (page.images.some((i) => i.widthPx * i.heightPx > PDFIUM_MAX_IMAGE_PIXELS)) return 'pdfjs';
  if (page.colours.reduce((n, c) => n + c.count, 0) > PDFIUM_MAX_PAINT_OPERATORS) return 'pdfjs';
  // PDFium builds an lcms transform in WebAssembly for an ICC-based image: 0.4–2 s for a 400-px
  // image in bench/renderers.mjs, where pdf.js takes 0.1–1 s.
  if (page.images.some((i) => i.colourSpace?.family === 'ICCBased')) return 'pdfjs';
  return 'pdfium';
}
