/**
 * The storage interface, on both backends: the local folder and S3 through the AWS SDK against a
 * real S3-compatible server (s3rver on 127.0.0.1). Same contract, same answers; the store's
 * failures are StorageUnavailableError naming what to fix.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/errors.js';
import { LocalStorage } from '../../src/storage/local.js';
import { openStorage, parseStorageUrl } from '../../src/storage/open.js';
import { S3Storage } from '../../src/storage/s3.js';
import type { ObjectStorage } from '../../src/storage/storage.js';
import { startS3, type S3Server } from '../helpers/s3.js';

let s3: S3Server;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3();
}, 30_000);
afterAll(async () => {
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pp-storage-'));
  dirs.push(d);
  return d;
};

const backends: [string, () => Promise<ObjectStorage>][] = [
  ['local folder', async () => new LocalStorage(tempDir())],
  ['S3 (s3rver)', async () => openStorage({ url: `s3://${s3.bucket}/t-${randomBytes(4).toString('hex')}`, endpoint: s3.endpoint })],
];

describe.each(backends)('%s', (_name, make) => {
  it('puts, reads (bytes, text, stream), heads, lists, lists children, deletes', async () => {
    const st = await make();
    expect(await st.getText('checks/a/record.json')).toBeNull();
    expect(await st.get('checks/a/record.json')).toBeNull();
    expect(await st.head('checks/a/record.json')).toBeNull();
    await st.put('checks/a/record.json', '{"v":1}');
    await st.put('checks/a/pages/1.webp', new Uint8Array([1, 2, 3]));
    await st.put('checks/b/record.json', '{"v":2}');
    expect(await st.getText('checks/a/record.json')).toBe('{"v":1}');
    expect([...(await st.getBytes('checks/a/pages/1.webp'))!]).toEqual([1, 2, 3]);
    expect(await text((await st.get('checks/a/record.json'))!)).toBe('{"v":1}');
    const info = await st.head('checks/a/record.json');
    expect(info?.size).toBe(7);
    expect(Math.abs(info!.modifiedMs - Date.now())).toBeLessThan(60_000);
    expect(await st.list('checks/a/')).toEqual(['checks/a/pages/1.webp', 'checks/a/record.json']);
    expect(await st.children('checks/')).toEqual(['a', 'b']);
    expect(await st.children('checks/a/')).toEqual(['pages', 'record.json']);
    await st.put('checks/a/record.json', '{"v":3}');
    expect(await st.getText('checks/a/record.json')).toBe('{"v":3}');
    await st.deletePrefix('checks/a/');
    expect(await st.list('checks/')).toEqual(['checks/b/record.json']);
    await st.delete('checks/b/record.json');
    await st.delete('checks/b/record.json');
    expect(await st.list('checks/')).toEqual([]);
  });

  it('copies an object inside the store; a missing source is false and writes nothing', async () => {
    const st = await make();
    await st.put('checks/a/pages/1.webp', new Uint8Array([7, 8, 9]));
    expect(await st.copy('checks/a/pages/1.webp', 'checks/b/pages/1.webp')).toBe(true);
    expect([...(await st.getBytes('checks/b/pages/1.webp'))!]).toEqual([7, 8, 9]);
    // The copy is an object of its own: a new write of the source leaves it as it was.
    await st.put('checks/a/pages/1.webp', new Uint8Array([1]));
    expect([...(await st.getBytes('checks/b/pages/1.webp'))!]).toEqual([7, 8, 9]);
    await st.delete('checks/a/pages/1.webp');
    expect([...(await st.getBytes('checks/b/pages/1.webp'))!]).toEqual([7, 8, 9]);
    expect(await st.copy('checks/nope', 'checks/c/x')).toBe(false);
    expect(await st.head('checks/c/x')).toBeNull();
  });

  it('create writes once: a second create of the key is refused and changes nothing', async () => {
    const st = await make();
    expect(await st.create('reuse/k', 'first')).toBe(true);
    expect(await st.create('reuse/k', 'second')).toBe(false);
    expect(await st.getText('reuse/k')).toBe('first');
  });

  it('moves a file in whole (a 20 MB file: multipart on S3) and removes the scratch copy', async () => {
    const st = await make();
    const dir = tempDir();
    const bytes = randomBytes(20 * 1024 * 1024);
    const file = join(dir, 'upload.tmp');
    writeFileSync(file, bytes);
    await st.putFile('uploads/x.pdf', file);
    expect((await st.getBytes('uploads/x.pdf'))!.equals(bytes)).toBe(true);
    expect((await st.head('uploads/x.pdf'))?.size).toBe(bytes.length);
    await expect(import('node:fs/promises').then((f) => f.stat(file))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('refuses keys that leave the root', async () => {
    const st = await make();
    if (st.localPath('x') !== null) await expect(st.put('../escape', 'x')).rejects.toThrow(/leaves the data folder/);
    else expect(() => parseStorageUrl('s3://bucket/a/../b')).toThrow(/may not contain/);
  });
});

describe('S3 listings', () => {
  it('follows every page of ListObjectsV2 (two keys a page here; a store gives at most 1,000)', async () => {
    // s3rver seals its continuation tokens with DES, which Node's OpenSSL 3 has only in its legacy
    // provider: this s3rver runs in a process of its own with it (the shared one cannot page).
    const { spawn } = await import('node:child_process');
    const { freePort } = await import('../helpers/redis.js');
    const port = await freePort();
    const dir = tempDir();
    const script = `const S3rver = require('s3rver'); new S3rver({ port: ${port}, address: '127.0.0.1', directory: ${JSON.stringify(dir)}, silent: true, configureBuckets: [{ name: 'pages', configs: [] }] }).run().then(() => console.log('ready'));`;
    const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`s3rver exited ${code}`)));
      });
      const st = new S3Storage({ bucket: 'pages', prefix: 'in', endpoint: `http://127.0.0.1:${port}`, listPageSize: 2, retryForMs: 0 });
      const keys = ['a.pdf', 'b/c.pdf', 'b/d.pdf', 'e.pdf', 'f/g/h.pdf'];
      for (const k of keys) await st.put(k, k);
      expect(await st.list('')).toEqual(keys);
      // children() pages the same way; s3rver's tokens name the last object, not the last common
      // prefix, so its delimited pages drop prefixes: not checkable against it.
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('S3 failures are clear answers', () => {
  it('a missing bucket names the bucket and the flag', async () => {
    const st = new S3Storage({ bucket: 'no-such-bucket', prefix: 'p', endpoint: s3.endpoint, maxAttempts: 1 });
    const error = await st.put('a', 'b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as StorageUnavailableError).code).toBe('ERR_STORAGE_UNAVAILABLE');
    expect((error as Error).message).toMatch(/bucket "no-such-bucket" does not exist/);
    expect((await st.probe()).ok).toBe(false);
  });

  it('wrong credentials are "access denied", naming where credentials come from', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'WRONGKEY';
    process.env.AWS_SECRET_ACCESS_KEY = 'wrong-secret';
    try {
      const st = new S3Storage({ bucket: s3.bucket, prefix: 'p', endpoint: s3.endpoint, maxAttempts: 1 });
      const error = await st.getText('a').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as Error).message).toMatch(/access was denied: check the AWS credentials/);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });

  it('a store that does not answer is "cannot be reached", after the retries', async () => {
    const { freePort } = await import('../helpers/redis.js');
    const st = new S3Storage({ bucket: s3.bucket, prefix: 'p', endpoint: `http://127.0.0.1:${await freePort()}`, maxAttempts: 2, retryForMs: 0 });
    const error = await st.put('a', 'b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as Error).message).toMatch(/cannot be reached \(ECONNREFUSED\): check --s3-endpoint/);
    expect((error as StorageUnavailableError).reason).toBe('unreachable');
  });

  it('opening refuses a missing bucket at once (a start-up error with a reason), and a store that cannot be reached', async () => {
    const missing = await openStorage({ url: 's3://no-such-bucket/p', endpoint: s3.endpoint }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(StorageUnavailableError);
    expect((missing as StorageUnavailableError).reason).toBe('bucket-missing');
    const { freePort } = await import('../helpers/redis.js');
    const started = Date.now();
    const away = await openStorage({ url: `s3://${s3.bucket}/p`, endpoint: `http://127.0.0.1:${await freePort()}` }).catch((e: unknown) => e);
    expect((away as StorageUnavailableError).reason).toBe('unreachable');
    // Start-up asks once (the SDK's quick attempts), it does not ride out an outage.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a store away for a few seconds mid-write: the write waits for it and lands, within the budget; a request budget answers at once', async () => {
    const { withStorageBudget } = await import('../../src/storage/budget.js');
    const st = new S3Storage({ bucket: s3.bucket, prefix: `outage-${randomBytes(4).toString('hex')}`, endpoint: s3.endpoint, retryForMs: 30_000 });
    await st.put('a', 'before');
    await s3.down();
    try {
      const quick = Date.now();
      const refused = await withStorageBudget(0, () => st.getText('a')).catch((e: unknown) => e);
      expect((refused as StorageUnavailableError).reason).toBe('unreachable');
      expect(Date.now() - quick).toBeLessThan(10_000);
      const write = st.put('a', 'during');
      const read = st.getText('a');
      await new Promise((r) => setTimeout(r, 4_000));
      await s3.up();
      await write;
      expect(['before', 'during']).toContain(await read);
    } finally {
      await s3.up().catch(() => undefined);
    }
    expect(await st.getText('a')).toBe('during');
  }, 60_000);

  it('--storage and --s3-endpoint are checked before anything is loaded', async () => {
    await expect(openStorage({ url: 'file:///tmp' })).rejects.toThrow(/Expected --storage s3:\/\/BUCKET\/PREFIX/);
    await expect(openStorage({ url: 's3://prints/p', endpoint: 'ftp://x' })).rejects.toThrow(/--s3-endpoint to be an http\(s\) URL/);
    expect(parseStorageUrl('s3://prints/a/b/')).toEqual({ bucket: 'prints', prefix: 'a/b' });
  });
});

describe('the job store on object storage: retention sweeps the bucket as it sweeps a folder', () => {
  it('old checks, their uploads and reuse entries go; referenced fixed files stay until released', async () => {
    const { JobStore } = await import('../../src/jobs/store.js');
    const { CheckJobSchema, newRecord } = await import('../../src/jobs/schema.js');
    const storage = await openStorage({ url: `s3://${s3.bucket}/sweep-${randomBytes(4).toString('hex')}`, endpoint: s3.endpoint });
    const store = await JobStore.open(tempDir(), { storage });
    const day = 24 * 60 * 60_000;
    const id = () => randomBytes(16).toString('hex');
    const make = async (finishedDaysAgo: number | null) => {
      const checkId = id();
      const job = CheckJobSchema.parse({
        id: checkId,
        createdAt: new Date().toISOString(),
        source: { kind: 'upload', file: store.uploadFile(checkId), name: 'a.pdf' },
        target: { sku: 'T-SHIRT-M' },
        options: { raster: false, previews: false },
      });
      await storage.put(store.uploadFile(job.id), 'pdf bytes');
      await store.create(job, newRecord(job));
      if (finishedDaysAgo !== null) await store.updateRecord(job.id, (r) => ({ ...r, status: 'done', finishedAt: new Date(Date.now() - finishedDaysAgo * day).toISOString() }));
      return job.id;
    };
    const old = await make(8);
    const young = await make(6);
    const queued = await make(null);
    await storage.put('reuse/'.padEnd(6 + 64, 'a'), old);
    const token = 'b'.repeat(48);
    const report = { file: { sha256: 'c'.repeat(64) } } as never;
    await store.files.write(token, { check: old, bytes: new Uint8Array([37, 80, 68, 70]), sha256: 'c'.repeat(64), state: 'auto', report });
    await store.files.addReference(token, 'acme/order-1', { tenant: 'acme', order: 'order-1' });

    // Sweep as if far later: the old check goes, with its upload and its reuse entry.
    expect(await store.sweep(7 * day)).toBe(1);
    expect(await store.ids()).toEqual([young, queued].sort());
    expect(await storage.head(store.uploadFile(old))).toBeNull();
    expect(await storage.list('reuse/')).toEqual([]);
    // The fixed file an order references outlives its check, however old.
    expect(await store.sweep(7 * day, Date.now() + 400 * day, 30 * day)).toBeGreaterThanOrEqual(1);
    expect(await store.files.exists(token)).toBe(true);
    // Released, it follows the retention of unreferenced files: kept within it, removed past it.
    expect(await store.files.releaseReferences('acme/order-1')).toEqual([token]);
    await store.files.sweep(30 * day);
    expect(await store.files.exists(token)).toBe(true);
    await store.files.sweep(30 * day, Date.now() + 31 * day);
    expect(await store.files.exists(token)).toBe(false);
    expect(await store.files.meta(token)).toBeNull();
  }, 60_000);
});
