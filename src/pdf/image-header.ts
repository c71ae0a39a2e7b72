/**
 * The pixel size an image's own data declares, read from its header without decoding a pixel:
 * a JPEG's SOF segment, a JPEG 2000 file's `ihdr` box or codestream SIZ marker. A decoder
 * allocates for these dimensions, whatever the PDF's /Width and /Height say, so memory budgets
 * must be checked against them.
 */
import type { DecodeBudget } from './decode-budget.js';
import { StreamDecodeError, decodeFilters } from './streams.js';
import { jpegQuality, walkJpegSegments, type JpegQuality } from './jpeg-quality.js';
import { jbig2Claims } from './jbig2.js';

export interface CodedSize {
  format: 'jpeg' | 'jpx' | 'jbig2' | 'ccitt';
  widthPx: number;
  heightPx: number;
  components: number;
  /** Progressive (or hierarchical/lossless) JPEG: a decoder keeps every coefficient of the whole image. */
  progressive: boolean;
}

/** Markers SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
/** Baseline and extended sequential DCT: the only ones decodable with shrink-on-load row by row. */
const SEQUENTIAL = new Set([0xc0, 0xc1, 0xc9]);

/** The frame header of a JPEG stream, or null when there is none before the first scan. */
export function jpegSize(data: Uint8Array): CodedSize | null {
  let size: CodedSize | null = null;
  walkJpegSegments(data, (marker, i) => {
    if (!SOF.has(marker)) return false;
    if (i + 7 < data.length) {
      const heightPx = (data[i + 3]! << 8) | data[i + 4]!;
      const widthPx = (data[i + 5]! << 8) | data[i + 6]!;
      size = { format: 'jpeg', widthPx, heightPx, components: data[i + 7]!, progressive: !SEQUENTIAL.has(marker) };
    }
    return true;
  });
  return size;
}

const u32 = (d: Uint8Array, i: number) => ((d[i]! << 24) | (d[i + 1]! << 16) | (d[i + 2]! << 8) | d[i + 3]!) >>> 0;
const u16 = (d: Uint8Array, i: number) => (d[i]! << 8) | d[i + 1]!;

/** The size of a JPEG 2000 image (JP2 file or raw codestream), or null. */
export function jpxSize(data: Uint8Array): CodedSize | null {
  if (data[0] === 0xff && data[1] === 0x4f) return sizMarker(data, 2);
  // JP2: a sequence of boxes; the header superbox 'jp2h' holds 'ihdr'; 'jp2c' holds the codestream.
  const walk = (start: number, end: number, depth: number): CodedSize | null => {
    let i = start;
    while (i + 8 <= end && depth < 4) {
      let length = u32(data, i);
      const type = String.fromCharCode(data[i + 4]!, data[i + 5]!, data[i + 6]!, data[i + 7]!);
      let header = 8;
      if (length === 1) {
        if (i + 16 > end) return null;
        length = u32(data, i + 8) * 2 ** 32 + u32(data, i + 12);
        header = 16;
      } else if (length === 0) length = end - i;
      if (length < header) return null;
      const boxEnd = Math.min(end, i + length);
      if (type === 'jp2h') return walk(i + header, boxEnd, depth + 1);
      if (type === 'ihdr' && i + header + 10 <= end) {
        const heightPx = u32(data, i + header);
        const widthPx = u32(data, i + header + 4);
        return { format: 'jpx', widthPx, heightPx, components: u16(data, i + header + 8), progressive: false };
      }
      if (type === 'jp2c') return data[i + header] === 0xff && data[i + header + 1] === 0x4f ? sizMarker(data, i + header + 2) : null;
      i += length;
    }
    return null;
  };
  return walk(0, data.length, 0);
}

function sizMarker(data: Uint8Array, i: number): CodedSize | null {
  if (data[i] !== 0xff || data[i + 1] !== 0x51 || i + 40 > data.length) return null;
  const x = u32(data, i + 6);
  const y = u32(data, i + 10);
  const x0 = u32(data, i + 14);
  const y0 = u32(data, i + 18);
  return { format: 'jpx', widthPx: Math.max(0, x - x0), heightPx: Math.max(0, y - y0), components: u16(data, i + 38), progressive: false };
}

/**
 * The largest bitmap a JBIG2 decoder allocates for this embedded stream (ISO 32000-2 §7.4.7: the
 * segments without a file header): the widest and tallest of every size its segments declare
 * (jbig2.ts). Null when no size can be read. Images drawn from the page are read whole, with their
 * globals (RendererScreen.jbig2); this reads what it is given.
 */
export function jbig2Size(data: Uint8Array): CodedSize | null {
  const { widthPx, heightPx } = jbig2Claims([data]);
  return widthPx && heightPx ? { format: 'jbig2', widthPx, heightPx, components: 1, progressive: false } : null;
}

/** Prefixes of a filter-wrapped image decoded to find its header: a short one, then (ICC profiles come first) a longer one. */
const HEADER_PREFIXES = [64 * 1024, 1 << 20];

/**
 * The coded size of an image XObject's data, given its raw stream bytes, full filter names and
 * the image filter's parameters; null when the data is not JPEG, JPEG 2000, JBIG2 or CCITT, or its
 * header cannot be read. Data wrapped in other filters (Flate, LZW, RunLength, ASCII85, ASCIIHex)
 * is decoded only as far as its header, under the file's budget: a bomb is never decoded whole.
 * A CCITT image is as wide as its /Columns say (1728 when absent), whatever its /Width.
 */
export function codedImageSize(
  raw: Uint8Array,
  filters: readonly string[],
  budget?: DecodeBudget,
  params?: { columns?: number | undefined; rows?: number | undefined; height?: number | undefined },
): CodedSize | null {
  const last = filters[filters.length - 1];
  if (last === 'CCITTFaxDecode') {
    const columns = Math.max(0, Math.trunc(params?.columns ?? 1728));
    const rows = Math.max(0, Math.trunc(params?.rows || params?.height || 0));
    return columns && rows ? { format: 'ccitt', widthPx: columns, heightPx: rows, components: 1, progressive: false } : null;
  }
  const header = last === 'DCTDecode' ? jpegSize : last === 'JPXDecode' ? jpxSize : last === 'JBIG2Decode' ? jbig2Size : null;
  return header ? fromPrefix(raw, filters, budget, header) : null;
}

/** A JPEG image's quality from its quantisation tables (jpeg-quality.ts), or null; wrapped data is decoded as {@link codedImageSize} decodes it. */
export function codedJpegQuality(raw: Uint8Array, filters: readonly string[], budget?: DecodeBudget): JpegQuality | null {
  if (filters[filters.length - 1] !== 'DCTDecode') return null;
  return fromPrefix(raw, filters, budget, jpegQuality);
}

/**
 * `read` applied to the start of an image's own data: the raw bytes, or the data under its other
 * filters decoded only as far as a prefix (a short one, then a longer one), under the budget.
 */
function fromPrefix<T>(raw: Uint8Array, filters: readonly string[], budget: DecodeBudget | undefined, read: (data: Uint8Array) => T | null): T | null {
  const before = filters.slice(0, -1);
  if (before.length === 0) return read(raw);
  for (const prefix of HEADER_PREFIXES) {
    let data: Uint8Array;
    try {
      data = decodeFilters(raw, before, [], { maxBytes: prefix, prefix, budget, what: 'an image header' });
    } catch (error) {
      if (error instanceof StreamDecodeError) return null;
      throw error;
    }
    const found = read(data);
    if (found || data.length < prefix) return found;
  }
  return null;
}
