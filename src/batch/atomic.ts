import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const TMP = '.tmp-';

/**
 * Writes a file so that readers only ever see the old content or the whole new content: a
 * temporary file in the same folder, then a rename (atomic on POSIX). A crash leaves at worst a
 * temporary file, which {@link removeStaleTemporaries} clears.
 */
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}${TMP}${process.pid}-${randomBytes(4).toString('hex')}`;
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
    const tmp = `${to}${TMP}${process.pid}-${randomBytes(4).toString('hex')}`;
    await copyFile(from, tmp);
    await rename(tmp, to);
    await unlink(from);
  }
}

/** Deletes temporary files left under `dir` by a run that was killed mid-write. */
export async function removeStaleTemporaries(dir: string): Promise<number> {
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.isFile() && e.name.includes(TMP)) {
      await rm(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name), { force: true });
      removed++;
    }
  }
  return removed;
}
