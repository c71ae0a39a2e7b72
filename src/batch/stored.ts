/**
 * A batch over a prefix of object storage (`batch s3://bucket/incoming --out s3://bucket/checked`):
 * no folder is shared by anyone. The PDFs are the objects under the prefix (listed page by page);
 * each one is downloaded to a scratch folder while it is judged and removed after, so a run holds
 * on local disk only the files in flight; the outputs are objects under the output prefix with the
 * names a folder would have (`reports/<file>.json`, `summary.json`, `index.html`, `fixed/…`).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage } from '../storage/storage.js';
import type { BatchFile } from './discover.js';

/** The input of a batch in object storage. */
export interface StoredInput {
  /** The store opened on the input prefix: keys are the files' paths under it. */
  storage: ObjectStorage;
  /** `s3://bucket/prefix`, as the run was given it (for the index's title). */
  url: string;
  /** A local folder for the files being judged (each removed once judged). */
  scratch: string;
}

/**
 * Every PDF under the input prefix (`.pdf` in any case), sorted, as a folder's batch finds them:
 * hidden names (a segment starting with `.`) are skipped, and so is the output prefix when it lies
 * inside the input. A file's `path` is its key under the prefix.
 * @example
 * const files = await findStoredPdfs({ storage, url: 's3://prints/incoming', scratch: '/tmp/x' }, out);
 */
export async function findStoredPdfs(input: Pick<StoredInput, 'storage'>, out: string | ObjectStorage): Promise<BatchFile[]> {
  const inside = typeof out !== 'string' && out.description.startsWith(input.storage.description) ? out.description.slice(input.storage.description.length) : null;
  return (await input.storage.list(''))
    .filter((key) => key.toLowerCase().endsWith('.pdf') && !key.split('/').some((part) => part.startsWith('.')) && !(inside && key.startsWith(inside)))
    .map((key) => ({ path: key, rel: key }));
}

/**
 * Downloads the object `key` into a scratch folder of its own, judges the local copy with `judge`
 * and removes it. A download that fails (the store away past its retry budget) rejects: the caller
 * decides between an error result and a retry.
 * @example
 * const result = await judgeStored(storage, 'a/shirt.pdf', 'a/shirt.pdf', '/tmp/scratch', (local) => judge(local, out, manifest, registry, options));
 */
export async function judgeStored<T>(storage: ObjectStorage, key: string, rel: string, scratch: string, judge: (local: BatchFile) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(scratch, 'batch-'));
  try {
    const local = join(dir, basename(rel));
    const body = await storage.get(key);
    // Gone since it was listed: judged as a file that cannot be read (the report says so).
    if (body) await pipeline(body, createWriteStream(local));
    return await judge({ path: local, rel });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
