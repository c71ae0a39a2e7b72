/**
 * The local folder as object storage: a key is a file under the folder. Writes are durable
 * (util/durable.ts: temporary file, fsync, rename, folder fsync); a write-once create links its
 * finished temporary file into place, which fails when the name exists: no second writer wins.
 */
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidArgumentError } from '../errors.js';
import { commitFile, createDurable, isTemporaryName, readTextOrNull, syncDir, temporaryFor, writeDurable } from '../util/durable.js';
import type { ObjectInfo, ObjectStorage } from './storage.js';

/**
 * @example
 * const storage = new LocalStorage('./print-preflight-data');
 * await storage.put('checks/abc/record.json', '{}');
 */
export class LocalStorage implements ObjectStorage {
  constructor(readonly root: string) {}

  get description(): string {
    return this.root;
  }

  localPath(key: string): string {
    return this.path(key);
  }

  private path(key: string): string {
    if (!key || key.startsWith('/') || key.split(/[\\/]/).includes('..')) throw new InvalidArgumentError(`"${key}" leaves the data folder`);
    return join(this.root, key);
  }

  async put(key: string, body: string | Uint8Array): Promise<void> {
    await writeDurable(this.path(key), body);
  }

  async putFile(key: string, file: string): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    await commitFile(file, target);
  }

  create(key: string, body: string | Uint8Array): Promise<boolean> {
    return createDurable(this.path(key), body);
  }

  async copy(from: string, to: string): Promise<boolean> {
    const target = this.path(to);
    await mkdir(dirname(target), { recursive: true });
    const temp = temporaryFor(target);
    try {
      // Objects are never changed in place (every write renames a new file over the name), so the
      // copy may share the file: a hard link costs no bytes and no data fsync. A copy where links
      // cannot be made (another file system, a folder that refuses them).
      await link(this.path(from), temp).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw error;
        await copyFile(this.path(from), temp);
      });
    } catch (error) {
      await rm(temp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    await rename(temp, target);
    await syncDir(dirname(target));
    return true;
  }

  async get(key: string): Promise<Readable | null> {
    const stream = createReadStream(this.path(key));
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' || error.code === 'EISDIR' ? resolve(null) : reject(error)));
    });
  }

  async getBytes(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  getText(key: string): Promise<string | null> {
    return readTextOrNull(this.path(key));
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const info = await stat(this.path(key)).catch(() => null);
    return info ? { size: info.size, modifiedMs: info.mtimeMs } : null;
  }

  async list(prefix: string): Promise<string[]> {
    const folder = prefix ? this.path(prefix) : this.root;
    const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile() && !isTemporaryName(e.name))
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join('/'))
      .sort();
  }

  async children(prefix: string): Promise<string[]> {
    const names = await readdir(prefix ? this.path(prefix) : this.root).catch(() => [] as string[]);
    return names.filter((n) => !isTemporaryName(n)).sort();
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.path(prefix), { recursive: true, force: true });
  }

  async presign(): Promise<string | null> {
    return null;
  }

  async probe(): Promise<{ ok: boolean; detail?: string }> {
    const file = temporaryFor(join(this.root, 'probe'));
    try {
      await writeDurable(file, 'ok');
      await rm(file, { force: true });
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: `the data folder ${this.root} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
  }
}
