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
import type { PreflightPool } from '../pool/pool.js';
import type { ProfileRegistry } from '../profile/registry.js';
import { registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import { packageVersion } from '../util/package-root.js';
import type { CheckJob, CheckRecord } from './schema.js';
import type { JobStore } from './store.js';

/** What of a check decides its report, besides the bytes: any change makes another key. */
export async function reuseKey(sha256: string, job: CheckJob, context: { profiles?: string | ProfileRegistry; pool?: PreflightPool }): Promise<string> {
  const resolved = (await registryFrom(context.profiles)).resolve(job.target);
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

/** Whether a check may take or give a stored result: an upload, no fix asked (a fix makes a file of its own and an approval). */
export function reusable(job: CheckJob): boolean {
  return job.source.kind === 'upload' && !job.options.fix;
}

/**
 * The earlier finished check of this key and its report, or null. A check that is gone, not
 * `done`, or whose report is of other bytes is not taken (and its entry is dropped).
 */
export async function findReusable(store: JobStore, key: string, sha256: string, self: string): Promise<{ record: CheckRecord; report: Report } | null> {
  const id = (await store.storage.getText(indexKey(key)))?.trim();
  if (!id || id === self) return null;
  const record = await store.readRecord(id).catch(() => null);
  const report = record?.status === 'done' && !record.fixed ? await store.readReport(id).catch(() => null) : null;
  if (!record || !report || report.file.sha256 !== sha256) {
    if (!record) await store.storage.delete(indexKey(key));
    return null;
  }
  return { record, report };
}

/** Remembers that check `id` made the result of `key`. */
export async function rememberResult(store: JobStore, key: string, id: string): Promise<void> {
  await store.storage.put(indexKey(key), id);
}

/**
 * Copies an earlier check's result to a new check: report (its file name the new upload's),
 * report.html, previews, mockups and report pictures. Object by object, report.json last: present,
 * the result is whole.
 */
export async function copyResult(store: JobStore, from: string, to: string, report: Report, name: string | null): Promise<Report> {
  const prefix = store.checkKey(from, '');
  const keys = (await store.storage.list(prefix)).filter((k) => !/^(record|job|report)\.json$/.test(k.slice(prefix.length)) && !k.slice(prefix.length).startsWith('before/'));
  for (const key of keys) {
    const bytes = await store.storage.getBytes(key);
    if (bytes) await store.storage.put(store.checkKey(to, key.slice(prefix.length)), bytes);
  }
  const copy: Report = { ...report, file: { ...report.file, path: name ?? report.file.path } };
  await store.storage.put(store.checkKey(to, 'report.json'), `${JSON.stringify(copy, null, 2)}\n`);
  return copy;
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
