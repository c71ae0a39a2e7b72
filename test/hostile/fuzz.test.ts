/**
 * Fuzzing (fast-check): valid corpus files mutated and truncated. The property: preflight()
 * resolves to a valid report, or rejects with one of our typed errors, within the time limit —
 * never a crash, a hang or an untyped exception. Bounded runs in CI; `npm run fuzz` runs longer
 * (FUZZ_RUNS=1000).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PreflightError } from '../../src/errors.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { ReportSchema } from '../../src/report/schema.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const LIMIT_MS = 30_000;
const seeds = [
  'reportlab-tshirt-M-exact.pdf',
  'gs-tanktop-inline-image.pdf',
  'pikepdf-tanktop-forms-inline-stencil.pdf',
  'img2pdf-tanktop-cmyk-jpeg.pdf',
  'qpdf-tshirt-M-object-streams.pdf',
  'qpdf-encrypted-owner-only-rc4.pdf',
  'cairo-curtains-within-tolerance.pdf',
  'pikepdf-tanktop-separation.pdf',
].map((f) => new Uint8Array(readFileSync(`test/corpus/files/${f}`)));

type Op =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; value: number }
  | { kind: 'splice'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'digit'; at: number; value: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 512 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 2048 }) }),
  fc.record({ kind: fc.constant('digit' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), value: fc.integer({ min: 0, max: 9 }) }),
);

/** Applies the mutations; "digit" rewrites the next ASCII digit, which hits lengths, offsets and sizes. */
export function mutate(input: Uint8Array, ops: Op[]): Uint8Array {
  let b = input;
  for (const o of ops) {
    const at = Math.min(b.length, Math.floor(o.at * b.length));
    if (o.kind === 'truncate') b = b.subarray(0, at);
    else if (o.kind === 'flip' && b.length) {
      b = Uint8Array.from(b);
      b[Math.min(at, b.length - 1)] = o.value;
    } else if (o.kind === 'splice') b = Uint8Array.from([...b.subarray(0, at), ...b.subarray(Math.min(b.length, at + o.length))]);
    else if (o.kind === 'duplicate') b = Uint8Array.from([...b.subarray(0, at + o.length), ...b.subarray(at, Math.min(b.length, at + o.length)), ...b.subarray(at + o.length)]);
    else if (o.kind === 'digit') {
      const i = b.findIndex((c, k) => k >= at && c >= 0x30 && c <= 0x39);
      if (i >= 0) {
        b = Uint8Array.from(b);
        b[i] = 0x30 + o.value;
      }
    }
  }
  return b;
}

const pool = new PreflightPool({ maxThreads: 2, taskTimeoutMs: 20_000 });
afterAll(() => pool.destroy());

describe('fuzzing preflight() with mutated corpus files', () => {
  it(`resolves to a report or a typed error, in time (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: seeds.length - 1 }), fc.array(op, { minLength: 1, maxLength: 6 }), async (seed, ops) => {
        const bytes = mutate(seeds[seed]!, ops);
        const started = performance.now();
        try {
          const report = await preflight(bytes, { sku: 'T-SHIRT-M' }, { pool, previewSize: 200 });
          expect(ReportSchema.safeParse(report).success).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(PreflightError);
        }
        expect(performance.now() - started).toBeLessThan(LIMIT_MS);
      }),
      { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );
  }, Math.max(120_000, RUNS * LIMIT_MS));
});
