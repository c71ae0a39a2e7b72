/**
 * Starting the service for tests: in this process (startService) or as a real
 * `print-preflight serve` child process (for signals and kill -9), always on 127.0.0.1 with a free
 * port (--port 0) and its own data folder.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { expectPublished } from '../helpers/contracts.js';

export const CORPUS = 'test/corpus/files';

export function tempDir(prefix = 'pp-service-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface ChildServer {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `print-preflight serve --port 0 …` and resolves once it listens. */
export async function startChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['bin/print-preflight.js', 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    const look = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stderr.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${err}`));
    });
  });
  return { url, child, stdout: () => out, stderr: () => err, exited };
}

/** A multipart body with a file part and fields. */
export function form(file: string | { name: string; bytes: Uint8Array } | null, fields: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file !== null) {
    const f = typeof file === 'string' ? { name: basename(file), bytes: readFileSync(file) } : file;
    fd.append('file', new Blob([new Uint8Array(f.bytes)], { type: 'application/pdf' }), f.name);
  }
  return fd;
}

/** `check --json` of a corpus file, run from the corpus folder so the report names it by its file name. */
export function cliReport(file: string, target: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [join(process.cwd(), 'bin/print-preflight.js'), 'check', file, ...target, '--json'], { cwd: CORPUS, encoding: 'utf8' });
  return expectPublished('report', run.stdout, `check ${file} --json`);
}

/** A report without its timings (the only part that differs between two runs). */
export function withoutTimings(report: unknown): unknown {
  const { timings: _t, ...rest } = report as Record<string, unknown>;
  return rest;
}

/** Asserts an RFC 9457 answer and returns its body. */
export async function expectProblem(res: Response, status: number, code?: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^urn:print-preflight:problem:/), title: expect.any(String), detail: expect.any(String) });
  if (code) expect(body.code).toBe(code);
  return body;
}

/**
 * The check a submission started, once it has left the queue and its run: its answer must be 202,
 * then its record is polled until its status is neither queued nor running (done, error, or
 * needs-approval).
 */
export async function settledCheck<T extends { status: string }>(res: Response, base: string, timeoutMs = 240_000): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(202);
  const { id } = JSON.parse(text) as { id: string };
  const until = Date.now() + timeoutMs;
  for (;;) {
    const check = (await (await fetch(`${base}/v1/checks/${id}`)).json()) as T;
    if (check.status !== 'queued' && check.status !== 'running') return check;
    if (Date.now() > until) throw new Error(`check ${id} still ${check.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Polls a check until it is done or in error. */
export async function pollUntilFinished(url: string, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(url, { headers });
    const body = (await res.json()) as Record<string, unknown>;
    if (body.status === 'done' || body.status === 'error') return body;
    if (Date.now() > until) throw new Error(`still ${String(body.status)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
