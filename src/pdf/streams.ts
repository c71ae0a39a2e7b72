/**
 * Decoding stream data with explicit limits. Only the filters that content streams, Form XObjects
 * and ICC profiles use are decoded; image filters (DCT, JPX, JBIG2, CCITT) never are: no check
 * needs an image's pixels.
 */
import { inflateRawSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import { PDFRawStream, type PDFContext, type PDFDict, type PDFObject } from './pdf-lib.js';
import { get, items, nameOf, numberOf, dictOf, PDFArray } from './objects.js';

export class StreamDecodeError extends Error {}
/** The decoded data would exceed the limit: a decompression bomb, or simply too big to inspect. */
export class StreamTooLargeError extends StreamDecodeError {}

/** Decrypts one stream's raw bytes (set when the file is encrypted and its key is known). */
export type StreamDecryptor = (data: Uint8Array, ref: { objectNumber: number; generationNumber: number } | undefined) => Uint8Array;

/**
 * Reads a stream's data within the inspection limits: `maxBytes` lowers the limit (what is left of a
 * page's budget; throws StreamTooLargeError past it); `untilImageFilter` stops before DCT/JPX/JBIG2/CCITT.
 */
export type StreamReader = (stream: PDFRawStream, options?: { maxBytes?: number; untilImageFilter?: boolean }) => Uint8Array;

/** Filters that produce image samples; no check decodes them. */
export const IMAGE_FILTERS = new Set(['DCTDecode', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode']);

export interface DecodeOptions {
  /** Stop before the first image filter and return the data it would decode (a JPEG 2000 file…). */
  untilImageFilter?: boolean | undefined;
  /** Maximum decoded size in bytes. */
  maxBytes: number;
  decrypt?: StreamDecryptor | undefined;
  ref?: { objectNumber: number; generationNumber: number } | undefined;
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
export const fullFilterName = (name: string): string => ABBREVIATIONS[name] ?? name;

/** Decodes a stream object's data through its filters, within `options.maxBytes`. */
export function decodeStream(context: PDFContext, stream: PDFObject | undefined, options: DecodeOptions): Uint8Array {
  if (!(stream instanceof PDFRawStream)) throw new StreamDecodeError('not a stream');
  let data: Uint8Array = stream.contents;
  if (options.decrypt) data = options.decrypt(data, options.ref);
  const filters = filtersOf(context, stream.dict);
  const parmsObj = get(context, stream.dict, 'DecodeParms') ?? get(context, stream.dict, 'DP');
  const parms = filters.map((_, i) => (parmsObj instanceof PDFArray ? dictOf(items(context, parmsObj)[i]) : dictOf(parmsObj)));
  for (let i = 0; i < filters.length; i++) {
    const name = fullFilterName(filters[i]!);
    if (options.untilImageFilter && IMAGE_FILTERS.has(name)) break;
    data = applyFilter(context, name, data, parms[i], options.maxBytes);
  }
  return data;
}

function applyFilter(context: PDFContext, name: string, data: Uint8Array, parms: PDFDict | undefined, maxBytes: number): Uint8Array {
  switch (name) {
    case 'FlateDecode':
      return predict(context, inflate(data, maxBytes), parms, maxBytes);
    case 'LZWDecode': {
      const early = numberOf(get(context, parms, 'EarlyChange'));
      return predict(context, lzwDecode(data, early === 0 ? 0 : 1, maxBytes), parms, maxBytes);
    }
    case 'ASCIIHexDecode':
      return asciiHexDecode(data);
    case 'ASCII85Decode':
      return ascii85Decode(data);
    case 'RunLengthDecode':
      return runLengthDecode(data, maxBytes);
    case 'Crypt':
      return data; // Identity crypt filter; named crypt filters are handled by the decryptor
    default:
      throw new StreamDecodeError(`unsupported filter ${name}`);
  }
}

/** zlib inflate with a hard output cap; truncated or slightly damaged data gives what it can. */
export function inflate(data: Uint8Array, maxBytes: number): Uint8Array {
  try {
    return inflateSync(data, { maxOutputLength: maxBytes + 1, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || (error as RangeError).name === 'RangeError') {
      throw new StreamTooLargeError(`stream inflates to more than ${maxBytes} bytes`);
    }
    // Raw deflate without a zlib header, as some producers write.
    try {
      return inflateRawSync(data, { maxOutputLength: maxBytes + 1, finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      throw new StreamDecodeError(`corrupt Flate data (${(error as Error).message})`);
    }
  }
}

function predict(context: PDFContext, data: Uint8Array, parms: PDFDict | undefined, maxBytes: number): Uint8Array {
  const predictor = numberOf(get(context, parms, 'Predictor')) ?? 1;
  if (predictor <= 1) return capped(data, maxBytes);
  const colors = numberOf(get(context, parms, 'Colors')) ?? 1;
  const bpc = numberOf(get(context, parms, 'BitsPerComponent')) ?? 8;
  const columns = numberOf(get(context, parms, 'Columns')) ?? 1;
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLength = Math.ceil((colors * bpc * columns) / 8);
  if (predictor === 2) {
    if (bpc !== 8) return data;
    const out = Uint8Array.from(data);
    for (let r = 0; r < out.length; r += rowLength) {
      for (let i = bpp; i < rowLength && r + i < out.length; i++) out[r + i] = (out[r + i]! + out[r + i - bpp]!) & 0xff;
    }
    return out;
  }
  // PNG predictors: each row starts with a filter-type byte.
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  const prev = new Uint8Array(rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const row = data.subarray(r * (rowLength + 1) + 1, (r + 1) * (rowLength + 1));
    const cur = out.subarray(r * rowLength, (r + 1) * rowLength);
    for (let i = 0; i < rowLength; i++) {
      const a = i >= bpp ? cur[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      const x = row[i]!;
      let v: number;
      switch (type) {
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: v = x;
      }
      cur[i] = v & 0xff;
    }
    prev.set(cur);
  }
  return out;
}

function capped(data: Uint8Array, maxBytes: number): Uint8Array {
  if (data.length > maxBytes) throw new StreamTooLargeError(`stream decodes to more than ${maxBytes} bytes`);
  return data;
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

function ascii85Decode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil((data.length * 4) / 5) + 4);
  let o = 0;
  const group: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x7e) break; // ~>
    if (c === 0x7a && group.length === 0) {
      out.fill(0, o, o + 4);
      o += 4;
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group.push(c - 33);
    if (group.length === 5) {
      let v = 0;
      for (const g of group) v = v * 85 + g;
      out[o++] = (v >>> 24) & 0xff;
      out[o++] = (v >>> 16) & 0xff;
      out[o++] = (v >>> 8) & 0xff;
      out[o++] = v & 0xff;
      group.length = 0;
    }
  }
  if (group.length > 1) {
    const k = group.length - 1;
    while (group.length < 5) group.push(84);
    let v = 0;
    for (const g of group) v = v * 85 + g;
    for (let j = 0; j < k; j++) out[o++] = (v >>> (24 - 8 * j)) & 0xff;
  }
  return out.subarray(0, o);
}

function runLengthDecode(data: Uint8Array, maxBytes: number): Uint8Array {
  const chunks: number[] = [];
  for (let i = 0; i < data.length; ) {
    const len = data[i++]!;
    if (len === 128) break;
    if (len < 128) {
      for (let j = 0; j <= len && i < data.length; j++) chunks.push(data[i++]!);
    } else {
      const b = data[i++] ?? 0;
      for (let j = 0; j < 257 - len; j++) chunks.push(b);
    }
    if (chunks.length > maxBytes) throw new StreamTooLargeError(`stream decodes to more than ${maxBytes} bytes`);
  }
  return Uint8Array.from(chunks);
}

function lzwDecode(data: Uint8Array, earlyChange: number, maxBytes: number): Uint8Array {
  const out: number[] = [];
  let dict: number[][] = [];
  const reset = () => {
    dict = [];
    for (let i = 0; i < 256; i++) dict.push([i]);
    dict.push([], []); // 256 clear, 257 EOD
  };
  reset();
  let codeLength = 9;
  let bitBuf = 0;
  let bitCount = 0;
  let prev: number[] | null = null;
  for (let i = 0; i < data.length; i++) {
    bitBuf = (bitBuf << 8) | data[i]!;
    bitCount += 8;
    while (bitCount >= codeLength) {
      const code = (bitBuf >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
      bitCount -= codeLength;
      bitBuf &= (1 << bitCount) - 1;
      if (code === 256) {
        reset();
        codeLength = 9;
        prev = null;
        continue;
      }
      if (code === 257) return Uint8Array.from(out);
      let entry: number[];
      if (code < dict.length) entry = dict[code]!;
      else if (prev) entry = [...prev, prev[0]!];
      else return Uint8Array.from(out);
      for (const b of entry) out.push(b);
      if (out.length > maxBytes) throw new StreamTooLargeError(`stream decodes to more than ${maxBytes} bytes`);
      if (prev) dict.push([...prev, entry[0]!]);
      prev = entry;
      if (dict.length + earlyChange >= 1 << codeLength && codeLength < 12) codeLength++;
    }
  }
  return Uint8Array.from(out);
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
