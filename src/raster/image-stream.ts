/** The raw stream of a page's one image, for the fast paths (fast-path.ts, flate-path.ts). */
import { N, PDFArray, PDFRawStream, items, numberOf, resolve } from '../pdf/objects.js';
import { PDFBool, refIn, streamOffset, type PDFContext } from '../pdf/pdf-lib.js';
import type { PageFacts } from '../pdf/facts.js';
import { imagePlan, type JpegLocation } from './image-plan.js';

export interface JpegStream {
  /** The stream's raw (still encoded) bytes. */
  data: Uint8Array;
  /** Its /Decode array inverts the first component ([1 0 …]; Adobe CMYK JPEGs say so). */
  decodeInverted: boolean;
  /** /Interpolate true: an enlarged image is smoothed; otherwise readers show hard pixels. */
  interpolate: boolean;
}

/** Image XObject `refLabel` ("12 0 R") of a parsed document; null when encrypted (pdf.js decrypts those) or not a stream. */
export function imageXObject(context: PDFContext, refLabel: string): PDFRawStream | null {
  if (context.trailerInfo.Encrypt) return null;
  const [num, gen] = refLabel.split(' ').map(Number);
  if (!Number.isInteger(num) || !Number.isInteger(gen)) return null;
  // By number, through the document's own references: another file may have been parsed since.
  const ref = refIn(context, num!, gen!);
  const stream = ref ? context.lookup(ref) : undefined;
  return stream instanceof PDFRawStream ? stream : null;
}

/** An image stream's raw bytes with what its /Decode and /Interpolate say (what the JPEG path needs). */
export function jpegStreamOf(context: PDFContext, stream: PDFRawStream): JpegStream {
  const decode = resolve(context, stream.dict.get(N('Decode')));
  const values = decode instanceof PDFArray ? items(context, decode).map(numberOf) : [];
  const interpolate = resolve(context, stream.dict.get(N('Interpolate')));
  return {
    data: stream.contents,
    decodeInverted: values.length > 0 && values[0] === 1 && values[1] === 0,
    interpolate: interpolate instanceof PDFBool && interpolate.asBoolean(),
  };
}

/** What a JPEG plan needs of image XObject `refLabel` (the caller may send it to the worker). */
export function jpegStream(context: PDFContext, refLabel: string): JpegStream | null {
  const stream = imageXObject(context, refLabel);
  return stream ? jpegStreamOf(context, stream) : null;
}

/**
 * Where the JPEG of each page drawn from its one image lies in `bytes` (the file `context` was
 * parsed from by parsePdf), by image reference: what a worker needs to draw those pages without
 * parsing the file again. Encrypted files have none (their streams must be decrypted).
 */
export function jpegLocations(context: PDFContext, bytes: Uint8Array, pages: readonly PageFacts[]): Record<string, JpegLocation> {
  const out: Record<string, JpegLocation> = {};
  for (const page of pages) {
    const plan = imagePlan(page);
    if (!plan || out[plan.ref]) continue;
    const found = jpegStream(context, plan.ref);
    const offset = found ? streamOffset(bytes, found.data) : null;
    if (!found || offset === null || found.data.length === 0) continue;
    out[plan.ref] = { at: [offset, found.data.length], decodeInverted: found.decodeInverted, interpolate: found.interpolate };
  }
  return out;
}
