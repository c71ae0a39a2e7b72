/**
 * A real S3-compatible server for the storage tests: s3rver (npm, a file-backed S3 API server; no
 * Docker, no download at test time — MinIO is in neither npm nor Debian), on a free loopback port,
 * its objects in a temporary folder. `down()` / `up()` stop it and start it again on the same port
 * and folder, so clients see a real outage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export async function startS3(bucket = 'prints'): Promise<S3Server> {
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
