/** The raw JPEG stream of a page's one image, for the fast path (fast-path.ts). */
import type { PDFDocument } from '../pdf/pdf-lib.js';
import { N, PDFArray, PDFRawStream, PDFRef, items, numberOf, resolve } from '../pdf/objects.js';

export interface JpegStream {
  data: Uint8Array;
  /** /Decode [1 0 …]: the samples are inverted (Adobe CMYK JPEGs say so). */
  decodeInverted: boolean;
}

/** The raw (still encoded) bytes of image XObject `refLabel` ("12 0 R"), or null when unusable. */
export function jpegStream(pdf: PDFDocument, refLabel: string): JpegStream | null {
  if (pdf.context.trailerInfo.Encrypt) return null; // encrypted streams: pdf.js decrypts them
  const [num, gen] = refLabel.split(' ').map(Number);
  if (!Number.isInteger(num) || !Number.isInteger(gen)) return null;
  const stream = pdf.context.lookup(PDFRef.of(num!, gen!));
  if (!(stream instanceof PDFRawStream)) return null;
  const decode = resolve(pdf.context, stream.dict.get(N('Decode')));
  const values = decode instanceof PDFArray ? items(pdf.context, decode).map(numberOf) : [];
  const decodeInverted = values.length > 0 && values[0] === 1 && values[1] === 0;
  return { data: stream.contents, decodeInverted };
}
