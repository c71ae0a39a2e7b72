/**
 * What runs inside a pool worker: one handler for every task. The PDF's bytes arrive once as a
 * SharedArrayBuffer; each worker parses a document once (pdf-lib for structure and image streams,
 * PDFium or pdf.js for rendering) and keeps it for the file's other pages. Each library is imported
 * by the first task that needs it: a worker that only draws JPEG pages loads sharp and nothing else.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { PDFName, PDFRawStream, parsePdf, type PDFContext } from '../pdf/pdf-lib.js';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { N, resolve, PDFArray } from '../pdf/objects.js';
import { sha256Hex } from '../source/read.js';
import { renderFromImage } from '../raster/fast-path.js';
import { imageXObject, jpegStreamOf } from '../raster/image-stream.js';
import { measureJpegDetail, type ImageDetail } from '../raster/image-detail.js';
import { FlateFallback, IMAGE_UNREADABLE, readFlateImage, renderFromFlate } from '../raster/flate-path.js';
import { captureWarnings, openWithPdfjs, type PDFDocumentProxy } from '../raster/pdfjs.js';
import { PDFIUM_KEEP_HEAP_BYTES, isLive, openWithPdfium, pdfiumHeapBytes, renderWithPdfium, resetPdfium, type PdfiumHandle } from '../raster/pdfium.js';
import type { RasterFacts } from '../raster/facts.js';
import { analysePixels, flattenOnWhite, type RawPixels } from '../raster/pixels.js';
import { encodePreview } from '../raster/preview.js';
import { renderWithPdfjs } from '../raster/render.js';
import sharp from 'sharp';
import { IMAGE_PATH_DECLINED, TaskSchema, type InspectTask, type RenderResult, type RenderTask } from './tasks.js';
import { grouped } from '../util/text.js';


// libvips's operation cache would keep decoded images of earlier pages alive: one page at a time.
sharp.cache(false);

/**
 * pdf.js keeps per-document native memory (font glyph paths and other common objects) that grows
 * with every page rendered — about 5 MB per catalogue page — and only doc.cleanup() frees it.
 * Cleaning every few pages keeps a worker's memory independent of the page count, at the cost of
 * loading the document's fonts again now and then.
 */
const CLEANUP_EVERY_PAGES = 8;

interface CachedDoc {
  bytes: Uint8Array;
  /** Pages rendered by pdf.js since its last cleanup. */
  renderedSinceCleanup: number;
  pdfjs?: Promise<PDFDocumentProxy>;
  pdflib?: Promise<PDFContext>;
  pdfium?: Promise<PdfiumHandle>;
}

const cache = new Map<string, CachedDoc>();
const CACHE_SIZE = 2;

function cached(docId: string, shared: SharedArrayBuffer): CachedDoc {
  let entry = cache.get(docId);
  if (entry) {
    cache.delete(docId); // re-insert: most recently used last
    cache.set(docId, entry);
    return entry;
  }
  entry = { bytes: new Uint8Array(shared), renderedSinceCleanup: 0 };
  cache.set(docId, entry);
  while (cache.size > CACHE_SIZE) {
    const [oldId, old] = cache.entries().next().value as [string, CachedDoc];
    cache.delete(oldId);
    old.pdfjs?.then((d) => d.destroy()).catch(() => undefined);
    old.pdfium?.then((h) => isLive(h) && h.doc.destroy()).catch(() => undefined);
  }
  return entry;
}

export default async function handle(message: unknown): Promise<unknown> {
  const task = TaskSchema.parse(message);
  if (task.kind === 'warm') return null;
  // Starts the task's clock in the pool (it is not charged for its time in the queue).
  if (task.taskId !== undefined) parentPort?.postMessage({ taskStarted: task.taskId });
  return task.kind === 'inspect' ? inspect(task) : render(task);
}

async function inspect(task: InspectTask) {
  const doc = cached(task.docId, task.bytes);
  const { inspectPdf } = await import('../pdf/inspect.js');
  return { facts: await inspectPdf(doc.bytes), sha256: sha256Hex(doc.bytes) };
}

async function render(task: RenderTask) {
  const started = performance.now();
  const doc = cached(task.docId, task.bytes);
  let pixels: RawPixels | null = null;
  let method: RasterFacts['method'] = 'pdfjs';
  let warnings: string[] = [];
  let notStreamed = '';
  if (task.plan) {
    // The caller may have sent the JPEG along (it read the structure itself).
    const found = task.jpeg ? null : await imageObject(doc, task.plan.ref);
    if (task.jpeg || (found && isDct(found.context, found.stream))) {
      const jpeg = task.jpeg ?? jpegStreamOf(found!.context, found!.stream);
      pixels = await renderFromImage(jpeg.data, task.plan, task.maxPx, jpeg.decodeInverted, task.maxInputPixels, jpeg.interpolate ?? false);
    } else if (found) {
      const flate = readFlateImage(found.context, found.stream);
      try {
        pixels = flate && (await renderFromFlate(flate, task.plan, task.maxPx));
      } catch (error) {
        if (!(error instanceof FlateFallback)) throw error;
        notStreamed = error.message;
      }
    }
    if (pixels) method = 'image';
  }
  if (!pixels) {
    if (task.largestImagePixels > task.maxPdfjsImagePixels) {
      const budget = `decoding ${notStreamed ? 'it' : 'them'} whole would exceed the memory budget of ${grouped(task.maxPdfjsImagePixels)} pixels`;
      throw new Error(
        notStreamed
          ? `${IMAGE_UNREADABLE} (${notStreamed}), and ${budget}`
          : `the page draws images of ${grouped(task.largestImagePixels)} pixels in all; ${budget}`,
      );
    }
    if (task.renderer === 'pdfium') {
      pixels = await drawWithPdfium(doc, task.page, task.maxPx);
      if (pixels) method = 'pdfium';
    }
  }
  if (!pixels && task.imageOnly) throw new Error(IMAGE_PATH_DECLINED);
  if (!pixels) {
    const rendered = await captureWarnings(async () => {
      doc.pdfjs ??= openWithPdfjs(doc.bytes);
      return renderWithPdfjs(await doc.pdfjs, task.page, task.maxPx, true);
    });
    pixels = rendered.value;
    warnings = rendered.warnings;
    if (++doc.renderedSinceCleanup >= CLEANUP_EVERY_PAGES) {
      doc.renderedSinceCleanup = 0;
      await (await doc.pdfjs)?.cleanup().catch(() => undefined);
    }
  }
  // The preview is encoded on libuv's threads while this thread measures the same pixels.
  // Renderers drew on a transparent background: what stays unpainted is measured, then put on white.
  const unpainted = flattenOnWhite(pixels);
  const encoding = task.format ? encodePreview(pixels, task.format) : null;
  encoding?.catch(() => undefined); // handled below; never unhandled if measuring throws first
  const measured = analysePixels(pixels);
  const imageDetail = task.detail?.length ? await measureDetail(doc, task, method === 'image' ? pixels : null) : undefined;
  const preview = encoding ? await encoding : null;
  const result: RenderResult = {
    facts: {
      index: task.page,
      widthPx: pixels.width,
      heightPx: pixels.height,
      method,
      ms: Math.round((performance.now() - started) * 10) / 10,
      warnings,
      ...measured,
      ...(unpainted ? { unpainted } : {}),
      ...(imageDetail ? { imageDetail } : {}),
    },
    preview,
  };
  if (!preview) return result;
  // Hand the preview's memory over instead of copying it.
  return move({
    get [transferableSymbol]() {
      return [preview.buffer];
    },
    get [valueSymbol]() {
      return result;
    },
  } as never);
}

/**
 * The page drawn by PDFium, or null when PDFium cannot open or draw it (pdf.js then tries). After
 * a failure the worker drops its PDFium instance: a trap may have left its heap inconsistent.
 */
async function drawWithPdfium(doc: CachedDoc, page: number, maxPx: number): Promise<RawPixels | null> {
  try {
    if (doc.pdfium && !isLive(await doc.pdfium.catch(() => ({ generation: -1 }) as PdfiumHandle))) doc.pdfium = undefined;
    doc.pdfium ??= openWithPdfium(doc.bytes);
    const pixels = await renderWithPdfium(await doc.pdfium, page, maxPx, true);
    if ((await pdfiumHeapBytes()) > PDFIUM_KEEP_HEAP_BYTES) {
      doc.pdfium = undefined;
      resetPdfium();
    }
    return pixels;
  } catch {
    doc.pdfium = undefined;
    resetPdfium();
    return null;
  }
}

/** The detail of the page's JPEG images (image-upscaled); an image that cannot be read is left out. */
async function measureDetail(doc: CachedDoc, task: RenderTask, page: RawPixels | null): Promise<ImageDetail[]> {
  // A page drawn upright from its one image shows that image: its preview says where the detail is.
  const [a, b, c, d] = task.plan?.ctm ?? [0, 0, 0, 0];
  const upright = page && task.plan && task.plan.rotate === 0 && a > 0 && d > 0 && Math.abs(b) < 1e-9 && Math.abs(c) < 1e-9 ? page : null;
  const out: ImageDetail[] = [];
  for (const request of task.detail ?? []) {
    let jpeg = task.jpeg && task.plan?.ref === request.ref ? task.jpeg.data : null;
    if (!jpeg) {
      const found = await imageObject(doc, request.ref).catch(() => null);
      if (!found || !isDct(found.context, found.stream)) continue;
      jpeg = jpegStreamOf(found.context, found.stream).data;
    }
    const measured = await measureJpegDetail(jpeg, request, task.maxInputPixels, task.plan?.ref === request.ref ? upright : null);
    if (measured) out.push(measured);
  }
  return out;
}

/** An image XObject's stream, from the worker's pdf-lib copy of the document; null when encrypted. */
async function imageObject(doc: CachedDoc, refLabel: string): Promise<{ context: PDFContext; stream: PDFRawStream } | null> {
  doc.pdflib ??= parsePdf(doc.bytes);
  const context = await doc.pdflib;
  const stream = imageXObject(context, refLabel);
  return stream ? { context, stream } : null;
}

function isDct(context: PDFContext, stream: PDFRawStream): boolean {
  const filter = resolve(context, stream.dict.get(N('Filter')));
  const name = filter instanceof PDFArray ? resolve(context, filter.get(0)) : filter;
  return name instanceof PDFName && name.asString() === '/DCTDecode';
}

