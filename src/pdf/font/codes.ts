/**
 * The character codes a text-showing operator shows (Tj, TJ, ', "), read from its bytes in the
 * content stream: every literal and hexadecimal string between the operator's first operand and the
 * operator. One byte per code: used for the simple fonts whose codes are single bytes (Type 3).
 */

/** Marks in `into` (256 flags) each byte of the strings in `bytes[start, end)`. */
export function markCodesShown(bytes: Uint8Array, start: number, end: number, into: Uint8Array): void {
  let p = start;
  while (p < end) {
    const c = bytes[p]!;
    if (c === 0x28 /* ( */) p = literal(bytes, p + 1, end, into);
    else if (c === 0x3c /* < */) p = hex(bytes, p + 1, end, into);
    else p++;
  }
}

function literal(bytes: Uint8Array, start: number, end: number, into: Uint8Array): number {
  let depth = 1;
  let p = start;
  while (p < end) {
    const c = bytes[p++]!;
    if (c === 0x5c /* \ */) {
      const e = bytes[p++];
      if (e === undefined || p > end) break;
      if (e >= 0x30 && e <= 0x37) {
        let v = e - 0x30;
        for (let k = 0; k < 2 && p < end && bytes[p]! >= 0x30 && bytes[p]! <= 0x37; k++) v = v * 8 + bytes[p++]! - 0x30;
        into[v & 0xff] = 1;
      } else if (e === 0x0d) {
        if (bytes[p] === 0x0a) p++; // a line continuation
      } else if (e !== 0x0a) {
        into[ESCAPES[e] ?? e] = 1;
      }
      continue;
    }
    if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return p;
    into[c] = 1;
  }
  return p;
}

const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };

function hex(bytes: Uint8Array, start: number, end: number, into: Uint8Array): number {
  let p = start;
  let high = -1;
  while (p < end) {
    const c = bytes[p++]!;
    if (c === 0x3e /* > */) break;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (v < 0) continue;
    if (high < 0) high = v;
    else {
      into[(high << 4) | v] = 1;
      high = -1;
    }
  }
  if (high >= 0) into[high << 4] = 1; // an odd digit count: the last is followed by 0
  return p;
}
