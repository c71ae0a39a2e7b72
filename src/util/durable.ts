/**
 * Durable writes, the one way every file of the tool is written (the service's data folder, batch
 * and hot-folder output): a temporary file in the same folder, fsynced, renamed over the target
 * (atomic on POSIX), then the folder fsynced. A reader sees the old content or the whole new
 * content, and what was written survives a power cut. A killed process leaves at worst a temporary
 * file, which {@link removeStaleTemporaries} clears.
 *
 * Temporaries are hidden files named `.print-preflight~<pid>-<random>~<name>`: batch and hot folder
 * never judge hidden files nor move them into the output tree, so no input can carry this marker
 * there, and a clean-up removes only what the tool itself wrote.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const MARKER = '.print-preflight~';
const TEMPORARY = /^\.print-preflight~(\d+)-[0-9a-f]{8}~/;

/**
 * A temporary path beside `path`, for a write or a stream that {@link commitFile} puts in place.
 * @example
 * const temp = temporaryFor('/data/uploads/abc.pdf'); // /data/uploads/.print-preflight~4242-1a2b3c4d~abc.pdf.tmp
 */
export function temporaryFor(path: string): string {
  return join(dirname(path), `${MARKER}${process.pid}-${randomBytes(4).toString('hex')}~${basename(path)}.tmp`);
}

/**
 * True for a name {@link temporaryFor} gives.
 * @example
 * isTemporaryName(".print-preflight~4242-1a2b3c4d~report.json.tmp"); // true
 */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY.test(name);
}

/**
 * Writes `data` to `path` durably: temporary file, fsync, rename, fsync of the folder.
 * @example
 * await writeDurable('out/summary.json', JSON.stringify(summary));
 */
export async function writeDurable(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = temporaryFor(path);
  try {
    await writeSynced(temp, data, 'w');
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDir(dirname(path));
}

/**
 * Writes `data` to `path` only if nothing is there (write-once), durably: the finished, fsynced
 * temporary file is hard-linked into place, which fails when the name exists, so of two writers
 * exactly one wins and no reader ever sees part of the file.
 * @returns false when `path` already existed (nothing was written)
 * @example
 * if (!(await createDurable('/data/checks/abc/record.json', json))) console.log('written before');
 */
export async function createDurable(path: string, data: string | Uint8Array): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const temp = temporaryFor(path);
  try {
    await writeSynced(temp, data);
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
  await syncDir(dirname(path));
  return true;
}

async function writeSynced(path: string, data: string | Uint8Array, flags = 'wx'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Puts a fully written temporary file (a streamed upload) in place durably: fsync, rename, fsync of
 * the folder.
 * @example
 * await commitFile(temp, '/data/uploads/abc.pdf');
 */
export async function commitFile(temp: string, path: string): Promise<void> {
  await syncFile(temp, constants.O_RDONLY);
  await rename(temp, path);
  await syncDir(dirname(path));
}

/**
 * Moves a file durably, across file systems too (a durable copy, then unlink of the source).
 * @example
 * await moveFile('hot/in/a.pdf', 'hot/work/a.pdf');
 */
export async function moveFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const temp = temporaryFor(to);
    try {
      await copyFile(from, temp);
      await commitFile(temp, to);
    } catch (copyError) {
      await rm(temp, { force: true });
      throw copyError;
    }
    await unlink(from);
    return;
  }
  await syncDir(dirname(to));
}

/** fsyncs a folder, so the names a rename or create put in it survive a power cut. */
export async function syncDir(dir: string): Promise<void> {
  await syncFile(dir, constants.O_RDONLY);
}

async function syncFile(path: string, flags: number): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Which temporaries under a folder are left over from a killed writer. */
export interface StaleTemporaries {
  /**
   * Writers may be processes of other machines sharing the folder (a fleet's data folder): a
   * temporary is stale once untouched this long. Left out: the writer runs on this machine, and a
   * temporary is stale once the process that named it has ended.
   */
  olderThanMs?: number;
  /** Now, for the age (tests). Default: `Date.now()`. */
  now?: number;
}

/**
 * Deletes the temporaries a killed writer left under `dir` (recursively): only files with the tool's
 * marker, and never one a living writer may still be writing.
 * @returns how many were removed
 * @example
 * await removeStaleTemporaries('out');                                 // batch output, one machine
 * await removeStaleTemporaries('/data', { olderThanMs: 15 * 60_000 });  // a fleet's shared folder
 */
export async function removeStaleTemporaries(dir: string, { olderThanMs, now = Date.now() }: StaleTemporaries = {}): Promise<number> {
  let removed = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries) {
    const m = TEMPORARY.exec(e.name);
    if (!e.isFile() || !m) continue;
    const path = join(e.parentPath, e.name);
    if (olderThanMs === undefined) {
      if (alive(Number(m[1]))) continue; // this process or another run still writing
    } else {
      const info = await stat(path).catch(() => null);
      if (!info || now - info.mtimeMs < olderThanMs) continue;
    }
    await rm(path, { force: true });
    removed++;
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A file's text, or null when it does not exist (any other failure throws).
 * @example
 * const text = await readTextOrNull('/data/checks/abc/record.json');
 */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
