/** The raw stream of a page's one image, for the fast paths (fast-path.ts, flate-path.ts). */
import type { PDFDocument } from '../pdf/pdf-lib.js';
import { N, PDFArray, PDFDict, PDFRawStream, PDFRef, items, numberOf, resolve } from '../pdf/objects.js';
import { PDFBool } from '../pdf/pdf-lib.js';

export interface JpegStream {
  /** The stream's raw (still encoded) bytes. */
  data: Uint8Array;
  /** Its /Decode array inverts the first component ([1 0 …]; Adobe CMYK JPEGs say so). */
  decodeInverted: boolean;
  /** /Interpolate true: an enlarged image is smoothed; otherwise readers show hard pixels. */
  interpolate: boolean;
}

export interface ImageStream extends JpegStream {
  hasDecode: boolean;
  /** Its /DecodeParms (Flate row prediction). */
  parms: { predictor: number; colors: number; bitsPerComponent: number; columns: number };
}

/** The raw bytes of image XObject `refLabel` ("12 0 R"), with what its /Decode and /DecodeParms say; null when unusable. */
export function imageStreamOf(pdf: PDFDocument, refLabel: string): ImageStream | null {
  if (pdf.context.trailerInfo.Encrypt) return null; // encrypted streams: pdf.js decrypts them
  const [num, gen] = refLabel.split(' ').map(Number);
  if (!Number.isInteger(num) || !Number.isInteger(gen)) return null;
  const stream = pdf.context.lookup(PDFRef.of(num!, gen!));
  if (!(stream instanceof PDFRawStream)) return null;
  const decode = resolve(pdf.context, stream.dict.get(N('Decode')));
  const values = decode instanceof PDFArray ? items(pdf.context, decode).map(numberOf) : [];
  const decodeInverted = values.length > 0 && values[0] === 1 && values[1] === 0;
  const parmsDict = resolve(pdf.context, stream.dict.get(N('DecodeParms')));
  const parm = (key: string, fallback: number) => {
    const v = parmsDict instanceof PDFDict ? numberOf(resolve(pdf.context, parmsDict.get(N(key)))) : undefined;
    return v ?? fallback;
  };
  const parms = { predictor: parm('Predictor', 1), colors: parm('Colors', 1), bitsPerComponent: parm('BitsPerComponent', 8), columns: parm('Columns', 1) };
  const interpolateObj = resolve(pdf.context, stream.dict.get(N('Interpolate')));
  const interpolate = interpolateObj instanceof PDFBool && interpolateObj.asBoolean();
  return { data: stream.contents, hasDecode: decode !== undefined, decodeInverted, interpolate, parms };
}

/** What a JPEG plan needs of its stream (the caller may send it to the worker). */
export function jpegStream(pdf: PDFDocument, refLabel: string): JpegStream | null {
  const s = imageStreamOf(pdf, refLabel);
  return s ? { data: s.data, decodeInverted: s.decodeInverted, interpolate: s.interpolate } : null;
}
