/**
 * The batch worker: every PDF under a folder is preflighted through the pool, its report written
 * atomically, and a summary and a browsable index written at the end. A rerun keeps the reports of
 * files whose bytes and rules are unchanged, so a run killed midway resumes where it stopped.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PreflightError } from '../errors.js';
import type { PreflightOptions } from '../flow/options.js';
import { defaultPool } from '../pool/pool.js';
import type { Target } from '../flow/options.js';
import { checkRun } from '../flow/check.js';
import { resolveRun } from '../flow/run.js';
import type { FixMode } from '../model/policy.js';
import { registryFrom } from '../profile/load.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import { profileDigest } from '../report/build.js';
import { renderHtml } from '../report/html.js';
import { ReportSchema, type Report } from '../report/schema.js';
import { readSourceBytes, sha256Hex } from '../source/read.js';
import { packageVersion } from '../util/package-root.js';
import { removeStaleTemporaries, writeDurable } from '../util/durable.js';
import { findPdfs, readManifest, resolveTarget, type BatchFile, type Manifest } from './discover.js';
import { findStoredPdfs, judgeStored, type StoredInput } from './stored.js';
import type { ObjectStorage } from '../storage/storage.js';
import { findingsByPage } from './charts.js';
import { renderIndexHtml, type BatchErrorRecord, type BatchResult, type BatchSummary, type FixedReport } from './summary.js';
import { pushAll } from '../util/array.js';

/**
 * How a batch's visual reports show pages: the pages that print (others only when asked for: batch
 * --previews), as JPEG — a quarter of WebP's encoding CPU for previews inlined in HTML.
 */
const BATCH_PREVIEWS = { previewPages: 'layers', previewFormat: 'jpeg' } as const;

export interface BatchProgress {
  done: number;
  total: number;
  result: BatchResult;
}

/**
 * Where a batch's outputs go: a folder, or object storage (`--out s3://bucket/prefix`: the same
 * names as keys under the prefix). Both write whole or not at all.
 */
export type BatchOut = string | ObjectStorage;

export interface FolderOptions {
  /** Output folder (reports/, summary.json, index.html), or object storage opened on the output prefix. */
  out: BatchOut;
  /** Manifest file (CSV or JSON) mapping files to SKUs or products. */
  manifest?: string;
  /**
   * Files preflighted at once. Default: twice the pool's thread count, so that a worker always has
   * a next page queued while this thread reads, checks and writes another file.
   */
  concurrency?: number;
  /** Write each file's visual report next to its JSON. Default true. */
  html?: boolean;
  /**
   * Fix what the policy says to fix (the profile's `policy`, or the default fix policy, with
   * `preflight.policy` over it): `auto` or `approve` (the fixed file is marked as waiting for
   * approval when a change alters what prints). Fixed files land in `<out>/fixed/`; originals stay.
   */
  fix?: FixMode;
  /** Options of every preflight (profiles, severities, limits, raster, pool, timeoutMs…). */
  preflight?: Omit<PreflightOptions, 'signal' | 'path' | 'previewDir'>;
  /** Called after each file. */
  onProgress?: (progress: BatchProgress) => void;
  /** Stops starting new files; files in flight finish. The summary says the run was interrupted. */
  signal?: AbortSignal;
  /** Aborts the files in flight too (a second Ctrl-C). */
  hardSignal?: AbortSignal;
}

/** A file's result before it is judged (what an error result keeps). */
export function errorBase(rel: string): Omit<BatchResult, 'sku' | 'via' | 'verdict'> {
  return { file: rel, report: outputPaths(rel).report, html: null, reason: null, rules: {}, reused: false };
}

/** Where a file's outputs go, relative to the output folder. */
export function outputPaths(rel: string) {
  return { report: `reports/${rel}.json`, html: `reports/${rel}.html`, fixed: `fixed/${rel}`, fixedReport: `fixed/${rel}.json` };
}

/** What every folder run needs first: the output folder (cleared of a killed run's temporaries), the profiles and the manifest. */
export async function openBatch(options: Pick<FolderOptions, 'out' | 'manifest' | 'preflight'>) {
  const out = typeof options.out === 'string' ? resolve(options.out) : options.out;
  const registry: ProfileRegistry = await registryFrom(options.preflight?.profiles);
  const manifest: Manifest = options.manifest ? await readManifest(options.manifest) : new Map();
  if (typeof out === 'string') await removeStaleTemporaries(out);
  return { out, registry, manifest };
}

/**
 * Preflights every PDF under `dir` (its subfolders too) — a folder, or a prefix of object storage
 * ({@link StoredInput}: each file is downloaded to a scratch folder while it is judged, then
 * removed) — each for the product its manifest row, its file name (`T-SHIRT-M__order-1234.pdf`) or
 * its folder (`T-SHIRT-M/`) names; writes a report per file, the summary and a browsable index with
 * charts, and resumes a stopped run where it stopped.
 * @returns the summary (also written to `<out>/summary.json`, with `<out>/index.html`)
 * @example
 * const summary = await preflightFolder('incoming/', { out: 'checked/', manifest: 'incoming/manifest.csv' });
 * console.log(`${summary.fail} of ${summary.files} files fail`);
 */
export async function preflightFolder(dir: string | StoredInput, options: FolderOptions): Promise<BatchSummary> {
  const { out, registry, manifest } = await openBatch(options);
  const files = typeof dir === 'string' ? await findPdfs(dir, typeof out === 'string' ? [out] : []) : await findStoredPdfs(dir, out);
  const pool = options.preflight?.pool;
  const concurrency = Math.max(1, options.concurrency ?? (pool === false ? 1 : 2 * (pool ? pool.threads : defaultPool().threads)));
  const results: BatchResult[] = [];
  const pending: string[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < files.length) {
      if (options.signal?.aborted) {
        pushAll(
          pending,
          files.slice(next).map((f) => f.rel),
        );
        next = files.length;
        return;
      }
      const file = files[next++]!;
      const result =
        typeof dir === 'string'
          ? await judge(file, out, manifest, registry, options)
          : await judgeStored(dir.storage, file.path, file.rel, dir.scratch, (local) => judge(local, out, manifest, registry, options)).catch((error: unknown) =>
              writeError(out, errorBase(file.rel), null, null, `the file could not be read from ${dir.url}: ${(error as Error).message}`),
            );
      if (result === 'aborted') {
        pending.push(file.rel);
        continue;
      }
      results.push(result);
      done++;
      options.onProgress?.({ done, total: files.length, result });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, files.length)) }, worker));
  const summary = summarise(results, pending.sort(), options.signal?.aborted ?? false);
  // A full disk must not lose the run: the summary is returned (and printed) even when it cannot be written.
  try {
    await writeOut(out, 'summary.json', `${JSON.stringify(summary, null, 2)}\n`);
    await writeOut(out, 'index.html', renderIndexHtml(summary, `Preflight of ${typeof dir === 'string' ? dir : dir.url}`));
  } catch (error) {
    summary.summaryError = `the summary could not be written to ${typeof out === 'string' ? out : out.description} (${describeWriteError(error)})`;
  }
  return summary;
}

export function summarise(results: BatchResult[], pending: string[], interrupted: boolean): BatchSummary {
  const sorted = [...results].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const count = (v: BatchResult['verdict']) => sorted.filter((r) => r.verdict === v).length;
  const unwritten = sorted.filter((r) => r.outputError).length;
  return {
    ...(unwritten ? { unwritten } : {}),
    files: sorted.length + pending.length,
    pass: count('pass'),
    warn: count('warn'),
    fail: count('fail'),
    error: count('error'),
    reused: sorted.filter((r) => r.reused).length,
    interrupted,
    pending,
    results: sorted,
  };
}

/** How many times a file that changes while it is judged is judged again before giving up. */
const MAX_JUDGEMENTS = 3;

/**
 * What must be the same before and after judging a file: inode, size, mtime and ctime. A write
 * always moves ctime (and no one can set it back, unlike mtime), a replacement by rename changes
 * the inode, so no bytes need hashing on this thread: the worker hashes what it judged.
 */
async function fingerprint(path: string): Promise<string | null> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return null;
  }
}

/**
 * Judges one file (or keeps its earlier report); never throws for a bad file, nor when its
 * report cannot be written (the result says so in `outputError`). A file that changes while it
 * is judged (size, mtime or content differ before and after) is judged again: the report always
 * describes bytes that were on disk, whole, when judging ended.
 */
export async function judge(
  file: BatchFile,
  out: BatchOut,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: Pick<FolderOptions, 'html' | 'preflight' | 'hardSignal' | 'fix'>,
  paths: { report: string; html: string; fixed?: string; fixedReport?: string } = outputPaths(file.rel),
): Promise<BatchResult | 'aborted'> {
  for (let attempt = 1; ; attempt++) {
    const before = await fingerprint(file.path);
    const result = await judgeOnce(file, out, manifest, registry, options, paths);
    if (result === 'aborted') return result;
    const after = await fingerprint(file.path);
    if (before !== null && before === after) return result;
    if (before === null || after === null) return result; // gone (or never there): judged as read
    if (attempt >= MAX_JUDGEMENTS) {
      const base = { file: file.rel, report: paths.report, html: null, reason: null, rules: {}, reused: false };
      return writeError(out, base, result.sku, result.via, `the file changed while it was judged, ${MAX_JUDGEMENTS} times in a row: upload it once, completely, and it will be judged`);
    }
  }
}

async function judgeOnce(
  file: BatchFile,
  out: BatchOut,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: Pick<FolderOptions, 'html' | 'preflight' | 'hardSignal' | 'fix'>,
  paths: { report: string; html: string; fixed?: string; fixedReport?: string },
): Promise<BatchResult | 'aborted'> {
  const base = { file: file.rel, report: paths.report, html: null, reason: null, rules: {}, reused: false };
  const resolution = resolveTarget(file.rel, manifest, registry);
  if ('error' in resolution) return writeError(out, base, null, null, resolution.error);
  const target = resolution.resolved;
  let source;
  try {
    source = await readSourceBytes(file.path, file.rel);
  } catch (error) {
    return writeError(out, base, target.sku, resolution.via, (error as Error).message);
  }
  const limits = { ...target.limits, ...options.preflight?.limits };
  const digest = profileDigest(target, limits, options.preflight?.severities ?? {}, options.preflight?.policy ?? {});
  const earlier = await readReport(out, paths.report);
  const wantHtml = options.html ?? true;
  // Hashed here only to compare with an earlier report; a new file is hashed in a pool worker.
  const unchanged = earlier && earlier.profileDigest === digest && earlier.tool.version === packageVersion() && earlier.file.sha256 === sha256Hex(source.bytes);
  // A run that fixes does the fix again (its outputs are more than the report); one that wants
  // every page's preview judges again a file whose earlier run drew only the pages that print.
  const previewsMissing = wantHtml && options.preflight?.previewPages === 'all' && options.preflight.raster !== false && !!earlier?.pages.some((p) => p.layer === null && p.raster === null);
  if (earlier && unchanged && !options.fix && !previewsMissing) {
    return {
      ...base,
      sku: earlier.sku,
      via: resolution.via,
      verdict: earlier.verdict,
      html: wantHtml ? paths.html : null,
      rules: earlier.rules,
      pages: findingsByPage(earlier.findings),
      reused: true,
    };
  }
  if (options.fix)
    return fixOne(
      source.bytes,
      resolution,
      registry,
      out,
      base,
      resolution.via,
      options,
      { ...paths, fixed: paths.fixed ?? `fixed/${file.rel}`, fixedReport: paths.fixedReport ?? `fixed/${file.rel}.json` },
      file.rel,
    );
  let judged;
  try {
    judged = await checkRun(
      source.bytes,
      await resolveRun(
        resolution.target,
        {
          ...BATCH_PREVIEWS,
          ...options.preflight,
          profiles: registry,
          path: file.rel,
          signal: options.hardSignal,
          keepPreviews: wantHtml,
        },
        target,
      ),
    );
  } catch (error) {
    if (error instanceof PreflightError && error.code === 'ERR_ABORTED') return 'aborted';
    return writeError(out, base, target.sku, resolution.via, error instanceof Error ? error.message : String(error));
  }
  const { report, previews } = judged;
  const result: BatchResult = {
    ...base,
    sku: report.sku,
    via: resolution.via,
    verdict: report.verdict,
    html: wantHtml ? paths.html : null,
    rules: report.rules,
    pages: findingsByPage(report.findings),
  };
  try {
    // The visual report first, the JSON last: a JSON report on disk means the file is done.
    if (wantHtml) await writeOut(out, paths.html, renderHtml(report, previews));
    await writeOut(out, paths.report, `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    // Judged, but not on disk (full disk…): the verdict stands in the summary, and says so.
    return { ...result, html: null, outputError: `the report could not be written (${describeWriteError(error)})` };
  }
  return result;
}

/** Check, fix by policy, check again; the original's report in reports/, the fixed file and its report in fixed/. */
async function fixOne(
  bytes: Uint8Array,
  resolution: { target: Target; resolved: ResolvedTarget },
  registry: ProfileRegistry,
  out: BatchOut,
  base: Omit<BatchResult, 'sku' | 'via' | 'verdict'>,
  via: BatchResult['via'],
  options: Pick<FolderOptions, 'html' | 'preflight' | 'hardSignal' | 'fix'>,
  paths: { report: string; html: string; fixed: string; fixedReport: string },
  rel: string,
): Promise<BatchResult | 'aborted'> {
  const wantHtml = options.html ?? true;
  let done;
  try {
    const run = await resolveRun(
      resolution.target,
      {
        ...BATCH_PREVIEWS,
        ...options.preflight,
        profiles: registry,
        path: rel,
        signal: options.hardSignal,
        keepPreviews: wantHtml,
        fix: options.fix!,
        // Batch has no per-file instructions: a refusal says how to fix that file on its own.
        instructions: 'batch',
      },
      resolution.resolved,
    );
    done = await checkRun(bytes, run);
  } catch (error) {
    if (error instanceof PreflightError && error.code === 'ERR_ABORTED') return 'aborted';
    return writeError(out, base, null, via, error instanceof Error ? error.message : String(error));
  }
  const { before, beforePreviews, fixed, report, previews, status } = done;
  const result: BatchResult = { ...base, sku: before.sku, via, verdict: report.verdict, html: wantHtml ? paths.html : null, rules: report.rules, pages: findingsByPage(report.findings) };
  try {
    if (fixed) {
      // The fixed file, then its report (with the changes): the report last, so its presence means both are whole.
      await writeOut(out, paths.fixed, fixed.bytes);
      const fixedReport: FixedReport = { ...report, fix: { status, changes: fixed.changes, refused: fixed.refused } };
      await writeOut(out, paths.fixedReport, `${JSON.stringify(fixedReport, null, 2)}\n`);
      if (wantHtml) await writeOut(out, `${paths.fixed}.html`, renderHtml(report, previews));
    }
    if (wantHtml) await writeOut(out, paths.html, renderHtml(before, beforePreviews));
    await writeOut(out, paths.report, `${JSON.stringify(before, null, 2)}\n`);
  } catch (error) {
    return { ...result, html: null, outputError: `the report could not be written (${describeWriteError(error)})` };
  }
  if (!fixed) return { ...result, verdict: before.verdict, rules: before.rules, pages: findingsByPage(before.findings) };
  return {
    ...result,
    fixed: { file: paths.fixed, report: paths.fixedReport, sha256: fixed.sha256, changes: fixed.changes.length, needsApproval: status === 'needs-approval', originalVerdict: before.verdict },
  };
}

/** "ENOSPC: no space left on device" → a short reason for the summary. */
export function describeWriteError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code === 'ENOSPC' ? 'ENOSPC: the disk is full' : e.code ? `${e.code}: ${e.message.split(',')[0]}` : String(e.message ?? error);
}

export async function writeError(out: BatchOut, base: Omit<BatchResult, 'sku' | 'via' | 'verdict'>, sku: string | null, via: BatchResult['via'], reason: string): Promise<BatchResult> {
  const result: BatchResult = { ...base, sku, via, verdict: 'error', reason };
  try {
    const record: BatchErrorRecord = { file: base.file, verdict: 'error', reason };
    await writeOut(out, base.report, `${JSON.stringify(record, null, 2)}\n`);
  } catch (error) {
    return { ...result, outputError: `the error report could not be written (${describeWriteError(error)})` };
  }
  return result;
}

async function readReport(out: BatchOut, rel: string): Promise<Report | null> {
  try {
    const text = typeof out === 'string' ? await readFile(join(out, rel), 'utf8') : await out.getText(rel);
    const parsed = ReportSchema.safeParse(JSON.parse(text ?? 'null'));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes one output whole: durably into the folder, or as an object under the output prefix. */
export async function writeOut(out: BatchOut, rel: string, data: string | Uint8Array): Promise<void> {
  if (typeof out === 'string') await writeDurable(join(out, rel), data);
  else await out.put(rel, data);
}
