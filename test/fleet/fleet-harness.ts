/**
 * Fleet test harness: `print-preflight worker` processes (the compiled CLI, as deployed) whose JSON
 * log lines are collected, check jobs written into a data folder the way the server writes them,
 * and a heavy PDF that keeps a worker busy for seconds (for kills mid-job).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile } from 'node:fs/promises';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRecord, type CheckJob } from '../../src/jobs/schema.js';
import type { JobStore } from '../../src/jobs/store.js';
import type { Target } from '../../src/flow/options.js';
import { heavyPdf } from '../helpers/heavy-pdf.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startS3, type S3Server } from '../helpers/s3.js';

export const BIN = 'bin/print-preflight.js';

/**
 * Short locks and stall checks so a dead worker's job moves within seconds. Not shorter: on a
 * loaded machine a live worker that cannot renew its lock in time loses its job to another one
 * (delivered twice, the result still written the same).
 */
export const FAST_RECOVERY = ['--lock-duration', '8', '--stalled-interval', '1'];

export interface LogLine {
  event: string;
  worker: string;
  jobId?: string;
  [k: string]: unknown;
}

export interface WorkerProcess {
  proc: ChildProcess;
  lines: LogLine[];
  /** Resolves with the first log line (past or future) that matches. */
  waitFor(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<number | null>;
}

export function startWorker(redisUrl: string, data: string, args: string[] = []): WorkerProcess {
  // Lock and stall settings of its own replace the fast recovery ones.
  const recovery = args.includes('--lock-duration') || args.includes('--stalled-interval') ? [] : FAST_RECOVERY;
  const proc = spawn(process.execPath, [BIN, 'worker', '--redis', redisUrl, '--data', data, '--workers', '1', ...recovery, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const waiters = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }>();
  let buffer = '';
  let stderrText = '';
  proc.stderr!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        stderrText += `${text}\n`;
        continue;
      }
      lines.push(line);
      for (const w of [...waiters]) if (w.match(line)) waiters.delete(w), w.resolve(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc,
    lines,
    exited,
    waitFor(match, timeoutMs = 90_000) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { match, resolve };
        waiters.add(w);
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no matching log line within ${timeoutMs} ms; got ${lines.map((l) => `${l.event}:${l.jobId ?? ''}`).join(' ')} ${stderrText.slice(-500)}`));
        }, timeoutMs);
        void exited.then(() => {
          if (!waiters.has(w)) return;
          setTimeout(() => {
            if (!waiters.has(w)) return;
            waiters.delete(w);
            clearTimeout(timer);
            reject(new Error(`the worker exited before a matching log line; stderr: ${stderrText.slice(-800)}`));
          }, 200);
        });
      });
    },
  };
}

export interface ServeProcess {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** What it wrote on stderr so far (its log lines). */
  stderr(): string;
}

/** Starts `print-preflight serve --redis` on a free port (or the `--port` in `args`) with a data folder; resolves once it listens. */
export function startServe(redisUrl: string, data: string, args: string[] = []): Promise<ServeProcess> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const proc = spawn(process.execPath, [BIN, 'serve', ...port, '--data', data, '--redis', redisUrl, '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (m) resolve({ proc, url: m[1]!, exited, stderr: () => err });
    });
    void exited.then(() => reject(new Error(`serve exited: ${err}`)));
  });
}

export async function stopWorker(w: WorkerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill(signal);
  return w.exited;
}

/** Puts a check of `file` (a corpus file or any path) into the data folder as the server would. */
export async function createUploadJob(store: JobStore, file: string, target: Target, name = file.split('/').pop()!): Promise<CheckJob> {
  const id = randomUUID().replace(/-/g, '');
  await copyFile(file, join(store.dir, store.uploadFile(id)));
  const job: CheckJob = {
    id,
    createdAt: new Date().toISOString(),
    source: { kind: 'upload', file: store.uploadFile(id), name },
    target,
    options: { raster: true, previews: true },
  };
  await store.create(job, newRecord(job));
  return job;
}

/** A PDF that takes pdf.js seconds to render (cheap to scan, heavy to draw); `pages` pages draw the same stream. */
export function writeHeavyPdf(path: string, rectangles = 40_000, pages = 1): string {
  writeFileSync(path, heavyPdf(rectangles, pages));
  return path;
}

/** A report without its timings (the only part that differs between two runs). */
export function stable(report: unknown): unknown {
  const { timings: _t, ...rest } = report as Record<string, unknown>;
  return rest;
}

/** How often each job id was reported done, over the logs of several workers. */
export function doneCounts(workers: WorkerProcess[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of workers) for (const l of w.lines) if (l.event === 'job-done' && l.jobId) counts.set(l.jobId, (counts.get(l.jobId) ?? 0) + 1);
  return counts;
}

/** Polls `read` until `ok` holds for its value; resolves with the value, or rejects with the last one. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Where a fleet keeps its checks: one data folder every process shares, or an S3-compatible bucket (s3rver). */
export type FleetStorageKind = 'shared folder' | 'object storage';
export const FLEET_STORAGES: readonly FleetStorageKind[] = ['shared folder', 'object storage'];

/**
 * A Redis and a storage for one fleet test, and its processes. On a shared folder every server and
 * worker gets the same `--data`; on object storage each gets a scratch folder of its own and
 * `--storage s3://…` (nothing shared but Redis and the bucket), as deployed without a shared disk.
 */
export interface Fleet {
  readonly kind: FleetStorageKind;
  readonly redis: RedisServer;
  readonly servers: ServeProcess[];
  readonly workers: WorkerProcess[];
  serve(args?: string[]): Promise<ServeProcess>;
  worker(args?: string[]): WorkerProcess;
  /** Files in the processes' own `--data` folders (on object storage: none, every byte is in the bucket). */
  scratchFiles(): string[];
  /** Kills every process, stops Redis and the store, removes the folders. */
  stop(): Promise<void>;
}

export async function startFleet(kind: FleetStorageKind, name: string): Promise<Fleet> {
  const redis = await startRedis();
  const s3: S3Server | null = kind === 'object storage' ? await startS3() : null;
  const dirs: string[] = [];
  const folder = (role: string) => {
    const d = mkdtempSync(join(tmpdir(), `pp-fleet-${name}-${role}-`));
    dirs.push(d);
    return d;
  };
  const shared = s3 ? null : folder('data');
  const place = (role: string): [string, string[]] => (s3 ? [folder(role), ['--storage', `s3://${s3.bucket}/${name}`, '--s3-endpoint', s3.endpoint]] : [shared!, []]);
  const servers: ServeProcess[] = [];
  const workers: WorkerProcess[] = [];
  return {
    kind,
    redis,
    servers,
    workers,
    async serve(args = []) {
      const [data, storage] = place('server');
      const s = await startServe(redis.url, data, [...storage, ...args]);
      servers.push(s);
      return s;
    },
    worker(args = []) {
      const [data, storage] = place('worker');
      const w = startWorker(redis.url, data, [...storage, ...args]);
      workers.push(w);
      return w;
    },
    scratchFiles() {
      return dirs.flatMap((d) =>
        readdirSync(d, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath, e.name)),
      );
    },
    async stop() {
      for (const s of servers) s.proc.kill('SIGKILL');
      await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
      await redis.stop();
      await s3?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
