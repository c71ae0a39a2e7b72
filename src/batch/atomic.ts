import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Temporaries are hidden files named `.print-preflight~<pid>-<random>~<name>`. Batch and hot
 * folder never judge hidden files nor move them into the output tree, so no input can carry this
 * marker there: the start-up clean-up removes only what the tool itself wrote.
 */
const MARKER = '.print-preflight~';
const TEMPORARY = /^\.print-preflight~(\d+)-[0-9a-f]{8}~/;

function temporaryFor(path: string): string {
  return join(dirname(path), `${MARKER}${process.pid}-${randomBytes(4).toString('hex')}~${basename(path)}`);
}

/** True for a name {@link writeAtomic} or {@link moveFile} gives its temporaries. */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY.test(name);
}

/**
 * Writes a file so that readers only ever see the old content or the whole new content: a
 * temporary file in the same folder, then a rename (atomic on POSIX). A crash leaves at worst a
 * temporary file, which {@link removeStaleTemporaries} clears.
 */
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = temporaryFor(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Moves a file, across file systems too (copy, then unlink). */
export async function moveFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const tmp = temporaryFor(to);
    try {
      await copyFile(from, tmp);
      await rename(tmp, to);
    } catch (copyError) {
      await rm(tmp, { force: true });
      throw copyError;
    }
    await unlink(from);
  }
}

/**
 * Deletes the temporaries a killed run left under `dir` (the output folder): only files with the
 * tool's marker, and not those of a process that is still running (another batch on the same
 * output folder).
 */
export async function removeStaleTemporaries(dir: string): Promise<number> {
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const m = TEMPORARY.exec(e.name);
    if (!e.isFile() || !m) continue;
    const pid = Number(m[1]);
    if (alive(pid)) continue; // this process or another run still writing
    await rm(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name), { force: true });
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
