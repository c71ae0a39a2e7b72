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
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { Report } from '../report/schema.js';
import { isTemporaryName, readTextOrNull, syncDir, writeDurable } from '../util/durable.js';
import { CheckIdSchema, type CheckRecord } from './schema.js';

/** What fixed files need of the checks they came from. */
export interface CheckFolders {
  checkDir(id: string): string;
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

/** Fixed-file tokens: 48 lower-case hex characters (192 random bits). */
export const TOKEN_PATTERN = /^[0-9a-f]{48}$/;
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
    private readonly dir: string,
    private readonly checks: CheckFolders,
  ) {}

  /**
   * Writes a fixed file under its token with its own report and state beside it (it outlives its
   * check while orders reference it). Idempotent.
   */
  async write(token: string, fixed: { check: string; bytes: Uint8Array; sha256: string; state: FixedState; report: Report }): Promise<void> {
    await writeDurable(this.path(token), fixed.bytes);
    await writeDurable(join(this.dir, 'files', `${assertToken(token)}.report.json`), `${JSON.stringify(fixed.report, null, 2)}\n`);
    await this.writeMeta(token, { check: fixed.check, sha256: fixed.sha256, state: fixed.state, at: new Date().toISOString() });
  }

  private async writeMeta(token: string, meta: FixedMeta): Promise<void> {
    await writeDurable(join(this.dir, 'files', `${assertToken(token)}.json`), JSON.stringify(meta));
  }

  /**
   * What is known of a fixed file by its token alone (it outlives its check): the check, its
   * SHA-256 and where its approval stands. Null for an unknown token. A token written before the
   * state was kept beside the file takes it from the check's record.
   */
  async meta(token: string): Promise<FixedMeta | null> {
    const text = await readTextOrNull(join(this.dir, 'files', `${assertToken(token)}.json`));
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
    const text = await readTextOrNull(join(this.dir, 'files', `${assertToken(token)}.report.json`));
    if (text !== null) return JSON.parse(text) as Report;
    const meta = await this.meta(token);
    return meta ? this.checks.readReport(meta.check) : null;
  }

  /** The fixed file of a token. */
  path(token: string): string {
    return join(this.dir, 'files', `${assertToken(token)}.pdf`);
  }

  /** The check a fixed file's token belongs to, or null. */
  async checkOf(token: string): Promise<string | null> {
    const text = await readTextOrNull(join(this.dir, 'files', `${assertToken(token)}.json`));
    if (text === null) return null;
    const check = (JSON.parse(text) as { check?: unknown }).check;
    return typeof check === 'string' && CheckIdSchema.safeParse(check).success ? check : null;
  }

  /** Removes a fixed file whose fix was rejected (its token still names the check, for the approval page). */
  async remove(token: string): Promise<void> {
    await rm(this.path(token), { force: true });
  }

  /**
   * Records that an order references a fixed file: the file is never swept while a reference
   * stands. `ref` names the order (the same order built twice is one reference). Idempotent.
   */
  async addReference(token: string, ref: string, about: { tenant: string; order: string | null }): Promise<void> {
    const name = referenceName(ref);
    // The order's list first: a reference is never written without a way to release it.
    await writeDurable(join(this.dir, 'orders', name, assertToken(token)), '');
    await writeDurable(join(this.dir, 'files', `${token}.refs`, `${name}.json`), JSON.stringify({ ...about, at: new Date().toISOString() }));
  }

  /**
   * Releases every fixed file an order references (the order was delivered or cancelled): from
   * now on each follows the retention of unreferenced files, unless another order references it.
   * Resolves to the tokens released (none when the order references nothing).
   */
  async releaseReferences(ref: string): Promise<string[]> {
    const name = referenceName(ref);
    const folder = join(this.dir, 'orders', name);
    const tokens = (await readdir(folder).catch(() => [] as string[])).filter((t) => TOKEN_PATTERN.test(t)).sort();
    for (const token of tokens) {
      await rm(join(this.dir, 'files', `${token}.refs`, `${name}.json`), { force: true });
      await syncDir(join(this.dir, 'files', `${token}.refs`)).catch(() => undefined);
    }
    await rm(folder, { recursive: true, force: true });
    return tokens;
  }

  /** The orders referencing a fixed file. */
  async references(token: string): Promise<{ tenant: string; order: string | null; at: string }[]> {
    const folder = join(this.dir, 'files', `${assertToken(token)}.refs`);
    const names = await readdir(folder).catch(() => [] as string[]);
    const out = [];
    for (const n of names.filter((x) => /^[0-9a-f]{32}\.json$/.test(x)).sort()) {
      const text = await readTextOrNull(join(folder, n)).catch(() => null);
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
    const folder = join(this.dir, 'files');
    const names = await readdir(folder).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const m = /^([0-9a-f]{48})\.json$/.exec(name);
      if (!m) continue;
      const token = m[1]!;
      const refs = join(folder, `${token}.refs`);
      const referenced = (await readdir(refs).catch(() => [] as string[])).some((n) => n.endsWith('.json') && !isTemporaryName(n));
      if (referenced) continue;
      const meta = await this.meta(token).catch(() => null);
      const times = await Promise.all(
        [this.path(token), refs, join(folder, name)].map((p) =>
          stat(p).then(
            (i) => i.mtimeMs,
            () => 0,
          ),
        ),
      );
      const last = Math.max(times[0]!, times[1]!, times[2]!, meta ? Date.parse(meta.at) || 0 : 0);
      if (now - last <= maxAgeMs) continue;
      const hadFile = times[0]! > 0;
      await rm(this.path(token), { force: true });
      await rm(join(folder, `${token}.report.json`), { force: true });
      await rm(refs, { recursive: true, force: true });
      const checkGone = !meta || !(await stat(join(this.checks.checkDir(meta.check), 'record.json')).catch(() => null));
      if (checkGone) await rm(join(folder, name), { force: true });
      if (hadFile) removed++;
    }
    return removed;
  }
}

/** The file name of an order's reference (its tenant and number, hashed: any number is a safe name). */
function referenceName(ref: string): string {
  return createHash('sha256').update(ref).digest('hex').slice(0, 32);
}
