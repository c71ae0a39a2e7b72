/**
 * The hot folder: new PDFs are picked up once complete (size and mtime unchanged for a while),
 * preflighted, and moved to `<out>/pass/`, `<out>/warn/` or `<out>/fail/` with their reports
 * beside them. Order of work for one file: judge into `<out>/.staging/`, move the reports into the
 * verdict folder, then move the PDF. A restart at any point finds the file either unjudged or with
 * a finished report to reuse: nothing is judged twice or lost.
 */
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProfileRegistry } from '../profile/registry.js';
import { profileDigest } from '../report/build.js';
import { ReportSchema } from '../report/schema.js';
import { sha256Hex } from '../source/read.js';
import { packageVersion } from '../util/package-root.js';
import { moveFile } from './atomic.js';
import { findPdfs, resolveTarget, type BatchFile, type Manifest } from './discover.js';
import { judge, openBatch, type FolderOptions } from './run.js';
import type { BatchResult, BatchVerdict } from './summary.js';

export interface WatchOptions extends Omit<FolderOptions, 'onProgress' | 'signal'> {
  /** How often the folder is looked at, in ms. Default 1,000. */
  intervalMs?: number;
  /** How long size and mtime must stay unchanged before a file counts as complete, in ms. Default 2,000. */
  stableMs?: number;
  /** Called for each file judged and moved. */
  onResult?: (result: BatchResult & { movedTo: string }) => void;
  /** Called for an unexpected problem with one file (the watcher goes on). */
  onError?: (file: string, error: unknown) => void;
}

export interface HotFolder {
  /** Stops looking for new files; resolves when the files in flight are done. */
  close(): Promise<void>;
}

const FOLDER: Record<BatchVerdict, 'pass' | 'warn' | 'fail'> = { pass: 'pass', warn: 'warn', fail: 'fail', error: 'fail' };

/**
 * Watches `dir` as a hot folder.
 * @example
 * const hot = await watchFolder('incoming/', { out: 'sorted/', onResult: (r) => console.log(r.verdict, r.file) });
 * process.on('SIGTERM', () => hot.close());
 */
export async function watchFolder(dir: string, options: WatchOptions): Promise<HotFolder> {
  const { out, registry, manifest } = await openBatch(options);
  const intervalMs = options.intervalMs ?? 1_000;
  const stableMs = options.stableMs ?? 2_000;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const seen = new Map<string, { size: number; mtimeMs: number; since: number }>();
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const handle = async (file: BatchFile) => {
    try {
      const result = await processFile(file, out, manifest, registry, options);
      if (result) options.onResult?.(result);
    } catch (error) {
      options.onError?.(file.rel, error);
    } finally {
      busy.delete(file.rel);
      seen.delete(file.rel);
    }
  };

  const tick = async () => {
    if (closed) return;
    const now = Date.now();
    const files = await findPdfs(dir, [out]);
    const present = new Set(files.map((f) => f.rel));
    for (const rel of seen.keys()) if (!present.has(rel) && !busy.has(rel)) seen.delete(rel);
    for (const file of files) {
      if (busy.has(file.rel)) continue;
      let info;
      try {
        info = await stat(file.path);
      } catch {
        continue; // gone already
      }
      const last = seen.get(file.rel);
      if (!last || last.size !== info.size || last.mtimeMs !== info.mtimeMs) {
        seen.set(file.rel, { size: info.size, mtimeMs: info.mtimeMs, since: now });
        continue;
      }
      if (now - last.since < stableMs || busy.size >= concurrency) continue;
      busy.add(file.rel);
      const job = handle(file);
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
    }
  };

  const loop = async () => {
    try {
      await tick();
    } catch (error) {
      options.onError?.(dir, error);
    }
    if (!closed) timer = setTimeout(loop, intervalMs);
  };
  await loop();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await Promise.all([...inFlight]);
    },
  };
}

async function processFile(
  file: BatchFile,
  out: string,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: WatchOptions,
): Promise<(BatchResult & { movedTo: string }) | null> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file.path));
  } catch {
    return null; // moved away meanwhile
  }
  const sha = sha256Hex(bytes);
  const staging = { report: `.staging/${file.rel}.json`, html: `.staging/${file.rel}.html` };
  const wantHtml = options.html ?? true;

  // A finished report from before a restart: reuse it, do not judge again.
  let result: BatchResult | null = await earlierResult(file, out, sha, manifest, registry, options);
  if (!result) {
    const judged = await judge(file, out, manifest, registry, options, staging);
    if (judged === 'aborted') return null;
    result = judged;
  }
  const folder = FOLDER[result.verdict];
  const dest = { pdf: `${folder}/${file.rel}`, report: `${folder}/${file.rel}.json`, html: `${folder}/${file.rel}.html` };
  // Reports first (from staging, when they are there), then the PDF.
  for (const [from, to] of [
    [staging.report, dest.report],
    [staging.html, dest.html],
  ] as const) {
    try {
      await moveFile(join(out, from), join(out, to));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  await moveFile(file.path, join(out, dest.pdf));
  const final = { ...result, report: dest.report, html: wantHtml && result.verdict !== 'error' ? dest.html : null, movedTo: dest.pdf };
  await mkdir(out, { recursive: true });
  await appendFile(join(out, 'hotfolder.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), ...final })}\n`);
  return final;
}

async function earlierResult(
  file: BatchFile,
  out: string,
  sha: string,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: WatchOptions,
): Promise<BatchResult | null> {
  const resolution = resolveTarget(file.rel, manifest, registry);
  if ('error' in resolution) return null;
  const target = registry.resolve(resolution.target);
  const digest = profileDigest(target, { ...target.limits, ...options.preflight?.limits }, options.preflight?.severities ?? {});
  for (const folder of ['.staging', 'pass', 'warn', 'fail']) {
    const path = join(out, folder, `${file.rel}.json`);
    let parsed;
    try {
      parsed = ReportSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const r = parsed.data;
    if (r.file.sha256 !== sha || r.profileDigest !== digest || r.tool.version !== packageVersion()) continue;
    return {
      file: file.rel,
      sku: r.sku,
      via: resolution.via,
      verdict: r.verdict,
      report: `${folder}/${file.rel}.json`,
      html: null,
      reason: null,
      rules: r.rules,
      reused: true,
    };
  }
  return null;
}
