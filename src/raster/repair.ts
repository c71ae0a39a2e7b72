/**
 * A damaged file repaired before drawing, as MuPDF and Ghostscript repair it: when neither PDFium
 * nor pdf.js can open a file (no trailer dictionary, no cross-reference table they accept), its
 * objects as the structure read recovered them (pdf/parse.ts scans the file for them, and takes
 * the catalog the file holds when no trailer names one) are written out again as a well-formed
 * PDF, which the engines then draw. Nothing is invented: a page the structure read could not
 * reach is not drawn either.
 */
import { createRequire } from 'node:module';
import type { PDFContext } from 'pdf-lib';

const require = createRequire(import.meta.url);

/** Messages with which PDFium and pdf.js refuse to open a file whose structure is broken. */
const CANNOT_OPEN = /not in PDF format|corrupted|Invalid PDF structure|InvalidPDF|XRef|trailer|startxref|No password given/i;

/** Whether the engines' failures say they could not open the file (as opposed to drawing a page of it). */
export function cannotOpen(failures: readonly string[]): boolean {
  return failures.length > 0 && failures.every((f) => CANNOT_OPEN.test(f) && !/password/i.test(f));
}

/**
 * The parsed document written out as a well-formed PDF (a cross-reference table and a trailer
 * naming its catalog); null when it has no catalog or is encrypted (its streams would be written
 * still encrypted under a trailer that no longer says so).
 */
export async function repairedCopy(context: PDFContext): Promise<Uint8Array | null> {
  if (context.trailerInfo.Encrypt || !context.trailerInfo.Root) return null;
  const { default: PDFWriter } = require('pdf-lib/cjs/core/writers/PDFWriter') as { default: { forContext(c: PDFContext, objectsPerTick: number): { serializeToBuffer(): Promise<Uint8Array> } } };
  return PDFWriter.forContext(context, Number.POSITIVE_INFINITY).serializeToBuffer();
}
