/**
 * The pixel size an image's own data declares, read from its header without decoding a pixel:
 * a JPEG's SOF segment, a JPEG 2000 file's `ihdr` box or codestream SIZ marker. A decoder
 * allocates for these dimensions, whatever the PDF's /Width and /Height say, so memory budgets
 * must be checked against them.
 */
import { inflateSync, constants as zlibConstants } from 'node:zlib';
import { jpegQuality, type JpegQuality } from './jpeg-quality.js';

export interface CodedSize {
  format: 'jpeg' | 'jpx';
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
  if (data[0] !== 0xff || data[1] !== 0xd8) return null;
  let i = 2;
  while (i + 3 < data.length) {
    if (data[i] !== 0xff) return null;
    let marker = data[i + 1]!;
    // Fill bytes: any number of 0xFF before a marker.
    while (marker === 0xff && i + 2 < data.length) marker = data[++i + 1]!;
    i += 2;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; // no length
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan: no frame header
    if (i + 1 >= data.length) return null;
    const length = (data[i]! << 8) | data[i + 1]!;
    if (length < 2) return null;
    if (SOF.has(marker)) {
      if (i + 7 >= data.length) return null;
      const heightPx = (data[i + 3]! << 8) | data[i + 4]!;
      const widthPx = (data[i + 5]! << 8) | data[i + 6]!;
      return { format: 'jpeg', widthPx, heightPx, components: data[i + 7]!, progressive: !SEQUENTIAL.has(marker) };
    }
    i += length;
  }
  return null;
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

/** What a decoder allocates for: the larger of the declared size and the size the data itself gives. */
export function allocatedSize(declared: { widthPx: number; heightPx: number; coded?: { widthPx: number; heightPx: number } | null | undefined }) {
  const c = declared.coded;
  return c ? { widthPx: Math.max(declared.widthPx, c.widthPx), heightPx: Math.max(declared.heightPx, c.heightPx) } : declared;
}

/** At most this much of a Flate-wrapped image is inflated to find its header. */
const HEADER_PREFIX_BYTES = 1 << 20;

/**
 * The coded size of an image XObject's data, given its raw stream bytes and full filter names;
 * null when the data is not JPEG or JPEG 2000, or its header cannot be read cheaply.
 */
export function codedImageSize(raw: Uint8Array, filters: readonly string[]): CodedSize | null {
  const data = codedData(raw, filters);
  if (!data) return null;
  return filters[filters.length - 1] === 'DCTDecode' ? jpegSize(data) : jpxSize(data);
}

/** A JPEG image's quality from its quantisation tables (jpeg-quality.ts), or null. */
export function codedJpegQuality(raw: Uint8Array, filters: readonly string[]): JpegQuality | null {
  if (filters[filters.length - 1] !== 'DCTDecode') return null;
  const data = codedData(raw, filters);
  return data ? jpegQuality(data) : null;
}

/** The start of a JPEG or JPEG 2000 image's own data (inflated from a Flate wrapper), or null. */
function codedData(raw: Uint8Array, filters: readonly string[]): Uint8Array | null {
  const last = filters[filters.length - 1];
  if (last !== 'DCTDecode' && last !== 'JPXDecode') return null;
  let data = raw;
  const before = filters.slice(0, -1);
  if (before.length > 1 || (before.length === 1 && before[0] !== 'FlateDecode')) return null;
  if (before.length === 1) {
    // Only a prefix: the header is at the start, and a bomb must not be inflated whole.
    try {
      data = inflateSync(raw.subarray(0, 64 * 1024), { maxOutputLength: HEADER_PREFIX_BYTES, finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      return null;
    }
  }
  return data;
}
