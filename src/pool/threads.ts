/**
 * The pool's piscina, and its first worker started before the rest of the program loads.
 *
 * A worker thread takes about as long to start and load its modules as the calling thread takes to
 * load the checks, the schemas and zod. When the CLI starts the first worker only once it has
 * loaded all of that, the two run one after the other; started first, they overlap. This module
 * imports nothing but piscina (no zod, no schema), so a command can start the worker before it
 * loads anything else; the {@link PreflightPool} made later with the same settings takes that
 * worker over instead of starting its own.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { commitNativeMemoryOnDemand } from '../raster/native-memory.js';
import { packageRoot } from '../util/package-root.js';

/** What the threads of a pool are started with; the defaults are those of `PoolOptionsSchema`. */
export interface ThreadSettings {
  maxThreads: number;
  idleTimeoutMs: number;
  maxWorkerMemoryMb: number;
  maxWorkerYoungGenerationMb: number;
}

/** The defaults `PoolOptionsSchema` gives to the settings threads are started with. */
export const THREAD_DEFAULTS = { idleTimeoutMs: 5_000, maxWorkerMemoryMb: 1024, maxWorkerYoungGenerationMb: 16 } as const;

/** The settings of a pool made with no options on this machine. */
export function defaultThreadSettings(): ThreadSettings {
  return { maxThreads: availableParallelism(), ...THREAD_DEFAULTS };
}

/** A piscina for a pool's workers: one task at a time each, a heap cap, started on demand. */
export function startThreads(settings: ThreadSettings): Piscina {
  // Before any worker loads the canvas library (its workers inherit the process's environment).
  commitNativeMemoryOnDemand();
  const piscina = new Piscina({
    filename: join(packageRoot(), 'dist', 'workers', 'preflight-worker.js'),
    // The pool's gate keeps to maxThreads but for its one spare worker (fair-gate.ts).
    maxThreads: settings.maxThreads + 1,
    minThreads: 0,
    idleTimeout: settings.idleTimeoutMs,
    concurrentTasksPerWorker: 1,
    resourceLimits: { maxOldGenerationSizeMb: settings.maxWorkerMemoryMb, maxYoungGenerationSizeMb: settings.maxWorkerYoungGenerationMb },
  });
  // A worker that dies is replaced by piscina; its task is rejected and handled by the caller.
  piscina.on('error', () => undefined);
  return piscina;
}

/** Starts workers of `piscina` until it has `count` (each loads the worker's modules); settles when they are up. */
export function warmThreads(piscina: Piscina, count: number): Promise<unknown> {
  const missing = count - piscina.threads.length;
  if (missing <= 0) return Promise.resolve();
  return Promise.all(Array.from({ length: missing }, () => piscina.run({ kind: 'warm' }).catch(() => undefined)));
}

interface Early {
  settings: ThreadSettings;
  piscina: Piscina;
  warming: Promise<unknown>;
}
let early: Early | undefined;

/**
 * Starts the default pool's first worker now, before the caller loads the rest of the program.
 * The first pool made with the same settings takes it over ({@link adoptEarlyThreads}); one that
 * nobody takes is stopped by {@link stopEarlyThreads}.
 * @internal the CLI calls it first thing for the commands that check a file
 */
export function startThreadsEarly(): void {
  if (early) return;
  const settings = defaultThreadSettings();
  const piscina = startThreads(settings);
  early = { settings, piscina, warming: warmThreads(piscina, 1) };
}

/** The workers started early, when they were started with exactly these settings (then no longer early). */
export function adoptEarlyThreads(settings: ThreadSettings): { piscina: Piscina; warming: Promise<unknown> } | undefined {
  if (!early) return undefined;
  const same = (Object.keys(settings) as (keyof ThreadSettings)[]).every((k) => settings[k] === early!.settings[k]);
  if (!same) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}

/** Stops workers started early that no pool took over (a command that failed before it checked, or made a pool of its own). */
export async function stopEarlyThreads(): Promise<void> {
  const left = early;
  early = undefined;
  await left?.piscina.destroy();
}
