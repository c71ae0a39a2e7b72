/**
 * What the content scanner needs of a font to place glyph boxes: each code's advance width, the
 * vertical extent of its glyphs, how many bytes a code takes, and whether its codes read as ASCII.
 * Simple fonts give /Widths (from /FirstChar), composite fonts /W and /DW of their descendant,
 * Type 3 fonts widths in glyph space through /FontMatrix. Without widths (the standard 14 fonts in
 * old files) an average advance is assumed; the boxes then say roughly where the text is, which
 * is what the seam and size checks need.
 */
import type { PDFContext, PDFDict } from 'pdf-lib';
import { PDFArray, get, getArray, getDict, getName, getNumber, items, numberOf, resolve } from './objects.js';

export interface FontMetrics {
  /** Bytes per character code: 2 for composite (Type0) fonts, else 1. */
  codeBytes: 1 | 2;
  /** Advance of a code in text space units per unit of font size (glyph width / 1000 for most fonts). */
  advance(code: number): number;
  /** Glyph extent above and below the baseline, per unit of font size. */
  ascent: number;
  descent: number;
  /** Em height per unit of font size (1 except for Type 3 fonts with an unusual /FontMatrix). */
  em: number;
  /** Codes are ASCII (simple fonts with a standard or no encoding): the run's text can be shown. */
  ascii: boolean;
}

const DEFAULT_ADVANCE = 0.5;

/** Metrics of a font dictionary (never throws: a broken font gets the defaults). */
export function fontMetrics(context: PDFContext, font: PDFDict | undefined): FontMetrics {
  try {
    return readMetrics(context, font);
  } catch {
    return { codeBytes: 1, advance: () => DEFAULT_ADVANCE, ascent: 0.75, descent: -0.25, em: 1, ascii: false };
  }
}

function readMetrics(context: PDFContext, font: PDFDict | undefined): FontMetrics {
  const subtype = getName(context, font, 'Subtype');
  if (subtype === 'Type0') {
    const descendants = getArray(context, font, 'DescendantFonts');
    const cid = descendants ? (resolve(context, items(context, descendants)[0]) as PDFDict | undefined) : undefined;
    const dw = (getNumber(context, cid, 'DW') ?? 1000) / 1000;
    const widths = cidWidths(context, cid);
    const { ascent, descent } = extent(context, getDict(context, cid, 'FontDescriptor'), 0.001);
    return { codeBytes: 2, advance: (code) => widths.get(code) ?? dw, ascent, descent, em: 1, ascii: false };
  }
  const type3 = subtype === 'Type3';
  const matrix = type3 ? numbers(context, getArray(context, font, 'FontMatrix')) : null;
  const scale = type3 && matrix?.length === 6 && matrix[0] ? Math.abs(matrix[0]) : 0.001;
  const vscale = type3 && matrix?.length === 6 && matrix[3] ? Math.abs(matrix[3]) : 0.001;
  const first = getNumber(context, font, 'FirstChar') ?? 0;
  const widths = numbers(context, getArray(context, font, 'Widths'));
  const descriptor = getDict(context, font, 'FontDescriptor');
  const missing = getNumber(context, descriptor, 'MissingWidth');
  const fallback = widths.length ? (missing ?? average(widths)) * scale : DEFAULT_ADVANCE;
  const box = type3 ? numbers(context, getArray(context, font, 'FontBBox')) : null;
  const { ascent, descent } =
    type3 && box?.length === 4 && box[3]! > box[1]! ? { ascent: box[3]! * vscale, descent: box[1]! * vscale } : extent(context, descriptor, 0.001);
  const encoding = get(context, font, 'Encoding');
  const encodingName = getName(context, font, 'Encoding');
  const ascii = !type3 && (encoding === undefined || encodingName === 'WinAnsiEncoding' || encodingName === 'MacRomanEncoding' || encodingName === 'StandardEncoding');
  return {
    codeBytes: 1,
    advance: (code) => {
      const w = widths[code - first];
      return w === undefined ? fallback : w * scale;
    },
    ascent,
    descent,
    em: type3 ? vscale * 1000 : 1,
    ascii,
  };
}

/** /Ascent and /Descent of a font descriptor; a typical Latin extent when missing or absurd. */
function extent(context: PDFContext, descriptor: PDFDict | undefined, scale: number): { ascent: number; descent: number } {
  const a = getNumber(context, descriptor, 'Ascent');
  const d = getNumber(context, descriptor, 'Descent');
  const ascent = a !== undefined && a > 0 && a < 3000 ? a * scale : 0.75;
  const descent = d !== undefined && d <= 0 && d > -3000 ? d * scale : -0.25;
  return { ascent, descent };
}

/** A CIDFont's /W array: `c [w1 w2 …]` and `cFirst cLast w` entries (bounded). */
function cidWidths(context: PDFContext, cid: PDFDict | undefined): Map<number, number> {
  const out = new Map<number, number>();
  const w = getArray(context, cid, 'W');
  if (!w) return out;
  const list = items(context, w);
  for (let i = 0; i < list.length && out.size < 65536; ) {
    const first = numberOf(resolve(context, list[i]));
    const next = resolve(context, list[i + 1]);
    if (first === undefined) break;
    if (next instanceof PDFArray) {
      numbers(context, next).forEach((v, k) => out.size < 65536 && out.set(first + k, v / 1000));
      i += 2;
    } else {
      const last = numberOf(next);
      const v = numberOf(resolve(context, list[i + 2]));
      if (last === undefined || v === undefined) break;
      for (let c = first; c <= last && out.size < 65536; c++) out.set(c, v / 1000);
      i += 3;
    }
  }
  return out;
}

function numbers(context: PDFContext, arr: PDFArray | undefined): number[] {
  if (!arr) return [];
  return items(context, arr).map((o) => numberOf(resolve(context, o)) ?? 0);
}

function average(values: number[]): number {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v > 0) {
      sum += v;
      n++;
    }
  }
  return n ? sum / n : 500;
}

/**
 * The bytes of a content-stream string token: a literal string `( … )` with its escapes, or a
 * hex string `< … >`. `start`/`end` are the token's offsets (delimiters included).
 */
export function stringBytes(bytes: Uint8Array, start: number, end: number): Uint8Array {
  if (bytes[start] === 0x3c) {
    const out: number[] = [];
    let high = -1;
    for (let i = start + 1; i < end; i++) {
      const c = bytes[i]!;
      const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
      if (v < 0) continue;
      if (high < 0) high = v;
      else {
        out.push(high * 16 + v);
        high = -1;
      }
    }
    if (high >= 0) out.push(high * 16);
    return Uint8Array.from(out);
  }
  const out: number[] = [];
  for (let i = start + 1; i < end - 1; i++) {
    const c = bytes[i]!;
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const n = bytes[++i];
    if (n === undefined) break;
    const simple: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
    if (simple[n] !== undefined) out.push(simple[n]!);
    else if (n >= 0x30 && n <= 0x37) {
      let v = n - 0x30;
      for (let k = 0; k < 2 && bytes[i + 1]! >= 0x30 && bytes[i + 1]! <= 0x37 && i + 1 < end - 1; k++) v = v * 8 + (bytes[++i]! - 0x30);
      out.push(v & 255);
    } else if (n === 0x0d) {
      if (bytes[i + 1] === 0x0a) i++;
    } else if (n !== 0x0a) out.push(n);
  }
  return Uint8Array.from(out);
}

/**
 * The strings and numbers of a text-showing operator, read again from its byte range (the lexer
 * skips string contents): `(abc) Tj`, `[(A) -120 (B)] TJ`, `1 2 (x) "`. At most `maxItems`.
 */
export function showOperands(bytes: Uint8Array, start: number, end: number, maxItems = 4096): (Uint8Array | number)[] {
  const out: (Uint8Array | number)[] = [];
  let i = start;
  while (i < end && out.length < maxItems) {
    const c = bytes[i]!;
    if (c === 0x28) {
      let depth = 0;
      let j = i;
      for (; j < end; j++) {
        const d = bytes[j];
        if (d === 0x5c) j++;
        else if (d === 0x28) depth++;
        else if (d === 0x29 && --depth === 0) break;
      }
      out.push(stringBytes(bytes, i, Math.min(end, j + 1)));
      i = j + 1;
    } else if (c === 0x3c) {
      let j = i + 1;
      while (j < end && bytes[j] !== 0x3e) j++;
      out.push(stringBytes(bytes, i, Math.min(end, j + 1)));
      i = j + 1;
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e) {
      let j = i + 1;
      while (j < end && ((bytes[j]! >= 0x30 && bytes[j]! <= 0x39) || bytes[j] === 0x2e)) j++;
      const v = Number(String.fromCharCode(...bytes.subarray(i, j)));
      if (Number.isFinite(v)) out.push(v);
      i = j;
    } else i++;
  }
  return out;
}
