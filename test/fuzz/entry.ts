/**
 * The campaign's entry points (campaign.mjs points Jazzer.js here): each target of targets.ts, with
 * the findings of bugs already kept and still open (regressions/open.json, the same target and
 * message) let through, so that a campaign looks for new bugs instead of stopping at a known one
 * again (FUZZ_KNOWN=report makes them findings again), and each input watched by watchdog.ts for
 * time and memory when the campaign says where (FUZZ_WATCHDOG_DIR). The replay
 * (regressions.test.ts) calls the targets themselves.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FuzzFinding, TARGETS, type TargetName } from './targets.js';

const openFile = join(process.cwd(), 'test/fuzz/regressions/open.json');
const open: { target: TargetName; fails: string }[] = existsSync(openFile) ? JSON.parse(readFileSync(openFile, 'utf8')) : [];

/** The watchdog's view of the current input, when the campaign asked for one. */
const watch = (() => {
  const dir = process.env.FUZZ_WATCHDOG_DIR;
  if (!dir) return null;
  const state = new SharedArrayBuffer(12);
  const view = new Int32Array(state);
  const origin = Math.floor(Date.now() / 1000);
  Atomics.store(view, 2, origin);
  const current = join(dir, 'current-input');
  const worker = new Worker(new URL('./watchdog.js', import.meta.url), {
    workerData: { state, current, artifacts: dir, timeoutMs: Number(process.env.FUZZ_TIMEOUT_MS ?? 60_000), rssMb: Number(process.env.FUZZ_RSS_MB ?? 2048) },
  });
  worker.unref();
  return {
    start(data: Uint8Array) {
      writeFileSync(current, data);
      Atomics.store(view, 1, Math.floor(Date.now() / 1000) - origin);
      Atomics.store(view, 0, 1);
    },
    end() {
      Atomics.store(view, 0, 0);
    },
  };
})();

function entry(target: TargetName) {
  const known = process.env.FUZZ_KNOWN === 'report' ? [] : open.filter((b) => b.target === target).map((b) => b.fails);
  return async (data: Uint8Array): Promise<void> => {
    watch?.start(data);
    try {
      await TARGETS[target](data);
    } catch (error) {
      if (error instanceof FuzzFinding && known.some((k) => error.message.includes(k))) return;
      throw error;
    } finally {
      watch?.end();
    }
  };
}

export const structure = entry('structure');
export const content = entry('content');
export const decoders = entry('decoders');
export const fixFile = entry('fix');
export const images = entry('images');
export const vector = entry('vector');
export const reorder = entry('reorder');
export const assembleImages = entry('assemble');
