/**
 * Runs the worker's tasks in this thread: for `pool: false`, debugging and in-process benchmarks
 * (no time limit or heap cap guards this thread: never for untrusted files in a server).
 */
import { valueSymbol } from 'piscina';
import type { TimeBudget } from './budget.js';
import { failedOrAnswer, renderResultOf } from './pool.js';
import { ImageProbeSchema, InspectResultSchema, RenderAnswerSchema, type InspectResult, type InspectTaskOptions, type RenderResult, type RenderTask, type TransformTask } from './tasks.js';
import { TransformAnswerSchema } from '../convert/plan.js';
import type { TransformAnswer } from '../convert/transform.js';
import type { ImageProbe } from '../raster/image-probe.js';
import handle from './worker-main.js';

export interface Executor {
  /** Tasks run at once (a file keeps at most this many in flight). */
  readonly threads: number;
  inspect(bytes: SharedArrayBuffer, docId: string, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget, options?: InspectTaskOptions): Promise<InspectResult>;
  render(task: Omit<RenderTask, 'kind'>, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget): Promise<RenderResult>;
  transform(task: Omit<TransformTask, 'kind'>, signal?: AbortSignal, timeoutMs?: number, budget?: TimeBudget): Promise<TransformAnswer>;
  /** An untrusted image's header size and, within `maxSidePx`, whether it decodes (raster/image-probe.ts). */
  probeImage(bytes: SharedArrayBuffer, maxSidePx: number, signal?: AbortSignal, timeoutMs?: number): Promise<ImageProbe>;
}

export const localExecutor: Executor = {
  threads: 1,
  async inspect(bytes, docId, _signal, _timeoutMs, _budget, options) {
    return InspectResultSchema.parse(await run({ kind: 'inspect', docId, bytes, ...(options ? { options } : {}) })) as InspectResult;
  },
  async render(task) {
    const out = (await run({ kind: 'render', ...task })) as Record<PropertyKey, unknown>;
    return renderResultOf(RenderAnswerSchema.parse(valueSymbol in out ? out[valueSymbol] : out));
  },
  async transform(task) {
    const out = (await run({ kind: 'transform', ...task })) as Record<PropertyKey, unknown>;
    return TransformAnswerSchema.parse(valueSymbol in out ? out[valueSymbol] : out);
  },
  async probeImage(bytes, maxSidePx) {
    return ImageProbeSchema.parse(await run({ kind: 'probe-image', bytes, maxSidePx }));
  },
};

async function run(task: unknown): Promise<unknown> {
  return failedOrAnswer(await handle(task));
}
