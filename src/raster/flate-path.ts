/**
 * The fast path for pages that are one Flate (or uncompressed) image: img2pdf's pages from PNGs,
 * ImageMagick's, most "export as PDF" of a flattened picture. pdf.js would inflate the whole image
 * (a 200 × 200 cm duvet at 150 ppi is 139 megapixels, over 1 GB in a worker); here the stream is
 * inflated in chunks, the PNG / TIFF predictor is undone row by row (it needs only the row above),
 * and each row is area-averaged (a box filter) straight into a buffer of at most the preview's size.
 * Memory is the preview plus a few rows, whatever the image's size. sharp then turns, mirrors and
 * places that small buffer exactly as it does the JPEG path's.
 *
 * Taken: 8- or 16-bit DeviceGray / DeviceRGB / ICCBased with 1 or 3 components (drawn as device
 * gray / RGB, as pdf.js does), and Separation / DeviceN / NChannel images of up to 8 inks whose tint
 * transform can be evaluated (functions.ts), reduced in their own components and then turned into
 * their alternate space (gray, RGB, or CMYK drawn as uncalibrated RGB) — the readers do so, and
 * PDFium and pdf.js draw some of them white (itext's deviceN8bitDeviceCMYK: a sampled function with
 * a /Size 1 dimension); no mask, /Decode absent, [0 1 …] or [1 0 …]. Anything else — CMYK,
 * Indexed, other bit depths, masks, other filters — returns null and pdf.js renders the page
 * within the render budget, as before.
 */
import { createInflate } from 'node:zlib';
import { PDFArray, PDFBool, PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFContext, type PDFObject } from '../pdf/pdf-lib.js';
import { drawPlaced, placement } from './fast-path.js';
import type { ImagePlan } from './image-plan.js';
import type { RawPixels } from './pixels.js';
import { loadSharp } from './sharp.js';
import { unfilterPngRow } from '../pdf/png-predictor.js';
import { own } from '../util/own.js';
import { parseFunction, type PdfFunction } from '../pdf/functions.js';

const COMPONENTS: Record<string, number> = { DeviceGray: 1, DeviceRGB: 3 };

// Planning needs no pdf-lib (the caller plans from facts, often without having parsed the file).
export { IMAGE_UNREADABLE } from './fast-path.js';
export { flatePlan } from './image-plan.js';

/** An image stream as the Flate path reads it. */
export interface FlateImage {
  /** The stream's bytes, still compressed unless `compressed` is false. */
  data: Uint8Array;
  compressed: boolean;
  widthPx: number;
  heightPx: number;
  /** Components per pixel in the data (a DeviceN image: one per ink). */
  components: number;
  bitsPerComponent: 8 | 16;
  /** Spot and DeviceN images: how a pixel's tints become its alternate space's colour. */
  tint?: Tint;
  /** 1: none; 2: TIFF horizontal differencing; 10–15: PNG filters, one per row. */
  predictor: number;
  /** /Decode [1 0 …]: every component inverted. */
  decodeInverted: boolean;
  interpolate: boolean;
}

/** A Separation or DeviceN space: the tint transform and the alternate space it paints in. */
export interface Tint {
  transform: PdfFunction;
  alternate: 'gray' | 'rgb' | 'cmyk';
}

/**
 * Reads an image XObject's dictionary; null when the Flate path cannot draw it exactly (an
 * unexpected filter, colour space, bit depth, predictor layout, /Decode array or any mask).
 */
export function readFlateImage(context: PDFContext, stream: PDFRawStream): FlateImage | null {
  const dict = stream.dict;
  const get = (key: string): PDFObject | undefined => {
    const value = dict.get(PDFName.of(key));
    return value ? context.lookup(value) : undefined;
  };
  const int = (o: PDFObject | undefined): number | null => (o instanceof PDFNumber && Number.isInteger(o.asNumber()) ? o.asNumber() : null);
  if (get('SMask') || get('Mask') || get('ImageMask') instanceof PDFBool) return null;
  let filter = get('Filter');
  if (filter instanceof PDFArray) {
    if (filter.size() > 1) return null;
    filter = filter.size() === 1 ? context.lookup(filter.get(0)) : undefined;
  }
  if (filter !== undefined && !(filter instanceof PDFName && filter.asString() === '/FlateDecode')) return null;
  const compressed = filter !== undefined;
  const widthPx = int(get('Width'));
  const heightPx = int(get('Height'));
  const bits = int(get('BitsPerComponent'));
  if (!widthPx || !heightPx || widthPx < 1 || heightPx < 1 || (bits !== 8 && bits !== 16)) return null;
  const cs = get('ColorSpace');
  const tint = inkSpace(context, cs);
  const components = tint ? tint.components : colourComponents(context, cs);
  if (!tint && components !== 1 && components !== 3) return null;
  if (tint === null) return null;

  let predictor = 1;
  let parms = get('DecodeParms');
  if (parms instanceof PDFArray) parms = parms.size() === 1 ? context.lookup(parms.get(0)) : undefined;
  if (parms instanceof PDFDict && compressed) {
    const p = (key: string, fallback: number) => {
      const v = parms instanceof PDFDict ? parms.get(PDFName.of(key)) : undefined;
      return v === undefined ? fallback : int(context.lookup(v));
    };
    predictor = p('Predictor', 1) ?? -1;
    if (predictor !== 1 && predictor !== 2 && (predictor < 10 || predictor > 15)) return null;
    // The predictor's row layout must be the image's own, or rows would not line up.
    if (predictor !== 1 && (p('Colors', 1) !== components || p('BitsPerComponent', 8) !== bits || p('Columns', 1) !== widthPx)) return null;
  }

  let decodeInverted = false;
  const decode = get('Decode');
  if (decode instanceof PDFArray) {
    const values = decode
      .asArray()
      .map((v) => context.lookup(v))
      .map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN));
    if (values.length !== 2 * components) return null;
    const identity = values.every((v, i) => v === (i % 2 === 0 ? 0 : 1));
    decodeInverted = values.every((v, i) => v === (i % 2 === 0 ? 1 : 0));
    if (!identity && !decodeInverted) return null;
  } else if (decode !== undefined) return null;
  const interpolate = get('Interpolate');
  return {
    data: stream.contents,
    compressed,
    widthPx,
    heightPx,
    components,
    bitsPerComponent: bits,
    predictor,
    decodeInverted,
    interpolate: interpolate instanceof PDFBool && interpolate.asBoolean(),
    ...(tint ? { tint: { transform: tint.transform, alternate: tint.alternate } } : {}),
  };
}

/**
 * A Separation, DeviceN or NChannel space whose tint transform can be evaluated: its inks and
 * alternate; undefined when `cs` is not such a space, null when it is one the Flate path cannot
 * draw (the /None separation paints nothing; an alternate or function it cannot read).
 */
function inkSpace(context: PDFContext, cs: PDFObject | undefined): (Tint & { components: number }) | null | undefined {
  if (!(cs instanceof PDFArray) || cs.size() < 4) return undefined;
  const family = context.lookup(cs.get(0));
  const kind = family instanceof PDFName ? family.asString() : '';
  if (kind !== '/Separation' && kind !== '/DeviceN' && kind !== '/NChannel') return undefined;
  const names = context.lookup(cs.get(1));
  let components: number;
  if (kind === '/Separation') {
    if (!(names instanceof PDFName) || names.asString() === '/None') return null;
    components = 1;
  } else {
    if (!(names instanceof PDFArray) || names.size() < 1 || names.size() > 8) return null;
    if (
      names.asArray().every((n) => {
        const v = context.lookup(n);
        return v instanceof PDFName && v.asString() === '/None';
      })
    )
      return null;
    components = names.size();
  }
  const alternate = alternateModel(context, context.lookup(cs.get(2)));
  // Device CMYK is where the readers part: Ghostscript prints it through an ICC profile, pdf.js
  // with its own polynomial, MuPDF as (1 − c)(1 − k)… (25 levels apart on a gradient). pdf.js
  // draws those itself, except behind a sampled tint transform with a dimension of /Size 1, which
  // it and PDFium draw white: those are drawn here, as MuPDF draws them.
  if (alternate === 'cmyk' && !sampledWithSizeOne(context, cs.get(3))) return null;
  const transform = alternate ? parseFunction(context, cs.get(3)) : null;
  if (!alternate || !transform) return null;
  return { components, alternate, transform };
}

/** A sampled function (type 0) one of whose /Size entries is 1: pdf.js and PDFium evaluate it as white. */
function sampledWithSizeOne(context: PDFContext, fn: PDFObject | undefined): boolean {
  const f = context.lookup(fn);
  const dict = f instanceof PDFRawStream ? f.dict : f instanceof PDFDict ? f : undefined;
  if (!dict) return false;
  const type = context.lookup(dict.get(PDFName.of('FunctionType')));
  const size = context.lookup(dict.get(PDFName.of('Size')));
  return (
    type instanceof PDFNumber &&
    type.asNumber() === 0 &&
    size instanceof PDFArray &&
    size.asArray().some((n) => {
      const v = context.lookup(n);
      return v instanceof PDFNumber && v.asNumber() === 1;
    })
  );
}

/** The model of a tint transform's alternate space (device spaces, or ICCBased by /N). */
function alternateModel(context: PDFContext, alt: PDFObject | undefined): Tint['alternate'] | null {
  if (alt instanceof PDFName) return own({ '/DeviceGray': 'gray', '/DeviceRGB': 'rgb', '/DeviceCMYK': 'cmyk' } as const, alt.asString()) ?? null;
  const n = colourComponents(context, alt, true);
  return n === 1 ? 'gray' : n === 3 ? 'rgb' : n === 4 ? 'cmyk' : null;
}

/**
 * Reduced samples of a spot or DeviceN image turned into RGB through its tint transform (each
 * distinct colour evaluated once). CMYK alternates are drawn as uncalibrated RGB (1 − c)(1 − k)…:
 * a preview, as pdf.js draws device CMYK.
 */
export function tintToRgb(reduced: { data: Uint8Array; width: number; height: number }, components: number, tint: Tint): Uint8Array {
  const { data, width, height } = reduced;
  const out = new Uint8Array(width * height * 3);
  const seen = new Map<string, [number, number, number]>();
  const input = new Array<number>(components);
  for (let p = 0, o = 0; p < data.length; p += components, o += 3) {
    const key = components === 1 ? String(data[p]) : data.subarray(p, p + components).join(',');
    let rgb = seen.get(key);
    if (!rgb) {
      for (let c = 0; c < components; c++) input[c] = data[p + c]! / 255;
      const v = tint.transform(input).map((x) => Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)));
      rgb =
        tint.alternate === 'gray'
          ? ([v[0] ?? 0, v[0] ?? 0, v[0] ?? 0].map((x) => Math.round(255 * x)) as [number, number, number])
          : tint.alternate === 'rgb'
            ? ([0, 1, 2].map((i) => Math.round(255 * (v[i] ?? 0))) as [number, number, number])
            : ([0, 1, 2].map((i) => Math.round(255 * (1 - (v[i] ?? 0)) * (1 - (v[3] ?? 0)))) as [number, number, number]);
      if (seen.size < 65_536) seen.set(key, rgb);
    }
    out[o] = rgb[0];
    out[o + 1] = rgb[1];
    out[o + 2] = rgb[2];
  }
  return out;
}

/** Components of DeviceGray, DeviceRGB or an ICCBased space with /N 1 or 3 (with `cmyk`, also DeviceCMYK and /N 4); 0 for anything else. */
function colourComponents(context: PDFContext, cs: PDFObject | undefined, cmyk = false): number {
  if (cs instanceof PDFName) return cmyk && cs.asString() === '/DeviceCMYK' ? 4 : (own(COMPONENTS, cs.asString().slice(1)) ?? 0);
  if (!(cs instanceof PDFArray) || cs.size() !== 2) return 0;
  const family = context.lookup(cs.get(0));
  const profile = context.lookup(cs.get(1));
  if (!(family instanceof PDFName) || family.asString() !== '/ICCBased' || !(profile instanceof PDFRawStream)) return 0;
  const n = context.lookup(profile.dict.get(PDFName.of('N')));
  const count = n instanceof PDFNumber ? n.asNumber() : 0;
  return count === 4 && !cmyk ? 0 : count;
}

/** Why the Flate path gave a page back to pdf.js. */
export class FlateFallback extends Error {}

/**
 * Draws the page from its Flate image at `maxPx` on the longest side, streaming. Returns null when
 * the image is placed mostly off the page; throws FlateFallback when its data is corrupt or short
 * (pdf.js, more lenient, may still draw what is there).
 */
export async function renderFromFlate(image: FlateImage, plan: ImagePlan, maxPx: number): Promise<RawPixels | null> {
  if (image.widthPx !== plan.widthPx || image.heightPx !== plan.heightPx) return null;
  const at = placement(plan, maxPx);
  if (!at) return null;
  // The image's size in image orientation once placed; reduce each axis to it (never enlarge here).
  const turned = at.angle === 90 || at.angle === 270;
  const targetW = turned ? at.rh : at.rw;
  const targetH = turned ? at.rw : at.rh;
  const reducer = new BoxReducer(image.widthPx, image.heightPx, image.components, Math.min(image.widthPx, targetW), Math.min(image.heightPx, targetH), image.bitsPerComponent);
  const rows = new RowDecoder(image, (row) => reducer.addRow(row));
  await inflateInto(
    image,
    (chunk) => rows.push(chunk),
    () => rows.done(),
  );
  if (rows.count < image.heightPx) throw new FlateFallback(`its data ends after ${rows.count} of ${image.heightPx} rows`);
  const reduced = reducer.finish(image.decodeInverted);
  const sharp = await loadSharp();
  const pixels = image.tint ? tintToRgb(reduced, image.components, image.tint) : reduced.data;
  const input = sharp(pixels, { raw: { width: reduced.width, height: reduced.height, channels: image.tint ? 3 : (image.components as 1 | 3) } });
  return drawPlaced(input, plan, at, image.interpolate);
}

/** Feeds the stream's decoded bytes to `take` in chunks, stopping early when `enough` says so. */
async function inflateInto(image: FlateImage, take: (chunk: Uint8Array) => void, enough: () => boolean): Promise<void> {
  if (!image.compressed) {
    for (let i = 0; i < image.data.length && !enough(); i += 1 << 16) take(image.data.subarray(i, i + (1 << 16)));
    return;
  }
  const inflate = createInflate({ chunkSize: 1 << 16 });
  inflate.end(image.data);
  try {
    for await (const chunk of inflate) {
      take(chunk as Buffer);
      if (enough()) break; // trailing data past the last row is ignored, as readers do
    }
  } catch (error) {
    throw new FlateFallback(`its Flate data is corrupt (${(error as Error).message})`);
  } finally {
    inflate.destroy();
  }
}

/** Cuts the decoded bytes into rows and undoes the predictor; calls `emit` with each image row. */
export class RowDecoder {
  readonly rowBytes: number;
  private readonly bpp: number;
  private readonly png: boolean;
  private readonly tiff: boolean;
  private readonly stride: number;
  private cur: Uint8Array;
  private prev: Uint8Array;
  private fill = 0;
  count = 0;

  constructor(
    private readonly image: Pick<FlateImage, 'widthPx' | 'heightPx' | 'components' | 'bitsPerComponent' | 'predictor'>,
    private readonly emit: (row: Uint8Array) => void,
  ) {
    this.bpp = (image.components * image.bitsPerComponent) / 8;
    this.rowBytes = image.widthPx * this.bpp;
    this.png = image.predictor >= 10;
    this.tiff = image.predictor === 2;
    this.stride = this.rowBytes + (this.png ? 1 : 0);
    this.cur = new Uint8Array(this.stride);
    this.prev = new Uint8Array(this.stride); // the row above the first is zeros
  }

  done(): boolean {
    return this.count >= this.image.heightPx;
  }

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && !this.done()) {
      const n = Math.min(chunk.length - at, this.stride - this.fill);
      this.cur.set(chunk.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill < this.stride) return;
      this.fill = 0;
      if (this.png) this.unfilterPng();
      else if (this.tiff) this.undoTiff();
      this.emit(this.png ? this.cur.subarray(1) : this.cur);
      this.count++;
      const t = this.prev;
      this.prev = this.cur;
      this.cur = t;
    }
  }

  /** PNG filters (RFC 2083 §6), the type in each row's first byte. */
  private unfilterPng(): void {
    if (!unfilterPngRow(this.cur[0]!, this.cur.subarray(1), this.prev.subarray(1), this.bpp)) {
      throw new FlateFallback(`row ${this.count + 1} has an unknown PNG filter type ${this.cur[0]}`);
    }
  }

  /** TIFF predictor 2: each component is the difference from the same component to its left. */
  private undoTiff(): void {
    const row = this.cur;
    const n = this.image.components;
    if (this.image.bitsPerComponent === 8) {
      for (let i = n; i < row.length; i++) row[i] = (row[i]! + row[i - n]!) & 0xff;
      return;
    }
    for (let i = 2 * n; i + 1 < row.length; i += 2) {
      const v = (((row[i]! << 8) | row[i + 1]!) + ((row[i - 2 * n]! << 8) | row[i - 2 * n + 1]!)) & 0xffff;
      row[i] = v >> 8;
      row[i + 1] = v & 0xff;
    }
  }
}

/**
 * Area-averaging reduction of a `w` × `h` image to `tw` × `th` (each ≤ the source's), fed one row
 * at a time, top to bottom. Weights are exact: in units where a source pixel is `tw` wide and a
 * target pixel `w` wide, each source column overlaps at most two target columns (same for rows).
 * Keeps two accumulator rows and the output.
 */
export class BoxReducer {
  private readonly col0: Uint32Array;
  private readonly wx0: Float64Array;
  private readonly hrow: Float64Array;
  private acc: Float64Array;
  private next: Float64Array;
  private readonly out: Uint8Array;
  private readonly sixteen: boolean;
  private y = 0;
  private j = 0;

  constructor(
    private readonly w: number,
    private readonly h: number,
    private readonly c: number,
    readonly tw: number,
    readonly th: number,
    bitsPerComponent: 8 | 16 = 8,
    /** Each finished target row goes here instead of into one output buffer (a streaming consumer: the fix). */
    private readonly onRow?: (row: Uint8Array) => void,
  ) {
    this.sixteen = bitsPerComponent === 16;
    this.col0 = new Uint32Array(w);
    this.wx0 = new Float64Array(w);
    for (let x = 0; x < w; x++) {
      const i = Math.floor((x * tw) / w);
      this.col0[x] = i;
      this.wx0[x] = Math.min((x + 1) * tw, (i + 1) * w) - x * tw; // the rest, tw − wx0, goes to i + 1
    }
    this.hrow = new Float64Array((tw + 1) * c);
    this.acc = new Float64Array(tw * c);
    this.next = new Float64Array(tw * c);
    this.out = new Uint8Array(onRow ? tw * c : tw * th * c);
  }

  /** One decoded row: `w` × `c` samples of 8 bits, or 16 bits big-endian. */
  addRow(row: Uint8Array): void {
    if (this.y >= this.h) return;
    const { c, tw, w, hrow, col0, wx0 } = this;
    hrow.fill(0);
    for (let x = 0; x < w; x++) {
      const t = col0[x]! * c;
      const a = wx0[x]!;
      const b = tw - a;
      for (let k = 0; k < c; k++) {
        const v = this.sixteen ? ((row[2 * (x * c + k)]! << 8) | row[2 * (x * c + k) + 1]!) / 257 : row[x * c + k]!;
        hrow[t + k]! += a * v;
        if (b > 0) hrow[t + c + k]! += b * v;
      }
    }
    const th = this.th;
    const h = this.h;
    const y = this.y++;
    const j = Math.floor((y * th) / h);
    while (this.j < j) this.flush();
    const a = Math.min((y + 1) * th, (j + 1) * h) - y * th;
    const b = th - a;
    const acc = this.acc;
    const next = this.next;
    for (let i = 0; i < tw * c; i++) {
      acc[i]! += a * hrow[i]!;
      if (b > 0) next[i]! += b * hrow[i]!;
    }
  }

  /** Finishes target row `j` and moves on. */
  private flush(): void {
    if (this.j >= this.th) return;
    const norm = this.w * this.h;
    const base = this.onRow ? 0 : this.j * this.tw * this.c;
    for (let i = 0; i < this.acc.length; i++) this.out[base + i] = Math.min(255, Math.round(this.acc[i]! / norm));
    this.onRow?.(this.out);
    const t = this.acc;
    this.acc = this.next;
    this.next = t.fill(0);
    this.j++;
  }

  /** The reduced image, once every source row was added. */
  finish(invert = false): { data: Uint8Array; width: number; height: number } {
    while (this.j < this.th) this.flush();
    if (invert) for (let i = 0; i < this.out.length; i++) this.out[i] = 255 - this.out[i]!;
    return { data: this.out, width: this.tw, height: this.th };
  }
}
