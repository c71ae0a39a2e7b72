/**
 * A result never computed twice: a check of the same bytes (SHA-256), target, profile, options
 * (limits, severities, policy, locale, rasterising) and tool version as an earlier finished check
 * takes that check's report, previews and mockups at once, and its record names it (`reusedFrom`).
 *
 * The index lives in the store (`reuse/<key>` → the check id), so every server and worker sharing
 * the store (a data folder, or object storage) finds it: fleet-wide. A key is overwritten by the
 * latest check that made it; an entry whose check is gone (deleted, retention) is dropped when
 * found and by the sweep.
 */
import { createHash } from 'node:crypto';
import { fixedFileName } from '../flow/check.js';
import type { PreflightPool } from '../pool/pool.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import { registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import { packageVersion } from '../util/package-root.js';
import type { CheckJob, CheckRecord } from './schema.js';
import type { JobStore } from './store.js';

/** What of a check decides its report, besides the bytes: any change makes another key. */
export async function reuseKey(sha256: string, job: CheckJob, context: { profiles?: string | ProfileRegistry; pool?: PreflightPool; resolved?: ResolvedTarget }): Promise<string> {
  // The run's own resolution when the caller holds it (one per check); else looked up here.
  const resolved = context.resolved ?? (await registryFrom(context.profiles)).resolve(job.target);
  const pool = context.pool;
  const settings = {
    tool: packageVersion(),
    sha256,
    target: job.target,
    profile: createHash('sha256').update(JSON.stringify(resolved)).digest('hex'),
    options: job.options,
    // The operator's limits: a report under another decode budget or time limit may differ.
    limits: pool ? { decode: pool.decodeLimits, taskTimeoutMs: pool.options.taskTimeoutMs ?? null } : null,
  };
  return createHash('sha256').update(stableJson(settings)).digest('hex');
}

/** Whether a check may take or give a stored result: an upload (a URL's bytes are known only once downloaded). */
export function reusable(job: CheckJob): boolean {
  return job.source.kind === 'upload';
}

/** Whether a finished record is a result another check may take: settled without an error, and its fixed file (if any) still there to copy. */
export function givesResult(record: CheckRecord): boolean {
  if (record.status !== 'done' && record.status !== 'needs-approval') return false;
  return !record.fixed || (record.approval?.state !== 'rejected' && !!record.token);
}

/**
 * The earlier finished check of this key and its report, or null. A check that is gone, not
 * `done`, or whose report is of other bytes is not taken (and its entry is dropped).
 */
export async function findReusable(store: JobStore, key: string, sha256: string, self: string): Promise<{ record: CheckRecord; report: Report; before: Report | null } | null> {
  const id = (await store.storage.getText(indexKey(key)))?.trim();
  if (!id || id === self) return null;
  const record = await store.readRecord(id).catch(() => null);
  if (!record) {
    await store.storage.delete(indexKey(key));
    return null;
  }
  if (!givesResult(record)) return null;
  // One round trip for what is left (each is a request to object storage): the report, the
  // original's report of a fixed check (with the sent bytes' SHA-256) and the fixed file.
  const [report, before, fileThere] = await Promise.all([
    store.readReport(id).catch(() => null),
    record.fixed ? store.readBeforeReport(id).catch(() => null) : null,
    record.fixed ? store.files.exists(record.token!) : true,
  ]);
  const original = record.fixed ? before : report;
  if (!report || original?.file.sha256 !== sha256 || !fileThere) return null;
  return { record, report, before };
}

/** Remembers that check `id` made the result of `key`. */
export async function rememberResult(store: JobStore, key: string, id: string): Promise<void> {
  await store.storage.put(indexKey(key), id);
}

/** What a reused check's record takes over from the earlier one. */
export type ReusedFields = Pick<CheckRecord, 'status' | 'verdict' | 'fixed' | 'token' | 'approval' | 'fixRefused'>;

/**
 * Copies an earlier check's result to a new check: report, report.html, previews, mockups, report
 * pictures and, for a fix, the original's report and pictures. A fixed file is copied under a
 * token of the new check's own: with `fix: auto` it is usable at once, otherwise it waits for this
 * check's own approval (a decision on the earlier check is not this customer's). report.json
 * last: present, the result is whole. `known`: the original's report of a fixed check, when the
 * caller has read it already.
 */
export async function copyResult(store: JobStore, earlier: CheckRecord, to: string, report: Report, name: string | null, newToken: () => string, known?: Report | null): Promise<ReusedFields> {
  const before = known !== undefined ? known : earlier.fixed ? await store.readBeforeReport(earlier.id) : null;
  // Reports name the file as it was sent: the earlier name gives way to this upload's.
  const earlierName = (before ?? report).file.path;
  const renamed = (r: Report): Report => {
    const path = r.file.path;
    if (name === null || earlierName === null || path === null) return r;
    const now = path === earlierName ? name : path === fixedFileName(earlierName) ? fixedFileName(name) : path;
    return { ...r, file: { ...r.file, path: now } };
  };
  const json = (r: Report) => `${JSON.stringify(renamed(r), null, 2)}\n`;
  const prefix = store.checkKey(earlier.id, '');
  const keys = (await store.storage.list(prefix)).filter((k) => !/^(record\.json|job\.json|report\.json|before\/report\.json)$/.test(k.slice(prefix.length)));
  // Copied inside the store (object storage: server-side CopyObject; a folder: a hard link), a few
  // at once: no byte of a preview or mockup passes through this process.
  const copies = keys.map((key) => () => store.storage.copy(key, store.checkKey(to, key.slice(prefix.length))));
  const fixedCopy = async (): Promise<Pick<CheckRecord, 'fixed' | 'token' | 'approval'>> => {
    if (!earlier.fixed || !earlier.token) return {};
    const token = newToken();
    const fixedReport = await store.files.readReport(earlier.token);
    if (!fixedReport) throw new Error('the earlier fixed file is gone');
    const state = earlier.approval?.state === 'auto' ? 'auto' : 'pending';
    if (!(await store.files.copy(earlier.token, token, { check: to, sha256: earlier.fixed.sha256, state, report: renamed(fixedReport) }))) throw new Error('the earlier fixed file is gone');
    return { token, fixed: { ...earlier.fixed, url: `/v1/files/${token}.pdf` }, approval: state === 'auto' ? { state, at: new Date().toISOString() } : { state } };
  };
  const [fixed] = await Promise.all([fixedCopy(), inParallel(copies, COPIES_AT_ONCE), before ? store.storage.put(store.checkKey(to, 'before/report.json'), json(before)) : null]);
  // report.json last: present, the result is whole.
  await store.storage.put(store.checkKey(to, 'report.json'), json(report));
  return {
    status: fixed.approval?.state === 'pending' ? 'needs-approval' : 'done',
    verdict: report.verdict,
    ...fixed,
    ...(earlier.fixRefused ? { fixRefused: earlier.fixRefused } : {}),
  };
}

/** Copies in flight at once: enough to hide each request's round trip, few enough for any store's rate limits. */
const COPIES_AT_ONCE = 8;

/** Runs `tasks` with at most `limit` at once; rejects with the first failure. */
async function inParallel(tasks: Array<() => Promise<unknown>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}

/** Removes index entries whose check is gone. Resolves to how many. */
export async function sweepReuse(store: JobStore): Promise<number> {
  let removed = 0;
  for (const name of await store.storage.children('reuse/')) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    const id = (await store.storage.getText(`reuse/${name}`).catch(() => null))?.trim();
    if (id && /^[0-9a-f]{32}$/.test(id) && (await store.hasRecord(id))) continue;
    await store.storage.delete(`reuse/${name}`);
    removed++;
  }
  return removed;
}

function indexKey(key: string): string {
  return `reuse/${key}`;
}

/** JSON with object keys sorted: the same settings give the same key whatever order they were written in. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
