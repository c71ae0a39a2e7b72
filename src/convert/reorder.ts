import { DEFAULT_DECODE_LIMITS } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { N, PDFArray, dictOf, resolve } from '../pdf/objects.js';
import { loadForTransform } from './document.js';
import { writeEditLog } from './edit-log.js';
import { assertPermutation, type EditLog } from './plan.js';

export { assertPermutation };

/**
 * Puts a document's pages in another order: `order[i]` is the page (1-based) that becomes page
 * i + 1. The page tree is rebuilt flat first (convert/document.ts), with the attributes each page
 * inherited (MediaBox, CropBox, Resources, Rotate) written onto it, so no page changes size or
 * content by moving. Parsed under the decode budget of `limits` (BudgetExceededError past it).
 * Runs in a pool worker when called through the flow (pool/worker-main.ts).
 * @example const bytes = await reorderPages(input, [3, 4, 1, 2]);
 */
export async function reorderPages(bytes: Uint8Array, order: readonly number[], limits: DecodeLimits = DEFAULT_DECODE_LIMITS, log?: EditLog): Promise<Uint8Array> {
  const { doc, pages, budget } = await loadForTransform(bytes, limits);
  assertPermutation(order, pages.length);
  const root = dictOf(resolve(doc.context, doc.catalog.get(N('Pages'))))!;
  const kids = PDFArray.withContext(doc.context);
  for (const n of order) kids.push(pages[n - 1]!.ref);
  root.set(N('Kids'), kids);
  // The edit log: the original and what was done to it (the reorder, given by the caller who words it).
  if (log) writeEditLog(doc, log.originalSha256, log.earlier, budget);
  return doc.save({ useObjectStreams: true });
}
