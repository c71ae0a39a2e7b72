import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InvalidArgumentError, PreflightError } from '../errors.js';
import { PreflightOptionsSchema, TargetSchema, type PreflightOptions, type Target } from '../options.js';
import type { DocumentFacts } from '../pdf/facts.js';
import { TimeBudget } from '../pool/budget.js';
import type { Executor } from '../pool/local.js';
import { IMAGE_PATH_DECLINED, type InspectResult, type JpegLocation } from '../pool/tasks.js';
import type { PDFContext } from '../pdf/pdf-lib.js';
import { defaultPool, PreflightPool, TaskFailure } from '../pool/pool.js';
import { formatPath, registryFrom } from '../profile/load.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import { MAX_FAST_PATH_INPUT_PIXELS, MIN_TILING_CELL_PX, pageDecodePixels, tilingCellPx } from '../raster/budget.js';
import { IMAGE_UNREADABLE, flatePlan, imagePlan } from '../raster/fast-path.js';
import { fallbackRenderer, knownApproximation, pageRenderer, pdfiumDrawsAnnotations } from '../raster/renderer.js';
import { detailRequests, worthMeasuring } from '../raster/image-detail.js';
import { printScaleOf } from '../rules/check-page-size.js';
import type { RasterFacts, RasterFailure } from '../raster/facts.js';
import type { PreviewFormat } from '../raster/preview.js';
import { buildReport, type PreviewRef } from '../report/build.js';
import type { Report } from '../report/schema.js';
import { runChecks } from '../rules/index.js';
import { readSourceBytes, sha256Hex } from '../source/read.js';
import { grouped } from '../util/text.js';
import { DEFAULT_DECODE_LIMITS, tightenLimits, type DecodeLimits } from '../pdf/decode-budget.js';
import type { InspectTaskOptions } from '../pool/tasks.js';
import { localizeReport } from '../messages/catalogue.js';
import { tightenedLimits } from '../profile/tighten.js';
import type { Limits, LimitsOverride } from '../profile/schema.js';

/** A page's preview image, as encoded by the worker. */
export interface Preview {
  bytes: Uint8Array;
  format: PreviewFormat;
  widthPx: number;
  heightPx: number;
}


/**
 * Preflights a print file against a product profile: reads the PDF's structure (pages, boxes,
 * /Rotate, images, colour spaces), rasterises its pages in the worker pool, and runs every check
 * of the service's source-file rules.
 *
 * Problems in the file are findings in the report, never exceptions. It throws a
 * {@link PreflightError} only for misuse: an unknown product, variant or SKU
 * (`ERR_UNKNOWN_*`), an unreadable path (`ERR_INPUT_UNREADABLE`), a broken profile folder
 * (`ERR_PROFILE_INVALID`), bad options (`ERR_INVALID_ARGUMENT`) or an abort (`ERR_ABORTED`).
 * A file that makes a worker time out, crash or run out of memory gets a finding
 * (`pdf-timeout`, `pdf-too-complex`); the pool and other files are unaffected.
 *
 * @param input a file path, or the file's bytes
 * @param target `{ product, variant }` (e.g. `{ product: 'duvet-cover', variant: '200x200' }`) or `{ sku }`
 * @param options profiles, per-call severities and limits, raster and preview settings, pool
 * @returns the report; `report.verdict` is `pass`, `warn` or `fail`
 * @throws {PreflightError} for misuse, never for a bad file
 * @example
 * import { preflight } from 'print-preflight';
 * const report = await preflight('order-1234.pdf', { sku: 'DUVET-COVER-200X200' });
 * if (report.verdict === 'fail') console.log(report.findings.map((f) => f.message).join('\n'));
 */
export async function preflight(input: string | Uint8Array, target: Target, options: PreflightOptions = {}): Promise<Report> {
  return (await preflightWithPreviews(input, target, { ...options, keepPreviews: false } as PreflightOptions)).report;
}

/**
 * Like {@link preflight}, and also returns each rasterised page's preview image (for the HTML
 * report, or to show in an application).
 * @example
 * const { report, previews } = await preflightWithPreviews('a.pdf', { sku: 'T-SHIRT-M' });
 * await writeFile('report.html', renderHtml(report, previews));
 */
export async function preflightWithPreviews(
  input: string | Uint8Array,
  target: Target,
  options: PreflightOptions = {},
): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const started = performance.now();
  const { keepPreviews = true, ...rest } = options as PreflightOptions & { keepPreviews?: boolean };
  const opts = parseOptions(rest);
  const t = TargetSchema.safeParse(target);
  if (!t.success) {
    throw new InvalidArgumentError(
      `Expected { product, variant } or { sku } for target: ${t.error.issues.map((i) => `${formatPath(i.path) || 'target'}: ${i.message}`).join('; ')}`,
    );
  }
  const registry: ProfileRegistry = await registryFrom(opts.profiles);
  const resolved = withSafeMargin(registry.resolve(t.data), opts.limits.safeMarginMm, opts.tightenOnly);
  throwIfAborted(opts.signal);
  const source = await readSourceBytes(input, opts.path);
  throwIfAborted(opts.signal);
  const limits = callLimits(resolved.limits, opts.limits, opts.tightenOnly);
  const executor: Executor = opts.pool === false ? (await import('../pool/local.js')).localExecutor : (opts.pool ?? defaultPool());

  // The bytes go to the workers once, shared; each worker parses them once per call. The cache key
  // is per call: a document checked again starts fresh (pdf.js state of an earlier check is
  // evicted and destroyed by the worker's LRU instead of growing across repeats).
  // (Copied into shared memory only when a worker will see them.)
  let sharedCopy: SharedArrayBuffer | undefined;
  const shared = () => (sharedCopy ??= toShared(source.bytes));
  const docId = randomUUID();
  const budget = new TimeBudget(opts.fileBudgetMs);
  // The operator's decode budget (the pool's), lowered where this call asks.
  const decodeLimits = decodeLimitsOf(executor, opts.decodeLimits);
  const inspectOptions: InspectTaskOptions = { limits: decodeLimits, maxHiddenImagePixels: opts.maxRenderImagePixels };
  // A small file's structure is read here, at once: no waiting for a worker to start.
  const inThread = executor instanceof PreflightPool && source.bytes.length <= opts.structureInThreadMaxBytes;
  // A JPEG page is drawn here when the caller takes work in its own thread (check does): sharp
  // decodes on libuv's threads, so pages still run in parallel, and no worker has to start for
  // them — also when a worker read a big file's structure and said where its JPEGs lie.
  const drawHere = opts.raster && executor instanceof PreflightPool && opts.structureInThreadMaxBytes > 0;
  const here_ = drawHere ? await import('../pool/local.js') : null;
  // The bytes are hashed where the structure is read: in a worker, off this thread, when it is there.
  const here = inThread ? await inspectHere(source.bytes, decodeLimits, opts.maxRenderImagePixels) : null;
  const { facts, sha256, jpegs } = here
    ? { facts: here.facts, sha256: sha256Hex(source.bytes), jpegs: here.jpegs }
    : await inspectOrExplain(executor, shared(), docId, source.bytes, opts.signal, opts.timeoutMs, budget, inspectOptions);

  const raster = new Map<number, RasterFacts>();
  const rasterFailures: RasterFailure[] = [];
  const previews = new Map<number, Preview>();
  const wantPreviews = keepPreviews || opts.previewDir !== null;
  // A file over a bound as a whole (not one page) is never given to a renderer: it would read the same bytes.
  const canRender = opts.raster && facts.pages.length > 0 && !facts.encryption?.needsPassword && !facts.unrenderable;
  // Workers start only for the pages that need one (not JPEG pages drawn here), and no more.
  if (canRender && here && executor instanceof PreflightPool) {
    const needWorker = facts.pages.slice(0, opts.maxRasterPages).filter((p) => !p.tooComplex && !p.unreadable && !jpegs?.[imagePlan(p)?.ref ?? '']);
    if (needWorker.length) executor.warm(needWorker.length);
  }
  if (canRender) {
    // A page whose inspection hit a limit (a decompression bomb…) is not handed to the renderer,
    // nor one whose object cannot be read (page-damaged says so).
    const pages = facts.pages.slice(0, opts.maxRasterPages).filter((p) => !p.tooComplex && !p.unreadable);
    // At most one page per worker in flight for this file: pages are not all queued at once, so
    // another file's pages interleave with this one's, and finished pages' memory goes first.
    await forEachLimited(pages, Math.max(1, executor.threads), async (page) => {
        // The memory budget is decided here, before any decoder runs: a page whose images would
        // not fit is never handed to a worker. A page drawn from its one image (JPEG shrunk on load,
        // Flate streamed) needs no more than the preview's memory, whatever the image's size.
        const jpegPlan = imagePlan(page);
        const plan = jpegPlan ?? flatePlan(page);
        const decodePixels = pageDecodePixels(page);
        const cellPx = tilingCellPx(page, opts.previewSize);
        if (cellPx !== null && cellPx < MIN_TILING_CELL_PX) {
          rasterFailures.push({ index: page.index, reason: 'over-budget', detail: tinyTiles(cellPx, page.tiling!.cells) });
          return;
        }
        const scale = printScaleOf(page, resolved.layers[page.index - 1] ?? null, limits);
        const detail = detailRequests(page.images.filter((i) => worthMeasuring(i.ppiX === null || i.ppiY === null ? null : Math.min(i.ppiX, i.ppiY) / scale, limits)));
        if (!plan && decodePixels > opts.maxRenderImagePixels) {
          rasterFailures.push({ index: page.index, reason: 'over-budget', detail: overBudget(decodePixels, opts.maxRenderImagePixels) });
          return;
        }
        try {
          // Where the structure read found the JPEG: no worker parses the file again to draw it.
          const jpeg = jpegPlan ? (jpegs?.[jpegPlan.ref] ?? null) : null;
          const draw = (runner: Executor, imageOnly: boolean) =>
            runner.render(
              {
                docId,
                bytes: shared(),
                page: page.index,
                maxPx: opts.previewSize,
                format: wantPreviews ? opts.previewFormat : null,
                plan,
                ...(jpeg ? { jpeg } : {}),
                ...(imageOnly ? { imageOnly } : {}),
                ...renderPlan(page, limits.blankInkCoverage),
                ...(pdfiumDrawsAnnotations(page) ? { annotations: true } : {}),
                maxInputPixels: MAX_FAST_PATH_INPUT_PIXELS,
                maxPdfjsImagePixels: opts.maxRenderImagePixels,
                largestImagePixels: decodePixels,
                limits: decodeLimits,
                ...(detail.length ? { detail } : {}),
              },
              opts.signal,
              opts.timeoutMs,
              budget,
            );
          const local = jpeg && here_ ? here_.localExecutor : null;
          const result = local
            ? await draw(local, true).catch((error: unknown) => {
                if (error instanceof TaskFailure && error.message === IMAGE_PATH_DECLINED) return draw(executor, false);
                throw error;
              })
            : await draw(executor, false);
          raster.set(page.index, withKnownApproximation(result.facts, page));
          if (result.preview) {
            previews.set(page.index, {
              bytes: result.preview,
              format: opts.previewFormat,
              widthPx: result.facts.widthPx,
              heightPx: result.facts.heightPx,
            });
          }
        } catch (error) {
          if (!(error instanceof TaskFailure)) throw error;
          if (error.reason === 'aborted') return;
          // Planned from its one image but over the pdf.js budget: the worker found the image was
          // not one it can stream after all (a colour-key mask, an odd predictor layout…), so it is
          // over the budget like any other page — unless its data could not be read.
          if (plan && decodePixels > opts.maxRenderImagePixels && error.reason === 'failed' && !error.message.startsWith(IMAGE_UNREADABLE)) {
            rasterFailures.push({ index: page.index, reason: 'over-budget', detail: overBudget(decodePixels, opts.maxRenderImagePixels) });
            return;
          }
          rasterFailures.push({ index: page.index, reason: error.reason, detail: error.message });
        }
    });
    throwIfAborted(opts.signal);
    rasterFailures.sort((a, b) => a.index - b.index);
  }

  const previewRefs = await writePreviews(previews, opts.previewDir, source.path);
  const findings = runChecks({ facts, target: resolved, limits, raster, rasterFailures }, opts.severities, opts.policy, { tightenOnly: opts.tightenOnly, defaultPolicy: opts.defaultPolicy });
  const report = buildReport({
    file: { path: source.path, bytes: source.bytes.length, sha256 },
    facts,
    target: resolved,
    findings,
    limits,
    severities: opts.severities,
    policy: opts.policy,
    settled: { tightenOnly: opts.tightenOnly, defaultPolicy: opts.defaultPolicy },
    raster: new Map([...raster].sort(([a], [b]) => a - b)),
    previews: previewRefs,
    totalMs: performance.now() - started,
  });
  return { report: opts.locale ? await localizeReport(report, resolved.profile, opts.locale) : report, previews };
}

/**
 * The decode limits a call works under: the operator's (its pool's; the safe defaults without one),
 * lowered where the call asks. The commands that write PDFs (fix, assemble) parse under the same.
 * @example
 * decodeLimitsOf(undefined, { maxFileDecodedBytes: 1 << 20 }).maxFileDecodedBytes; // 1048576
 */
export function decodeLimitsOf(pool: unknown, override: PreflightOptions['decodeLimits']): DecodeLimits {
  return tightenLimits(pool instanceof PreflightPool ? pool.decodeLimits : DEFAULT_DECODE_LIMITS, override);
}

/**
 * Memory the structure read may add to this thread's heap before it stops (pdf-too-complex). No
 * heap cap guards the calling thread as `resourceLimits` guards a worker: this, with the decode
 * budget that bounds every allocation a file's bytes decide, keeps a hostile file from taking the
 * process down.
 */
const IN_THREAD_HEAP_MB = 768;

/**
 * Structure facts read in this thread, and where the JPEG of each image-page plan lies in the file;
 * an unexpected failure becomes a document problem.
 */
async function inspectHere(
  bytes: Uint8Array,
  limits: DecodeLimits,
  maxHiddenImagePixels: number,
): Promise<{ facts: DocumentFacts; jpegs?: Record<string, JpegLocation> }> {
  const [{ inspectPdf }, { jpegLocations }, { getHeapStatistics }] = await Promise.all([import('../pdf/inspect.js'), import('../raster/image-stream.js'), import('node:v8')]);
  let context: PDFContext | undefined;
  try {
    const facts = await inspectPdf(bytes, {
      onDocument: (c) => (context = c),
      limits,
      scan: { maxHiddenImagePixels },
      heapCeilingBytes: getHeapStatistics().used_heap_size + IN_THREAD_HEAP_MB * 1024 * 1024,
    });
    return { facts, ...(context ? { jpegs: jpegLocations(context, bytes, facts.pages) } : {}) };
  } catch (error) {
    return { facts: await structureFailed(bytes, 'too-complex', `reading its structure failed: ${((error as Error).message ?? String(error)).split('\n')[0]}`) };
  }
}

/** Structure facts from the pool; a timeout or crash becomes a document problem (a finding). */
async function inspectOrExplain(
  executor: Executor,
  shared: SharedArrayBuffer,
  docId: string,
  bytes: Uint8Array,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  budget: TimeBudget,
  options: InspectTaskOptions,
): Promise<InspectResult> {
  try {
    return await executor.inspect(shared, docId, signal, timeoutMs, budget, options);
  } catch (error) {
    if (!(error instanceof TaskFailure)) throw error;
    if (error.reason === 'aborted') throw new PreflightError('ERR_ABORTED', 'The preflight was aborted', { cause: signal?.reason });
    const facts = await (error.reason === 'timeout'
      ? structureFailed(bytes, 'timeout', `reading its structure ${error.message}`)
      : structureFailed(bytes, 'too-complex', `reading its structure failed: ${error.message}`));
    return { facts, sha256: sha256Hex(bytes) };
  }
}

async function structureFailed(bytes: Uint8Array, kind: 'timeout' | 'too-complex', detail: string): Promise<DocumentFacts> {
  const { pdfHeaderVersion } = await import('../pdf/inspect.js');
  return { bytes: bytes.length, pdfVersion: pdfHeaderVersion(bytes), encryption: null, activeContent: [], problems: [{ kind, detail }], pageCount: null, pages: [] };
}

function tinyTiles(cellPx: number, cells: number): string {
  const count = cells >= 1e15 ? 'more than 10^15' : grouped(Math.round(cells));
  return `paints a tiling pattern whose cells are ${cellPx < 0.0001 ? cellPx.toExponential(1) : cellPx.toFixed(4)} px at the preview size (${count} cells over the page); a renderer would work on it for minutes, so it is not rendered`;
}

/** The engines for a page (raster/renderer.ts) and what its content should leave on paper. */
function renderPlan(page: DocumentFacts['pages'][number], blankInk: number) {
  const renderer = pageRenderer(page);
  return {
    renderer,
    fallback: fallbackRenderer(page, renderer),
    pageRef: page.ref,
    expect: { ink: page.marks?.ink ?? 0, images: page.marks?.images ?? 0, blankInk },
  };
}

/** The raster facts, saying also what the engine that drew the page is known to draw otherwise. */
function withKnownApproximation(facts: RasterFacts, page: DocumentFacts['pages'][number]): RasterFacts {
  const known = knownApproximation(page, facts.method);
  if (!known) return facts;
  return { ...facts, approximate: facts.approximate ? `${facts.approximate}; ${known}` : known };
}

/**
 * A per-call safe margin applies to every layer, over the layers' own — for a call that may only
 * tighten, where it is wider than the layer's.
 */
function withSafeMargin(target: ResolvedTarget, safeMarginMm: number | undefined, tightenOnly: boolean): ResolvedTarget {
  if (safeMarginMm === undefined) return target;
  return { ...target, layers: target.layers.map((l) => ({ ...l, safeMarginMm: tightenOnly && (l.safeMarginMm ?? 0) > safeMarginMm ? l.safeMarginMm : safeMarginMm })) };
}

/**
 * The limits a call works under: the profile's with the call's over them, or — for a call that may
 * only tighten — each of the call's only where it is stricter.
 * @example
 * callLimits(resolved.limits, { minPpi: 40 }, true).minPpi; // the profile's 100
 */
export function callLimits(profile: Limits, call: LimitsOverride | undefined, tightenOnly: boolean): Limits {
  return tightenOnly ? tightenedLimits(profile, call) : ({ ...profile, ...call } as Limits);
}

function overBudget(pixels: number, max: number): string {
  return `draws images of ${grouped(pixels)} pixels in all (soft masks included, at the size their data declares); a renderer decodes them whole, and pages over ${grouped(max)} pixels are not rendered, to stay within the memory limit`;
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

function toShared(bytes: Uint8Array): SharedArrayBuffer {
  if (bytes.buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
    return bytes.buffer;
  }
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

async function writePreviews(
  previews: Map<number, Preview>,
  dir: string | null,
  path: string | null,
): Promise<Map<number, PreviewRef>> {
  const refs = new Map<number, PreviewRef>();
  if (dir) await mkdir(dir, { recursive: true });
  const stem = path ? basename(path).replace(/\.pdf$/i, '') : 'document';
  for (const [index, p] of [...previews].sort(([a], [b]) => a - b)) {
    let file: string | null = null;
    if (dir) {
      file = `${stem}.page-${index}.${p.format}`;
      await writeFile(join(dir, file), p.bytes);
    }
    refs.set(index, { file, format: p.format, widthPx: p.widthPx, heightPx: p.heightPx });
  }
  return dir ? refs : new Map();
}

function parseOptions(options: PreflightOptions) {
  const parsed = PreflightOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    throw new InvalidArgumentError(
      `Invalid preflight options: ${parsed.error.issues.map((i) => `${formatPath(i.path) || 'options'}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw new PreflightError('ERR_ABORTED', 'The preflight was aborted', { cause: signal.reason });
}
