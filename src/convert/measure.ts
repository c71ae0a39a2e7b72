/**
 * Every fix measured: each changed page drawn before and after by one engine (PDFium, as most
 * previews are drawn, else pdf.js; at a small size, in the worker that made the fix) and compared in ΔE00 (model/difference.ts). A page the
 * engine would spend long on — an image over 16 megapixels, a content stream over 4 MB — or past
 * the measuring's own time is not measured; its change says so by carrying no difference.
 */
import type { PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFArray, PDFName, PDFRawStream, type PDFPage } from '../pdf/pdf-lib.js';
import { getNumber, items, resolve } from '../pdf/objects.js';
import { compareDrawings, type PageDifference } from '../model/difference.js';
import type { ChangeCode } from '../model/codes.js';
import { captureWarnings, openWithPdfjs, type PDFDocumentProxy } from '../raster/pdfjs.js';
import type { RawPixels } from '../raster/pixels.js';
import { openWithPdfium, renderWithPdfium } from '../raster/pdfium.js';
import { renderWithPdfjs } from '../raster/render.js';
import { loadSharp } from '../raster/sharp.js';
import { chainCopy } from './chain-copy.js';
import { imageRefs } from './image-refs.js';

/** Longest side of the drawings compared (px): enough for colour and placement, cheap to draw. */
export const MEASURE_PX = 200;
/** Pages with an image of more pixels are not measured (pdf.js decodes images whole). */
const MAX_MEASURED_IMAGE_PIXELS = 16_000_000;
/** Pages whose content streams hold more bytes are not measured. */
const MAX_MEASURED_CONTENT_BYTES = 4 * 1024 * 1024;
/** The measuring of one fix stops after this long: later pages are not measured. */
const MEASURE_BUDGET_MS = 8_000;

/** What a change does to what prints, for its bound: colour (converted, resampled) or geometry (as it showed). */
export type ChangeKind = 'colour' | 'geometry' | 'layout';

/** The kind of each fixable code's change; `layout` changes move the design on purpose and are not compared. */
export function changeKind(code: ChangeCode): ChangeKind | null {
  switch (code) {
    case 'colour-space-not-rgb':
    case 'image-too-large':
    case 'file-too-large':
      return 'colour';
    case 'page-rotate-set':
    case 'page-scale-mismatch':
    case 'page-order-mismatch':
      return 'geometry';
    case 'page-orientation-mismatch':
    case 'page-size-mismatch':
    // The bleed added around the design: the page grows, so its drawing is not the original's.
    case 'page-bleed-missing':
      return 'layout';
    default:
      return null;
  }
}

/** Whether pdf.js can draw `page` within the measuring's bounds (its images and content, as the file declares them). */
function measurable(doc: PDFDocument, page: PDFPage): boolean {
  const context = doc.context;
  for (const ref of imageRefs(doc, page)) {
    const dict = (resolve(context, ref) as PDFRawStream | undefined)?.dict;
    const px = (getNumber(context, dict, 'Width') ?? 0) * (getNumber(context, dict, 'Height') ?? 0);
    if (!(px <= MAX_MEASURED_IMAGE_PIXELS)) return false;
  }
  const contents = resolve(context, page.node.get(PDFName.of('Contents')));
  const streams = contents instanceof PDFArray ? items(context, contents) : [contents];
  const bytes = streams.reduce((sum, s) => sum + (s instanceof PDFRawStream ? s.contents.length : 0), 0);
  return bytes <= MAX_MEASURED_CONTENT_BYTES;
}

/**
 * Draws `pages` (1-based, the same index in both files) of the original and the fixed file and
 * measures each; a page that cannot be drawn, or is not measurable, is left out of the answer.
 * @example
 * const measured = await measurePages(original, fixed, fixedDoc, [1, 3]); // Map page → difference
 */
export async function measurePages(original: Uint8Array, fixed: Uint8Array, fixedDoc: PDFDocument, pages: number[], only?: 'pdfjs'): Promise<Map<number, PageDifference>> {
  const out = new Map<number, PageDifference>();
  const docPages = fixedDoc.getPages();
  const wanted = pages.filter((p) => docPages[p - 1] && measurable(fixedDoc, docPages[p - 1]!));
  if (!wanted.length) return out;
  const started = performance.now();
  const engines: ((bytes: Uint8Array) => Promise<Drawer>)[] = only === 'pdfjs' ? [pdfjsDrawer] : [pdfiumDrawer, pdfjsDrawer];
  for (const open of engines) {
    let pair: [Drawer, Drawer] | undefined;
    try {
      pair = [await open(original), await open(fixed)];
      for (const page of wanted) {
        if (out.has(page)) continue;
        if (performance.now() - started > MEASURE_BUDGET_MS) return out;
        try {
          const a = await pair[0].draw(page);
          const b = await sameSize(await pair[1].draw(page), a.width, a.height);
          out.set(page, compareDrawings(a, b, a.width * a.height));
        } catch {
          // not drawn by this engine: the next one tries
        }
      }
    } catch {
      // a file this engine cannot open: the next one tries
    } finally {
      await pair?.[0].close();
      await pair?.[1].close();
    }
    if (out.size === wanted.length) break;
  }
  return out;
}

/** One file opened by one engine: pages drawn at {@link MEASURE_PX}. */
interface Drawer {
  draw(page: number): Promise<RawPixels>;
  close(): Promise<void>;
}

/** PDFium first: it draws most pages of the previews (raster/renderer.ts), so before and after compare as the customer sees them. */
async function pdfiumDrawer(bytes: Uint8Array): Promise<Drawer> {
  // Its CMYK through the chain (chain-copy.ts): PDFium's own CMYK formula is not where the fix puts colours.
  const handle = await openWithPdfium((await chainCopy(bytes).catch(() => null)) ?? bytes);
  return { draw: (page) => renderWithPdfium(handle, page, MEASURE_PX), close: async () => handle.doc.destroy() };
}

/** pdf.js for what PDFium cannot open or draw; its warnings about the file are the check's business, not the measuring's. */
async function pdfjsDrawer(bytes: Uint8Array): Promise<Drawer> {
  const doc: PDFDocumentProxy = (await captureWarnings(() => openWithPdfjs(bytes))).value;
  return { draw: async (page) => (await captureWarnings(() => renderWithPdfjs(doc, page, MEASURE_PX))).value, close: () => doc.destroy() };
}

/** A drawing at the other's pixel size (a page scaled to its layer can round to a pixel more or less). */
async function sameSize(d: RawPixels, width: number, height: number): Promise<RawPixels> {
  if (d.width === width && d.height === height) return d;
  const sharp = await loadSharp();
  const { data, info } = await sharp(Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength), { raw: { width: d.width, height: d.height, channels: d.channels as 3 | 4 } })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height, channels: info.channels };
}
