/**
 * S3-compatible object storage (AWS S3, Cloudflare R2, MinIO, Backblaze B2, GCS interop) through
 * the AWS SDK v3. Loaded only by storage/open.ts once the SDK is known to be installed (an
 * optional peer dependency, like the server stack).
 *
 * - A PutObject, and a multipart upload once completed, is atomic in S3: no reader sees part of an
 *   object. Large files go up as a multipart `Upload` (lib-storage), streamed from disk.
 * - Reads stream (GetObject's body is handed on as it arrives).
 * - Write-once: `If-None-Match: *` on the PUT (S3, R2 and MinIO refuse a second writer with 412).
 *   A store that ignores the header (s3rver, the tests' server) cannot refuse it: a HEAD before
 *   narrows the window, and the records that must not be written twice are written under the
 *   record lock (the fleet's Redis, or the process's), which is what makes them one-writer.
 * - Credentials and region come from the standard AWS chain (environment, ~/.aws files, instance
 *   roles): never from a flag.
 * - Every failure of the store (bucket missing, access denied, a timeout, a refused PUT) is a
 *   {@link StorageUnavailableError} naming what to fix; the SDK retries transient ones first.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { StorageUnavailableError, type StorageFailure } from '../errors.js';
import { OUTAGE_BUDGET_MS, storageBudgetMs, withStorageBudget } from './budget.js';
import type { ObjectInfo, ObjectStorage } from './storage.js';

/** Where the store is and how long a request may take. */
export interface S3StorageOptions {
  bucket: string;
  /** Key prefix, without leading or trailing `/` (may be empty). */
  prefix: string;
  /** A non-AWS endpoint (`http://127.0.0.1:9000`): path-style addressing. */
  endpoint?: string;
  /** Per request, before the SDK retries it. Default 30 s. */
  requestTimeoutMs?: number;
  /** Attempts per request (the SDK's quick backoff between them). Default 3. */
  maxAttempts?: number;
  /**
   * Past the SDK's attempts, how long a transient failure (no connection, a timeout, a 5xx or 429)
   * is tried again, with backoff from 250 ms doubling to 5 s, before it is an error; the calling
   * context's budget (storage/budget.ts) when it has one. Default {@link OUTAGE_BUDGET_MS}.
   */
  retryForMs?: number;
  /** Keys per page of a listing (ListObjectsV2 `MaxKeys`); the store's own at most 1,000 when absent. */
  listPageSize?: number;
}

/** Above this, a file goes up as a multipart upload (parts of this size, two at a time). */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * @example
 * const storage = new S3Storage({ bucket: 'prints', prefix: 'preflight', endpoint: 'http://127.0.0.1:4569' });
 * await storage.put('checks/abc/record.json', '{}');
 */
export class S3Storage implements ObjectStorage {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly retryForMs: number;
  private readonly pageSize: { MaxKeys: number } | object;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.retryForMs = options.retryForMs ?? OUTAGE_BUDGET_MS;
    this.pageSize = options.listPageSize ? { MaxKeys: options.listPageSize } : {};
    this.prefix = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    this.client = new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      // A non-AWS endpoint rarely cares about the region; the SDK needs one to sign.
      ...(!region && options.endpoint ? { region: 'us-east-1' } : {}),
      maxAttempts: options.maxAttempts ?? 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: options.requestTimeoutMs ?? 30_000 },
      // Checksums only where S3 requires them: S3-compatible stores differ in the trailers they read.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get description(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  localPath(): null {
    return null;
  }

  private key(key: string): string {
    return `${this.prefix}${key}`;
  }

  async put(key: string, body: string | Uint8Array): Promise<void> {
    const bytes = asBuffer(body);
    await this.call('write', key, () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: bytes, ContentLength: bytes.length })));
  }

  async putFile(key: string, file: string): Promise<void> {
    await this.call('write', key, async () => {
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: this.key(key), Body: createReadStream(file) },
        partSize: PART_BYTES,
        queueSize: 2,
        leavePartsOnError: false,
      });
      await upload.done();
    });
    await rm(file, { force: true });
  }

  async create(key: string, body: string | Uint8Array): Promise<boolean> {
    if (await this.head(key)) return false;
    const bytes = asBuffer(body);
    // A PUT retried after its answer was lost, whose first attempt landed, is refused (412) by a
    // store that honours If-None-Match: false then means "there", not "someone else's".
    const put = async () => {
      try {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: bytes, ContentLength: bytes.length, IfNoneMatch: '*' }));
        return true;
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 412 || status === 409) return false;
        throw error;
      }
    };
    return this.call('write', key, put);
  }

  async copy(from: string, to: string): Promise<boolean> {
    // CopySource is `bucket/key`, URL-encoded (keys are ours: hex ids and page names, but encoded all the same).
    const source = `${this.bucket}/${this.key(from).split('/').map(encodeURIComponent).join('/')}`;
    const out = await this.call('copy', to, () => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.key(to), CopySource: source })), true);
    return out !== null;
  }

  async get(key: string): Promise<Readable | null> {
    const out = await this.call('read', key, () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) })), true);
    return out ? (out.Body as Readable) : null;
  }

  async getBytes(key: string): Promise<Buffer | null> {
    return this.call(
      'read',
      key,
      async () => {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
        return Buffer.from(await out.Body!.transformToByteArray());
      },
      true,
    );
  }

  async getText(key: string): Promise<string | null> {
    const bytes = await this.getBytes(key);
    return bytes === null ? null : bytes.toString('utf8');
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const out = await this.call('read', key, () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) })), true);
    return out ? { size: out.ContentLength ?? 0, modifiedMs: out.LastModified?.getTime() ?? 0 } : null;
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('list', prefix, () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.key(prefix), ...this.pageSize, ...(token ? { ContinuationToken: token } : {}) })),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  async children(prefix: string): Promise<string[]> {
    const out = new Set<string>();
    let token: string | undefined;
    do {
      const page = await this.call('list', prefix, () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.key(prefix), Delimiter: '/', ...this.pageSize, ...(token ? { ContinuationToken: token } : {}) })),
      );
      const cut = this.key(prefix).length;
      for (const o of page.Contents ?? []) if (o.Key) out.add(o.Key.slice(cut));
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) out.add(p.Prefix.slice(cut).replace(/\/$/, ''));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return [...out].filter(Boolean).sort();
  }

  async delete(key: string): Promise<void> {
    await this.call('delete', key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (const key of await this.list(prefix)) await this.delete(key);
  }

  async presign(key: string, seconds: number): Promise<string> {
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }), { expiresIn: seconds });
  }

  async probe(): Promise<{ ok: boolean; detail?: string }> {
    try {
      await this.verify();
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: (error as Error).message };
    }
  }

  /**
   * Runs one request; with `absentIsNull`, a missing key is null rather than an error. A transient
   * failure is tried again with backoff within the context's budget (storage/budget.ts): a store
   * away for a minute delays the work, it does not fail it.
   */
  private async call<T>(what: string, key: string, fn: () => Promise<T>, absentIsNull: true): Promise<T | null>;
  private async call<T>(what: string, key: string, fn: () => Promise<T>): Promise<T>;
  private async call<T>(what: string, key: string, fn: () => Promise<T>, absentIsNull = false): Promise<T | null> {
    const budget = storageBudgetMs(this.retryForMs);
    const started = Date.now();
    for (let wait = 250; ; wait = Math.min(5_000, wait * 2)) {
      try {
        return await fn();
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (absentIsNull && (e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket'))) return null;
        if (!transient(error) || Date.now() - started + wait > budget) throw this.failure(what, key, error);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /**
   * Refuses a store that cannot work at all: the bucket missing, access denied, nothing answering.
   * Called once at start-up (serve, worker, batch), so a wrong flag is an error with a code there,
   * not a 503 on the first upload.
   * @throws {StorageUnavailableError} naming what to fix
   */
  async verify(): Promise<void> {
    const key = `.probe/${process.pid}-${Date.now()}`;
    await withStartupBudget(async () => {
      await this.put(key, 'ok');
      await this.delete(key);
    });
  }

  private failure(what: string, key: string, error: unknown): StorageUnavailableError {
    const e = error as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const where = `s3://${this.bucket}/${this.key(key)}`;
    const status = e.$metadata?.httpStatusCode;
    let reason: string;
    let kind: StorageFailure;
    if (e.name === 'NoSuchBucket') [kind, reason] = ['bucket-missing', `the bucket "${this.bucket}" does not exist: create it or fix --storage`];
    else if (e.name === 'AccessDenied' || e.name === 'InvalidAccessKeyId' || e.name === 'SignatureDoesNotMatch' || status === 403)
      [kind, reason] = ['access-denied', 'access was denied: check the AWS credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, the role) and the bucket policy'];
    else if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT' || e.name === 'RequestTimeout') [kind, reason] = ['timeout', 'the store did not answer in time'];
    else if (e.code && NETWORK_CODES.has(e.code)) [kind, reason] = ['unreachable', `the store cannot be reached (${e.code}): check --s3-endpoint`];
    else [kind, reason] = ['failed', `${e.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(error)}`];
    return new StorageUnavailableError(`Object storage failed to ${what} ${where}: ${reason}.`, error, kind);
  }
}

/** Start-up and /health ask once (with the SDK's own quick attempts): they report, they do not wait. */
function withStartupBudget<T>(fn: () => Promise<T>): Promise<T> {
  return withStorageBudget(0, fn);
}

/** A failure that may pass: no connection, a timeout, a throttle or a server error (not a missing bucket, nor access denied). */
function transient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 || status === 408;
  // No answer at all: refused, reset, timed out, a name that did not resolve (yet).
  return (e.code !== undefined && NETWORK_CODES.has(e.code)) || e.name === 'TimeoutError' || e.name === 'RequestTimeout' || /socket hang up/i.test(String((error as Error).message));
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

/** A body of known length (an empty string too: the SDK takes an empty body for a stream of unknown length). */
function asBuffer(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}
