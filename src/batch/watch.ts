/**
 * The hot folder: new PDFs are picked up once complete (size and mtime unchanged for a while),
 * preflighted, and moved to `<out>/pass/`, `<out>/warn/` or `<out>/fail/` with their reports
 * beside them. Order of work for one file: claim it (move it into `<out>/.incoming/`, so a new
 * upload under the same name is a new file), judge it into `<out>/.staging/` (judged again if it
 * changes meanwhile), move the reports into the verdict folder, then move the PDF — under a free
 * name: a second upload named like an earlier one becomes `name~2.pdf`, never overwriting it. A
 * restart at any point finds the file unjudged, claimed, or with a finished report to reuse.
 */
import { access, appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ProfileRegistry } from '../profile/registry.js';
import { profileDigest } from '../report/build.js';
import { ReportSchema, type Report } from '../report/schema.js';
import { sha256Hex } from '../source/read.js';
import { packageVersion } from '../util/package-root.js';
import { moveFile } from '../util/durable.js';
import { findPdfs, resolveTarget, type BatchFile, type Manifest } from './discover.js';
import { judge, openBatch, type FolderOptions } from './run.js';
import type { BatchResult, BatchVerdict } from './summary.js';

export interface WatchOptions extends Omit<FolderOptions, 'onProgress' | 'signal' | 'out'> {
  /** Output folder (a hot folder moves files on local disk). */
  out: string;
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
  const { registry, manifest } = await openBatch(options);
  const out = resolve(options.out);
  const intervalMs = options.intervalMs ?? 1_000;
  const stableMs = options.stableMs ?? 2_000;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const seen = new Map<string, { size: number; mtimeMs: number; since: number }>();
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const handle = async (file: BatchFile, claimed = false) => {
    try {
      const result = await processFile(file, out, manifest, registry, options, claimed);
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

  // Files claimed by a run that stopped before it moved them: ours already, judged first.
  for (const file of await findPdfs(join(out, INCOMING))) {
    busy.add(file.rel);
    const job = handle(file, true);
    inFlight.add(job);
    void job.finally(() => inFlight.delete(job));
  }

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

const INCOMING = '.incoming';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** `a/b.pdf` → `a/b~2.pdf` (n = 2…); n = 1 is the name itself. */
export function numbered(rel: string, n: number): string {
  if (n === 1) return rel;
  const dot = rel.toLowerCase().endsWith('.pdf') ? rel.length - 4 : rel.length;
  return `${rel.slice(0, dot)}~${n}${rel.slice(dot)}`;
}

/** The first name under `folder` whose PDF and reports are all free. */
async function freeName(out: string, folder: string, rel: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = numbered(rel, n);
    const taken = await Promise.all([name, `${name}.json`, `${name}.html`].map((p) => exists(join(out, folder, p))));
    if (!taken.some(Boolean)) return name;
  }
}

async function processFile(
  file: BatchFile,
  out: string,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: WatchOptions,
  claimedAlready: boolean,
): Promise<(BatchResult & { movedTo: string }) | null> {
  // Claim the upload: from here on, a file uploaded under the same name is another file.
  const claimed: BatchFile = { path: join(out, INCOMING, file.rel), rel: file.rel };
  if (!claimedAlready) {
    try {
      await moveFile(file.path, claimed.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // moved away meanwhile
      throw error;
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(claimed.path));
  } catch {
    return null;
  }
  const sha = sha256Hex(bytes);
  const staging = { report: `.staging/${file.rel}.json`, html: `.staging/${file.rel}.html` };
  const wantHtml = options.html ?? true;

  // A finished report from before a restart: reuse it, do not judge again.
  const earlier = await earlierResult(file, out, sha, manifest, registry, options);
  let result: BatchResult;
  let name: string | null = earlier?.name ?? null;
  if (earlier) result = earlier.result;
  else {
    const judged = await judge(claimed, out, manifest, registry, options, staging);
    if (judged === 'aborted') return null;
    result = judged;
  }
  const folder = FOLDER[result.verdict];
  name ??= await freeName(out, folder, file.rel);
  const dest = { pdf: `${folder}/${name}`, report: `${folder}/${name}.json`, html: `${folder}/${name}.html` };
  // Reports first (from staging, when they are there), then the PDF.
  for (const [from, to] of [
    [staging.report, dest.report],
    [staging.html, dest.html],
  ] as const) {
    if (from === to) continue;
    try {
      await moveFile(join(out, from), join(out, to));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  await moveFile(claimed.path, join(out, dest.pdf));
  const final = { ...result, report: dest.report, html: wantHtml && result.verdict !== 'error' && !result.outputError ? dest.html : null, movedTo: dest.pdf };
  await mkdir(out, { recursive: true });
  await appendFile(join(out, 'hotfolder.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), ...final })}\n`);
  return final;
}

/**
 * A finished report of these very bytes from before a restart: in staging (judged, not moved), or
 * in a verdict folder under a name whose PDF is not there yet (reports moved, PDF not).
 */
async function earlierResult(
  file: BatchFile,
  out: string,
  sha: string,
  manifest: Manifest,
  registry: ProfileRegistry,
  options: WatchOptions,
): Promise<{ result: BatchResult; name: string | null } | null> {
  const resolution = resolveTarget(file.rel, manifest, registry);
  if ('error' in resolution) return null;
  const target = resolution.resolved;
  const digest = profileDigest(target, { ...target.limits, ...options.preflight?.limits }, options.preflight?.severities ?? {}, options.preflight?.policy ?? {});
  const matches = async (path: string): Promise<Report | null> => {
    try {
      const parsed = ReportSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
      if (!parsed.success) return null;
      const r = parsed.data;
      return r.file.sha256 === sha && r.profileDigest === digest && r.tool.version === packageVersion() ? r : null;
    } catch {
      return null;
    }
  };
  const result = (r: Report, report: string): BatchResult => ({
    file: file.rel,
    sku: r.sku,
    via: resolution.via,
    verdict: r.verdict,
    report,
    html: null,
    reason: null,
    rules: r.rules,
    reused: true,
  });
  const staged = await matches(join(out, '.staging', `${file.rel}.json`));
  if (staged) return { result: result(staged, `.staging/${file.rel}.json`), name: null };
  for (const folder of ['pass', 'warn', 'fail']) {
    for (let n = 1; ; n++) {
      const name = numbered(file.rel, n);
      if (!(await exists(join(out, folder, `${name}.json`)))) break;
      if (await exists(join(out, folder, name))) continue;
      const r = await matches(join(out, folder, `${name}.json`));
      if (r) return { result: result(r, `${folder}/${name}.json`), name };
    }
  }
  return null;
}
