/**
 * The character codes a text-showing operator shows (Tj, TJ, ', "), read from its bytes in the
 * content stream: every literal and hexadecimal string between the operator's first operand and the
 * operator. One byte per code: used for the simple fonts whose codes are single bytes (Type 3).
 */

/** Marks in `into` (256 flags) each byte of the strings in `bytes[start, end)`. */
export function markCodesShown(bytes: Uint8Array, start: number, end: number, into: Uint8Array): void {
  forEachCodeShown(bytes, start, end, (code) => {
    into[code] = 1;
  });
}

/** The sum of `weights[code]` over the codes the strings in `bytes[start, end)` show, each as often as shown. */
export function sumCodesShown(bytes: Uint8Array, start: number, end: number, weights: Float64Array): number {
  let sum = 0;
  forEachCodeShown(bytes, start, end, (code) => {
    sum += weights[code]!;
  });
  return sum;
}

/** Calls `visit` with each byte of the strings in `bytes[start, end)`, in order. */
export function forEachCodeShown(bytes: Uint8Array, start: number, end: number, visit: (code: number) => void): void {
  let p = start;
  while (p < end) {
    const c = bytes[p]!;
    if (c === 0x28 /* ( */) p = literal(bytes, p + 1, end, visit);
    else if (c === 0x3c /* < */) p = hex(bytes, p + 1, end, visit);
    else p++;
  }
}

function literal(bytes: Uint8Array, start: number, end: number, visit: (code: number) => void): number {
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
        visit(v & 0xff);
      } else if (e === 0x0d) {
        if (bytes[p] === 0x0a) p++; // a line continuation
      } else if (e !== 0x0a) {
        visit(ESCAPES[e] ?? e);
      }
      continue;
    }
    if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return p;
    visit(c);
  }
  return p;
}

const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };

function hex(bytes: Uint8Array, start: number, end: number, visit: (code: number) => void): number {
  let p = start;
  let high = -1;
  while (p < end) {
    const c = bytes[p++]!;
    if (c === 0x3e /* > */) break;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (v < 0) continue;
    if (high < 0) high = v;
    else {
      visit((high << 4) | v);
      high = -1;
    }
  }
  if (high >= 0) visit(high << 4); // an odd digit count: the last is followed by 0
  return p;
}
