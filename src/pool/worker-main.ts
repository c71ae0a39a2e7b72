/**
 * What runs inside a pool worker: one handler for every task. The PDF's bytes arrive once as a
 * SharedArrayBuffer; each worker parses a document once (pdf-lib for structure and image streams,
 * pdf.js for rendering) and keeps it for the file's other pages.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { PDFDict, PDFDocument, PDFRawStream, PDFRef, ParseSpeeds } from 'pdf-lib';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { inspectPdf } from '../pdf/inspect.js';
import { N, resolve, items, PDFArray, numberOf } from '../pdf/objects.js';
import { renderFromImage } from '../raster/fast-path.js';
import { renderFromFlate, type FlateParms } from '../raster/flate-path.js';
import { captureWarnings, openWithPdfjs, type PDFDocumentProxy } from '../raster/pdfjs.js';
import { analysePixels, type RawPixels } from '../raster/pixels.js';
import { encodePreview } from '../raster/preview.js';
import { renderWithPdfjs } from '../raster/render.js';
import sharp from 'sharp';
import { TaskSchema, type InspectTask, type RenderResult, type RenderTask } from './tasks.js';


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
  pdflib?: Promise<PDFDocument>;
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
  }
  return entry;
}

export default async function handle(message: unknown): Promise<unknown> {
  const task = TaskSchema.parse(message);
  // Starts the task's clock in the pool (it is not charged for its time in the queue).
  if (task.taskId !== undefined) parentPort?.postMessage({ taskStarted: task.taskId });
  return task.kind === 'inspect' ? inspect(task) : render(task);
}

async function inspect(task: InspectTask) {
  const doc = cached(task.docId, task.bytes);
  return inspectPdf(doc.bytes);
}

async function render(task: RenderTask) {
  const started = performance.now();
  const doc = cached(task.docId, task.bytes);
  let pixels: RawPixels | null = null;
  let method: 'pdfjs' | 'image' = 'pdfjs';
  let warnings: string[] = [];
  if (task.plan?.kind === 'flate') {
    const flate = await imageStream(doc, task.plan.ref);
    if (flate && !flate.hasDecode) {
      pixels = await renderFromFlate(flate.data, flate.parms, task.plan, task.maxPx);
      if (pixels) method = 'image';
    }
  } else if (task.plan) {
    const jpeg = await imageStream(doc, task.plan.ref);
    if (jpeg) {
      pixels = await renderFromImage(jpeg.data, task.plan, task.maxPx, jpeg.decodeInverted, task.maxInputPixels);
      if (pixels) method = 'image';
    }
  }
  if (!pixels) {
    if (task.largestImagePixels > task.maxPdfjsImagePixels) {
      throw new Error(
        `the page draws images of ${task.largestImagePixels.toLocaleString('en-US')} pixels in all; decoding them whole would exceed the memory budget of ${task.maxPdfjsImagePixels.toLocaleString('en-US')} pixels`,
      );
    }
    const rendered = await captureWarnings(async () => {
      doc.pdfjs ??= openWithPdfjs(doc.bytes);
      return renderWithPdfjs(await doc.pdfjs, task.page, task.maxPx);
    });
    pixels = rendered.value;
    warnings = rendered.warnings;
    if (++doc.renderedSinceCleanup >= CLEANUP_EVERY_PAGES) {
      doc.renderedSinceCleanup = 0;
      await (await doc.pdfjs)?.cleanup().catch(() => undefined);
    }
  }
  const measured = analysePixels(pixels);
  const preview = task.format ? await encodePreview(pixels, task.format) : null;
  const result: RenderResult = {
    facts: {
      index: task.page,
      widthPx: pixels.width,
      heightPx: pixels.height,
      method,
      ms: Math.round((performance.now() - started) * 10) / 10,
      warnings,
      ...measured,
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

interface ImageStream {
  /** The stream's raw (still encoded) bytes. */
  data: Uint8Array;
  hasDecode: boolean;
  /** Its /Decode array inverts the first component ([1 0 …]). */
  decodeInverted: boolean;
  /** Its /DecodeParms (Flate row prediction). */
  parms: FlateParms;
}

/** The raw bytes of an image XObject, with what its /Decode and /DecodeParms say. */
async function imageStream(doc: CachedDoc, refLabel: string): Promise<ImageStream | null> {
  doc.pdflib ??= PDFDocument.load(doc.bytes, {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false,
    parseSpeed: ParseSpeeds.Fastest,
  });
  const pdf = await doc.pdflib;
  if (pdf.context.trailerInfo.Encrypt) return null; // encrypted streams: pdf.js decrypts them
  const [num, gen] = refLabel.split(' ').map(Number);
  const stream = pdf.context.lookup(PDFRef.of(num!, gen!));
  if (!(stream instanceof PDFRawStream)) return null;
  const decode = resolve(pdf.context, stream.dict.get(N('Decode')));
  const values = decode instanceof PDFArray ? items(pdf.context, decode).map(numberOf) : [];
  const decodeInverted = values.length > 0 && values[0] === 1 && values[1] === 0;
  const parmsDict = resolve(pdf.context, stream.dict.get(N('DecodeParms')));
  const parm = (key: string, fallback: number) => {
    const v = parmsDict instanceof PDFDict ? numberOf(resolve(pdf.context, parmsDict.get(N(key)))) : undefined;
    return v ?? fallback;
  };
  const parms = { predictor: parm('Predictor', 1), colors: parm('Colors', 1), bitsPerComponent: parm('BitsPerComponent', 8), columns: parm('Columns', 1) };
  return { data: stream.contents, hasDecode: decode !== undefined, decodeInverted, parms };
}


