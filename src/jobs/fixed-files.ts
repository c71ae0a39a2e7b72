/**
 * Fixed files, kept apart from checks in the data folder: deleting a check or its retention never
 * removes a file an order may print from.
 *
 * ```
 * DATA/files/<token>.pdf  <token>.json (check, sha256, approval state)  <token>.report.json
 * DATA/files/<token>.refs/<ref>.json   one per order that references the fixed file
 * DATA/orders/<ref>/<token>            the fixed files an order references (to release them)
 * ```
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { InvalidArgumentError } from '../errors.js';
import { TOKEN_PATTERN, tokenOf } from '../model/token.js';
import type { Report } from '../report/schema.js';
import type { ObjectStorage } from '../storage/storage.js';
import { CheckIdSchema, type CheckRecord } from './schema.js';

/** What fixed files need of the checks they came from. */
export interface CheckFolders {
  hasRecord(id: string): Promise<boolean>;
  readRecord(id: string): Promise<CheckRecord | null>;
  readReport(id: string): Promise<Report | null>;
}

/** Where a fixed file's approval stands (the record's `approval.state`). */
export type FixedState = 'pending' | 'approved' | 'rejected' | 'auto';

/** What `files/<token>.json` keeps of a fixed file, so it is served and judged after its check is gone. */
export interface FixedMeta {
  check: string;
  sha256: string;
  state: FixedState;
  /** When it was made or last decided on. */
  at: string;
}

function assertToken(token: string): string {
  if (!TOKEN_PATTERN.test(token)) throw new InvalidArgumentError('not a file token');
  return token;
}

/**
 * The fixed files of a data folder, by token.
 * @example
 * const store = await JobStore.open('./data');
 * const meta = await store.files.meta(token); // { check, sha256, state, at } or null
 */
export class FixedFiles {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly checks: CheckFolders,
  ) {}

  /**
   * Writes a fixed file under its token with its own report and state beside it (it outlives its
   * check while orders reference it). Idempotent.
   */
  async write(token: string, fixed: { check: string; bytes: Uint8Array; sha256: string; state: FixedState; report: Report }): Promise<void> {
    await this.storage.put(this.key(token), fixed.bytes);
    await this.storage.put(`files/${assertToken(token)}.report.json`, `${JSON.stringify(fixed.report, null, 2)}\n`);
    await this.writeMeta(token, { check: fixed.check, sha256: fixed.sha256, state: fixed.state, at: new Date().toISOString() });
  }

  /**
   * A fixed file under a new token from the object of an earlier token (a reused result): copied
   * inside the store, with its own report and state. False when the earlier file is gone.
   */
  async copy(from: string, token: string, fixed: { check: string; sha256: string; state: FixedState; report: Report }): Promise<boolean> {
    if (!(await this.storage.copy(this.key(from), this.key(token)))) return false;
    await this.storage.put(`files/${assertToken(token)}.report.json`, `${JSON.stringify(fixed.report, null, 2)}\n`);
    await this.writeMeta(token, { check: fixed.check, sha256: fixed.sha256, state: fixed.state, at: new Date().toISOString() });
    return true;
  }

  private async writeMeta(token: string, meta: FixedMeta): Promise<void> {
    await this.storage.put(`files/${assertToken(token)}.json`, JSON.stringify(meta));
  }

  /**
   * What is known of a fixed file by its token alone (it outlives its check): the check, its
   * SHA-256 and where its approval stands. Null for an unknown token. A token written before the
   * state was kept beside the file takes it from the check's record.
   */
  async meta(token: string): Promise<FixedMeta | null> {
    const text = await this.storage.getText(`files/${assertToken(token)}.json`);
    if (text === null) return null;
    const raw = JSON.parse(text) as Partial<FixedMeta>;
    if (typeof raw.check !== 'string' || !CheckIdSchema.safeParse(raw.check).success) return null;
    if (raw.sha256 && raw.state) return raw as FixedMeta;
    const record = await this.checks.readRecord(raw.check);
    if (!record?.fixed || !record.approval) return null;
    return { check: raw.check, sha256: record.fixed.sha256, state: record.approval.state, at: record.approval.at ?? record.finishedAt ?? record.createdAt };
  }

  /** Records the approval decision beside the fixed file. */
  async setState(token: string, state: FixedState): Promise<void> {
    const meta = await this.meta(token);
    if (meta) await this.writeMeta(token, { ...meta, state, at: new Date().toISOString() });
  }

  /** The fixed file's own report (kept beside it), or its check's report for a file written before. */
  async readReport(token: string): Promise<Report | null> {
    const text = await this.storage.getText(`files/${assertToken(token)}.report.json`);
    if (text !== null) return JSON.parse(text) as Report;
    const meta = await this.meta(token);
    return meta ? this.checks.readReport(meta.check) : null;
  }

  /** The key of a token's fixed file. */
  key(token: string): string {
    return `files/${assertToken(token)}.pdf`;
  }

  /** The fixed file's bytes as a stream, or null when it is not there (never made, rejected or removed). */
  stream(token: string): Promise<Readable | null> {
    return this.storage.get(this.key(token));
  }

  /** Whether the fixed file of a token is there. */
  async exists(token: string): Promise<boolean> {
    return (await this.storage.head(this.key(token))) !== null;
  }

  /** A URL that downloads the fixed file for `seconds` straight from object storage; null on a local folder. */
  presign(token: string, seconds: number): Promise<string | null> {
    return this.storage.presign(this.key(token), seconds);
  }

  /** The check a fixed file's token belongs to, or null. */
  async checkOf(token: string): Promise<string | null> {
    const text = await this.storage.getText(`files/${assertToken(token)}.json`);
    if (text === null) return null;
    const check = (JSON.parse(text) as { check?: unknown }).check;
    return typeof check === 'string' && CheckIdSchema.safeParse(check).success ? check : null;
  }

  /** Removes a fixed file whose fix was rejected (its token still names the check, for the approval page). */
  async remove(token: string): Promise<void> {
    await this.storage.delete(this.key(token));
  }

  /**
   * Records that an order references a fixed file: the file is never swept while a reference
   * stands. `ref` names the order (the same order built twice is one reference). Idempotent.
   */
  async addReference(token: string, ref: string, about: { tenant: string; order: string | null }): Promise<void> {
    const name = referenceName(ref);
    // The order's list first: a reference is never written without a way to release it.
    await this.storage.put(`orders/${name}/${assertToken(token)}`, '');
    await this.storage.put(`files/${token}.refs/${name}.json`, JSON.stringify({ ...about, at: new Date().toISOString() }));
  }

  /**
   * Releases every fixed file an order references (the order was delivered or cancelled): from
   * now on each follows the retention of unreferenced files, unless another order references it.
   * Resolves to the tokens released (none when the order references nothing).
   */
  async releaseReferences(ref: string): Promise<string[]> {
    const name = referenceName(ref);
    const folder = `orders/${name}/`;
    const tokens = (await this.storage.children(folder)).filter((t) => TOKEN_PATTERN.test(t)).sort();
    for (const token of tokens) {
      await this.storage.delete(`files/${token}.refs/${name}.json`);
      // A folder's time tells a local sweep when the last reference went; object storage keeps it in an object.
      if (this.storage.localPath('files') === null) await this.storage.put(`files/${token}.refs/released`, new Date().toISOString());
    }
    await this.storage.deletePrefix(folder);
    return tokens;
  }

  /** The orders referencing a fixed file. */
  async references(token: string): Promise<{ tenant: string; order: string | null; at: string }[]> {
    const folder = `files/${assertToken(token)}.refs/`;
    const names = await this.storage.children(folder);
    const out = [];
    for (const n of names.filter((x) => /^[0-9a-f]{32}\.json$/.test(x)).sort()) {
      const text = await this.storage.getText(`${folder}${n}`).catch(() => null);
      if (text !== null) out.push(JSON.parse(text) as { tenant: string; order: string | null; at: string });
    }
    return out;
  }

  /**
   * Retention of fixed files: a file an order references is never removed, however old. An
   * unreferenced one is removed `maxAgeMs` after it was last made, decided on or released by an
   * order (the later); its token's notes go once its check is gone too. Resolves to the number of
   * fixed files removed.
   */
  async sweep(maxAgeMs: number, now = Date.now()): Promise<number> {
    const names = await this.storage.children('files/');
    let removed = 0;
    for (const name of names) {
      const token = tokenOf(name, '.json');
      if (!token) continue;
      const refs = `files/${token}.refs/`;
      const refNames = await this.storage.children(refs);
      if (refNames.some((n) => n.endsWith('.json'))) continue;
      const meta = await this.meta(token).catch(() => null);
      const modified = (key: string) => this.storage.head(key).then((i) => i?.modifiedMs ?? 0);
      const refsTime = async () => {
        const folder = this.storage.localPath(refs);
        if (folder !== null) return (await stat(folder).catch(() => null))?.mtimeMs ?? 0;
        return modified(`${refs}released`);
      };
      const times = await Promise.all([modified(this.key(token)), refsTime(), modified(`files/${name}`)]);
      const last = Math.max(times[0]!, times[1]!, times[2]!, meta ? Date.parse(meta.at) || 0 : 0);
      if (now - last <= maxAgeMs) continue;
      const hadFile = times[0]! > 0;
      await this.storage.delete(this.key(token));
      await this.storage.delete(`files/${token}.report.json`);
      await this.storage.deletePrefix(refs);
      const checkGone = !meta || !(await this.checks.hasRecord(meta.check));
      if (checkGone) await this.storage.delete(`files/${name}`);
      if (hadFile) removed++;
    }
    return removed;
  }
}

/** The file name of an order's reference (its tenant and number, hashed: any number is a safe name). */
function referenceName(ref: string): string {
  return createHash('sha256').update(ref).digest('hex').slice(0, 32);
}
