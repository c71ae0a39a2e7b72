/**
 * `--storage` as the CLI and the start functions take it: a local folder (the default, the data
 * folder) or `s3://BUCKET/PREFIX`. The AWS SDK is an optional peer dependency: it is loaded only
 * for `s3://`, and its absence is a MissingDependencyError naming what to install.
 */
import { InvalidArgumentError } from '../errors.js';
import { requireServerPackages, STORAGE_PACKAGES } from '../util/server-packages.js';
import type { ObjectStorage } from './storage.js';

/** Where objects go, as given on the command line. */
export interface StorageOptions {
  /** `s3://BUCKET/PREFIX`. */
  url: string;
  /** A non-AWS endpoint (path-style addressing). */
  endpoint?: string;
  /** Prove the store can be written before returning it (default true); false for a store only read (a batch's input). */
  verify?: boolean;
}

/**
 * Parses `s3://BUCKET/PREFIX`.
 * @throws {InvalidArgumentError} for anything else
 * @example
 * parseStorageUrl('s3://prints/preflight'); // { bucket: 'prints', prefix: 'preflight' }
 */
export function parseStorageUrl(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new InvalidArgumentError(`Expected --storage s3://BUCKET/PREFIX (a bucket name of 3–63 lower-case letters, digits, dots and hyphens) but received "${url.slice(0, 200)}"`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').includes('..')) throw new InvalidArgumentError(`The prefix of --storage may not contain ".." (received "${url.slice(0, 200)}")`);
  return { bucket: m[1]!, prefix };
}

/**
 * Opens object storage for `--storage s3://…`, and proves it works: a probe object written and
 * removed, so a missing bucket or denied access stops `serve`, `worker` and `batch` at start-up
 * with a {@link StorageUnavailableError} (`reason` `bucket-missing`, `access-denied`,
 * `unreachable`) naming what to fix, instead of a 503 on the first upload.
 * @throws {MissingDependencyError} without @aws-sdk/client-s3 and @aws-sdk/lib-storage
 * @throws {StorageUnavailableError} when the store cannot be written
 * @example
 * const storage = await openStorage({ url: 's3://prints/preflight', endpoint: 'http://127.0.0.1:4569' });
 */
export async function openStorage(options: StorageOptions, feature = '--storage s3://'): Promise<ObjectStorage> {
  const { bucket, prefix } = parseStorageUrl(options.url);
  if (options.endpoint !== undefined) {
    let endpoint: URL;
    try {
      endpoint = new URL(options.endpoint);
    } catch {
      throw new InvalidArgumentError(`Expected --s3-endpoint to be an http(s) URL but received "${options.endpoint.slice(0, 200)}"`);
    }
    if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new InvalidArgumentError(`Expected --s3-endpoint to be an http(s) URL but received "${options.endpoint.slice(0, 200)}"`);
  }
  await requireServerPackages(feature, STORAGE_PACKAGES);
  const { S3Storage } = await import('./s3.js');
  const storage = new S3Storage({ bucket, prefix, ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
  if (options.verify !== false) await storage.verify();
  return storage;
}
