/**
 * A real S3-compatible server for the storage tests: s3rver (npm, a file-backed S3 API server; no
 * Docker, no download at test time — MinIO is in neither npm nor Debian), on a free loopback port,
 * its objects in a temporary folder. `down()` / `up()` stop it and start it again on the same port
 * and folder, so clients see a real outage.
 *
 * s3rver writes an object in place (its file truncated, then written; the PUT answered before the
 * bytes are on disk) and reads its size and its bytes in two steps, so a GET racing a PUT of the
 * same key can get part of an object — which S3, R2 and MinIO never give (a PUT is atomic there). The tests hold the stores to S3's rule, not to
 * s3rver's shortcut: here each key's PUT, copy and GET run one at a time, a PUT answers once its
 * object is written, and a GET's bytes are read whole before the next PUT of that key starts.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { freePort } from './redis.js';

export interface S3Server {
  endpoint: string;
  bucket: string;
  dir: string;
  /** Environment a child process needs to sign requests (s3rver's own account). */
  env: Record<string, string>;
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** s3rver's built-in account: it checks signatures against it. */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

interface StoredObject {
  content?: NodeJS.ReadableStream & { pipe?: unknown };
}
type StoreMethod = (this: unknown, ...args: unknown[]) => Promise<unknown>;
interface StoreInternals {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
}

let atomic = false;
function atomicObjects(): void {
  if (atomic) return;
  atomic = true;
  const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as { prototype: Record<string, StoreMethod> };
  const proto = FilesystemStore.prototype;
  const locks = new Map<string, Promise<unknown>>();
  const one = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (locks.get(key) ?? Promise.resolve()).then(fn, fn);
    const settled = run.catch(() => undefined);
    locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (locks.get(key) === settled) locks.delete(key);
    }
  };
  // s3rver's own putObject answers before its bytes are on disk (a body it holds in memory is handed
  // to a write stream without waiting, and with no error listener): a GET after the PUT's 200 could
  // read part of it, and a DELETE right after it removes the folder the write stream has yet to
  // open — an uncaught ENOENT in the test process. Here the PUT answers once the object is written.
  proto.putObject = function (this: unknown, ...args: unknown[]) {
    const store = this as StoreInternals;
    const object = args[0] as { bucket: string; key: string; content: Buffer | AsyncIterable<Buffer>; metadata: unknown };
    return one(`${object.bucket}/${object.key}`, async () => {
      let bytes: Buffer;
      if (Buffer.isBuffer(object.content)) bytes = object.content;
      else {
        const chunks: Buffer[] = [];
        for await (const chunk of object.content) chunks.push(chunk);
        bytes = Buffer.concat(chunks);
      }
      const md5 = createHash('md5').update(bytes).digest('hex');
      const path = store.getResourcePath(object.bucket, object.key, 'object');
      // A DELETE of a neighbour removes an empty folder between our mkdir and our write: again.
      for (let attempt = 1; ; attempt++) {
        try {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, bytes);
          await store.putMetadata(object.bucket, object.key, object.metadata, md5);
          return { size: bytes.length, md5 };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw error;
        }
      }
    });
  };
  const copy = proto.copyObject!;
  proto.copyObject = function (this: unknown, ...args: unknown[]) {
    return one(`${args[2]}/${args[3]}`, () => copy.apply(this, args));
  };
  const get = proto.getObject!;
  proto.getObject = function (this: unknown, ...args: unknown[]) {
    return one(`${args[0]}/${args[1]}`, async () => {
      const object = (await get.apply(this, args)) as StoredObject | undefined;
      if (object?.content && typeof object.content.pipe === 'function') {
        const chunks: Buffer[] = [];
        for await (const chunk of object.content as AsyncIterable<Buffer>) chunks.push(chunk);
        object.content = Readable.from([Buffer.concat(chunks)]);
      }
      return object;
    });
  };
}

export async function startS3(bucket = 'prints'): Promise<S3Server> {
  atomicObjects();
  const dir = mkdtempSync(join(tmpdir(), 'pp-s3-'));
  const port = await freePort();
  let server: S3rver | null = null;
  const up = async () => {
    if (server) return;
    server = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
    await server.run();
  };
  await up();
  // The SDK in this process signs with the standard environment, as a deployment would.
  Object.assign(process.env, S3RVER_CREDENTIALS);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    dir,
    env: S3RVER_CREDENTIALS,
    async down() {
      await server?.close();
      server = null;
    },
    up,
    async stop() {
      await server?.close();
      server = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
