/**
 * One budget for every byte decoded from a file. Whatever reads a file's untrusted bytes — pdf-lib's
 * parser (objects, object streams), the stream filters (Flate, LZW, RunLength, ASCII85, ASCIIHex,
 * predictors, chains of them), decryption, the content-stream lexer and scanner, the screening of
 * what a renderer will be given — charges this budget as it goes, chunk by chunk, so a bomb stops at
 * the budget whichever path reads it. Over budget is a finding (`pdf-too-complex` naming what was
 * too big), never a crash and never a pass.
 *
 * The limits are the operator's: {@link DEFAULT_DECODE_LIMITS} are safe defaults, and a call may
 * only lower them (`tightenLimits`, pdf/decode-limits.ts). No schema library loads with this module:
 * a pool worker imports it on its way to the first byte.
 */
import { getHeapStatistics } from 'node:v8';
import type { DecodeLimits } from './decode-limits.js';
import { grouped } from '../util/text.js';

const MiB = 1024 * 1024;

/**
 * The defaults: far above real files (the real-world corpus stays below a tenth of each), far below a bomb.
 * @example
 * import { DEFAULT_DECODE_LIMITS, preflight } from 'print-preflight';
 * // A quarter of the default decoded bytes per file, for a small machine:
 * await preflight('design.pdf', { sku: 'T-SHIRT-M' }, { decodeLimits: { maxFileDecodedBytes: DEFAULT_DECODE_LIMITS.maxFileDecodedBytes / 4 } });
 */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxFileDecodedBytes: 1024 * MiB,
  maxFileInterpretedBytes: 512 * MiB,
  maxFileOperators: 10_000_000,
  maxFilters: 8,
  maxObjects: 2_000_000,
  maxNames: 500_000,
  maxParsedValues: 6_000_000,
  maxTokenBytes: 64 * 1024,
  maxStringBytes: 32 * MiB,
  maxContainerItems: 1_000_000,
  maxStructureMs: 60_000,
};

/**
 * A file-wide budget is spent: nothing more of the file is decoded or read. Sticky — once thrown,
 * every later charge throws it again, so no tolerant catch on the way can swallow it for good.
 */
export class BudgetExceededError extends Error {
  constructor(
    /** Which limit: `maxFileDecodedBytes`, `maxObjects`, `maxStructureMs`… */
    readonly limit: keyof DecodeLimits | 'heap',
    message: string,
  ) {
    super(message);
    this.name = 'BudgetExceededError';
  }

  /** The structure read ran out of time (the deadline), not out of bytes. */
  get isTime(): boolean {
    return this.limit === 'maxStructureMs';
  }
}

/** Heap checks happen at most once per this many bytes charged (the check costs a few µs). */
const HEAP_CHECK_EVERY = 8 * MiB;
/** The deadline is checked at most once per this many work units. */
const CLOCK_CHECK_EVERY = 1 << 16;

/**
 * The budget of one file's structure read. Charges are synchronous and cheap; a spent budget throws
 * {@link BudgetExceededError}. Not shared between files: make one per file.
 */
export class DecodeBudget {
  readonly limits: DecodeLimits;
  private decoded = 0;
  private interpreted = 0;
  private operators = 0;
  private objects = 0;
  private names = 0;
  private values = 0;
  private sinceHeapCheck = 0;
  private sinceClockCheck = 0;
  private readonly deadline: number;
  private readonly heapCeiling: number | undefined;
  private failure: BudgetExceededError | undefined;
  /** Bounds that dropped a token or an object without stopping the read (said in the report). */
  readonly bounded = new Set<string>();

  /**
   * @param limits the limits in force (already tightened by the call)
   * @param options.heapCeilingBytes where this thread's V8 heap may grow to before the read stops:
   *   a backstop for a read in a thread no heap cap guards (the CLI's own); a worker has `resourceLimits`
   * @param options.now the clock (injectable for tests)
   */
  constructor(limits: Partial<DecodeLimits> = {}, options: { heapCeilingBytes?: number; now?: () => number } = {}) {
    this.limits = { ...DEFAULT_DECODE_LIMITS, ...limits };
    this.now = options.now ?? (() => performance.now());
    this.deadline = this.now() + this.limits.maxStructureMs;
    this.heapCeiling = options.heapCeilingBytes;
  }

  private readonly now: () => number;

  /** The error that stopped the read, if one did. */
  get exceeded(): BudgetExceededError | undefined {
    return this.failure;
  }

  /** Decoded bytes still allowed for the file. */
  get decodedLeft(): number {
    return Math.max(0, this.limits.maxFileDecodedBytes - this.decoded);
  }

  /** Totals so far (for tests and the benchmark). */
  get spent() {
    return { decoded: this.decoded, interpreted: this.interpreted, operators: this.operators, objects: this.objects, names: this.names, values: this.values };
  }

  /** Throws the error that stopped the read again, if one did. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * Bytes a decoder produced (a filter stage, decryption). `what` names the stream for the message.
   * Decoders ask {@link decodedLeft} first and never produce more, so this only records.
   */
  chargeDecoded(bytes: number, what: string): void {
    this.check();
    this.decoded += bytes;
    if (this.decoded > this.limits.maxFileDecodedBytes) {
      this.fail('maxFileDecodedBytes', `the file's streams decode to more than ${formatBytes(this.limits.maxFileDecodedBytes)} together (the last one: ${what}); a decompression bomb?`);
    }
    this.memory(bytes);
    this.work(bytes >>> 6);
  }

  /** The budget ran out inside a decoder (it stopped at {@link decodedLeft}). */
  decodedOverflow(what: string): never {
    this.fail('maxFileDecodedBytes', `the file's streams decode to more than ${formatBytes(this.limits.maxFileDecodedBytes)} together (the last one: ${what}); a decompression bomb?`);
  }

  /** A content stream, form, pattern or glyph procedure interpreted once more. */
  chargeInterpreted(bytes: number, what: string): void {
    this.check();
    this.interpreted += bytes;
    if (this.interpreted > this.limits.maxFileInterpretedBytes) {
      this.fail(
        'maxFileInterpretedBytes',
        `the file's pages interpret more than ${formatBytes(this.limits.maxFileInterpretedBytes)} of content together (the last: ${what}); a form shared by very many pages?`,
      );
    }
    this.work(bytes >>> 6);
  }

  /** One content-stream operator. */
  chargeOperator(): void {
    if (++this.operators > this.limits.maxFileOperators) {
      this.fail('maxFileOperators', `the file's pages hold more than ${grouped(this.limits.maxFileOperators)} content operators together`);
    }
    if (++this.sinceClockCheck >= CLOCK_CHECK_EVERY) this.clock();
  }

  /** A new indirect object number (pdf-lib's reference pool grows by one). */
  chargeObject(): void {
    if (++this.objects > this.limits.maxObjects) {
      this.fail('maxObjects', `the file names more than ${grouped(this.limits.maxObjects)} distinct objects`);
    }
  }

  /** A name the process has not seen (pdf-lib's name pool grows by one). */
  chargeName(): void {
    if (++this.names > this.limits.maxNames) {
      this.fail('maxNames', `the file uses more than ${grouped(this.limits.maxNames)} distinct names`);
    }
  }

  /** One parsed value (number, name, string, array, dictionary…); a long string or name weighs more (one per 32 bytes). */
  chargeValue(weight = 1): void {
    this.values += weight;
    if (this.values > this.limits.maxParsedValues) {
      this.fail('maxParsedValues', `the file holds more than ${grouped(this.limits.maxParsedValues)} values (numbers, names, arrays…; a string counts one per 32 bytes)`);
    }
    if ((this.sinceClockCheck += weight) >= CLOCK_CHECK_EVERY) this.clock();
  }

  /** Work with no bytes produced (a parser scanning, an expression evaluated): for the deadline. */
  work(units = 1): void {
    this.sinceClockCheck += units;
    if (this.sinceClockCheck >= CLOCK_CHECK_EVERY) this.clock();
  }

  /** Records a bound that dropped something without stopping the read ("a name longer than 64 KiB"). */
  note(bound: string): void {
    if (this.bounded.size < 16) this.bounded.add(bound);
  }

  private clock(): void {
    this.sinceClockCheck = 0;
    this.check();
    if (this.now() > this.deadline) {
      this.fail('maxStructureMs', `reading the file's structure took more than ${this.limits.maxStructureMs / 1000} s`);
    }
  }

  private memory(bytes: number): void {
    if (this.heapCeiling === undefined) return;
    this.sinceHeapCheck += bytes;
    if (this.sinceHeapCheck < HEAP_CHECK_EVERY) return;
    this.sinceHeapCheck = 0;
    if (getHeapStatistics().used_heap_size > this.heapCeiling) {
      this.fail('heap', `reading the file's structure needed more than ${formatBytes(this.heapCeiling)} of memory`);
    }
  }

  /** Checks the heap ceiling now (after parsing, which allocates without decoding). */
  checkHeap(): void {
    this.sinceHeapCheck = HEAP_CHECK_EVERY;
    this.memory(0);
  }

  private fail(limit: BudgetExceededError['limit'], message: string): never {
    this.failure ??= new BudgetExceededError(limit, message);
    throw this.failure;
  }
}

/** "128 MiB", "1 GiB", "512 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 * MiB && n % (1024 * MiB) === 0) return `${n / (1024 * MiB)} GiB`;
  if (n >= MiB) return `${Math.round(n / MiB)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
