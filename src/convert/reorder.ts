import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../pdf/decode-budget.js';
import { loadDocument } from '../pdf/pdf-lib-document.js';
import { PDFName } from '../pdf/pdf-lib.js';
import { InvalidArgumentError } from '../errors.js';

const INHERITABLE = ['MediaBox', 'CropBox', 'Resources', 'Rotate'] as const;

/** Throws unless `order` names every page of an n-page file exactly once (1-based). */
export function assertPermutation(order: readonly number[], pageCount: number): void {
  const ok = order.length === pageCount && order.every((n) => Number.isInteger(n) && n >= 1 && n <= pageCount) && new Set(order).size === pageCount;
  if (!ok) {
    throw new InvalidArgumentError(`The page order must name each of the file's ${pageCount} pages once (e.g. ${Array.from({ length: pageCount }, (_, i) => pageCount - i).join(',')}), got ${order.join(',') || 'nothing'}`);
  }
}

/**
 * Puts a document's pages in another order: `order[i]` is the page (1-based) that becomes page
 * i + 1. Attributes a page inherits from its page tree (MediaBox, CropBox, Resources, Rotate) are
 * copied onto the page first, so no page changes size or content by moving.
 * Parsed under the decode budget of `limits` (BudgetExceededError past it).
 * @example const bytes = await reorderPages(input, [3, 4, 1, 2]);
 */
export async function reorderPages(bytes: Uint8Array, order: readonly number[], limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<Uint8Array> {
  const { doc } = await loadDocument(bytes, limits);
  const pages = doc.getPages();
  assertPermutation(order, pages.length);
  for (const page of pages) {
    for (const key of INHERITABLE) {
      const name = PDFName.of(key);
      const value = page.node.getInheritableAttribute(name);
      if (value !== undefined && page.node.get(name) === undefined) page.node.set(name, value);
    }
  }
  for (let i = pages.length - 1; i >= 0; i--) doc.removePage(i);
  for (const n of order) doc.addPage(pages[n - 1]!);
  return doc.save({ useObjectStreams: true });
}
