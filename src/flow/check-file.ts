/**
 * The check of one file under a resolved run — what {@link check} (flow/check.ts) does for each
 * file it is given, and a fix does for the files it makes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DocumentFacts } from '../pdf/facts.js';
import { TaskFailure } from '../pool/pool.js';
import { systemCjkFace } from '../raster/cjk-face.js';
import { knownApproximation } from '../raster/renderer.js';
import type { RasterFacts, RasterFailure } from '../raster/facts.js';
import type { Preview } from '../model/preview.js';
import { buildReport, type PreviewRef } from '../report/build.js';
import type { Report } from '../report/schema.js';
import { runChecks } from '../rules/index.js';
import { readSourceBytes } from '../source/read.js';
import { inspectOptionsOf, sameStructureSettings, startStructureRead, type StructureRead, type StructureSettings } from './structure-read.js';
import { localizeReport } from '../messages/catalogue.js';
import { throwIfAborted, type ResolvedRun } from './run.js';
import { overBudget, planPage } from './render-plan.js';

export type { Preview };

/**
 * A check of one file under a resolved run (flow/run.ts): its structure read (in the pool, or in
 * this thread for a small file when the run says so), its pages drawn as the render plan says
 * (flow/render-plan.ts), every check run and the report built.
 * @param how `keepPreviews`: return the previews (default true); `path`: the name the report gives
 *   the file; `raster: false`: the structure checks only (a fix's check before its transform);
 *   `structure`: the file's structure read, started early (flow/structure-read.ts) — taken over
 *   when its settings are the run's, and its bytes are then the file's
 * @example
 * const run = await resolveRun({ sku: 'T-SHIRT-M' });
 * const { report } = await checkResolved(run, bytes, { keepPreviews: false });
 */
export async function checkResolved(
  run: ResolvedRun,
  input: string | Uint8Array,
  how: { keepPreviews?: boolean; path?: string | null; raster?: boolean; structure?: Promise<StructureRead> | undefined } = {},
): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const started = performance.now();
  const { target: resolved, limits, executor, decodeLimits } = run;
  // This check's settings: the run's, a structure-only check when `how.raster` says so.
  const opts = how.raster === undefined ? run.options : { ...run.options, raster: how.raster };
  const keepPreviews = how.keepPreviews ?? true;
  throwIfAborted(opts.signal);
  // Untrusted bytes are decoded in the pool only — the structure read (which hashes the bytes off
  // this thread) and every page — so no file holds this thread's event loop or its heap. A read the
  // caller started early (the command line, while it loaded the profiles) is taken over when it was
  // started under these very settings.
  const reading: StructureSettings = {
    executor,
    options: inspectOptionsOf(decodeLimits, opts.maxRenderImagePixels),
    fileBudgetMs: opts.fileBudgetMs,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
  };
  const early = how.structure ? await how.structure : undefined;
  const read = early && sameStructureSettings(early.settings, reading) ? early : startStructureRead((await readSourceBytes(input, null)).bytes, reading);
  // The name the report gives the file: the caller's, else the path it was read from.
  const named = how.path !== undefined ? how.path : opts.path;
  const source = { bytes: read.bytes, path: named ?? (typeof input === 'string' ? input : null) };
  throwIfAborted(opts.signal);
  const { shared, docId, budget } = read;
  const { facts, sha256, jpegs } = await read.result;

  const raster = new Map<number, RasterFacts>();
  const rasterFailures: RasterFailure[] = [];
  const previews = new Map<number, Preview>();
  const wantPreviews = keepPreviews || opts.previewDir !== null;
  // A file over a bound as a whole (not one page) is never given to a renderer: it would read the same bytes.
  const canRender = opts.raster && facts.pages.length > 0 && !facts.encryption?.needsPassword && !facts.unrenderable;
  // A page whose inspection hit a limit (a decompression bomb…) is not handed to the renderer,
  // nor one whose object cannot be read (page-damaged says so).
  // A page that is no layer of the product prints nothing: it is drawn only for a preview asked for.
  const drawnForPreview = wantPreviews && opts.previewPages === 'all';
  const pages = canRender ? facts.pages.slice(0, opts.maxRasterPages).filter((p) => !p.tooComplex && !p.unreadable && (drawnForPreview || resolved.layers[p.index - 1] !== undefined)) : [];
  const settings = { previewSize: opts.previewSize, maxRenderImagePixels: opts.maxRenderImagePixels, limits };
  // At most one page per worker in flight for this file: pages are not all queued at once, so
  // another file's pages interleave with this one's, and finished pages' memory goes first.
  await forEachLimited(pages, Math.max(1, executor.threads), async (page) => {
    const planned = planPage(page, resolved.layers[page.index - 1] ?? null, settings);
    if ('failure' in planned) {
      rasterFailures.push(planned.failure);
      return;
    }
    try {
      // Where the structure read found the JPEG: no worker parses the file again to draw it.
      const jpeg = planned.jpegRef ? (jpegs?.[planned.jpegRef] ?? null) : null;
      const result = await executor.render(
        {
          ...planned.task,
          docId,
          bytes: shared,
          format: wantPreviews ? opts.previewFormat : null,
          ...(jpeg ? { jpeg } : {}),
          limits: decodeLimits,
        },
        opts.signal,
        opts.timeoutMs,
        budget,
      );
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
      if (planned.plan && planned.decodePixels > opts.maxRenderImagePixels && error.reason === 'failed' && error.declined !== 'image-unreadable') {
        rasterFailures.push(overBudget(page, planned.decodePixels, opts.maxRenderImagePixels));
        return;
      }
      // A pool closed under the page ends its render as a crash would.
      rasterFailures.push({ index: page.index, reason: error.reason === 'closed' ? 'crashed' : error.reason, detail: error.message });
    }
  });
  if (canRender) {
    throwIfAborted(opts.signal);
    rasterFailures.sort((a, b) => a.index - b.index);
  }

  const previewRefs = await writePreviews(previews, opts.previewDir, source.path);
  const settled = { tightenOnly: opts.tightenOnly, defaultPolicy: opts.defaultPolicy };
  const findings = runChecks({ facts, target: resolved, limits, raster, rasterFailures }, opts.severities, opts.policy, settled);
  const report = buildReport({
    file: { path: source.path, bytes: source.bytes.length, sha256 },
    facts,
    target: resolved,
    findings,
    limits,
    severities: opts.severities,
    policy: opts.policy,
    settled,
    raster: new Map([...raster].sort(([a], [b]) => a - b)),
    previews: previewRefs,
    totalMs: performance.now() - started,
  });
  return { report: opts.locale ? await localizeReport(report, resolved.profile, opts.locale) : report, previews };
}

/** The raster facts, saying also what the engine that drew the page is known to draw otherwise. */
function withKnownApproximation(facts: RasterFacts, page: DocumentFacts['pages'][number]): RasterFacts {
  const known = knownApproximation(page, facts.method, systemCjkFace());
  if (!known) return facts;
  return { ...facts, approximate: facts.approximate ? `${facts.approximate}; ${known}` : known };
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

async function writePreviews(previews: Map<number, Preview>, dir: string | null, path: string | null): Promise<Map<number, PreviewRef>> {
  const refs = new Map<number, PreviewRef>();
  if (!dir) return refs;
  await mkdir(dir, { recursive: true });
  const stem = path ? basename(path).replace(/\.pdf$/i, '') : 'document';
  for (const [index, p] of [...previews].sort(([a], [b]) => a - b)) {
    // The options refuse JPEG with a folder (flow/options.ts): the report names PNG or WebP files.
    if (p.format === 'jpeg') throw new Error('JPEG previews are not written to a folder');
    const file = `${stem}.page-${index}.${p.format}`;
    await writeFile(join(dir, file), p.bytes);
    refs.set(index, { file, format: p.format, widthPx: p.widthPx, heightPx: p.heightPx });
  }
  return refs;
}
