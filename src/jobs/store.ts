/**
 * The data folder: uploads, job records, reports and previews, shared by every process that serves
 * or runs checks (the embedded server, or a fleet of workers on one folder).
 *
 * ```
 * DATA/uploads/<id>.pdf
 * DATA/checks/<id>/job.json  record.json  report.json  report.html  pages/<n>.<ext>
 * DATA/files/<token>.pdf  <token>.json (check, sha256, approval state)  <token>.report.json
 * DATA/files/<token>.refs/<ref>.json   one per order that references the fixed file
 * DATA/orders/<ref>/<token>            the fixed files an order references (to release them)
 * DATA/sources/<sha256 of url>/<id>    the checks of a URL submission, by URL
 * ```
 *
 * Every byte goes through one {@link ObjectStorage} under these same keys: the data folder itself
 * (storage/local.ts, the default) or S3-compatible object storage (`--storage s3://…`), when the
 * data folder is scratch only (streamed uploads before they are stored, and nothing else) and a
 * process on an empty machine answers every check the store holds.
 *
 * Every write is durable (a local write: a temporary file, fsynced, renamed, the folder fsynced; an
 * object: a PUT, atomic in S3): a reader sees the old or the new content, and what a 202 promised
 * survives a power cut. Result writes are idempotent by job id: writing the same result twice is
 * harmless.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidArgumentError } from '../errors.js';
import type { Preview } from '../flow/preflight.js';
import type { Report } from '../report/schema.js';
import { CheckIdSchema, CheckJobSchema, CheckRecordSchema, isSettled, type CheckJob, type CheckRecord } from './schema.js';
import { ordinal } from '../util/text.js';
import { removeStaleTemporaries, syncDir, temporaryFor } from '../util/durable.js';
import { LocalStorage } from '../storage/local.js';
import type { ObjectStorage } from '../storage/storage.js';
import { FixedFiles, type FixedState } from './fixed-files.js';
import { sweepReuse } from './reuse.js';
import { ProcessRecordLock, type RecordLock, type RunLease } from './record-lock.js';

/** A temporary file untouched this long belongs to a process that died (on any machine sharing the folder). */
const STALE_TEMP_MS = 15 * 60_000;

/** Where a check's files are, and how to write them durably. */
export class JobStore {
  private readonly events = new EventEmitter<{ record: [CheckRecord] }>();
  /** Changes of one record in this process, one after another; runs leased in this process. */
  private readonly local = new ProcessRecordLock();
  /** The lock every process sharing the folder takes (a fleet's Redis), or none for one process. */
  private recordLock: RecordLock | null = null;

  /** The fixed files of the folder, by token. */
  readonly files: FixedFiles;

  /** Where every byte is kept: the data folder itself, or object storage. */
  readonly storage: ObjectStorage;
  /** True when the bytes live in object storage and the data folder is scratch only. */
  readonly remote: boolean;

  private constructor(
    readonly dir: string,
    storage: ObjectStorage | undefined,
  ) {
    this.storage = storage ?? new LocalStorage(dir);
    this.remote = this.storage.localPath('checks') === null;
    this.files = new FixedFiles(this.storage, this);
    this.events.setMaxListeners(0);
  }

  /**
   * Opens (creating) a data folder and clears temporary files left by a killed process. With
   * `storage` (object storage), the folder is scratch only: every byte is read from and written to
   * the storage.
   * @example
   * const store = await JobStore.open('./print-preflight-data');
   * const shared = await JobStore.open('/tmp/scratch', { storage: await openStorage({ url: 's3://prints/preflight' }) });
   */
  static async open(dir: string, options: { storage?: ObjectStorage } = {}): Promise<JobStore> {
    await mkdir(join(dir, 'uploads'), { recursive: true });
    await mkdir(join(dir, 'checks'), { recursive: true });
    const store = new JobStore(dir, options.storage);
    await store.removeTemporaries();
    return store;
  }

  /** The key of a check's file (`checks/<id>/<name>`). */
  checkKey(id: string, name: string): string {
    return `checks/${assertId(id)}/${name}`;
  }

  /** An object's bytes as a stream, or null when it is absent (a preview, a mockup, a fixed file). */
  stream(key: string): Promise<Readable | null> {
    return this.storage.get(key);
  }

  /** An object's bytes, or null. */
  readBytes(key: string): Promise<Buffer | null> {
    return this.storage.getBytes(key);
  }

  checkDir(id: string): string {
    return join(this.dir, 'checks', assertId(id));
  }

  /** Absolute path of a file named relative to the data folder (a job's `source.file`). */
  resolve(relative: string): string {
    if (relative.split(/[\\/]/).includes('..')) throw new InvalidArgumentError(`"${relative}" leaves the data folder`);
    return join(this.dir, relative);
  }

  uploadFile(id: string): string {
    return `uploads/${assertId(id)}.pdf`;
  }

  /** The upload of one layer's image of a check (a job's `source.layers[layer].file`). */
  layerUploadFile(id: string, layer: string): string {
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(layer)) throw new InvalidArgumentError(`"${layer.slice(0, 70)}" is not a layer id`);
    return `uploads/${assertId(id)}.layer-${layer}`;
  }

  /** A temporary path to stream a layer's upload into; {@link commitLayerUpload} makes it the job's. */
  layerUploadTemp(id: string, layer: string): string {
    return temporaryFor(join(this.dir, this.layerUploadFile(id, layer)));
  }

  /** fsyncs a streamed layer upload and moves it in place (as {@link commitUpload}). */
  async commitLayerUpload(temp: string, id: string, layer: string): Promise<string> {
    const rel = this.layerUploadFile(id, layer);
    await this.storage.putFile(rel, temp);
    return rel;
  }

  /** A temporary path to stream an upload into; {@link commitUpload} makes it the job's upload. */
  uploadTemp(id: string): string {
    return temporaryFor(join(this.dir, 'uploads', `${assertId(id)}.pdf`));
  }

  /** fsyncs a streamed upload and moves it in place (into object storage: uploaded, then the scratch copy removed). */
  async commitUpload(temp: string, id: string): Promise<string> {
    const rel = this.uploadFile(id);
    await this.storage.putFile(rel, temp);
    return rel;
  }

  /** The bytes of an upload (a job's `source.file`), or null when it is gone. */
  async readUpload(relative: string): Promise<Buffer | null> {
    if (relative.split(/[\\/]/).includes('..')) throw new InvalidArgumentError(`"${relative}" leaves the data folder`);
    return this.storage.getBytes(relative);
  }

  /** Writes a new job and its first record, durably. */
  async create(job: CheckJob, record: CheckRecord): Promise<void> {
    if (!this.remote) await mkdir(this.checkDir(job.id), { recursive: true });
    await this.storage.put(this.checkKey(job.id, 'job.json'), JSON.stringify(CheckJobSchema.parse(job), null, 2));
    await this.writeRecord(record);
    if (!this.remote) await syncDir(join(this.dir, 'checks'));
    if (job.source.kind === 'url') await this.storage.put(`${this.sourcePrefix(job.source.url)}${job.id}`, '');
  }

  /** The folder naming the checks of a source URL (by its SHA-256: any URL is a safe name). */
  private sourcePrefix(url: string): string {
    return `sources/${createHash('sha256').update(url).digest('hex')}/`;
  }

  /** The checks submitted for exactly this URL (any tenant, any state), by id. */
  async checksOfUrl(url: string): Promise<string[]> {
    const names = await this.storage.children(this.sourcePrefix(url));
    return names.filter((n) => CheckIdSchema.safeParse(n).success).sort();
  }

  async readJob(id: string): Promise<CheckJob | null> {
    const text = await this.storage.getText(this.checkKey(id, 'job.json'));
    return text === null ? null : CheckJobSchema.parse(JSON.parse(text));
  }

  async readRecord(id: string): Promise<CheckRecord | null> {
    if (!CheckIdSchema.safeParse(id).success) return null;
    const text = await this.storage.getText(this.checkKey(id, 'record.json'));
    return text === null ? null : CheckRecordSchema.parse(JSON.parse(text));
  }

  /**
   * Where records are locked and runs leased: this process (the default), or a fleet's Redis
   * (fleet/record-lock.ts) when several processes share the folder.
   */
  useRecordLock(lock: RecordLock): void {
    this.recordLock = lock;
  }

  /** The run lease of a check (one run at a time, in every process sharing the folder). */
  leaseRun(id: string, ttlMs: number): Promise<RunLease | null> {
    return (this.recordLock ?? this.local).lease(id, ttlMs);
  }

  /**
   * Changes a record under its lock — after any other change of the same record, in this process
   * and (with a fleet's lock) in every process sharing the folder — so a run, a decision and a
   * callback delivery never overwrite each other's fields. Each write raises the record's
   * `version`. `then` runs under the same lock once the change is written (what must agree with
   * the record: a fixed file's state), with the record written. `required`: the fleet's lock must
   * be had (a decision), else RecordLockUnavailableError; without it a Redis that is away leaves the
   * change to this process's lock alone.
   */
  async updateRecord(id: string, change: (record: CheckRecord) => CheckRecord, then?: (next: CheckRecord) => Promise<void>, options: { required?: boolean } = {}): Promise<CheckRecord | null> {
    const shared = this.recordLock;
    return this.local.run(id, () =>
      (shared ? (fn: () => Promise<CheckRecord | null>) => shared.run(id, fn, options) : (fn: () => Promise<CheckRecord | null>) => fn())(async () => {
        const current = await this.readRecord(id);
        if (!current) return null;
        const changed = change(current);
        // Nothing to change, nothing written: in a fleet another process may have written the record
        // since it was read here, and writing this copy back would undo that (a callback recorded).
        if (changed === current) return current;
        const next = CheckRecordSchema.parse({ ...changed, version: (current.version ?? 0) + 1 });
        await this.writeRecord(next);
        await then?.(next);
        return next;
      }),
    );
  }

  /** Writes the report (exactly `check --json`), the HTML report and the previews. Idempotent. */
  async writeResult(id: string, result: { report: Report; html: string; previews: ReadonlyMap<number, Preview> }): Promise<void> {
    for (const [n, p] of result.previews) await this.storage.put(this.checkKey(id, `pages/${n}.${p.format}`), p.bytes);
    await this.storage.put(this.checkKey(id, 'report.html'), result.html);
    // Last: report.json present means the result is whole.
    await this.storage.put(this.checkKey(id, 'report.json'), `${JSON.stringify(result.report, null, 2)}\n`);
  }

  /** The report as `check --json` prints it, or null before it exists. */
  async readReportText(id: string): Promise<string | null> {
    return this.storage.getText(this.checkKey(id, 'report.json'));
  }

  async readReport(id: string): Promise<Report | null> {
    const text = await this.readReportText(id);
    return text === null ? null : (JSON.parse(text) as Report);
  }

  /**
   * Writes what a fix made: the fixed file under its token (`files/<token>.pdf`, with
   * `files/<token>.json` naming its check), and the original's report and previews (`before/`).
   * Idempotent. Fixed files are kept apart from checks: deleting a check or its retention does not
   * remove a file an order may print from.
   */
  async writeFixed(
    id: string,
    token: string,
    fixed: { bytes: Uint8Array; sha256: string; state: FixedState; report: Report; before: Report; beforePreviews: ReadonlyMap<number, Preview> },
  ): Promise<void> {
    await this.files.write(token, { check: id, ...fixed });
    for (const [n, p] of fixed.beforePreviews) await this.storage.put(this.checkKey(id, `before/pages/${n}.${p.format}`), p.bytes);
    await this.storage.put(this.checkKey(id, 'before/report.json'), `${JSON.stringify(fixed.before, null, 2)}\n`);
  }

  /** The original file's report of a check that fixed it, or null. */
  async readBeforeReport(id: string): Promise<Report | null> {
    const text = await this.storage.getText(this.checkKey(id, 'before/report.json'));
    return text === null ? null : (JSON.parse(text) as Report);
  }

  /** Whether a check has a record (it exists, in any state). */
  async hasRecord(id: string): Promise<boolean> {
    return (await this.storage.head(this.checkKey(id, 'record.json'))) !== null;
  }

  reportHtmlFile(id: string): string {
    return join(this.checkDir(id), 'report.html');
  }

  /** Page previews present, by page number (1-based), with their key (read with {@link stream}). */
  async previews(id: string, which: 'after' | 'before' = 'after'): Promise<Map<number, { file: string; format: string }>> {
    const out = new Map<number, { file: string; format: string }>();
    const folder = this.checkKey(id, which === 'before' ? 'before/pages/' : 'pages/');
    for (const name of await this.storage.children(folder)) {
      const m = /^(\d+)\.(png|webp)$/.exec(name);
      if (m) out.set(Number(m[1]), { file: `${folder}${name}`, format: m[2]! });
    }
    return new Map([...out].sort(([a], [b]) => a - b));
  }

  /**
   * What the customer's pages show of a report (the fixed or only report: `after`; the original
   * of a fixed file: `before`): the mockup of each page (`mockups/<n>.png`) and, when the check
   * keeps no previews, the pictures report.html shows (`report-pages/`, never served as previews).
   * Idempotent.
   */
  async writeCustomerImages(id: string, which: 'after' | 'before', images: { mockups: ReadonlyMap<number, { bytes: Uint8Array }>; previews?: ReadonlyMap<number, Preview> }): Promise<void> {
    const dir = which === 'before' ? 'before/' : '';
    for (const [n, m] of images.mockups) await this.storage.put(this.checkKey(id, `${dir}mockups/${n}.png`), m.bytes);
    for (const [n, p] of images.previews ?? []) await this.storage.put(this.checkKey(id, `${dir}report-pages/${n}.${p.format}`), p.bytes);
  }

  /** The mockups of a report's pages, by page number, with their key. */
  async mockups(id: string, which: 'after' | 'before' = 'after'): Promise<Map<number, string>> {
    const folder = this.checkKey(id, which === 'before' ? 'before/mockups/' : 'mockups/');
    const out = new Map<number, string>();
    for (const name of await this.storage.children(folder)) {
      const m = /^(\d+)\.png$/.exec(name);
      if (m) out.set(Number(m[1]), `${folder}${name}`);
    }
    return new Map([...out].sort(([a], [b]) => a - b));
  }

  /** The pictures a report's pages show: its previews, else those kept for report.html only. */
  async reportImages(id: string, which: 'after' | 'before' = 'after'): Promise<Map<number, { file: string; format: string }>> {
    const out = await this.previews(id, which);
    const folder = this.checkKey(id, which === 'before' ? 'before/report-pages/' : 'report-pages/');
    for (const name of await this.storage.children(folder)) {
      const m = /^(\d+)\.(png|webp)$/.exec(name);
      if (m && !out.has(Number(m[1]))) out.set(Number(m[1]), { file: `${folder}${name}`, format: m[2]! });
    }
    return new Map([...out].sort(([a], [b]) => a - b));
  }

  /** The original's report.html of a check that fixed its file (`before/report.html`). */
  originalHtmlFile(id: string): string {
    return join(this.checkDir(id), 'before', 'report.html');
  }

  /** Writes the original's report.html of a check that fixed its file. Idempotent. */
  async writeOriginalHtml(id: string, html: string): Promise<void> {
    await this.storage.put(this.checkKey(id, 'before/report.html'), html);
  }

  /** Deletes a check: its folder, its upload and its entry by URL (its fixed file stays: see {@link sweep}). */
  async remove(id: string): Promise<boolean> {
    const record = await this.readRecord(id);
    const job = await this.readJob(id).catch(() => null);
    if (job?.source.kind === 'url') await this.storage.delete(`${this.sourcePrefix(job.source.url)}${id}`);
    await this.storage.delete(this.uploadFile(id));
    if (job) await this.removeLayerUploads(job);
    await this.storage.deletePrefix(this.checkKey(id, ''));
    return record !== null;
  }

  /** Deletes an upload once its check has a result (the report keeps its sha256). */
  async removeUpload(id: string): Promise<void> {
    await this.storage.delete(this.uploadFile(id));
  }

  /** Deletes the layer uploads of a job with a source per layer, once its check has a result. */
  async removeLayerUploads(job: CheckJob): Promise<void> {
    if (job.source.kind !== 'layers') return;
    for (const layer of Object.values(job.source.layers)) if ('file' in layer) await this.storage.delete(layer.file);
  }

  /** Every check id in the store. */
  async ids(): Promise<string[]> {
    const names = await this.storage.children('checks/');
    return names.filter((n) => CheckIdSchema.safeParse(n).success).sort();
  }

  /** Records that still need a run (queued, or running when a process stopped), oldest first. */
  async unfinished(): Promise<CheckRecord[]> {
    const out: CheckRecord[] = [];
    for (const id of await this.ids()) {
      const r = await this.readRecord(id).catch(() => null);
      if (r && (r.status === 'queued' || r.status === 'running')) out.push(r);
    }
    return out.sort((a, b) => ordinal(a.createdAt, b.createdAt));
  }

  /**
   * Retention: deletes checks finished (or created, for a check whose record is unreadable) more
   * than `maxAgeMs` ago, and uploads whose check is gone; then fixed files ({@link FixedFiles.sweep},
   * `fixedMaxAgeMs`, default `maxAgeMs`). Resolves to the number of checks removed.
   */
  async sweep(maxAgeMs: number, now = Date.now(), fixedMaxAgeMs = maxAgeMs): Promise<number> {
    let removed = 0;
    for (const id of await this.ids()) {
      const record = await this.readRecord(id).catch(() => null);
      const when = record
        ? Date.parse(record.finishedAt ?? (isSettled(record.status) ? record.createdAt : ''))
        : this.remote
          ? (await this.storage.head(this.checkKey(id, 'job.json')))?.modifiedMs
          : (await stat(this.checkDir(id)).catch(() => null))?.mtimeMs;
      if (when === undefined || Number.isNaN(when)) continue;
      if (now - when > maxAgeMs) {
        await this.remove(id);
        removed++;
      }
    }
    await this.removeTemporaries(STALE_TEMP_MS, now);
    for (const name of await this.storage.children('uploads/')) {
      const m = /^([0-9a-f]{32})\.(?:pdf|layer-[a-z0-9-]+)$/.exec(name);
      if (!m) continue;
      const info = await this.storage.head(`uploads/${name}`);
      const orphan = !(await this.storage.head(this.checkKey(m[1]!, 'job.json')));
      if (orphan && info && now - info.modifiedMs > maxAgeMs) await this.storage.delete(`uploads/${name}`);
    }
    await this.files.sweep(fixedMaxAgeMs, now);
    await sweepReuse(this);
    return removed;
  }

  /** Whether the store can be written: a probe written (synced) and removed; with object storage, the scratch folder too. */
  async probe(): Promise<{ ok: boolean; detail?: string }> {
    const stored = await this.storage.probe();
    if (!stored.ok || !this.remote) return stored;
    const scratch = await new LocalStorage(this.dir).probe();
    return scratch.ok ? { ok: true, detail: `object storage ${this.storage.description}` } : scratch;
  }

  /** Bytes free in the data folder for this process's user; null when the file system cannot tell. */
  async freeBytes(): Promise<number | null> {
    try {
      const s = await statfs(this.dir);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }

  /**
   * Resolves with the record once it is done or in error, or null when `timeoutMs` passes first.
   * Records written by this process wake it at once; others (a worker elsewhere) are polled.
   * Resolves null at once when `signal` aborts.
   */
  async waitFinished(id: string, timeoutMs: number, { signal, pollMs = 250 }: { signal?: AbortSignal; pollMs?: number } = {}): Promise<CheckRecord | null> {
    const finished = (r: CheckRecord | null) => r !== null && isSettled(r.status);
    if (signal?.aborted) return null;
    // Listening before the first read: a record written while that read is under way (a reused
    // result settles in milliseconds) wakes the wait at once instead of at the next poll.
    return new Promise((resolve, reject) => {
      let settled = false;
      const end = () => {
        settled = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.events.off('record', onRecord);
        signal?.removeEventListener('abort', onAbort);
      };
      const done = (r: CheckRecord | null) => {
        if (settled) return;
        end();
        resolve(r);
      };
      const onAbort = () => done(null);
      const onRecord = (r: CheckRecord) => {
        if (r.id === id && finished(r)) done(r);
      };
      this.events.on('record', onRecord);
      signal?.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      let poll: NodeJS.Timeout | undefined;
      this.readRecord(id).then(
        (first) => {
          if (finished(first) || timeoutMs <= 0) return done(finished(first) ? first : null);
          if (settled) return;
          timer = setTimeout(() => done(null), timeoutMs);
          poll = setInterval(() => {
            this.readRecord(id).then(
              (r) => finished(r) && done(r),
              () => undefined,
            );
          }, pollMs);
        },
        (error: unknown) => {
          if (settled) return;
          end();
          reject(error);
        },
      );
    });
  }

  /** Called with every record this process writes. */
  onRecord(listener: (record: CheckRecord) => void): () => void {
    this.events.on('record', listener);
    return () => this.events.off('record', listener);
  }

  private async writeRecord(record: CheckRecord): Promise<void> {
    await this.storage.put(this.checkKey(record.id, 'record.json'), JSON.stringify(record, null, 2));
    this.events.emit('record', record);
  }

  /**
   * Temporary files older than `minAgeMs`: left by a killed process. Younger ones may be another
   * process's write in progress (several processes, on several machines, can share the folder).
   */
  removeTemporaries(minAgeMs = STALE_TEMP_MS, now = Date.now()): Promise<number> {
    return removeStaleTemporaries(this.dir, { olderThanMs: minAgeMs, now });
  }
}

/** A write stream for an upload (the caller commits it with {@link JobStore.commitUpload}). */
export function uploadStream(path: string) {
  return createWriteStream(path, { flags: 'wx' });
}

function assertId(id: string): string {
  if (!CheckIdSchema.safeParse(id).success) throw new InvalidArgumentError(`Expected a check id (32 hex characters) but received "${String(id).slice(0, 40)}"`);
  return id;
}
