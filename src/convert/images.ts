/**
 * Rewrites one image XObject: to sRGB (through lcms, honouring the PDF's ICC profile), and/or
 * downsampled to a pixel cap. A JPEG stays a JPEG (re-encoded at `jpegQuality`), anything else is
 * stored losslessly (Flate). Soft masks and other entries of the image dictionary are kept.
 */
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { PDFArray, PDFName, PDFNumber, PDFRawStream, type PDFContext, type PDFDict, type PDFObject, type PDFRef } from '../pdf/pdf-lib.js';
import { ColourSpaceResolver } from '../pdf/colour-space.js';
import type { ColourSpaceFacts } from '../pdf/facts.js';
import { parseFunction } from '../pdf/functions.js';
import { bytesOf, get, getBool, getNumber, items, numberOf, resolve } from '../pdf/objects.js';
import type { DecodeBudget } from '../pdf/decode-budget.js';
import { decodeStream, filtersOf, fullFilterName } from '../pdf/streams.js';
import { hasAdobeMarker } from '../raster/fast-path.js';
import { samplesToSrgb } from './colour.js';
import type { SampleModel } from './tiff.js';

export interface ImageRewrite {
  toSrgb: boolean;
  /** Longest side allowed, or null. */
  maxPx: number | null;
  jpegQuality: number;
  /** The file's decode budget: every stream decoded draws on it. */
  budget?: DecodeBudget | undefined;
}

export type ImageResult = { changed: true; what: string } | { changed: false; why: string | null };

const DECODE_LIMIT = 2 * 1024 * 1024 * 1024;

export async function rewriteImage(context: PDFContext, ref: PDFRef, colourSpaces: ColourSpaceResolver, job: ImageRewrite): Promise<ImageResult> {
  const stream = context.lookup(ref);
  if (!(stream instanceof PDFRawStream)) return { changed: false, why: null };
  const dict = stream.dict;
  if (getBool(context, dict, 'ImageMask')) return { changed: false, why: null };
  const width = Math.trunc(getNumber(context, dict, 'Width') ?? 0);
  const height = Math.trunc(getNumber(context, dict, 'Height') ?? 0);
  if (!width || !height) return { changed: false, why: 'the image has no size' };
  const csObj = get(context, dict, 'ColorSpace');
  const cs = csObj ? colourSpaces.describe(csObj, undefined) : null;
  const filters = filtersOf(context, dict).map(fullFilterName);
  const tooLarge = job.maxPx !== null && Math.max(width, height) > job.maxPx;
  const convert = job.toSrgb && cs !== null && !(cs.model === 'rgb' && cs.family !== 'Indexed');
  if (!tooLarge && !convert) return { changed: false, why: null };
  if (!cs) return { changed: false, why: 'its colour space is inside the JPEG 2000 data' };
  const label = cs.label;

  let rgb: Uint8Array;
  try {
    const pixels = await decodeToRgb(context, stream, dict, cs, csObj, width, height, filters, job.budget);
    if (typeof pixels === 'string') return { changed: false, why: pixels };
    rgb = pixels;
  } catch (error) {
    return { changed: false, why: `it cannot be decoded (${(error as Error).message})` };
  }
  let w = width;
  let h = height;
  let img = sharp(rgb, { raw: { width, height, channels: 3 }, limitInputPixels: false });
  if (tooLarge) {
    const s = job.maxPx! / Math.max(width, height);
    w = Math.max(1, Math.floor(width * s));
    h = Math.max(1, Math.floor(height * s));
    img = img.resize(w, h, { fit: 'fill', kernel: 'lanczos3' });
  }
  const wasJpeg = filters.length === 1 && filters[0] === 'DCTDecode';
  let data: Uint8Array;
  let filter: string;
  if (wasJpeg) {
    data = new Uint8Array(await img.jpeg({ quality: job.jpegQuality, chromaSubsampling: '4:4:4' }).toBuffer());
    filter = 'DCTDecode';
  } else {
    data = new Uint8Array(deflateSync(tooLarge ? await img.raw().toBuffer() : rgb));
    filter = 'FlateDecode';
  }
  replaceImage(context, ref, dict, data, w, h, filter);
  const parts = [convert ? `${label} → sRGB` : null, tooLarge ? `${width} × ${height} → ${w} × ${h} px` : null].filter(Boolean);
  return { changed: true, what: parts.join(', ') };
}

async function decodeToRgb(
  context: PDFContext,
  stream: PDFRawStream,
  dict: PDFDict,
  cs: ColourSpaceFacts,
  csObj: PDFObject | undefined,
  width: number,
  height: number,
  filters: string[],
  budget: DecodeBudget | undefined,
): Promise<Uint8Array | string> {
  const bpc = Math.trunc(getNumber(context, dict, 'BitsPerComponent') ?? 8);
  const decode = resolve(context, dict.get(PDFName.of('Decode')));
  const decodeValues = decode instanceof PDFArray ? items(context, decode).map(numberOf) : [];
  const inverted = decodeValues.length > 0 && decodeValues[0] === 1 && decodeValues[1] === 0;
  const iccOf = (space: PDFObject | undefined): Uint8Array | undefined => {
    const arr = resolve(context, space);
    if (!(arr instanceof PDFArray)) return undefined;
    const parts = items(context, arr);
    if (parts[0]?.toString() !== '/ICCBased' || !(parts[1] instanceof PDFRawStream)) return undefined;
    try {
      return decodeStream(context, parts[1], { maxBytes: 16 * 1024 * 1024, budget });
    } catch {
      return undefined;
    }
  };
  const modelOf = (c: ColourSpaceFacts): SampleModel | null =>
    c.model === 'cmyk' ? 'cmyk' : c.model === 'gray' ? 'gray' : c.model === 'rgb' ? 'rgb' : null;

  if (filters.length === 1 && filters[0] === 'DCTDecode') {
    const model = modelOf(cs);
    if (!model || cs.family === 'Indexed') return `a JPEG in ${cs.label} is not converted`;
    if (model === 'cmyk' && hasAdobeMarker(stream.contents) !== inverted) return 'its /Decode array and JPEG markers disagree';
    if (model !== 'cmyk' && decodeValues.length) return 'it has a /Decode array';
    const raw = await sharp(stream.contents, { limitInputPixels: false, failOn: 'none' })
      .toColourspace(model === 'cmyk' ? 'cmyk' : model === 'gray' ? 'b-w' : 'srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (raw.info.width !== width || raw.info.height !== height) return 'the JPEG does not have the size the PDF says';
    const samples = new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
    return model === 'rgb' ? samples : samplesToSrgb(samples, width, height, model, iccOf(csObj));
  }
  if (filters.some((f) => ['JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'DCTDecode'].includes(f))) return `${filters.join(' + ')} images are not converted`;
  const samples = decodeStream(context, stream, { maxBytes: DECODE_LIMIT, budget, what: 'an image' });
  if (cs.family === 'Indexed') {
    const arr = items(context, resolve(context, csObj) as PDFArray);
    const base = cs.base!;
    const baseModel = modelOf(base);
    if (!baseModel) return `Indexed over ${base.label} is not converted`;
    const lookupObj = arr[3];
    const lookup = bytesOf(lookupObj) ?? (lookupObj instanceof PDFRawStream ? decodeStream(context, lookupObj, { maxBytes: 4096 * 4, budget }) : undefined);
    if (!lookup) return 'its palette cannot be read';
    if (decodeValues.length) return 'it has a /Decode array';
    const n = base.components;
    const expanded = new Uint8Array(width * height * n);
    const rowBytes = Math.ceil((width * bpc) / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = x * bpc;
        const byte = samples[y * rowBytes + (bit >> 3)] ?? 0;
        const index = bpc === 8 ? byte : (byte >> (8 - bpc - (bit & 7))) & ((1 << bpc) - 1);
        for (let c = 0; c < n; c++) expanded[(y * width + x) * n + c] = lookup[index * n + c] ?? 0;
      }
    }
    return baseModel === 'rgb' ? expanded : samplesToSrgb(expanded, width, height, baseModel, iccOf(arr[1]));
  }
  if (bpc !== 8 && bpc !== 16) return `${bpc}-bit images are not converted`;
  if (decodeValues.length) return 'it has a /Decode array';
  // 16-bit samples (big-endian): their high bytes.
  const eight = bpc === 16 ? samples.filter((_, i) => i % 2 === 0) : samples;
  if (cs.family === 'Separation' || cs.family === 'DeviceN') return spotToRgb(context, csObj, cs, eight, width, height, iccOf);
  const model = modelOf(cs);
  if (!model) return `images in ${cs.label} are not converted`;
  return model === 'rgb' ? eight : samplesToSrgb(eight, width, height, model, iccOf(csObj));
}

/** Spot-colour samples → their alternate space (the tint transform, cached per distinct tint) → sRGB. */
async function spotToRgb(
  context: PDFContext,
  csObj: PDFObject | undefined,
  cs: ColourSpaceFacts,
  samples: Uint8Array,
  width: number,
  height: number,
  iccOf: (space: PDFObject | undefined) => Uint8Array | undefined,
): Promise<Uint8Array | string> {
  const arr = items(context, resolve(context, csObj) as PDFArray);
  const why: string[] = [];
  const fn = parseFunction(context, arr[3], why);
  const alt = cs.base;
  const altModel = alt?.model === 'cmyk' ? 'cmyk' : alt?.model === 'gray' ? 'gray' : alt?.model === 'rgb' ? 'rgb' : null;
  if (!fn || !altModel) return `its tint transform cannot be evaluated (${why.join('; ') || `alternate ${alt?.label}`})`;
  const n = cs.components;
  const outN = altModel === 'cmyk' ? 4 : altModel === 'gray' ? 1 : 3;
  const out = new Uint8Array(width * height * outN);
  const cache = new Map<string, number[]>();
  for (let p = 0; p < width * height; p++) {
    const tints = Array.from({ length: n }, (_, c) => samples[p * n + c]! / 255);
    const key = tints.join(',');
    let v = cache.get(key);
    if (!v) {
      v = fn(tints);
      if (cache.size < 1 << 16) cache.set(key, v);
    }
    for (let c = 0; c < outN; c++) out[p * outN + c] = Math.round(Math.max(0, Math.min(1, v[c] ?? 0)) * 255);
  }
  return altModel === 'rgb' ? out : samplesToSrgb(out, width, height, altModel, iccOf(arr[2]));
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
