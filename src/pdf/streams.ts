/**
 * Decoding stream data under the file's {@link DecodeBudget}. Only the filters that content
 * streams, forms, object streams, ICC profiles, functions, fonts and the like use are decoded; image
 * filters (DCT, JPX, JBIG2, CCITT) never are: no check needs an image's pixels.
 *
 * Every filter is bounded while it decodes, not after: it is given the most it may produce (what is
 * left of the stream's limit and of the file's budget) and stops there — zlib through its output
 * cap, LZW and RunLength by growing their output buffer only up to it. Each stage of a chain and
 * each decryption is charged to the file's budget, so a bomb spread over many streams, or over many
 * filters of one stream, stops at the budget too.
 */
import { inflateRawSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import { PDFRawStream, type PDFContext, type PDFDict, type PDFObject } from './pdf-lib.js';
import { get, items, nameOf, numberOf, dictOf, PDFArray } from './objects.js';
import { formatBytes, type DecodeBudget } from './decode-budget.js';
import { own } from '../util/own.js';

export class StreamDecodeError extends Error {}
/** The decoded data would exceed the limit: a decompression bomb, or simply too big to inspect. */
export class StreamTooLargeError extends StreamDecodeError {
  constructor(
    message: string,
    /** `size`: the data would decode past the limit; `filter-chain`: more filters in a chain than allowed. */
    readonly why: 'size' | 'filter-chain' = 'size',
  ) {
    super(message);
  }
}

/** Decrypts one stream's raw bytes (set when the file is encrypted and its key is known). */
export type StreamDecryptor = (data: Uint8Array, ref: { objectNumber: number; generationNumber: number } | undefined) => Uint8Array;

/**
 * Reads a stream's data within the inspection limits: `maxBytes` lowers the limit (what is left of a
 * page's budget; throws StreamTooLargeError past it); `untilImageFilter` stops before DCT/JPX/JBIG2/CCITT;
 * `prefix` asks for the first bytes only (a header); `what` names the stream in messages.
 */
export type StreamReader = (stream: PDFRawStream, options?: { maxBytes?: number; untilImageFilter?: boolean; prefix?: number; what?: string }) => Uint8Array;

/** Filters that produce image samples; no check decodes them. */
export const IMAGE_FILTERS = new Set(['DCTDecode', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode']);

/** Most filters of one chain when no budget says otherwise. */
const DEFAULT_MAX_FILTERS = 8;

export interface DecodeOptions {
  /** Stop before the first image filter and return the data it would decode (a JPEG 2000 file…). */
  untilImageFilter?: boolean | undefined;
  /** Maximum decoded size in bytes (StreamTooLargeError past it). */
  maxBytes: number;
  decrypt?: StreamDecryptor | undefined;
  ref?: { objectNumber: number; generationNumber: number } | undefined;
  /** The file's budget: every stage is charged, and a stage never produces more than it has left. */
  budget?: DecodeBudget | undefined;
  /** Only the first `prefix` bytes are wanted (a header): decoding stops there, without an error. */
  prefix?: number | undefined;
  /** Names the stream in messages ("page content", "font /F1"…). */
  what?: string | undefined;
}

/** The decode parameters a filter reads (§7.4, Tables 8 and 10), as plain numbers. */
export interface FilterParams {
  predictor?: number | undefined;
  colors?: number | undefined;
  bitsPerComponent?: number | undefined;
  columns?: number | undefined;
  /** CCITT: rows of the image (0: unknown). */
  rows?: number | undefined;
  earlyChange?: number | undefined;
}

/** The filter names of a stream dictionary, in order ("FlateDecode", "DCTDecode", …). */
export function filtersOf(context: PDFContext, dict: PDFDict): string[] {
  const f = get(context, dict, 'Filter') ?? get(context, dict, 'F');
  if (f instanceof PDFArray) return items(context, f).map((x) => nameOf(x) ?? '?');
  const name = nameOf(f);
  return name ? [name] : [];
}

const ABBREVIATIONS: Record<string, string> = {
  AHx: 'ASCIIHexDecode',
  A85: 'ASCII85Decode',
  LZW: 'LZWDecode',
  Fl: 'FlateDecode',
  RL: 'RunLengthDecode',
  CCF: 'CCITTFaxDecode',
  DCT: 'DCTDecode',
};
export const fullFilterName = (name: string): string => own(ABBREVIATIONS, name) ?? name;

/** A stream's /DecodeParms (or /DP) for each of its filters, as plain numbers. */
export function filterParamsOf(context: PDFContext, dict: PDFDict, count: number): (FilterParams | undefined)[] {
  const parmsObj = get(context, dict, 'DecodeParms') ?? get(context, dict, 'DP');
  const list = parmsObj instanceof PDFArray ? items(context, parmsObj).slice(0, count) : [];
  return Array.from({ length: count }, (_, i) => {
    const d = parmsObj instanceof PDFArray ? dictOf(list[i]) : dictOf(parmsObj);
    if (!d) return undefined;
    const n = (key: string) => numberOf(get(context, d, key));
    return { predictor: n('Predictor'), colors: n('Colors'), bitsPerComponent: n('BitsPerComponent'), columns: n('Columns'), rows: n('Rows'), earlyChange: n('EarlyChange') };
  });
}

/** Decodes a stream object's data through its filters, within `options.maxBytes` and the budget. */
export function decodeStream(context: PDFContext, stream: PDFObject | undefined, options: DecodeOptions): Uint8Array {
  if (!(stream instanceof PDFRawStream)) throw new StreamDecodeError('not a stream');
  let data: Uint8Array = stream.contents;
  const what = options.what ?? 'a stream';
  if (options.decrypt) {
    options.budget?.chargeDecoded(data.length, `${what} (decryption)`);
    data = options.decrypt(data, options.ref);
  }
  const filters = filtersOf(context, stream.dict).map(fullFilterName);
  return decodeFilters(data, filters, filterParamsOf(context, stream.dict, filters.length), options);
}

/**
 * Runs `data` through `filters` (full names) with their parameters, each stage bounded. The
 * context-free core of {@link decodeStream}, for inline images and image headers.
 */
export function decodeFilters(data: Uint8Array, filters: readonly string[], params: readonly (FilterParams | undefined)[], options: DecodeOptions): Uint8Array {
  const maxFilters = options.budget?.limits.maxFilters ?? DEFAULT_MAX_FILTERS;
  const what = options.what ?? 'a stream';
  const decoding = options.untilImageFilter
    ? filters.slice(
        0,
        Math.max(
          0,
          filters.findIndex((f) => IMAGE_FILTERS.has(f)),
        ),
      )
    : filters;
  const chain = options.untilImageFilter && !filters.some((f) => IMAGE_FILTERS.has(f)) ? filters : decoding;
  if (chain.length > maxFilters) {
    throw new StreamTooLargeError(`${what} has ${chain.length} filters in a chain (more than ${maxFilters}: a decompression bomb?)`, 'filter-chain');
  }
  let out = data;
  for (let i = 0; i < chain.length; i++) {
    const name = chain[i]!;
    if (IMAGE_FILTERS.has(name)) throw new StreamDecodeError(`${name} data is image data`);
    const limit = new OutputLimit(options, what);
    out = applyFilter(name, out, params[i], limit);
    options.budget?.chargeDecoded(out.length, what);
  }
  return out;
}

/**
 * The most one filter stage may produce: the stream's limit, the file budget's rest, or a prefix.
 * `over()` says which was reached.
 */
class OutputLimit {
  readonly cap: number;
  /** A prefix is wanted: output beyond the cap is cut off, not an error. */
  readonly truncate: boolean;
  private readonly byBudget: boolean;

  constructor(
    private readonly options: DecodeOptions,
    private readonly what: string,
  ) {
    const budgetLeft = options.budget ? options.budget.decodedLeft : Number.POSITIVE_INFINITY;
    const streamCap = options.prefix !== undefined ? Math.min(options.prefix, options.maxBytes) : options.maxBytes;
    this.cap = Math.max(0, Math.min(streamCap, budgetLeft));
    this.byBudget = budgetLeft < streamCap;
    this.truncate = options.prefix !== undefined && !this.byBudget;
  }

  /** Output would pass the cap. */
  over(): never {
    if (this.byBudget) this.options.budget!.decodedOverflow(this.what);
    throw new StreamTooLargeError(`stream decodes to more than ${formatBytes(this.options.maxBytes)}`);
  }
}

function applyFilter(name: string, data: Uint8Array, params: FilterParams | undefined, limit: OutputLimit): Uint8Array {
  switch (name) {
    case 'FlateDecode':
      return predict(inflateLimited(data, limit), params, limit);
    case 'LZWDecode':
      return predict(lzwDecode(data, params?.earlyChange === 0 ? 0 : 1, limit), params, limit);
    case 'ASCIIHexDecode':
      return fit(asciiHexDecode(data), limit);
    case 'ASCII85Decode':
      return fit(ascii85Decode(data, limit.cap), limit);
    case 'RunLengthDecode':
      return runLengthDecode(data, limit);
    case 'Crypt':
      return data; // Identity crypt filter; named crypt filters are handled by the decryptor
    default:
      throw new StreamDecodeError(`unsupported filter ${name}`);
  }
}

/** Output of a filter that never grows its input (ASCII filters, predictors): cut or refused at the cap. */
function fit(data: Uint8Array, limit: OutputLimit): Uint8Array {
  if (data.length <= limit.cap) return data;
  if (limit.truncate) return data.subarray(0, limit.cap);
  return limit.over();
}

/**
 * zlib inflate with a hard output cap (zlib stops producing at it); truncated or slightly damaged
 * data gives what it can. zlib gives no partial output past a cap, so a prefix is the output of
 * the longest input prefix that stays within it (found by halving: each try stops at the cap).
 */
function inflateLimited(data: Uint8Array, limit: OutputLimit): Uint8Array {
  if (data.length === 0) return data;
  if (limit.truncate) {
    const all = inflateCapped(data, limit.cap + 1);
    if (all !== 'too-large') return all.subarray(0, limit.cap);
    let lo = 0;
    let hi = data.length;
    let best: Uint8Array = new Uint8Array();
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      const out = inflateCapped(data.subarray(0, mid), limit.cap + 1);
      if (out === 'too-large') hi = mid;
      else {
        lo = mid;
        best = out;
      }
    }
    return best.subarray(0, limit.cap);
  }
  if (limit.cap <= 0) return limit.over();
  const out = inflateCapped(data, limit.cap + 1);
  if (out === 'too-large' || out.length > limit.cap) return limit.over();
  return out;
}

function inflateCapped(data: Uint8Array, maxOutputLength: number): Uint8Array | 'too-large' {
  const opts = { maxOutputLength: Math.max(1, maxOutputLength), finishFlush: zlibConstants.Z_SYNC_FLUSH };
  try {
    return inflateSync(data, opts);
  } catch (error) {
    if (tooLarge(error)) return 'too-large';
    // Raw deflate without a zlib header, as some producers write.
    try {
      return inflateRawSync(data, opts);
    } catch (raw) {
      if (tooLarge(raw)) return 'too-large';
      throw new StreamDecodeError(`corrupt Flate data (${(error as Error).message})`);
    }
  }
}

const tooLarge = (error: unknown) => (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || (error as RangeError).name === 'RangeError';

/** Bits in a predictor row past which renderers refuse the parameters (PDFium: Colors × BitsPerComponent × Columns must fit an int). */
const MAX_PREDICTOR_ROW_BITS = 2 ** 31 - 8;

/**
 * Undoes a TIFF (2) or PNG (10 and above) predictor as PDFium does — the engine that draws most
 * pages — so the content this scan reads is the content a renderer draws: /Colors and
 * /BitsPerComponent are taken as written (not clamped: a reading with other parameters would be
 * other content), a last row cut short gives the bytes it has, and other predictor values leave the
 * data as it is. A renderer allocates whole rows (pdf.js pads the last one), so whole rows are
 * what the limit is charged: a row longer than the stream may produce is over it, however little
 * data there is. Parameters whose row overflows are refused by renderers: no data.
 */
function predict(data: Uint8Array, params: FilterParams | undefined, limit: OutputLimit): Uint8Array {
  const predictor = Math.trunc(params?.predictor ?? 1);
  if (predictor !== 2 && predictor < 10) return fit(data, limit);
  const colors = Math.max(1, Math.trunc(params?.colors || 1));
  const bpc = Math.max(1, Math.trunc(params?.bitsPerComponent || 8));
  const columns = Math.max(1, Math.trunc(params?.columns || 1));
  const rowBits = colors * bpc * columns;
  if (!(rowBits <= MAX_PREDICTOR_ROW_BITS)) return new Uint8Array();
  const rowLength = Math.ceil(rowBits / 8);
  const png = predictor >= 10;
  const rows = Math.ceil(data.length / (png ? rowLength + 1 : rowLength));
  let keep = data.length;
  if (rows * rowLength > limit.cap) {
    if (!limit.truncate) return limit.over();
    keep = Math.floor(limit.cap / rowLength) * (png ? rowLength + 1 : rowLength);
  }
  return png ? pngPredicted(data.subarray(0, keep), rowLength, Math.ceil((colors * bpc) / 8)) : tiffPredicted(data.subarray(0, keep), rowLength, rowBits, colors, bpc);
}

/** PNG predictors: each row starts with its filter type; a last row cut short gives what it has. */
function pngPredicted(data: Uint8Array, rowLength: number, bpp: number): Uint8Array {
  const rows = Math.ceil(data.length / (rowLength + 1));
  const out = new Uint8Array(Math.max(0, data.length - rows));
  for (let r = 0, o = 0; r < rows; r++, o += rowLength) {
    const from = r * (rowLength + 1);
    const type = data[from]!;
    const n = Math.min(rowLength, data.length - from - 1);
    for (let i = 0; i < n; i++) {
      const x = data[from + 1 + i]!;
      const a = i >= bpp ? out[o + i - bpp]! : 0;
      const b = r > 0 ? out[o + i - rowLength]! : 0;
      let v: number;
      switch (type) {
        case 1:
          v = x + a;
          break;
        case 2:
          v = x + b;
          break;
        case 3:
          v = x + ((a + b) >> 1);
          break;
        case 4: {
          const c = i >= bpp && r > 0 ? out[o + i - rowLength - bpp]! : 0;
          const p = a + b - c;
          const pa = Math.abs(p - a),
            pb = Math.abs(p - b),
            pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default:
          v = x;
      }
      out[o + i] = v & 0xff;
    }
  }
  return out;
}

/**
 * The TIFF predictor as PDFium undoes it, row by row: 1-bit samples as one running XOR along the
 * row, 16-bit samples as big-endian sums, others byte by byte from the pixel to the left.
 */
function tiffPredicted(data: Uint8Array, rowLength: number, rowBits: number, colors: number, bpc: number): Uint8Array {
  const out = Uint8Array.from(data);
  const bytesPerPixel = Math.floor((bpc * colors) / 8);
  for (let start = 0; start < out.length; start += rowLength) {
    const size = Math.min(rowLength, out.length - start);
    if (bpc === 1) {
      const bits = Math.min(rowBits, size * 8);
      let previous = (out[start]! >> 7) & 1;
      for (let i = 1; i < bits; i++) {
        const at = start + (i >> 3);
        const shift = 7 - (i & 7);
        const bit = ((out[at]! >> shift) & 1) ^ previous;
        out[at] = bit ? out[at]! | (1 << shift) : out[at]! & ~(1 << shift);
        previous = bit;
      }
    } else if (bpc === 16) {
      for (let i = bytesPerPixel; i + 1 < size; i += 2) {
        const pixel = (((out[start + i - bytesPerPixel]! << 8) | out[start + i - bytesPerPixel + 1]!) + ((out[start + i]! << 8) | out[start + i + 1]!)) & 0xffff;
        out[start + i] = pixel >> 8;
        out[start + i + 1] = pixel & 0xff;
      }
    } else {
      for (let i = bytesPerPixel; i < size; i++) out[start + i] = (out[start + i]! + out[start + i - bytesPerPixel]!) & 0xff;
    }
  }
  return out;
}

function asciiHexDecode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 2));
  let o = 0;
  let hi = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
    if (v < 0) continue;
    if (hi < 0) hi = v;
    else {
      out[o++] = (hi << 4) | v;
      hi = -1;
    }
  }
  if (hi >= 0) out[o++] = hi << 4;
  return out.subarray(0, o);
}

/** ASCII85; stops a little past `cap` (a 'z' gives 4 bytes from 1), so the caller sees it was over. */
function ascii85Decode(data: Uint8Array, cap: number): Uint8Array {
  const out = new Uint8Array(Math.min(data.length * 4 + 4, cap + 8));
  let o = 0;
  const group = new Uint8Array(5);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x7e || o > cap) break; // ~>, or past the cap
    if (c === 0x7a && n === 0) {
      out.fill(0, o, o + 4);
      o += 4;
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group[n++] = c - 33;
    if (n === 5) {
      let v = 0;
      for (const g of group) v = v * 85 + g;
      out[o++] = (v >>> 24) & 0xff;
      out[o++] = (v >>> 16) & 0xff;
      out[o++] = (v >>> 8) & 0xff;
      out[o++] = v & 0xff;
      n = 0;
    }
  }
  if (n > 1) {
    const k = n - 1;
    while (n < 5) group[n++] = 84;
    let v = 0;
    for (const g of group) v = v * 85 + g;
    for (let j = 0; j < k; j++) out[o++] = (v >>> (24 - 8 * j)) & 0xff;
  }
  return out.subarray(0, o);
}

/**
 * A byte buffer that grows by doubling, never past the limit: a filter that would write more stops
 * (a prefix was wanted) or fails at once, before it allocates.
 */
class Output {
  buf: Uint8Array;
  length = 0;

  constructor(
    private readonly limit: OutputLimit,
    expected: number,
  ) {
    this.buf = new Uint8Array(Math.max(0, Math.min(limit.cap, Math.max(4096, expected))));
  }

  /**
   * Room for `n` more bytes. False when a wanted prefix ends within them: the buffer then has
   * {@link room} bytes left for their start, and decoding stops.
   */
  reserve(n: number): boolean {
    const need = this.length + n;
    if (need <= this.buf.length) return true;
    const cap = this.limit.cap;
    if (need > cap) {
      if (!this.limit.truncate) this.limit.over();
      this.grow(cap);
      return false;
    }
    this.grow(Math.min(cap, Math.max(need, this.buf.length * 2)));
    return true;
  }

  room(): number {
    return this.buf.length - this.length;
  }

  private grow(size: number): void {
    if (size <= this.buf.length) return;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  done(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

function runLengthDecode(data: Uint8Array, limit: OutputLimit): Uint8Array {
  const out = new Output(limit, data.length * 2);
  for (let i = 0; i < data.length; ) {
    const len = data[i++]!;
    if (len === 128) break;
    const n = len < 128 ? Math.min(len + 1, data.length - i) : 257 - len;
    const fits = out.reserve(n);
    const k = fits ? n : out.room();
    if (len < 128) {
      out.buf.set(data.subarray(i, i + k), out.length);
      i += n;
    } else {
      out.buf.fill(data[i++] ?? 0, out.length, out.length + k);
    }
    out.length += k;
    if (!fits) break;
  }
  return out.done();
}

/**
 * LZW (§7.4.4) with the table as prefix codes, last bytes and lengths (4,096 entries at most), so
 * an entry costs three numbers, not a copy of its string.
 */
function lzwDecode(data: Uint8Array, earlyChange: number, limit: OutputLimit): Uint8Array {
  const prefix = new Int16Array(4096);
  const last = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    last[i] = i;
    first[i] = i;
    length[i] = 1;
  }
  const out = new Output(limit, data.length * 3);
  let next = 258;
  let codeLength = 9;
  let bitBuf = 0;
  let bitCount = 0;
  let prev = -1;
  /** Writes the string of entry `code`; false when a wanted prefix ended inside it. */
  const write = (code: number): boolean => {
    const n = length[code]!;
    const fits = out.reserve(n);
    const k = fits ? n : out.room();
    let at = n - 1;
    for (let c = code; c >= 0 && at >= 0; c = prefix[c]!, at--) if (at < k) out.buf[out.length + at] = last[c]!;
    out.length += k;
    return fits;
  };
  for (let i = 0; i < data.length; i++) {
    bitBuf = ((bitBuf << 8) | data[i]!) & 0xffffff;
    bitCount += 8;
    while (bitCount >= codeLength) {
      const code = (bitBuf >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
      bitCount -= codeLength;
      if (code === 256) {
        next = 258;
        codeLength = 9;
        prev = -1;
        continue;
      }
      if (code === 257) return out.done();
      let ok: boolean;
      if (code < next && code !== 256 && code !== 257) {
        ok = write(code);
        if (prev >= 0 && next < 4096) define(next++, prev, first[code]!);
      } else if (code === next && prev >= 0 && next < 4096) {
        // The string being defined: the previous one and its own first byte.
        define(next, prev, first[prev]!);
        ok = write(next++);
      } else {
        return out.done(); // a code that cannot occur: corrupt data, keep what was decoded
      }
      if (!ok) return out.done();
      prev = code;
      if (next + earlyChange >= 1 << codeLength && codeLength < 12) codeLength++;
    }
  }
  return out.done();

  function define(code: number, pre: number, byte: number) {
    prefix[code] = pre;
    last[code] = byte;
    first[code] = first[pre]!;
    length[code] = Math.min(4096, length[pre]! + 1);
  }
}

/** Content streams of one page joined as PDF reads them: tokens never run across the seams. */
export function joinContentStreams(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length + 1, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
    out[o++] = 0x0a;
  }
  return out;
}
