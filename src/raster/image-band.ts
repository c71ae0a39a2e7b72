/**
 * A bounded band of any image XObject's pixels, as luma, for the detail measurement
 * (raster/detail.ts): whatever the image's filters (a JPEG behind ASCII85, LZW or Flate; Flate or
 * LZW data with PNG or TIFF predictors; RunLength; uncompressed; JPEG 2000), bit depth (8 or 16)
 * and colour space (gray, RGB, CMYK, ICC-based, Lab, Indexed, Separation, DeviceN).
 *
 * Only the rows down to the end of the band are decoded: a JPEG through sharp (libjpeg stops at the
 * band), Flate data inflated as a stream and dropped row by row above the band, LZW and RunLength
 * decoded to a prefix. JPEG 2000 has no rows to stop at: it is decoded whole (OpenJPEG, as pdf.js
 * ships it) when it holds at most {@link MAX_JPX_PIXELS}. Wrapping filters are decoded under the
 * file's decode budget, like every other stream. Memory is the band (at most
 * {@link MAX_BAND_PIXELS} samples of luma), never the image.
 *
 * Luma is what the detail measurement needs: any smooth mapping of the samples to one channel keeps
 * an enlargement's trace (the interpolation grid), so CMYK, Lab, spot and DeviceN colours are
 * mapped simply (ink coverage, L*) rather than colour-managed, and /Decode inversions are ignored.
 */
import { createInflate } from 'node:zlib';
import type { DecodeBudget } from '../pdf/decode-budget.js';
import { PDFArray, PDFRawStream, bytesOf, get, getBool, getNumber, items, nameOf, numberOf, resolve, type PDFContext, type PDFObject } from '../pdf/objects.js';
import { decodeFilters, filterParamsOf, filtersOf, fullFilterName, StreamDecodeError } from '../pdf/streams.js';
import { busiestAt, DETAIL_TILE, estimateDetail, type LumaTile } from './detail.js';
import { bandTop, measureJpegDetail, windowLeft, type DetailRequest, type ImageDetail, type Overview } from './image-detail.js';
import { RowDecoder } from './flate-path.js';
import { jpxColourSpace } from '../pdf/jpx.js';

/** Most samples of luma kept for a band (the band's rows across the image, or across the window). */
export const MAX_BAND_PIXELS = 16_000_000;
/** JPEG 2000 images are decoded whole: up to this many pixels. */
export const MAX_JPX_PIXELS = 40_000_000;
/** Most bytes the filters before an image's own (ASCII85 around a JPEG…) may produce. */
const MAX_WRAPPED_BYTES = 256 * 1024 * 1024;

/** How an image's samples become luma. */
export type LumaModel = { kind: 'gray' | 'rgb' | 'cmyk' | 'lab' | 'ink'; components: number } | { kind: 'indexed'; components: 1; palette: Float32Array };

/** What the band reader needs of an image XObject, read from its dictionary. */
export interface ImageSource {
  /** Full filter names, outermost first. */
  filters: string[];
  widthPx: number;
  heightPx: number;
  /** 8 or 16 for row data; null for JPEG and JPEG 2000 (their own data says). */
  bitsPerComponent: 8 | 16 | null;
  model: LumaModel | null;
  /** PNG (10–15) or TIFF (2) predictor of the last filter, 1 for none. */
  predictor: number;
}

/** The image's kind as the detail measurement reports it (bench:quality counts per kind). */
export type ImageKind = 'jpeg' | 'jpx' | 'rows';

export function kindOf(filters: readonly string[]): ImageKind | null {
  const last = filters[filters.length - 1];
  if (last === 'DCTDecode') return 'jpeg';
  if (last === 'JPXDecode') return 'jpx';
  if (last === 'JBIG2Decode' || last === 'CCITTFaxDecode') return null;
  return 'rows';
}

/**
 * Reads what the band reader needs from an image XObject's dictionary; null when its pixels cannot
 * carry an enlargement's trace or cannot be read here (a stencil mask, 1–4 bits per sample, JBIG2,
 * CCITT, an unknown colour space).
 */
export function imageSourceOf(context: PDFContext, stream: PDFRawStream, readLookup: (s: PDFRawStream) => Uint8Array): ImageSource | null {
  const dict = stream.dict;
  if (getBool(context, dict, 'ImageMask') === true) return null;
  const filters = filtersOf(context, dict).map(fullFilterName);
  const kind = kindOf(filters);
  if (!kind) return null;
  const widthPx = getNumber(context, dict, 'Width') ?? 0;
  const heightPx = getNumber(context, dict, 'Height') ?? 0;
  if (!Number.isInteger(widthPx) || !Number.isInteger(heightPx) || widthPx < 1 || heightPx < 1) return null;
  const bits = getNumber(context, dict, 'BitsPerComponent');
  let model: LumaModel | null = null;
  if (kind === 'rows') {
    if (bits !== 8 && bits !== 16) return null;
    model = lumaModel(context, get(context, dict, 'ColorSpace'), bits, readLookup);
    if (!model) return null;
  }
  const params = filterParamsOf(context, dict, filters.length)[filters.length - 1];
  const predictor = kind === 'rows' && params?.predictor && params.predictor > 1 ? params.predictor : 1;
  if (predictor > 1 && ((params?.columns ?? 1) !== widthPx || (params?.colors ?? 1) !== model!.components || (params?.bitsPerComponent ?? 8) !== bits)) return null;
  return { filters, widthPx, heightPx, bitsPerComponent: kind === 'rows' ? (bits as 8 | 16) : null, model, predictor };
}

/** How the samples of colour space `cs` become luma; null when the space is not understood. */
export function lumaModel(context: PDFContext, cs: PDFObject | undefined, bits: 8 | 16, readLookup: (s: PDFRawStream) => Uint8Array, depth = 0): LumaModel | null {
  if (depth > 4) return null;
  const name = nameOf(cs);
  if (name) {
    if (name === 'DeviceGray' || name === 'CalGray' || name === 'G') return { kind: 'gray', components: 1 };
    if (name === 'DeviceRGB' || name === 'CalRGB' || name === 'RGB') return { kind: 'rgb', components: 3 };
    if (name === 'DeviceCMYK' || name === 'CMYK') return { kind: 'cmyk', components: 4 };
    return null;
  }
  if (!(cs instanceof PDFArray)) return null;
  const parts = items(context, cs);
  const family = nameOf(parts[0]);
  switch (family) {
    case 'CalGray':
      return { kind: 'gray', components: 1 };
    case 'CalRGB':
      return { kind: 'rgb', components: 3 };
    case 'Lab':
      return { kind: 'lab', components: 3 };
    case 'ICCBased': {
      const profile = parts[1];
      const n = profile instanceof PDFRawStream ? getNumber(context, profile.dict, 'N') : undefined;
      return n === 1 ? { kind: 'gray', components: 1 } : n === 3 ? { kind: 'rgb', components: 3 } : n === 4 ? { kind: 'cmyk', components: 4 } : null;
    }
    case 'Separation':
      return { kind: 'ink', components: 1 };
    case 'DeviceN':
    case 'NChannel': {
      const names = parts[1] instanceof PDFArray ? items(context, parts[1]).length : 0;
      return names > 0 && names <= 32 ? { kind: 'ink', components: names } : null;
    }
    case 'Indexed':
    case 'I': {
      if (bits !== 8) return null;
      const base = lumaModel(context, parts[1], 8, readLookup, depth + 1);
      const hival = Math.trunc(numberOf(resolve(context, cs.get(2))) ?? NaN);
      if (!base || base.kind === 'indexed' || !Number.isFinite(hival) || hival < 0 || hival > 255) return null;
      const lookupObj = parts[3];
      let table: Uint8Array | undefined;
      try {
        table = lookupObj instanceof PDFRawStream ? readLookup(lookupObj) : bytesOf(lookupObj);
      } catch {
        return null;
      }
      if (!table) return null;
      const palette = new Float32Array(256);
      const one = new Float32Array(1);
      for (let i = 0; i <= hival; i++) {
        const at = i * base.components;
        if (at + base.components > table.length) break;
        lumaOfSamples(table.subarray(at, at + base.components), 8, base, one, 0, 1);
        palette[i] = one[0]!;
      }
      return { kind: 'indexed', components: 1, palette };
    }
    default:
      return null;
  }
}

/**
 * Converts `count` pixels of interleaved samples (8 bits, or 16 bits big-endian) to luma 0–255 in
 * `out` from `at`: BT.601 for RGB (chroma subsampling cancels out of it); gray as is; CMYK through
 * its naive RGB; Lab's L*; spot and DeviceN inks as their mean coverage inverted; Indexed through
 * its palette's luma.
 */
export function lumaOfSamples(row: Uint8Array, bits: 8 | 16, model: LumaModel, out: Float32Array, at: number, count: number): void {
  const n = model.components;
  const s = bits === 16 ? (i: number) => ((row[2 * i]! << 8) | row[2 * i + 1]!) / 257 : (i: number) => row[i]!;
  switch (model.kind) {
    case 'gray':
      for (let x = 0; x < count; x++) out[at + x] = s(x * n);
      return;
    case 'rgb':
      for (let x = 0, p = 0; x < count; x++, p += n) out[at + x] = 0.299 * s(p) + 0.587 * s(p + 1) + 0.114 * s(p + 2);
      return;
    case 'cmyk':
      for (let x = 0, p = 0; x < count; x++, p += n) {
        const k = 1 - s(p + 3) / 255;
        out[at + x] = k * (0.299 * (255 - s(p)) + 0.587 * (255 - s(p + 1)) + 0.114 * (255 - s(p + 2)));
      }
      return;
    case 'lab':
      for (let x = 0, p = 0; x < count; x++, p += n) out[at + x] = s(p);
      return;
    case 'ink':
      for (let x = 0, p = 0; x < count; x++, p += n) {
        let sum = 0;
        for (let c = 0; c < n; c++) sum += s(p + c);
        out[at + x] = 255 - sum / n;
      }
      return;
    case 'indexed':
      for (let x = 0; x < count; x++) out[at + x] = model.palette[row[x]!]!;
      return;
  }
}

/** Rows `[top, top + rows)` and columns `[left, left + width)` of an image, as luma. */
export interface BandWindow {
  top: number;
  rows: number;
  left: number;
  width: number;
}

/** The data of an image's own filter: the wrapping filters (ASCII85 around a JPEG…) decoded under the budget. */
export function unwrapped(raw: Uint8Array, source: ImageSource, params: Parameters<typeof decodeFilters>[2], budget: DecodeBudget | undefined): Uint8Array {
  const before = source.filters.slice(0, -1);
  if (before.length === 0) return raw;
  return decodeFilters(raw, before, params.slice(0, -1), { maxBytes: MAX_WRAPPED_BYTES, budget, what: 'an image (for its detail)' });
}

/**
 * Luma of a band of a row-data image (every filter but DCT and JPX): the rows down to the band's
 * end are decoded — a final Flate stage as a stream, row by row — and only the band's are kept.
 * Throws StreamDecodeError when the data is corrupt or ends before the band.
 */
export async function rowBand(raw: Uint8Array, source: ImageSource, params: Parameters<typeof decodeFilters>[2], band: BandWindow, budget: DecodeBudget | undefined): Promise<Float32Array> {
  const { widthPx: w, model } = source;
  const bits = source.bitsPerComponent!;
  const out = new Float32Array(band.width * band.rows);
  const rowBytes = (w * model!.components * bits) / 8;
  const end = band.top + band.rows;
  let y = 0;
  const take = (row: Uint8Array) => {
    if (y >= band.top && y < end) {
      const from = (band.left * model!.components * bits) / 8;
      lumaOfSamples(row.subarray(from), bits, model!, out, (y - band.top) * band.width, band.width);
    }
    y++;
  };
  const last = source.filters[source.filters.length - 1];
  // (RowDecoder undoes predictors for any number of components, though the Flate page path only gives it 1 or 3.)
  const layout = { widthPx: w, heightPx: end, components: model!.components as 1 | 3, bitsPerComponent: bits, predictor: last === 'FlateDecode' ? source.predictor : 1 };
  const decoder = new RowDecoder(layout, take);
  if (last === 'FlateDecode') {
    const compressed = unwrapped(raw, source, params, budget);
    await inflateRows(compressed, decoder, budget);
  } else {
    // LZW, RunLength, ASCII filters or none: decoded to the band's end (the predictor, if any, undone there).
    const prefix = rowBytes * end;
    const data = source.filters.length ? decodeFilters(raw, source.filters, params, { maxBytes: prefix, prefix, budget, what: 'an image (for its detail)' }) : raw.subarray(0, prefix);
    decoder.push(data);
  }
  if (y < end) throw new StreamDecodeError(`its data ends after ${y} of the ${end} rows wanted`);
  return out;
}

/** Inflates `data` as a stream into `rows`, stopping once it has every row it wants; each chunk is charged to the budget. */
async function inflateRows(data: Uint8Array, rows: RowDecoder, budget: DecodeBudget | undefined): Promise<void> {
  const inflate = createInflate({ chunkSize: 1 << 16 });
  inflate.end(data);
  try {
    for await (const chunk of inflate) {
      budget?.chargeDecoded((chunk as Buffer).length, 'an image (for its detail)');
      rows.push(chunk as Buffer);
      if (rows.done()) break;
    }
  } catch (error) {
    if (rows.done()) return;
    if ((error as Error).name === 'BudgetExceededError') throw error;
    throw new StreamDecodeError(`corrupt Flate data (${(error as Error).message})`);
  } finally {
    inflate.destroy();
  }
}

/**
 * The most textured `size × size` window of a luma band (candidates every 256 pixels, offsets
 * multiples of 16 so that a JPEG's block grid stays where it was): where an enlargement shows best.
 */
export function busiestLumaWindow(band: Float32Array, width: number, height: number, size = DETAIL_TILE): LumaTile {
  const { x, y, w, h } = busiestAt(width, height, size, (x, y, w, h) => {
    let e = 0;
    for (let r = y; r < y + h; r += 16) {
      const row = r * width;
      for (let c = x + 1; c < x + w; c += 4) e += Math.min(64, Math.abs(band[row + c]! - band[row + c - 1]!));
    }
    return e;
  });
  const out = new Float32Array(w * h);
  for (let r = 0; r < h; r++) out.set(band.subarray((y + r) * width + x, (y + r) * width + x + w), r * w);
  return { data: out, width: w, height: h };
}

/** What the worker gives {@link measureStreamDetail} besides the image. */
export interface StreamDetailOptions {
  /** The file's decode budget in this worker: wrapping filters and row data are charged to it. */
  budget?: DecodeBudget | undefined;
  /** The JPEG path's pixel limit (sharp's limitInputPixels). */
  maxInputPixels: number;
  /** The page preview when the page is this image, upright: it says where the detail is. */
  overview?: Overview | null;
}

/**
 * Measures the detail of one image XObject of a parsed document, whatever its filters, bit depth
 * and colour space; null when it cannot carry an enlargement's trace or cannot be read (the page's
 * other findings say why). Untrusted data is decoded only under the budget, and only down to the
 * band measured.
 */
export async function measureStreamDetail(context: PDFContext, stream: PDFRawStream, request: DetailRequest, options: StreamDetailOptions): Promise<ImageDetail | null> {
  const readLookup = (s: PDFRawStream) => decodeStreamBounded(context, s, options.budget);
  const source = imageSourceOf(context, stream, readLookup);
  if (!source || source.widthPx !== request.widthPx || source.heightPx !== request.heightPx) return null;
  const params = filterParamsOf(context, stream.dict, source.filters.length);
  const kind = kindOf(source.filters)!;
  try {
    if (kind === 'jpeg') {
      const jpeg = unwrapped(stream.contents, source, params, options.budget);
      const measured = await measureJpegDetail(jpeg, request, options.maxInputPixels, options.overview ?? null);
      return measured && { ...measured, kind };
    }
    const { widthPx: w, heightPx: h } = source;
    const rows = Math.min(h, DETAIL_TILE);
    const overview = options.overview ?? null;
    const top = Math.floor(bandTop(overview, h, rows) / 16) * 16;
    const left = overview ? windowLeft(overview, w, h, top, rows) : 0;
    const width = overview ? Math.min(w, DETAIL_TILE) : Math.min(w, Math.max(DETAIL_TILE, Math.floor(MAX_BAND_PIXELS / rows)));
    const window: BandWindow = { top, rows, left, width };
    let band: Float32Array;
    if (kind === 'jpx') {
      if (w * h > MAX_JPX_PIXELS) return null;
      const { decodeJpx } = await import('./jpx-decode.js');
      const jpx = unwrapped(stream.contents, source, params, options.budget);
      options.budget?.chargeDecoded(w * h * 4, 'a JPEG 2000 image (for its detail)');
      // The colour the PDF says (its /ColorSpace), else the codestream's own; pdf.js may add alpha.
      const said =
        lumaModel(context, get(context, stream.dict, 'ColorSpace'), 8, readLookup) ??
        (() => {
          const own = jpxColourSpace(jpx)?.model;
          return own === 'gray' ? { kind: 'gray' as const, components: 1 } : own === 'cmyk' ? { kind: 'cmyk' as const, components: 4 } : { kind: 'rgb' as const, components: 3 };
        })();
      if (said.kind === 'indexed') return null;
      const { data, components } = await decodeJpx(jpx, w, h, said.components);
      if (components < said.components) return null;
      const model: LumaModel = { kind: said.kind, components };
      band = new Float32Array(width * rows);
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.length);
      for (let r = 0; r < rows; r++) lumaOfSamples(bytes.subarray(((top + r) * w + left) * components), 8, model, band, r * width, width);
    } else {
      band = await rowBand(stream.contents, source, params, window, options.budget);
    }
    const tile = width > DETAIL_TILE ? busiestLumaWindow(band, width, rows) : { data: band, width, height: rows };
    return { ref: request.ref, ...estimateDetail(tile), kind };
  } catch (error) {
    if ((error as Error).name === 'BudgetExceededError') throw error;
    return null;
  }
}

/** A small stream's data (an Indexed palette) under the budget. */
function decodeStreamBounded(context: PDFContext, stream: PDFRawStream, budget: DecodeBudget | undefined): Uint8Array {
  const filters = filtersOf(context, stream.dict).map(fullFilterName);
  return decodeFilters(stream.contents, filters, filterParamsOf(context, stream.dict, filters.length), { maxBytes: 1 << 20, budget, what: 'an Indexed palette' });
}
