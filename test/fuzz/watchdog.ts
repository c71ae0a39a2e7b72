/**
 * The campaign's per-input time and memory bounds, kept by a thread of their own (entry.ts starts
 * it). libFuzzer's own -timeout cannot stop an asynchronous target here (its alarm is ignored
 * outside the thread libFuzzer runs on, and the target runs on Node's), and a synchronous stretch of
 * JavaScript would hold any timer of the main thread. So this thread watches the time the current
 * input started (shared memory) and the process's resident memory; past a bound it keeps the input
 * as libFuzzer would (`timeout-<sha1>` / `oom-<sha1>` in the artifact folder), says so, and ends the
 * process.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';

interface WatchdogData {
  /** [0]: 1 while an input runs; [1]: when it started (seconds since the watchdog started). */
  state: SharedArrayBuffer;
  current: string;
  artifacts: string;
  timeoutMs: number;
  rssMb: number;
}

const { state, current, artifacts, timeoutMs, rssMb } = workerData as WatchdogData;
const view = new Int32Array(state);
const origin = Number(Atomics.load(view, 2)) * 1000;

function keep(kind: 'timeout' | 'oom', why: string): never {
  const bytes = readFileSync(current);
  const file = join(artifacts, `${kind}-${createHash('sha1').update(bytes).digest('hex')}`);
  writeFileSync(file, bytes);
  process.stderr.write(`==watchdog== ${why}\nartifact_prefix='${artifacts}/'; Test unit written to ${file}\n`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

setInterval(() => {
  if (Atomics.load(view, 0) !== 1) return;
  const ranMs = Date.now() - origin - Atomics.load(view, 1) * 1000;
  if (ranMs > timeoutMs) keep('timeout', `an input ran past ${timeoutMs} ms (${Math.round(ranMs / 1000)} s)`);
  const rss = process.memoryUsage.rss() / (1024 * 1024);
  if (rss > rssMb) keep('oom', `the process holds ${Math.round(rss)} MB resident, past ${rssMb} MB`);
}, 250);
