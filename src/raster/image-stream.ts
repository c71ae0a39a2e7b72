/** The raw stream of a page's one image, for the fast paths (fast-path.ts, flate-path.ts). */
import type { PDFDocument } from '../pdf/pdf-lib.js';
import { N, PDFArray, PDFRawStream, PDFRef, items, numberOf, resolve } from '../pdf/objects.js';
import { PDFBool } from '../pdf/pdf-lib.js';

export interface JpegStream {
  /** The stream's raw (still encoded) bytes. */
  data: Uint8Array;
  /** Its /Decode array inverts the first component ([1 0 …]; Adobe CMYK JPEGs say so). */
  decodeInverted: boolean;
  /** /Interpolate true: an enlarged image is smoothed; otherwise readers show hard pixels. */
  interpolate: boolean;
}

/** Image XObject `refLabel` ("12 0 R") of a parsed document; null when encrypted (pdf.js decrypts those) or not a stream. */
export function imageXObject(pdf: PDFDocument, refLabel: string): PDFRawStream | null {
  if (pdf.context.trailerInfo.Encrypt) return null;
  const [num, gen] = refLabel.split(' ').map(Number);
  if (!Number.isInteger(num) || !Number.isInteger(gen)) return null;
  const stream = pdf.context.lookup(PDFRef.of(num!, gen!));
  return stream instanceof PDFRawStream ? stream : null;
}

/** An image stream's raw bytes with what its /Decode and /Interpolate say (what the JPEG path needs). */
export function jpegStreamOf(pdf: PDFDocument, stream: PDFRawStream): JpegStream {
  const decode = resolve(pdf.context, stream.dict.get(N('Decode')));
  const values = decode instanceof PDFArray ? items(pdf.context, decode).map(numberOf) : [];
  const interpolate = resolve(pdf.context, stream.dict.get(N('Interpolate')));
  return {
    data: stream.contents,
    decodeInverted: values.length > 0 && values[0] === 1 && values[1] === 0,
    interpolate: interpolate instanceof PDFBool && interpolate.asBoolean(),
  };
}

/** What a JPEG plan needs of image XObject `refLabel` (the caller may send it to the worker). */
export function jpegStream(pdf: PDFDocument, refLabel: string): JpegStream | null {
  const stream = imageXObject(pdf, refLabel);
  return stream ? jpegStreamOf(pdf, stream) : null;
}
