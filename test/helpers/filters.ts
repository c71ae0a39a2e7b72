/**
 * Encoders for the PDF filters our decoder reads (§7.4), written plainly from the specification for
 * tests: Flate (zlib), LZW (EarlyChange 1), RunLength, ASCII85 and ASCIIHex. A chain is applied as a
 * producer writes it — the last filter of /Filter is applied first.
 */
import { deflateSync } from 'node:zlib';

export type FilterName = 'FlateDecode' | 'LZWDecode' | 'RunLengthDecode' | 'ASCII85Decode' | 'ASCIIHexDecode';
export const FILTERS: readonly FilterName[] = ['FlateDecode', 'LZWDecode', 'RunLengthDecode', 'ASCII85Decode', 'ASCIIHexDecode'];

/**
 * A plain LZW encoder (EarlyChange 1), as a producer writes it: a clear code first and whenever the
 * table is about to fill. The decoder defines each entry one code later than the encoder, and
 * widens its codes one entry early: the encoder widens when its own next entry reaches 2^width.
 */
export function lzwEncode(data: Uint8Array): Buffer {
  const out: number[] = [];
  let acc = 0;
  let n = 0;
  const put = (code: number, width: number) => {
    acc = (acc << width) | code;
    n += width;
    while (n >= 8) {
      out.push((acc >>> (n - 8)) & 0xff);
      n -= 8;
    }
    acc &= (1 << n) - 1;
  };
  let table = new Map<string, number>();
  let next = 258;
  let width = 9;
  put(256, width);
  const code = (w: string) => (w.length === 1 ? w.charCodeAt(0) : table.get(w)!);
  let w = '';
  for (const byte of data) {
    const c = String.fromCharCode(byte);
    if (w === '' || table.has(w + c)) {
      w += c;
      continue;
    }
    put(code(w), width);
    table.set(w + c, next++);
    if (next >= 1 << width && width < 12) width++;
    if (next >= 4094) {
      put(256, width);
      table = new Map();
      next = 258;
      width = 9;
    }
    w = c;
  }
  if (w) {
    put(code(w), width);
    // The decoder defines an entry on this last code too, and may widen before it reads EOD.
    next++;
    if (next >= 1 << width && width < 12) width++;
  }
  put(257, width);
  if (n > 0) out.push((acc << (8 - n)) & 0xff);
  return Buffer.from(out);
}

/** RunLength (§7.4.5): runs of 2–128 equal bytes as one pair, the rest as literal runs of ≤ 128. */
export function runLengthEncode(data: Uint8Array): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < data.length) {
    let run = 1;
    while (i + run < data.length && run < 128 && data[i + run] === data[i]) run++;
    if (run >= 2) {
      out.push(257 - run, data[i]!);
      i += run;
      continue;
    }
    const start = i;
    while (i < data.length && i - start < 128 && !(i + 1 < data.length && data[i + 1] === data[i])) i++;
    if (i === start) i++;
    out.push(i - start - 1, ...data.subarray(start, i));
  }
  out.push(128);
  return Buffer.from(out);
}

/** ASCII85 (§7.4.3), with `z` for four zeros and the `~>` end. */
export function ascii85Encode(data: Uint8Array): Buffer {
  let s = '';
  for (let i = 0; i < data.length; i += 4) {
    const chunk = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0, data[i + 3] ?? 0];
    const n = Math.min(4, data.length - i);
    let v = ((chunk[0]! << 24) | (chunk[1]! << 16) | (chunk[2]! << 8) | chunk[3]!) >>> 0;
    if (n === 4 && v === 0) {
      s += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode((v % 85) + 33));
      v = Math.floor(v / 85);
    }
    s += digits.slice(0, n + 1).join('');
  }
  return Buffer.from(`${s}~>`, 'latin1');
}

export function asciiHexEncode(data: Uint8Array): Buffer {
  return Buffer.from(`${Buffer.from(data).toString('hex')}>`, 'latin1');
}

export function encodeWith(filter: FilterName, data: Uint8Array): Buffer {
  // (Each encoder makes a new buffer.)
  switch (filter) {
    case 'FlateDecode':
      return deflateSync(data);
    case 'LZWDecode':
      return lzwEncode(data);
    case 'RunLengthDecode':
      return runLengthEncode(data);
    case 'ASCII85Decode':
      return ascii85Encode(data);
    case 'ASCIIHexDecode':
      return asciiHexEncode(data);
  }
}

/** `data` encoded for the /Filter array `chain` (its last filter applied first). */
export function encodeChain(chain: readonly FilterName[], data: Uint8Array): Buffer {
  let out: Buffer = Buffer.from(data);
  for (let i = chain.length - 1; i >= 0; i--) out = encodeWith(chain[i]!, out);
  return out;
}
