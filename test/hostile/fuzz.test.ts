/**
 * Fuzzing (fast-check): valid corpus files mutated and truncated, and page content behind generated
 * filter chains (Flate, LZW, RunLength, ASCII85, ASCIIHex; chains longer than allowed, bombs,
 * damaged data, absurd predictor parameters). The properties: preflight() resolves to a valid
 * report, or rejects with one of our typed errors, within the time limit — never a crash, a hang or
 * an untyped exception; and any chain our encoders write decodes back to its bytes. Bounded runs
 * in CI; `npm run fuzz` runs longer (FUZZ_RUNS=1000).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PreflightError } from '../../src/errors.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { preflight } from '../../src/flow/preflight.js';
import { ReportSchema } from '../../src/report/schema.js';
import { DecodeBudget } from '../../src/pdf/decode-budget.js';
import { decodeFilters } from '../../src/pdf/streams.js';
import { FILTERS, encodeChain, type FilterName } from '../helpers/filters.js';
// @ts-expect-error plain ESM helper without types
import { onePage, stream } from './pdf-writer.mjs';

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
function mutate(input: Uint8Array, ops: Op[]): Uint8Array {
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
  it(
    `resolves to a report or a typed error, in time (${RUNS} runs)`,
    async () => {
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
    },
    Math.max(120_000, RUNS * LIMIT_MS),
  );
});

const filter = fc.constantFrom(...FILTERS);
/** Content that paints (so a page is judged on what it draws), of a generated length and texture. */
const content = fc
  .tuple(fc.integer({ min: 0, max: 4000 }), fc.constantFrom('0.1 0.2 0.8 rg 0 0 400 400 re f\n', 'q 1 0 0 1 5 5 cm 0 0 m 10 10 l S Q\n', '% comment\n'), fc.uint8Array({ maxLength: 64 }))
  .map(([n, unit, noise]) => Buffer.concat([Buffer.from(unit.repeat(n)), Buffer.from(noise)]));
const params = fc.option(
  fc.record({
    predictor: fc.constantFrom(1, 2, 10, 12, 15, 99, -1),
    columns: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constant(2 ** 31), fc.constant(0)),
    colors: fc.integer({ min: 0, max: 80 }),
    bitsPerComponent: fc.constantFrom(1, 2, 4, 8, 16, 3),
  }),
  { nil: undefined },
);

/** How much a chain's encoders can grow data (ASCIIHex doubles it): generated cases past a few MB are skipped. */
const GROWTH: Record<FilterName, number> = { FlateDecode: 1.01, LZWDecode: 1.5, RunLengthDecode: 1.01, ASCII85Decode: 1.25, ASCIIHexDecode: 2 };
const encodedSize = (chain: readonly FilterName[], bytes: number) => chain.reduce((n, f) => n * GROWTH[f], bytes);

describe('filter chains', () => {
  it(`any chain our encoders write decodes back to its bytes (${RUNS * 2} runs)`, () => {
    fc.assert(
      fc.property(fc.array(filter, { minLength: 1, maxLength: 8 }), content, (chain, data) => {
        fc.pre(encodedSize(chain, data.length) < 4 * 1024 * 1024);
        const decoded = decodeFilters(encodeChain(chain, data), chain, [], { maxBytes: 64 * 1024 * 1024, budget: new DecodeBudget() });
        expect(Buffer.from(decoded).equals(data)).toBe(true);
      }),
      { numRuns: RUNS * 2, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );
  });

  it(
    `page content behind generated, damaged and hostile chains: a report or a typed error, in time (${RUNS} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(filter, { minLength: 1, maxLength: 12 }),
          content,
          fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), value: fc.integer({ min: 0, max: 255 }) }), { maxLength: 4 }),
          params,
          fc.boolean(),
          async (generated, data, flips, parms, bomb) => {
            // A bomb: 48 MiB of spaces under the chain, behind a Flate filter applied first.
            const chain = bomb ? [...generated, 'FlateDecode' as const] : generated;
            fc.pre(encodedSize(chain, bomb ? 64 * 1024 : data.length) < 4 * 1024 * 1024);
            const body = bomb ? Buffer.alloc(48 * 1024 * 1024, 0x20) : data;
            const encoded = Uint8Array.from(encodeChain(chain, body));
            for (const f of flips) if (encoded.length) encoded[Math.min(encoded.length - 1, Math.floor(f.at * encoded.length))] = f.value;
            const decodeParms = parms
              ? ` /DecodeParms [${chain.map((_, i) => (i === chain.length - 1 ? `<< /Predictor ${parms.predictor} /Columns ${parms.columns} /Colors ${parms.colors} /BitsPerComponent ${parms.bitsPerComponent} >>` : 'null')).join(' ')}]`
              : '';
            const bytes = onePage({ content: stream(`/Filter [${chain.map((f) => `/${f}`).join(' ')}]${decodeParms}`, encoded) });
            const started = performance.now();
            try {
              const report = await preflight(bytes, { sku: 'T-SHIRT-M' }, { pool, previewSize: 200 });
              expect(ReportSchema.safeParse(report).success).toBe(true);
            } catch (error) {
              expect(error).toBeInstanceOf(PreflightError);
            }
            expect(performance.now() - started).toBeLessThan(LIMIT_MS);
          },
        ),
        { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
      );
    },
    Math.max(120_000, RUNS * LIMIT_MS),
  );
});
