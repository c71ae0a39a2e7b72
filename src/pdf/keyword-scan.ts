/**
 * Keyword searches over a whole file, linear however many objects ask: `endobj` with a remembered
 * forward search, and the `stream`/`endstream` nesting pdf-lib follows resolved once per file
 * (parse.ts's bounded parser uses them instead of pdf-lib's per-object searches).
 */

/** Keyword positions of one file, found once and shared by every search in it. */
export class KeywordScan {
  private readonly found = new Map<string, { from: number; at: number }>();
  private streams: StreamEvents | undefined;

  constructor(private readonly bytes: Uint8Array) {}

  /** The first `word` at or after `from` (-1: none), remembering the answer for later searches. */
  next(word: string, from: number): number {
    const last = this.found.get(word);
    if (last && from >= last.from && (last.at < 0 || from <= last.at)) return last.at;
    const buf = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    const at = buf.indexOf(word, from, 'latin1');
    this.found.set(word, { from, at });
    return at;
  }

  streamEvents(): StreamEvents {
    this.streams ??= new StreamEvents(this.bytes);
    return this.streams;
  }
}

const scans = new WeakMap<Uint8Array, KeywordScan>();
/** The scan of a file's bytes (one per file, kept while the bytes live). */
export function scanOf(bytes: Uint8Array): KeywordScan {
  let scan = scans.get(bytes);
  if (!scan) scans.set(bytes, (scan = new KeywordScan(bytes)));
  return scan;
}

/**
 * Every `stream` and `endstream` keyword of a file, and for each position the `endstream` that
 * closes a stream starting there under pdf-lib's rule: a `stream` keyword opens one more level,
 * an `endstream` (with the end-of-line before it) closes one, and the stream ends where the level
 * returns to zero. Answers are memoised, so a file of many unterminated streams is read once.
 */
export class StreamEvents {
  /** Where each keyword starts. */
  private readonly key: Int32Array;
  /** Where a stream closed by it ends: an `endstream`'s end-of-line, if it has one. */
  private readonly at: Int32Array;
  /** Where the scan goes on after the keyword. */
  private readonly after: Int32Array;
  private readonly isEnd: Uint8Array;
  /** For each event index: the index of the `endstream` closing a level opened just before it (-2: not known yet). */
  private readonly closes: Int32Array;
  private readonly count: number;

  constructor(bytes: Uint8Array) {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const key: number[] = [];
    const at: number[] = [];
    const after: number[] = [];
    const isEnd: number[] = [];
    for (let s = buf.indexOf('stream', 0, 'latin1'); s >= 0; s = buf.indexOf('stream', s + 6, 'latin1')) {
      if (s >= 3 && buf[s - 3] === 0x65 && buf[s - 2] === 0x6e && buf[s - 1] === 0x64) {
        const e = s - 3;
        const start = buf[e - 2] === 0x0d && buf[e - 1] === 0x0a ? e - 2 : buf[e - 1] === 0x0d || buf[e - 1] === 0x0a ? e - 1 : e;
        key.push(e);
        at.push(start);
        isEnd.push(1);
      } else {
        key.push(s);
        at.push(s);
        isEnd.push(0);
      }
      after.push(s + 6);
    }
    this.count = at.length;
    this.key = Int32Array.from(key);
    this.at = Int32Array.from(at);
    this.after = Int32Array.from(after);
    this.isEnd = Uint8Array.from(isEnd);
    this.closes = new Int32Array(this.count).fill(-2);
  }

  /** The end of a stream whose data starts at `from`: where its data ends and where the scan goes on; null when it never ends. */
  endOf(from: number): { end: number; after: number } | null {
    // The first keyword at or after `from`.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.key[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    const j = this.close(lo);
    return j >= this.count ? null : { end: Math.max(from, this.at[j]!), after: this.after[j]! };
  }

  /** The index of the `endstream` that closes one open level, scanning from event `k` (count: none). Iterative. */
  private close(k0: number): number {
    const m = this.count;
    const stack: number[] = []; // event indexes of `stream` keywords; negative once their inner level is closed
    let k = k0;
    for (;;) {
      let result: number;
      if (k >= m) result = m;
      else if (this.closes[k]! !== -2) result = this.closes[k]!;
      else if (this.isEnd[k]) result = this.closes[k] = k;
      else {
        stack.push(k);
        k = k + 1;
        continue;
      }
      // Unwind: a `stream` at s needs the close of its own level (close(s + 1)), then the close of
      // the level it was opened in, from the event after that.
      for (;;) {
        if (stack.length === 0) return result;
        const top = stack[stack.length - 1]!;
        if (top >= 0) {
          if (result >= m) {
            this.closes[top] = m;
            stack.pop();
            continue;
          }
          stack[stack.length - 1] = -top - 1;
          k = result + 1;
          break;
        }
        this.closes[-top - 1] = result;
        stack.pop();
      }
    }
  }
}
