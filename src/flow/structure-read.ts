/**
 * A file's structure read in the pool, as one value: its bytes in shared memory, the id the workers
 * cache it under, the file's time budget and the read itself. A check starts one for each file;
 * the command line starts it as soon as it has the file and a pool, so that a worker reads the
 * structure while the command's own thread reads the profiles and loads the checks. The check takes
 * an early read over only when it was started under the very settings the check resolved; else it
 * reads the structure itself.
 *
 * Kept light on purpose (no schema library): the command line loads it before anything else.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { PreflightError } from '../errors.js';
import type { DocumentFacts } from '../pdf/facts.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { TimeBudget } from '../pool/budget.js';
import type { Executor } from '../pool/local.js';
import { TaskFailure } from '../pool/pool.js';
import type { InspectResult, InspectTaskOptions } from '../pool/tasks.js';
import { sha256Hex, sharedBufferOf } from '../source/read.js';

/** What a structure read is started under: a check takes over only a read started under the same. */
export interface StructureSettings {
  executor: Executor;
  /** The decode budget of the file and the render budget of what glyphs and soft masks draw. */
  options: InspectTaskOptions;
  /** The worker time the whole file may use (its pages' renders included). */
  fileBudgetMs: number;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A structure read under way (or done): {@link startStructureRead}. */
export interface StructureRead {
  readonly settings: StructureSettings;
  readonly bytes: Uint8Array;
  readonly shared: SharedArrayBuffer;
  readonly docId: string;
  /** The file's time budget: its structure read and then its pages' renders. */
  readonly budget: TimeBudget;
  /** The facts, with the file's SHA-256 (hashed in the worker): a timeout or crash is a document problem. */
  readonly result: Promise<InspectResult>;
}

/**
 * The options of a file's structure read: its decode limits and the render budget of images that
 * glyphs and soft-mask groups draw.
 * @example
 * inspectOptionsOf(DEFAULT_DECODE_LIMITS, 48_000_000).maxHiddenImagePixels; // 48000000
 */
export function inspectOptionsOf(limits: DecodeLimits, maxRenderImagePixels: number): InspectTaskOptions {
  return { limits, maxHiddenImagePixels: maxRenderImagePixels };
}

/**
 * Hands a file's bytes to the pool (once, shared) and starts reading its structure there.
 * @example
 * const read = startStructureRead(bytes, { executor: defaultPool(), options, fileBudgetMs: 300_000 });
 * const { facts, sha256 } = await read.result;
 */
export function startStructureRead(bytes: Uint8Array, settings: StructureSettings): StructureRead {
  const shared = sharedBufferOf(bytes);
  // The cache key is per read: a document checked again starts fresh in the workers.
  const docId = randomUUID();
  const budget = new TimeBudget(settings.fileBudgetMs);
  const result = inspectOrExplain(settings, shared, docId, bytes, budget);
  // Whoever takes the read over awaits it; a read nobody takes (an unknown SKU stopped the command) is no unhandled rejection.
  result.catch(() => undefined);
  return { settings, bytes, shared, docId, budget, result };
}

/**
 * Whether a read started under `started` may stand for one under `wanted`: the same executor,
 * signal, time limits and read options.
 */
export function sameStructureSettings(started: StructureSettings, wanted: StructureSettings): boolean {
  return (
    started.executor === wanted.executor &&
    started.signal === wanted.signal &&
    started.timeoutMs === wanted.timeoutMs &&
    started.fileBudgetMs === wanted.fileBudgetMs &&
    isDeepStrictEqual(started.options, wanted.options)
  );
}

/** Structure facts from the pool; a timeout or crash becomes a document problem (a finding). */
async function inspectOrExplain(settings: StructureSettings, shared: SharedArrayBuffer, docId: string, bytes: Uint8Array, budget: TimeBudget): Promise<InspectResult> {
  const { executor, signal, timeoutMs, options } = settings;
  try {
    return await executor.inspect(shared, docId, signal, timeoutMs, budget, options);
  } catch (error) {
    if (!(error instanceof TaskFailure)) throw error;
    if (error.reason === 'aborted') throw new PreflightError('ERR_ABORTED', 'The preflight was aborted', { cause: signal?.reason });
    const facts = await (error.reason === 'timeout'
      ? structureFailed(bytes, 'timeout', `reading its structure ${error.message}`)
      : structureFailed(bytes, 'too-complex', `reading its structure failed: ${error.message}`));
    return { facts, sha256: sha256Hex(bytes) };
  }
}

async function structureFailed(bytes: Uint8Array, kind: 'timeout' | 'too-complex', detail: string): Promise<DocumentFacts> {
  const { pdfHeaderVersion } = await import('../pdf/inspect.js');
  return { bytes: bytes.length, pdfVersion: pdfHeaderVersion(bytes), encryption: null, activeContent: [], problems: [{ kind, detail }], pageCount: null, pages: [] };
}
