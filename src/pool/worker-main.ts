/**
 * What runs inside a pool worker: one handler for every task. The PDF's bytes arrive once as a
 * SharedArrayBuffer; each worker parses a document once (pdf-lib for structure and image streams,
 * PDFium or pdf.js for rendering) and keeps it for the file's other pages. Each library is imported
 * by the first task that needs it: a worker that only draws JPEG pages loads sharp and nothing else.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { PDFContext, PDFRawStream } from '../pdf/pdf-lib.js';
import type { PDFDocumentProxy } from '../raster/pdfjs.js';
import type { PdfiumHandle } from '../raster/pdfium.js';
import type { ImageDetail } from '../raster/image-detail.js';
import type { PixelFacts, RasterFacts } from '../raster/facts.js';
import { analysePixels, flattenOnWhite, type RawPixels, type UnpaintedGrid } from '../raster/pixels.js';
import { encodePreview } from '../raster/preview.js';
import type { InspectTask, ProbeImageTask, RenderAnswer, RenderResult, Task, TaskFailed, RenderTask, TransformTask } from './tasks.js';
import { grouped } from '../util/text.js';

/*
 * What a page needs is imported by the first page that needs it: pdf-lib and the image paths for a
 * page drawn from its image, PDFium for a vector page, pdf.js for the rest. A worker drawing a
 * vector page with a PNG preview loads neither pdf-lib, sharp nor pdf.js.
 */
const imagePaths = () =>
  Promise.all([
    import('../raster/fast-path.js'),
    import('../raster/image-stream.js'),
    import('../raster/flate-path.js'),
    import('../pdf/parse.js'),
    import('../pdf/objects.js'),
    import('../pdf/decode-budget.js'),
    import('../raster/ccitt-path.js'),
  ]);
const pdfjsRenderer = () => Promise.all([import('../raster/pdfjs.js'), import('../raster/render.js')]);
const pdfiumRenderer = () => import('../raster/pdfium.js');

/**
 * pdf.js keeps per-document native memory (font glyph paths and other common objects) that grows
 * with every page rendered — about 5 MB per catalogue page — and only doc.cleanup() frees it.
 * Cleaning every few pages keeps a worker's memory independent of the page count, at the cost of
 * loading the document's fonts again now and then.
 */
const CLEANUP_EVERY_PAGES = 8;

interface CachedDoc {
  bytes: Uint8Array;
  /** A repaired copy of the file (no second repair of it). */
  isRepair?: boolean;
  /** Pages rendered by pdf.js since its last cleanup. */
  renderedSinceCleanup: number;
  pdfjs?: Promise<PDFDocumentProxy>;
  pdflib?: Promise<PDFContext>;
  pdfium?: Promise<PdfiumHandle>;
  /** PDFium's handle on the file's chain copy (convert/chain-copy.ts), for pages that draw DeviceCMYK. */
  pdfiumChain?: Promise<PdfiumHandle>;
  /** The chain copy's bytes, made once per file (a fresh PDFium instance opens them again). */
  chainBytes?: Promise<Uint8Array>;
  /** The file written out again from its recovered objects, when neither engine could open it (raster/repair.ts); null when it cannot be. */
  repaired?: Promise<CachedDoc | null>;
  /** What the image detail measurements of this file have decoded in this worker. */
  detailBudget?: import('../pdf/decode-budget.js').DecodeBudget;
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
    for (const handle of [old.pdfium, old.pdfiumChain]) handle?.then(async (h) => (await pdfiumRenderer()).isLive(h) && h.doc.destroy()).catch(() => undefined);
  }
  return entry;
}

export default async function handle(message: unknown): Promise<unknown> {
  try {
    return await runTask(message);
  } catch (error) {
    return { taskFailed: (error instanceof Error ? error.message : String(error)).split('\n')[0]! } satisfies TaskFailed;
  }
}

/** Kinds of task a worker runs. */
const KINDS = new Set(['inspect', 'render', 'warm', 'transform', 'probe-image']);

/**
 * The task as the pool built it (pool.ts types every task it sends, and validates every answer it
 * gets back): the worker checks only its kind, so no schema library loads on a worker's start-up.
 */
function taskOf(message: unknown): Task {
  const m = (message ?? {}) as { kind?: unknown; bytes?: unknown; docId?: unknown; page?: unknown; maxSidePx?: unknown };
  const kind = m.kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) throw new Error(`not a task: ${typeof kind === 'string' ? kind.slice(0, 40) : typeof message}`);
  if (kind === 'warm') return message as Task;
  // What every task reads before anything else: its bytes, shared; a document id; a page from 1.
  if (!(m.bytes instanceof SharedArrayBuffer)) throw new Error(`a ${kind} task without its bytes in shared memory`);
  if (kind !== 'transform' && kind !== 'probe-image' && (typeof m.docId !== 'string' || !m.docId)) throw new Error(`a ${kind} task without a document id`);
  if (kind === 'probe-image' && !(Number.isInteger(m.maxSidePx) && (m.maxSidePx as number) >= 1)) throw new Error('a probe-image task without a largest side from 1');
  if (kind === 'render' && !(Number.isInteger(m.page) && (m.page as number) >= 1)) throw new Error('a render task without a page number from 1');
  return message as Task;
}

async function runTask(message: unknown): Promise<unknown> {
  const task = taskOf(message);
  if (task.kind === 'warm') return null;
  // Starts the task's clock in the pool (it is not charged for its time in the queue).
  if (task.taskId !== undefined) parentPort?.postMessage({ taskStarted: task.taskId });
  if (task.kind === 'transform') return transform(task);
  if (task.kind === 'probe-image') return probe(task);
  return task.kind === 'inspect' ? inspect(task) : render(task);
}

/** A fix, reorder or assembly of the task's bytes; the output bytes are handed over, not copied. */
async function transform(task: TransformTask) {
  const { runTransform, answerBuffers } = await import('../convert/transform.js');
  const answer = await runTransform(new Uint8Array(task.bytes), task.op, task.limits);
  const buffers = answerBuffers(answer);
  if (!buffers.length) return answer;
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return answer;
    },
  } as never);
}

/** An untrusted image's size and whether it decodes (raster/image-probe.ts): facts, judged by the caller. */
async function probe(task: ProbeImageTask) {
  const { probeImage } = await import('../raster/image-probe.js');
  return probeImage(new Uint8Array(task.bytes), task.maxSidePx);
}

/** What reading a file's structure loads: pdf-lib's parser, the content interpreter, the image streams. */
const inspectModules = () => Promise.all([import('../pdf/inspect.js'), import('../source/read.js'), import('../raster/image-stream.js')]);
// Every file's first task reads its structure: those modules load as the worker starts, before it
// tells piscina it is ready. Loaded on its first task instead, they would wait for the calling
// thread to hand that task over, which a CLI still loading its own modules does late.
await inspectModules();

async function inspect(task: InspectTask) {
  const doc = cached(task.docId, task.bytes);
  const [{ inspectPdf }, { sha256Hex }, { jpegLocations }] = await inspectModules();
  const options = task.options ?? {};
  let context: PDFContext | undefined;
  const facts = await inspectPdf(doc.bytes, {
    onDocument: (c) => (context = c),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.maxHiddenImagePixels ? { scan: { maxHiddenImagePixels: options.maxHiddenImagePixels } } : {}),
  });
  // The parse is kept for this file's other tasks in this worker (a Flate page reads its image from it).
  if (context) doc.pdflib ??= Promise.resolve(context);
  const jpegs = context ? jpegLocations(context, doc.bytes, facts.pages) : {};
  return { facts, sha256: sha256Hex(doc.bytes), jpegs };
}

async function render(task: RenderTask) {
  const started = performance.now();
  const doc = cached(task.docId, task.bytes);
  let pixels: RawPixels | null = null;
  let method: RasterFacts['method'] = 'pdfjs';
  let warnings: string[] = [];
  let notStreamed = '';
  if (task.plan && task.jpeg) {
    // Where the structure read found the JPEG (or its bytes): nothing else of the file is needed.
    const { renderFromImage } = await import('../raster/fast-path.js');
    const data = task.jpeg.data ?? jpegAt(doc.bytes, task.jpeg.at!);
    pixels = await renderFromImage(data, task.plan, task.maxPx, task.jpeg.decodeInverted, task.maxInputPixels, task.jpeg.interpolate ?? false);
    if (pixels) method = 'image';
  } else if (task.plan) {
    // Not located by the structure read (encrypted, or a Flate image): read from this worker's parse.
    const [{ renderFromImage }, { imageXObject, jpegStreamOf }, flatePath, { parsePdf }, objects, { DecodeBudget }, ccittPath] = await imagePaths();
    doc.pdflib ??= parsePdf(doc.bytes, new DecodeBudget(task.limits));
    const context = await doc.pdflib;
    const stream = imageXObject(context, task.plan.ref);
    const found: { context: PDFContext; stream: PDFRawStream } | null = stream ? { context, stream } : null;
    if (found && isDct(objects, found.context, found.stream)) {
      const jpeg = jpegStreamOf(found.context, found.stream);
      pixels = await renderFromImage(jpeg.data, task.plan, task.maxPx, jpeg.decodeInverted, task.maxInputPixels, jpeg.interpolate);
    } else if (found) {
      const fax = ccittPath.readCcittImage(found.context, found.stream);
      const flate = fax ? null : flatePath.readFlateImage(found.context, found.stream);
      try {
        pixels = fax ? await ccittPath.renderFromCcitt(fax, task.plan, task.maxPx) : flate && (await flatePath.renderFromFlate(flate, task.plan, task.maxPx));
      } catch (error) {
        if (!(error instanceof flatePath.FlateFallback) && !(error instanceof ccittPath.CcittFallback)) throw error;
        notStreamed = `${flatePath.IMAGE_UNREADABLE} (${error.message})`;
      }
    }
    if (pixels) method = 'image';
  }
  if (!pixels) {
    if (task.largestImagePixels > task.maxPdfjsImagePixels) {
      const budget = `decoding ${notStreamed ? 'it' : 'them'} whole would exceed the memory budget of ${grouped(task.maxPdfjsImagePixels)} pixels`;
      if (notStreamed) return { declined: 'image-unreadable', detail: `${notStreamed}, and ${budget}` } satisfies RenderAnswer;
      throw new Error(`the page draws images of ${grouped(task.largestImagePixels)} pixels in all; ${budget}`);
    }
  }
  let measured: PixelFacts | undefined;
  let approximate: string | null = null;
  let unpainted: UnpaintedGrid | null = null;
  if (!pixels) {
    const drawn = await drawWithEngines(doc, task);
    ({ pixels, method, warnings, measured, unpainted } = drawn);
    approximate = drawn.approximate;
  }
  // The preview is encoded on libuv's threads while this thread measures the same pixels.
  // The engines drew on a transparent background, measured what stayed unpainted and put the
  // drawing on white (drawWithEngines); the image paths' pixels are measured here the same way.
  if (method === 'image') unpainted = flattenOnWhite(pixels);
  const encoding = task.format ? encodePreview(pixels, task.format) : null;
  encoding?.catch(() => undefined); // handled below; never unhandled if measuring throws first
  measured ??= analysePixels(pixels);
  const imageDetail = task.detail?.length ? await measureDetail(doc, task, pixels) : undefined;
  const encoded = encoding ? await encoding : null;
  // The encoder's bytes may live in memory Node will not hand to another thread (its Buffer pool,
  // or memory it marks untransferable): on Node 24 transferring them throws DataCloneError, which
  // made every preview drawn in a worker fail. Hand over a copy this worker owns (a preview is a
  // few hundred KB; the copy costs far less than encoding it).
  const preview = encoded ? new Uint8Array(encoded) : null;
  const result: RenderResult = {
    facts: {
      index: task.page,
      widthPx: pixels.width,
      heightPx: pixels.height,
      method,
      ms: Math.round((performance.now() - started) * 10) / 10,
      warnings,
      ...measured,
      ...(approximate ? { approximate } : {}),
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

interface Drawn {
  pixels: RawPixels;
  method: 'pdfium' | 'pdfjs';
  warnings: string[];
  measured: PixelFacts;
  /** What the page left unpainted (drawn on a transparent background, then put on white). */
  unpainted: UnpaintedGrid | null;
  /**
   * What pdf.js said it could not draw: an image it could not decode (left out).
   */
  degraded: { kind: 'image'; warning: string } | null;
}

/**
 * The page drawn by the plan's engines (raster/renderer.ts): the first, and the fallback when the
 * first fails, cannot reach the page, draws it empty although its content paints (`task.expect`),
 * or cannot decode one of its images. Of the drawings made, one with an image missing counts last,
 * then the one with more ink; it says
 * why it may differ from print.
 */
async function drawWithEngines(doc: CachedDoc, task: RenderTask): Promise<Omit<Drawn, 'degraded'> & { approximate: string | null }> {
  // A task without a plan for the fallback (an older caller) keeps the old rule: pdf.js after PDFium.
  const fallback = task.fallback !== undefined ? task.fallback : task.renderer === 'pdfium' ? 'pdfjs' : null;
  const engines = [task.renderer ?? 'pdfjs', ...(fallback ? [fallback] : [])].filter((e, i, all) => all.indexOf(e) === i);
  const drawings: Drawn[] = [];
  const failures: string[] = [];
  for (const engine of engines) {
    try {
      const drawn = engine === 'pdfium' ? await drawWithPdfium(doc, task) : await drawWithPdfjs(doc, task);
      drawings.push(drawn);
      if (!wantsSecondLook(drawn, task)) break;
    } catch (error) {
      failures.push(`${engine === 'pdfium' ? 'PDFium' : 'pdf.js'}: ${((error as Error).message ?? String(error)).split('\n')[0]}`);
    }
  }
  const blankInk = task.expect?.blankInk ?? 0;
  const best = drawings.reduce<Drawn | undefined>((a, b) => (!a || rank(b, blankInk) > rank(a, blankInk) ? b : a), undefined);
  if (!best) {
    // Neither engine could open the file: draw it from a copy repaired as MuPDF and Ghostscript repair it.
    const { cannotOpen, repairedCopy } = await import('../raster/repair.js');
    if (!doc.isRepair && cannotOpen(failures)) {
      doc.repaired ??= (async () => {
        const [, , , { parsePdf }, , { DecodeBudget }] = await imagePaths();
        doc.pdflib ??= parsePdf(doc.bytes, new DecodeBudget(task.limits));
        const bytes = await repairedCopy(await doc.pdflib);
        return bytes ? { bytes, renderedSinceCleanup: 0, isRepair: true } : null;
      })().catch(() => null);
      const repaired = await doc.repaired;
      if (repaired) {
        const drawn = await drawWithEngines(repaired, task);
        const note = `the file is damaged (${failures.join('; ')}): drawn from a copy repaired from its objects, as MuPDF and Ghostscript draw it`;
        return { ...drawn, warnings: [note, ...drawn.warnings] };
      }
    }
    throw new Error(failures.join('; '));
  }
  const missing = best.degraded?.kind === 'image' ? best.degraded.warning : null;
  // What every engine tried said stays in the facts (the report's raster warnings).
  const warnings = [...new Set(drawings.flatMap((d) => d.warnings))];
  return { ...best, warnings, approximate: missing ? `an image could not be decoded and is missing from the preview (${missing})` : null };
}

/**
 * A drawing with ink beats an empty one; among those with ink, one without an image missing beats
 * one with; among empty ones, one whose engine said what it could not draw
 * beats one that says nothing (the emptiness then has a reason: page-render-failed, not blank).
 */
function rank(d: Drawn, blankInk: number): number {
  const ink = d.measured.inkCoverage;
  if (ink <= blankInk) return d.degraded ? 1 : 0;
  return 10 + (d.degraded ? 0 : 4) + ink;
}

function wantsSecondLook(drawn: Drawn, task: RenderTask): boolean {
  if (drawn.degraded) return true;
  const expect = task.expect;
  if (!expect || drawn.measured.inkCoverage > expect.blankInk) return false;
  return expect.ink > expect.blankInk || expect.images > expect.blankInk;
}

async function drawWithPdfjs(doc: CachedDoc, task: RenderTask): Promise<Drawn> {
  const [{ captureWarnings, isImageFailure, openWithPdfjs }, { renderWithPdfjs }] = await pdfjsRenderer();
  const rendered = await captureWarnings(async () => {
    doc.pdfjs ??= openWithPdfjs(doc.bytes);
    return renderWithPdfjs(await doc.pdfjs, task.page, task.maxPx, task.pageRef, true);
  });
  if (++doc.renderedSinceCleanup >= CLEANUP_EVERY_PAGES) {
    doc.renderedSinceCleanup = 0;
    await (await doc.pdfjs)?.cleanup().catch(() => undefined);
  }
  // Which embedded fonts can be drawn is judged from the fonts themselves (font-unusable), not from
  // pdf.js's hinting complaints: only an image left out asks for a second look.
  const image = rendered.warnings.find(isImageFailure);
  const degraded = image ? { kind: 'image' as const, warning: image } : null;
  const unpainted = flattenOnWhite(rendered.value);
  return { pixels: rendered.value, method: 'pdfjs', warnings: rendered.warnings, measured: analysePixels(rendered.value), unpainted, degraded };
}

/** The file's chain copy (its DeviceCMYK as ICCBased with the chain's profile); the file itself when it cannot be made or has nothing to rewrite. */
function chainBytes(doc: CachedDoc, task: RenderTask): Promise<Uint8Array> {
  doc.chainBytes ??= import('../convert/chain-copy.js').then(async ({ chainCopy }) => (await chainCopy(doc.bytes, task.limits).catch(() => null)) ?? doc.bytes);
  return doc.chainBytes;
}

/**
 * The page drawn by PDFium. After a failure the worker drops its PDFium instance: a trap may have
 * left its heap inconsistent.
 */
async function drawWithPdfium(doc: CachedDoc, task: RenderTask): Promise<Drawn> {
  const { PDFIUM_KEEP_HEAP_BYTES, isLive, openWithPdfium, pdfiumHeapBytes, renderWithPdfium, resetPdfium } = await pdfiumRenderer();
  // A page that draws DeviceCMYK is drawn from the chain copy: PDFium converts its CMYK through the
  // chain's profile (lcms), where the colour fix and the mockups put it, not by its own formula.
  const field = task.cmykChain ? 'pdfiumChain' : 'pdfium';
  try {
    const open = doc[field];
    if (open && !isLive(await open.catch(() => ({ generation: -1 }) as PdfiumHandle))) doc[field] = undefined;
    doc[field] ??= (task.cmykChain ? chainBytes(doc, task) : Promise.resolve(doc.bytes)).then(openWithPdfium);
    const pixels = await renderWithPdfium(await doc[field]!, task.page, task.maxPx, { annotations: task.annotations ?? false, transparent: true });
    if ((await pdfiumHeapBytes()) > PDFIUM_KEEP_HEAP_BYTES) {
      doc.pdfium = undefined;
      doc.pdfiumChain = undefined;
      resetPdfium();
    }
    const unpainted = flattenOnWhite(pixels);
    return { pixels, method: 'pdfium', warnings: [], measured: analysePixels(pixels), unpainted, degraded: null };
  } catch (error) {
    doc.pdfium = undefined;
    doc.pdfiumChain = undefined;
    resetPdfium();
    throw error;
  }
}

/**
 * The detail of the page's images (image-upscaled), whatever their filters (raster/image-band.ts);
 * an image that cannot be read is left out. Its data is decoded under this file's decode budget.
 */
async function measureDetail(doc: CachedDoc, task: RenderTask, page: RawPixels): Promise<ImageDetail[]> {
  const [{ measureJpegDetail }, { measureStreamDetail }, { placedOverview }] = await Promise.all([
    import('../raster/image-detail.js'),
    import('../raster/image-band.js'),
    import('../raster/overview.js'),
  ]);
  // A page drawn upright from its one image shows that image: its preview says where the detail is.
  const [a, b, c, d] = task.plan?.ctm ?? [0, 0, 0, 0];
  const upright = task.plan && task.plan.rotate === 0 && a > 0 && d > 0 && Math.abs(b) < 1e-9 && Math.abs(c) < 1e-9 ? page : null;
  const out: ImageDetail[] = [];
  for (const request of task.detail ?? []) {
    // Any other image drawn upright on the page: the part of the drawing where it lands.
    const overview = task.plan?.ref === request.ref ? upright : request.placed ? placedOverview(page, request.placed, request.widthPx, request.heightPx) : null;
    // The plan's JPEG as the caller sent it, or where the structure read found it in the file.
    const jpeg = task.jpeg && task.plan?.ref === request.ref ? (task.jpeg.data ?? (task.jpeg.at ? jpegAt(doc.bytes, task.jpeg.at) : null)) : null;
    let measured: ImageDetail | null = null;
    if (jpeg) measured = await measureJpegDetail(jpeg, request, task.maxInputPixels, overview).then((m) => m && { ...m, kind: 'jpeg' as const });
    else {
      const found = await imageStream(doc, request.ref, task.limits).catch(() => null);
      if (!found) continue;
      doc.detailBudget ??= new (await import('../pdf/decode-budget.js')).DecodeBudget(task.limits);
      measured = await measureStreamDetail(found.context, found.stream, request, { budget: doc.detailBudget, maxInputPixels: task.maxInputPixels, overview }).catch(() => null);
    }
    if (measured) out.push(measured);
  }
  return out;
}

/** Image XObject `refLabel` of the worker's pdf-lib copy of the document (parsed under the task's decode limits); null when encrypted or not a stream. */
async function imageStream(doc: CachedDoc, refLabel: string, limits: RenderTask['limits']): Promise<{ context: PDFContext; stream: PDFRawStream } | null> {
  const [, { imageXObject }, , { parsePdf }, , { DecodeBudget }] = await imagePaths();
  doc.pdflib ??= parsePdf(doc.bytes, new DecodeBudget(limits));
  const context = await doc.pdflib;
  const stream = imageXObject(context, refLabel);
  return stream ? { context, stream } : null;
}

/** Whether an image stream's first filter is DCTDecode (a JPEG). */
function isDct(objects: typeof import('../pdf/objects.js'), context: PDFContext, stream: PDFRawStream): boolean {
  const filter = objects.get(context, stream.dict, 'Filter');
  const name = filter instanceof objects.PDFArray ? objects.resolve(context, filter.get(0)) : filter;
  return objects.nameOf(name) === 'DCTDecode';
}

/** The JPEG at [offset, length] of the file's bytes (a view: the stream is read where it lies). */
function jpegAt(bytes: Uint8Array, [offset, length]: [number, number]): Uint8Array {
  if (offset + length > bytes.length) throw new Error(`the JPEG at ${offset} (${length} bytes) lies past the end of the file`);
  return bytes.subarray(offset, offset + length);
}
