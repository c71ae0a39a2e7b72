/**
 * Rewrites one image XObject: to sRGB (through lcms, honouring the PDF's ICC profile), and/or
 * downsampled to a pixel cap. A JPEG stays a JPEG (re-encoded at `jpegQuality`), anything else is
 * stored losslessly (Flate). Soft masks and other entries of the image dictionary are kept.
 *
 * Bounded by design, as the checks are: no image is ever held whole in memory as samples.
 * - A JPEG (bare, or behind ASCII85/Flate/… filters) goes through libvips end to end — decode with
 *   the PDF's colour space (its ICC profile put into the JPEG in place of the JPEG's own), lcms to
 *   sRGB, resize, encode — in libvips's demand-driven strips, within a pixel limit.
 * - Any other image is decoded a strip of rows at a time (Flate streamed, the predictor undone row
 *   by row; other filter chains decoded to the image's own size and no further), each strip
 *   converted (lcms through sharp for gray and CMYK, a palette table for Indexed, a table per tint
 *   for Separation and DeviceN), reduced row by row when too large, and deflated as it goes.
 * Every byte decoded is charged to the file's decode budget; a spent budget propagates
 * ({@link BudgetExceededError}) and the fix is refused, never swallowed as "left as it is".
 */
import { createDeflate, createInflate } from 'node:zlib';
import { PDFArray, PDFName, PDFNumber, PDFRawStream, type PDFContext, type PDFDict, type PDFObject, type PDFRef } from '../pdf/pdf-lib.js';
import type { ColourSpaceResolver } from '../pdf/colour-space.js';
import type { ColourSpaceFacts } from '../pdf/facts.js';
import { jpegSize } from '../pdf/image-header.js';
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import { get, getBool, getNumber, items, numberOf, resolve } from '../pdf/objects.js';
import { BudgetExceededError, type DecodeBudget } from '../pdf/decode-budget.js';
import { StreamDecodeError, decodeFilters, filterParamsOf, filtersOf, fullFilterName, type FilterParams } from '../pdf/streams.js';
import { hasAdobeMarker } from '../raster/fast-path.js';
import { BoxReducer } from '../raster/flate-path.js';
import { unfilterPngRow } from '../pdf/png-predictor.js';
import { sourceProfile } from '../raster/cmyk-profile.js';
import { withIccProfile } from '../raster/jpeg-icc.js';
import { loadSharp } from '../raster/sharp.js';
import { grouped } from '../util/text.js';
import { iccOf, LeftAsItIs, modelOf, stripConverter } from './image-colour.js';

export interface ImageRewrite {
  toSrgb: boolean;
  /** Longest side allowed, or null. */
  maxPx: number | null;
  jpegQuality: number;
  /** The file's decode budget: every stream decoded draws on it. */
  budget: DecodeBudget;
  /** Images with more pixels (as their data declares) are not converted. Default {@link MAX_CONVERT_PIXELS}. */
  maxInputPixels?: number | undefined;
  /** The source profile of DeviceCMYK samples (the file's CMYK output intent); else the default chain's. */
  deviceCmyk?: Uint8Array | undefined;
}

/** What became of an image; `tooLarge` when it was over the pixel cap (its finding is image-too-large). */
export type ImageResult = ({ changed: true; what: string } | { changed: false; why: string | null }) & { tooLarge?: boolean };

/** sharp's own default input limit (0x3FFF²): about 15 s of CMYK → sRGB through lcms on one core. */
export const MAX_CONVERT_PIXELS = 268_402_689;
/** Most bytes a non-Flate filter chain may decode to in one piece (the image's own size, at most this). */
const MAX_WHOLE_DECODE_BYTES = 512 * 1024 * 1024;
/** Most bytes a re-encoded image may take: past it the image is left as it is. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
/** Rows are converted this many bytes at a time. */
const STRIP_BYTES = 4 * 1024 * 1024;

/**
 * Converts and/or downsamples one image XObject in place.
 * @example
 * const r = await rewriteImage(doc.context, ref, colourSpaces, { toSrgb: true, maxPx: null, jpegQuality: 92, budget });
 * if (r.changed) console.log(r.what); // "DeviceCMYK → sRGB"
 */
export async function rewriteImage(context: PDFContext, ref: PDFRef, colourSpaces: ColourSpaceResolver, job: ImageRewrite): Promise<ImageResult> {
  const stream = context.lookup(ref);
  if (!(stream instanceof PDFRawStream)) return { changed: false, why: null };
  const dict = stream.dict;
  if (getBool(context, dict, 'ImageMask')) return { changed: false, why: null };
  const width = Math.trunc(getNumber(context, dict, 'Width') ?? 0);
  const height = Math.trunc(getNumber(context, dict, 'Height') ?? 0);
  if (!(width > 0 && height > 0)) return { changed: false, why: 'the image has no size' };
  const csObj = get(context, dict, 'ColorSpace');
  const cs = csObj ? colourSpaces.describe(csObj, undefined) : null;
  const filters = filtersOf(context, dict).map(fullFilterName);
  const tooLarge = job.maxPx !== null && Math.max(width, height) > job.maxPx;
  const convert = job.toSrgb && cs !== null && !(cs.model === 'rgb' && cs.family !== 'Indexed');
  if (!tooLarge && !convert) return { changed: false, why: null };
  if (!cs) return { changed: false, tooLarge, why: 'its colour space is inside the JPEG 2000 data' };
  const maxInput = job.maxInputPixels ?? MAX_CONVERT_PIXELS;
  if (width * height > maxInput) {
    return { changed: false, tooLarge, why: `it has ${grouped(width * height)} pixels, more than the ${grouped(maxInput)} an image may have to be converted within the memory and time limits` };
  }
  const target = tooLarge ? scaledTo(width, height, job.maxPx!) : { width, height };
  try {
    const encoded =
      filters.at(-1) === 'DCTDecode' ? await viaLibvips(context, stream, cs, csObj, filters, target, job) : await viaRows(context, stream, cs, csObj, filters, width, height, target, job);
    replaceImage(context, ref, dict, encoded.data, target.width, target.height, encoded.filter);
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    if (error instanceof LeftAsItIs) return { changed: false, tooLarge, why: error.message };
    return { changed: false, tooLarge, why: `it cannot be decoded (${((error as Error).message ?? String(error)).split('\n')[0]})` };
  }
  const parts = [convert ? `${cs.label} → sRGB` : null, tooLarge ? `${width} × ${height} → ${target.width} × ${target.height} px` : null].filter(Boolean);
  return { changed: true, tooLarge, what: parts.join(', ') };
}

function scaledTo(width: number, height: number, maxPx: number): { width: number; height: number } {
  const s = maxPx / Math.max(width, height);
  return { width: Math.max(1, Math.floor(width * s)), height: Math.max(1, Math.floor(height * s)) };
}

/** The /Decode array of an image as numbers ([] when absent). */
function decodeArray(context: PDFContext, dict: PDFDict): number[] {
  const decode = resolve(context, dict.get(PDFName.of('Decode')));
  return decode instanceof PDFArray ? items(context, decode).map((v) => numberOf(v) ?? Number.NaN) : [];
}

// ---------------------------------------------------------------------------------------------
// JPEG images: libvips end to end.

async function viaLibvips(
  context: PDFContext,
  stream: PDFRawStream,
  cs: ColourSpaceFacts,
  csObj: PDFObject | undefined,
  filters: string[],
  target: { width: number; height: number },
  job: ImageRewrite,
): Promise<{ data: Uint8Array; filter: string }> {
  const model = modelOf(cs);
  if (!model || cs.family === 'Indexed') throw new LeftAsItIs(`a JPEG in ${cs.label} is not converted`);
  if (filters.slice(0, -1).some((f) => f === 'DCTDecode' || f === 'JPXDecode' || f === 'JBIG2Decode' || f === 'CCITTFaxDecode'))
    throw new LeftAsItIs(`${filters.join(' + ')} images are not converted`);
  // The JPEG itself: the filters before DCTDecode undone (ASCII85 from reportlab, Flate…).
  const jpeg =
    filters.length === 1
      ? stream.contents
      : decodeFilters(stream.contents, filters.slice(0, -1), filterParamsOf(context, stream.dict, filters.length - 1), { maxBytes: MAX_WHOLE_DECODE_BYTES, budget: job.budget, what: 'an image' });
  const width = Math.trunc(getNumber(context, stream.dict, 'Width') ?? 0);
  const height = Math.trunc(getNumber(context, stream.dict, 'Height') ?? 0);
  const coded = jpegSize(jpeg);
  if (!coded) throw new LeftAsItIs('its JPEG data has no frame header');
  if (coded.widthPx !== width || coded.heightPx !== height) throw new LeftAsItIs('the JPEG does not have the size the PDF says');
  const scans = jpegScanReason(jpeg, width * height);
  if (scans) throw new LeftAsItIs(scans);
  const decode = decodeArray(context, stream.dict);
  const inverted = decode.length > 0 && decode[0] === 1 && decode[1] === 0;
  if (model === 'cmyk' && hasAdobeMarker(jpeg) !== inverted) throw new LeftAsItIs('its /Decode array and JPEG markers disagree');
  if (model !== 'cmyk' && decode.length) throw new LeftAsItIs('it has a /Decode array');
  // The PDF's colour space decides what the samples mean (ISO 32000-2 §8.9.5): its ICC profile, or
  // none for a device space — never a profile the JPEG carries itself.
  const input = withIccProfile(jpeg, sourceProfile(model, iccOf(context, csObj, job.budget) ?? (cs.family === 'DeviceCMYK' ? job.deviceCmyk : undefined)));
  job.budget.chargeDecoded(width * height * coded.components, 'an image');
  const sharp = await loadSharp();
  let image = sharp(input, { limitInputPixels: job.maxInputPixels ?? MAX_CONVERT_PIXELS, sequentialRead: true, failOn: 'truncated' });
  if (target.width !== width || target.height !== height) image = image.resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' });
  const out = await image.toColourspace('srgb').jpeg({ quality: job.jpegQuality, chromaSubsampling: '4:4:4' }).toBuffer({ resolveWithObject: true });
  if (out.info.width !== target.width || out.info.height !== target.height) throw new LeftAsItIs('the JPEG decodes to another size than the PDF says');
  return { data: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength), filter: 'DCTDecode' };
}

// ---------------------------------------------------------------------------------------------
// Other images: a strip of rows at a time.

async function viaRows(
  context: PDFContext,
  stream: PDFRawStream,
  cs: ColourSpaceFacts,
  csObj: PDFObject | undefined,
  filters: string[],
  width: number,
  height: number,
  target: { width: number; height: number },
  job: ImageRewrite,
): Promise<{ data: Uint8Array; filter: string }> {
  if (filters.some((f) => ['JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'DCTDecode'].includes(f))) throw new LeftAsItIs(`${filters.join(' + ')} images are not converted`);
  const dict = stream.dict;
  const bpc = Math.trunc(getNumber(context, dict, 'BitsPerComponent') ?? 8);
  if (![1, 2, 4, 8, 16].includes(bpc)) throw new LeftAsItIs(`${bpc}-bit images are not converted`);
  const components = cs.family === 'Indexed' ? 1 : cs.components;
  if (!(components >= 1 && components <= 32)) throw new LeftAsItIs(`images in ${cs.label} are not converted`);
  const decode = decodeArray(context, dict);
  const invert = decode.length === 2 * components && decode.every((v, i) => v === (i % 2 === 0 ? 1 : 0)) && cs.family !== 'Indexed';
  if (decode.length && !invert) throw new LeftAsItIs('it has a /Decode array');
  const toRgb = await stripConverter(context, cs, csObj, bpc, job.budget, job.deviceCmyk);
  const rowBytes = Math.ceil((width * components * bpc) / 8);
  const unpack = unpacker(width, components, bpc, cs.family === 'Indexed', invert);
  const sink = new RowSink(width, height, target);
  const stripRows = Math.max(1, Math.floor(STRIP_BYTES / Math.max(rowBytes, width * components)));
  let strip = new Uint8Array(stripRows * width * components);
  let inStrip = 0;
  let rowsSeen = 0;
  const flush = async () => {
    if (!inStrip) return;
    const rgb = await toRgb(strip.subarray(0, inStrip * width * components), width, inStrip);
    await sink.add(rgb, inStrip);
    inStrip = 0;
  };
  const rows = new ImageRows(rowBytes, height, (row) => {
    unpack(row, strip.subarray(inStrip * width * components, (inStrip + 1) * width * components));
    inStrip++;
    rowsSeen++;
    return inStrip === stripRows;
  });
  await decodeRows(context, stream, filters, rowBytes * height, rows, flush, job.budget);
  await flush();
  strip = new Uint8Array(0);
  if (rowsSeen < height) throw new LeftAsItIs(`its data ends after ${rowsSeen} of ${height} rows`);
  return { data: await sink.finish(), filter: 'FlateDecode' };
}

/**
 * Cuts decoded bytes into image rows. `emit` returns true when a strip is full: the caller then
 * converts it before more rows come.
 */
class ImageRows {
  private row: Uint8Array;
  private fill = 0;
  count = 0;
  constructor(
    readonly rowBytes: number,
    readonly height: number,
    private readonly emit: (row: Uint8Array) => boolean,
  ) {
    this.row = new Uint8Array(rowBytes);
  }

  get done(): boolean {
    return this.count >= this.height;
  }

  /** Takes decoded bytes; returns the offset it stopped at when a strip filled up (-1: all taken, the strip not full). */
  push(chunk: Uint8Array, from = 0): number {
    let at = from;
    while (at < chunk.length && !this.done) {
      const n = Math.min(chunk.length - at, this.rowBytes - this.fill);
      this.row.set(chunk.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill < this.rowBytes) return -1;
      this.fill = 0;
      this.count++;
      if (this.emit(this.row)) return at;
    }
    return -1;
  }
}

/**
 * Feeds the image's decoded bytes to `rows`, converting each full strip (`flush`) before going on.
 * A bare Flate stream (with any predictor) is inflated in chunks and stops once the image's rows are
 * read (trailing data is ignored, as readers do); other chains are decoded to the image's size at
 * most.
 */
async function decodeRows(context: PDFContext, stream: PDFRawStream, filters: string[], expectedBytes: number, rows: ImageRows, flush: () => Promise<void>, budget: DecodeBudget): Promise<void> {
  const params = filterParamsOf(context, stream.dict, filters.length);
  const feed = async (chunk: Uint8Array) => {
    let at = 0;
    while (!rows.done && at < chunk.length) {
      const stop = rows.push(chunk, at);
      if (stop < 0) return;
      await flush();
      at = stop;
    }
  };
  if (filters.length === 0) {
    budget.chargeDecoded(Math.min(stream.contents.length, expectedBytes), 'an image');
    await feed(stream.contents.subarray(0, expectedBytes));
    return;
  }
  // The filters before the last (ASCII85 before Flate…) decoded whole: they hold compressed data.
  const last = filters.length - 1;
  let data = stream.contents;
  if (last > 0) data = wholeDecode(data, filters.slice(0, last), params.slice(0, last), { maxBytes: MAX_WHOLE_DECODE_BYTES, budget, what: 'an image' });
  if (filters[last] === 'FlateDecode') {
    const predictor = new Predictor(params[last], expectedBytes);
    const inflate = createInflate({ chunkSize: 1 << 16 });
    inflate.end(data);
    const chunks = inflate[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (error) {
          // A damaged end: the rows read so far stand, and the caller says how many are missing.
          if (rows.count === 0) throw new LeftAsItIs(`its Flate data is corrupt (${(error as Error).message})`);
          break;
        }
        if (next.done) break;
        budget.chargeDecoded(next.value.length, 'an image');
        await feed(predictor.push(next.value));
        if (rows.done) break;
      }
    } finally {
      inflate.destroy();
    }
    await feed(predictor.end());
    return;
  }
  if (expectedBytes > MAX_WHOLE_DECODE_BYTES) throw new LeftAsItIs(`${filters.join(' + ')} images over ${grouped(MAX_WHOLE_DECODE_BYTES)} bytes are not converted`);
  await feed(wholeDecode(data, filters.slice(last), params.slice(last), { maxBytes: expectedBytes, prefix: expectedBytes, budget, what: 'an image' }));
}

/** {@link decodeFilters}, a stream that cannot be decoded said as the reason the image is left. */
function wholeDecode(data: Uint8Array, filters: readonly string[], params: readonly (FilterParams | undefined)[], options: Parameters<typeof decodeFilters>[3]): Uint8Array {
  try {
    return decodeFilters(data, filters, params, options);
  } catch (error) {
    if (error instanceof StreamDecodeError) throw new LeftAsItIs(`it cannot be decoded (${error.message})`);
    throw error;
  }
}

/**
 * The PNG (10–15) or TIFF (2) predictor of a Flate stream undone as the data comes, with the rows
 * its own parameters give (which need not be the image's). Rows longer than the image's data are
 * refused (nothing a real file has).
 */
class Predictor {
  private readonly kind: 'none' | 'png' | 'tiff';
  private readonly rowLength: number;
  private readonly bpp: number;
  private readonly bpc: number;
  private readonly colors: number;
  private readonly stride: number;
  private cur: Uint8Array;
  private prev: Uint8Array;
  private fill = 0;

  constructor(params: FilterParams | undefined, expectedBytes: number) {
    const predictor = params?.predictor ?? 1;
    this.kind = predictor >= 10 ? 'png' : predictor === 2 ? 'tiff' : 'none';
    this.colors = Math.trunc(params?.colors ?? 1);
    this.bpc = [1, 2, 4, 8, 16].includes(params?.bitsPerComponent ?? 8) ? (params?.bitsPerComponent ?? 8) : 8;
    const columns = Math.trunc(params?.columns ?? 1);
    if (this.kind !== 'none' && (!(this.colors >= 1 && this.colors <= 32) || !(columns >= 1))) {
      throw new LeftAsItIs(`its predictor parameters (/Colors ${params?.colors}, /Columns ${params?.columns}) are out of range`);
    }
    this.rowLength = this.kind === 'none' ? 0 : Math.ceil((this.colors * this.bpc * columns) / 8);
    if (this.rowLength > Math.max(expectedBytes, 1) + 16) throw new LeftAsItIs(`its predictor rows (${grouped(this.rowLength)} bytes) are longer than the whole image`);
    this.bpp = Math.max(1, Math.ceil((this.colors * this.bpc) / 8));
    this.stride = this.rowLength + (this.kind === 'png' ? 1 : 0);
    this.cur = new Uint8Array(this.stride);
    this.prev = new Uint8Array(this.stride);
  }

  /** The decoded bytes of `chunk` that complete rows (a view valid until the next call). */
  push(chunk: Uint8Array): Uint8Array {
    if (this.kind === 'none') return chunk;
    const out = new Uint8Array(Math.floor((this.fill + chunk.length) / this.stride) * this.rowLength);
    let o = 0;
    let at = 0;
    while (at < chunk.length) {
      const n = Math.min(chunk.length - at, this.stride - this.fill);
      this.cur.set(chunk.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill < this.stride) break;
      this.fill = 0;
      const row = this.kind === 'png' ? this.unfilterPng() : this.undoTiff();
      out.set(row, o);
      o += row.length;
      const t = this.prev;
      this.prev = this.cur;
      this.cur = t;
    }
    return out.subarray(0, o);
  }

  /** A last partial row, as readers keep it. */
  end(): Uint8Array {
    if (this.kind === 'none' || this.fill === 0) return new Uint8Array(0);
    const partial = this.cur.subarray(this.kind === 'png' ? 1 : 0, this.fill);
    this.fill = 0;
    return partial.slice();
  }

  private unfilterPng(): Uint8Array {
    // A type PNG does not define leaves the row as it is (as pdf.js and MuPDF do).
    unfilterPngRow(this.cur[0]!, this.cur.subarray(1), this.prev.subarray(1), this.bpp);
    return this.cur.subarray(1);
  }

  private undoTiff(): Uint8Array {
    const row = this.cur;
    const n = this.colors;
    if (this.bpc === 8) for (let i = n; i < row.length; i++) row[i] = (row[i]! + row[i - n]!) & 0xff;
    else if (this.bpc === 16) {
      for (let i = 2 * n; i + 1 < row.length; i += 2) {
        const v = (((row[i]! << 8) | row[i + 1]!) + ((row[i - 2 * n]! << 8) | row[i - 2 * n + 1]!)) & 0xffff;
        row[i] = v >> 8;
        row[i + 1] = v & 0xff;
      }
    }
    return row;
  }
}

/**
 * Unpacks one row of `bpc`-bit samples into 8-bit samples: scaled to 0–255 (16-bit: the high
 * byte), or kept as they are for palette indices; inverted for /Decode [1 0 …].
 */
function unpacker(width: number, components: number, bpc: number, indices: boolean, invert: boolean): (row: Uint8Array, out: Uint8Array) => void {
  const n = width * components;
  const max = (1 << bpc) - 1;
  const scale = indices ? 1 : 255 / max;
  return (row, out) => {
    if (bpc === 8) out.set(row.subarray(0, n));
    else if (bpc === 16) for (let i = 0; i < n; i++) out[i] = row[2 * i]!;
    else {
      const perByte = 8 / bpc;
      for (let i = 0; i < n; i++) {
        const byte = row[(i / perByte) | 0]!;
        const v = (byte >> (8 - bpc * ((i % perByte) + 1))) & max;
        out[i] = indices ? v : Math.round(v * scale);
      }
    }
    if (invert) for (let i = 0; i < n; i++) out[i] = 255 - out[i]!;
  };
}

/**
 * Where converted rows go: reduced to the target size row by row when smaller (area averaging),
 * and deflated as they come. Memory: a few rows and the compressed output.
 */
class RowSink {
  private readonly deflate = createDeflate({ level: 6 });
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private failure: Error | undefined;
  private readonly reducer: BoxReducer | null;
  private readonly pending: Uint8Array[] = [];

  constructor(
    private readonly width: number,
    height: number,
    target: { width: number; height: number },
  ) {
    this.deflate.on('data', (chunk: Buffer) => {
      this.size += chunk.length;
      if (this.size > MAX_OUTPUT_BYTES) this.failure ??= new LeftAsItIs(`re-encoded it would take more than ${grouped(MAX_OUTPUT_BYTES)} bytes`);
      else this.chunks.push(chunk);
    });
    this.deflate.on('error', (error) => (this.failure ??= error));
    this.reducer = target.width !== width || target.height !== height ? new BoxReducer(width, height, 3, target.width, target.height, 8, (row) => this.pending.push(row.slice())) : null;
  }

  async add(rgb: Uint8Array, rows: number): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.reducer) {
      for (let r = 0; r < rows; r++) this.reducer.addRow(rgb.subarray(r * this.width * 3, (r + 1) * this.width * 3));
      const out = this.pending.splice(0);
      for (const row of out) await this.write(row);
    } else await this.write(rgb);
  }

  private async write(data: Uint8Array): Promise<void> {
    if (!this.deflate.write(data)) await new Promise<void>((resolve) => this.deflate.once('drain', resolve));
    if (this.failure) throw this.failure;
  }

  async finish(): Promise<Uint8Array> {
    if (this.reducer) {
      this.reducer.finish();
      for (const row of this.pending.splice(0)) await this.write(row);
    }
    await new Promise<void>((resolve, reject) => {
      this.deflate.once('end', resolve);
      this.deflate.once('error', reject);
      this.deflate.end();
      this.deflate.resume();
    });
    if (this.failure) throw this.failure;
    return new Uint8Array(Buffer.concat(this.chunks));
  }
}

function replaceImage(context: PDFContext, ref: PDFRef, old: PDFDict, data: Uint8Array, width: number, height: number, filter: string) {
  const dict = context.obj({}) as PDFDict;
  const drop = new Set(['Filter', 'DecodeParms', 'ColorSpace', 'Decode', 'Length', 'BitsPerComponent', 'Width', 'Height']);
  for (const [key, value] of old.entries()) if (!drop.has(key.decodeText())) dict.set(key, value);
  dict.set(PDFName.of('Width'), PDFNumber.of(width));
  dict.set(PDFName.of('Height'), PDFNumber.of(height));
  dict.set(PDFName.of('BitsPerComponent'), PDFNumber.of(8));
  dict.set(PDFName.of('ColorSpace'), PDFName.of('DeviceRGB'));
  dict.set(PDFName.of('Filter'), PDFName.of(filter));
  dict.set(PDFName.of('Length'), PDFNumber.of(data.length));
  context.assign(ref, PDFRawStream.of(dict, data));
}
