/**
 * The pool worker's entry for transforms: fix, reorder and assemble run here, in a worker, never on
 * a server's or the CLI's main thread — under the file's decode budget, the worker's heap cap, the
 * pool's time limit and its memory watchdog, as reading a file does.
 */
import { BudgetExceededError } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { UntransformableError } from './document.js';
import { AssemblyInputError, buildAssembly } from './assemble.js';
import { applyFixes } from './fix.js';
import type { z } from 'zod';
import type { TransformAnswerSchema, TransformOp } from './plan.js';
import { reorderPages } from './reorder.js';

/** What a transform answers across the worker boundary. */
export type TransformAnswer = z.infer<typeof TransformAnswerSchema>;

/**
 * Runs one transform on a file's bytes under `limits`.
 * @example
 * const answer = await runTransform(bytes, { op: 'reorder', order: [2, 1] }, DEFAULT_DECODE_LIMITS);
 */
export async function runTransform(bytes: Uint8Array, op: TransformOp, limits: DecodeLimits): Promise<TransformAnswer> {
  switch (op.op) {
    case 'fix':
      return { op: 'fix', outcome: await applyFixes(bytes, op.plan, limits) };
    case 'reorder':
      try {
        return { op: 'reorder', bytes: await reorderPages(bytes, op.order, limits, op.log) };
      } catch (error) {
        if (error instanceof BudgetExceededError || error instanceof RangeError) return { op: 'reorder', refused: { code: 'pdf-too-complex', reason: `the file cannot be fixed: ${error.message}` } };
        if (error instanceof UntransformableError) return { op: 'reorder', refused: { code: 'pdf-damaged', reason: `the file cannot be fixed: ${error.message}` } };
        throw error;
      }
    case 'assemble':
      try {
        return { op: 'assemble', outcome: await buildAssembly(op.plan, limits) };
      } catch (error) {
        if (error instanceof AssemblyInputError) return { op: 'assemble', invalid: error.message };
        throw error;
      }
  }
}

/** The buffers of an answer, to hand over instead of copying (piscina's move). */
export function answerBuffers(answer: TransformAnswer): ArrayBuffer[] {
  const bytes = 'bytes' in answer ? answer.bytes : 'outcome' in answer ? answer.outcome.bytes : null;
  return bytes && bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer] : [];
}
