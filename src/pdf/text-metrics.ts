/**
 * What the content scanner needs of a font to place glyph boxes: each code's advance width, the
 * vertical extent of its glyphs, how many bytes a code takes, and whether its codes read as ASCII.
 * Simple fonts give /Widths (from /FirstChar), composite fonts /W and /DW of their descendant,
 * Type 3 fonts widths in glyph space through /FontMatrix. Without widths (the standard 14 fonts in
 * old files) an average advance is assumed; the boxes then say roughly where the text is, which
 * is what the seam and size checks need.
 */
import type { PDFContext, PDFDict } from 'pdf-lib';
import { PDFArray, PDFRawStream, dictOf, get, getArray, getDict, getName, getNumber, items, nameOf, numberOf, resolve, type PDFObject } from './objects.js';

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
  /**
   * The code's glyph paints nothing: a space of some kind, by its glyph name (the encoding and its
   * /Differences) or, in a composite font, by what its /ToUnicode map says it is. A run of such
   * glyphs is no text a reader could fail to read.
   */
  blank(code: number): boolean;
}

const DEFAULT_ADVANCE = 0.5;

/** Metrics of a font dictionary (never throws: a broken font gets the defaults). */
export function fontMetrics(context: PDFContext, font: PDFDict | undefined, read?: FontStreamReader): FontMetrics {
  try {
    return readMetrics(context, font, read);
  } catch {
    return { codeBytes: 1, advance: () => DEFAULT_ADVANCE, ascent: 0.75, descent: -0.25, em: 1, ascii: false, blank: () => false };
  }
}

/** Reads a font's small streams (a /ToUnicode CMap) within the caller's limits; throws past them. */
export type FontStreamReader = (stream: PDFRawStream) => Uint8Array;

/** Glyph names of glyphs that paint nothing. */
const BLANK_NAMES = new Set([
  'space',
  'nbspace',
  'nonbreakingspace',
  'uni00A0',
  'uni0020',
  'uni3000',
  'ideographicspace',
  'enspace',
  'emspace',
  'thinspace',
  'hairspace',
  'figurespace',
  'punctuationspace',
  'zerowidthspace',
  'uni2000',
  'uni2001',
  'uni2002',
  'uni2003',
  'uni2004',
  'uni2005',
  'uni2006',
  'uni2007',
  'uni2008',
  'uni2009',
  'uni200A',
  'uni200B',
  'uni202F',
  'uni205F',
  'tab',
  'uni0009',
]);
/** Unicode values that paint nothing. */
const BLANK_UNICODE = new Set([0x09, 0x0a, 0x0d, 0x20, 0xa0, 0x3000, 0x202f, 0x205f, 0xfeff, ...Array.from({ length: 12 }, (_, i) => 0x2000 + i)]);
/** The code of the space glyph in the base encodings of simple fonts (StandardEncoding, WinAnsi, MacRoman, none), and their no-break spaces. */
const BASE_BLANKS: Record<string, number[]> = { WinAnsiEncoding: [32, 160], MacRomanEncoding: [32, 202], StandardEncoding: [32], '': [32] };

/**
 * Em height of a Type 3 font per unit of font size. Its glyphs are drawn in a space of its own that
 * /FontMatrix maps to text space; a matrix of 1/N says the font was designed on an N-unit em (1/1000
 * as most fonts, 1/2048 for an emoji font such as Noto Color Emoji as Chromium and cairo embed it),
 * so an em is one unit of font size whatever N is. Other matrices (glyphs drawn in device pixels)
 * take the glyphs' own extent: the height of /FontBBox through the matrix.
 */
function type3Em(vscale: number, box: number[] | null): number {
  const units = 1 / vscale;
  if (units >= 16 && units <= 16384 && Math.abs(units - Math.round(units)) < 1e-3 * units) return 1;
  const height = box?.length === 4 ? Math.abs(box[3]! - box[1]!) * vscale : 0;
  return height > 0 && Number.isFinite(height) ? height : vscale * 1000;
}

function readMetrics(context: PDFContext, font: PDFDict | undefined, read?: FontStreamReader): FontMetrics {
  const subtype = getName(context, font, 'Subtype');
  if (subtype === 'Type0') {
    const descendants = getArray(context, font, 'DescendantFonts');
    const cid = descendants ? (resolve(context, items(context, descendants)[0]) as PDFDict | undefined) : undefined;
    const dw = (getNumber(context, cid, 'DW') ?? 1000) / 1000;
    const widths = cidWidths(context, cid);
    const { ascent, descent } = extent(context, getDict(context, cid, 'FontDescriptor'), 0.001);
    const blanks = read ? blankCodes(context, get(context, font, 'ToUnicode'), read) : new Set<number>();
    return { codeBytes: 2, advance: (code) => widths.get(code) ?? dw, ascent, descent, em: 1, ascii: false, blank: (code) => blanks.has(code) };
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
  const { ascent, descent } = type3 && box?.length === 4 && box[3]! > box[1]! ? { ascent: box[3]! * vscale, descent: box[1]! * vscale } : extent(context, descriptor, 0.001);
  const encoding = get(context, font, 'Encoding');
  const encodingName = getName(context, font, 'Encoding');
  const ascii = !type3 && (encoding === undefined || encodingName === 'WinAnsiEncoding' || encodingName === 'MacRomanEncoding' || encodingName === 'StandardEncoding');
  const blanks = simpleBlanks(context, encoding);
  const toUnicode = read ? blankCodes(context, get(context, font, 'ToUnicode'), read) : null;
  if (toUnicode) for (const c of toUnicode) blanks.add(c);
  return {
    blank: (code) => blanks.has(code),
    codeBytes: 1,
    advance: (code) => {
      const w = widths[code - first];
      return w === undefined ? fallback : w * scale;
    },
    ascent,
    descent,
    em: type3 ? type3Em(vscale, box) : 1,
    ascii,
  };
}

/** The codes of a simple font whose glyphs are spaces: its base encoding's, unless /Differences renames them, and those /Differences names a space. */
function simpleBlanks(context: PDFContext, encoding: PDFObject | undefined): Set<number> {
  const dict = dictOf(encoding);
  const base = dict ? (getName(context, dict, 'BaseEncoding') ?? '') : (nameOf(encoding) ?? '');
  const out = new Set(BASE_BLANKS[base] ?? BASE_BLANKS['']);
  const differences = dict ? getArray(context, dict, 'Differences') : undefined;
  if (!differences) return out;
  let code = 0;
  for (const item of items(context, differences).slice(0, 4096)) {
    const n = numberOf(resolve(context, item));
    if (n !== undefined) {
      code = Math.trunc(n);
      continue;
    }
    const name = nameOf(resolve(context, item));
    if (name === undefined) continue;
    if (BLANK_NAMES.has(name)) out.add(code);
    else out.delete(code);
    code++;
  }
  return out;
}

/** Most bytes of a /ToUnicode CMap read for its spaces. */
const MAX_TO_UNICODE_BYTES = 1 << 20;

/** The codes a /ToUnicode CMap maps to a space of some kind (bfchar and bfrange entries; bounded). */
function blankCodes(context: PDFContext, stream: PDFObject | undefined, read: FontStreamReader): Set<number> {
  const out = new Set<number>();
  const s = resolve(context, stream);
  if (!(s instanceof PDFRawStream)) return out;
  let text: string;
  try {
    text = Buffer.from(read(s).subarray(0, MAX_TO_UNICODE_BYTES)).toString('latin1');
  } catch {
    return out;
  }
  const hex = (h: string) => parseInt(h, 16);
  const unicode = (h: string) => (h.length >= 4 ? hex(h.slice(0, 4)) : hex(h));
  for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>/g)) {
      if (m[2]!.length && m[2]!.length <= 4 && BLANK_UNICODE.has(unicode(m[2]!))) out.add(hex(m[1]!));
    }
  }
  for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(?:<([0-9A-Fa-f]*)>|\[([^\]]*)\])/g)) {
      const lo = hex(m[1]!);
      const hi = Math.min(hex(m[2]!), lo + 65535);
      if (m[3] !== undefined) {
        if (!m[3].length || m[3].length > 4) continue;
        const first = unicode(m[3]);
        for (let c = lo; c <= hi && out.size < 4096; c++) if (BLANK_UNICODE.has(first + (c - lo))) out.add(c);
      } else {
        const targets = [...m[4]!.matchAll(/<([0-9A-Fa-f]*)>/g)].map((t) => t[1]!);
        targets.forEach((t, k) => t.length && t.length <= 4 && BLANK_UNICODE.has(unicode(t)) && lo + k <= hi && out.add(lo + k));
      }
    }
  }
  return out;
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
