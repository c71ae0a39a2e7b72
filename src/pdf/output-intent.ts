/**
 * The document's CMYK output intent (ISO 32000-2 §14.11.5): the ICC profile of the printing
 * condition a file was made for. It is the source profile of the file's DeviceCMYK colours — a
 * PDF/X file's CMYK means that condition's CMYK, not any reader's default.
 */
import { BudgetExceededError, type DecodeBudget } from './decode-budget.js';
import { PDFArray, PDFName, type PDFContext } from './pdf-lib.js';
import { dictOf, getName, items, resolve } from './objects.js';
import { decodeStream } from './streams.js';

/** Largest output-intent profile read (a CMYK profile with fine tables is a few MB). */
const MAX_PROFILE_BYTES = 16 * 1024 * 1024;

/**
 * The ICC profile of the document's CMYK output intent (the PDF/X one first, else the first that is
 * CMYK), decoded under the budget; undefined when there is none, or it cannot be read.
 * @example
 * const icc = cmykOutputIntent(doc.context, budget); // source profile of DeviceCMYK colours
 */
export function cmykOutputIntent(context: PDFContext, budget: DecodeBudget): Uint8Array | undefined {
  const catalog = dictOf(resolve(context, context.trailerInfo.Root));
  const intents = resolve(context, catalog?.get(PDFName.of('OutputIntents')));
  if (!(intents instanceof PDFArray)) return undefined;
  const dicts = items(context, intents)
    .map((i) => dictOf(resolve(context, i)))
    .filter((d) => d !== undefined);
  // PDF/X first: when a file has several intents, that is the one a print workflow uses.
  dicts.sort((a, b) => Number(getName(context, b, 'S') === 'GTS_PDFX') - Number(getName(context, a, 'S') === 'GTS_PDFX'));
  for (const dict of dicts) {
    try {
      const icc = decodeStream(context, resolve(context, dict.get(PDFName.of('DestOutputProfile'))), { maxBytes: MAX_PROFILE_BYTES, budget, what: 'an output intent profile' });
      if (isCmykProfile(icc)) return icc;
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
      // not readable: try the next intent
    }
  }
  return undefined;
}

/** An ICC profile whose data colour space (header bytes 16–19) is CMYK. */
export function isCmykProfile(icc: Uint8Array): boolean {
  return icc.length >= 128 && String.fromCharCode(icc[16]!, icc[17]!, icc[18]!, icc[19]!) === 'CMYK';
}
