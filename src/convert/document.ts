/**
 * A document of untrusted bytes made ready for a transform (fix, reorder): parsed under the file's
 * decode budget, and its page tree rebuilt flat. pdf-lib walks /Parent and /Kids recursively (its
 * `getPages`, `getInheritableAttribute`, `removePage`), so a tree thousands of levels deep, or one
 * whose /Parent chain loops, overflows the stack in the middle of a fix. Here the tree is walked once,
 * iteratively and within bounds (pdf/page-tree.ts), each page's inherited attributes (MediaBox,
 * CropBox, Rotate, Resources) are written onto the page itself, and every page becomes a child of one
 * new /Pages node: after that no pdf-lib walk goes deeper than one level.
 */
import { InvalidArgumentError, PreflightError } from '../errors.js';
import type { DecodeBudget } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { walkPageTree } from '../pdf/page-tree.js';
import { recoverDictionary } from '../pdf/recover.js';
import { BudgetExceededError } from '../pdf/decode-budget.js';
import { loadDocument, type PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFArray, PDFName, PDFNumber, PDFRef, type PDFPage } from '../pdf/pdf-lib.js';
import { PDFCatalog, PDFPageLeaf, PDFPageTree } from '../pdf/pdf-lib-document.js';
import { N, dictOf, resolve } from '../pdf/objects.js';

/** Pages a transform handles: far above any product (a handful of layers), far below an attack. */
export const MAX_TRANSFORM_PAGES = 10_000;
/** Page objects read again from the bytes at most (as the check: inspect.ts). */
const MAX_RECOVERED_PAGES = 64;

/**
 * Why a document cannot be transformed (a page tree that cannot be read whole): `ERR_PDF_DAMAGED`.
 * The flows refuse the fix with it (a `pdf-damaged` refusal); a direct caller of a transform gets it.
 */
export class UntransformableError extends PreflightError {
  override readonly name = 'UntransformableError';
  constructor(message: string) {
    super('ERR_PDF_DAMAGED', message);
  }
}

export interface TransformDocument {
  doc: PDFDocument;
  budget: DecodeBudget;
  /** The pages in order, each a direct child of the document's one /Pages node. */
  pages: PDFPage[];
}

/**
 * Loads `bytes` for a transform: parsed under `limits` ({@link BudgetExceededError} past them) and
 * with a flat page tree. Throws {@link UntransformableError} when the page tree cannot be read whole
 * (a cycle, an unreadable page, too deep or too many pages): a fix never drops or invents a page.
 * @example
 * const { doc, pages } = await loadForTransform(bytes, DEFAULT_DECODE_LIMITS);
 * pages[0].setRotation(degrees(0));
 */
export async function loadForTransform(bytes: Uint8Array, limits: DecodeLimits): Promise<TransformDocument> {
  const { doc, budget, parsed } = await loadDocument(bytes, limits);
  const context = doc.context;
  // A /Root without /Type /Catalog is read as a plain dictionary: made pdf-lib's catalog (the
  // check reads its /Pages all the same), so that pdf-lib's page API works on it.
  if (!(doc.catalog instanceof PDFCatalog)) {
    const root = context.trailerInfo.Root;
    const dict = dictOf(resolve(context, root));
    if (!dict || !(root instanceof PDFRef)) throw new UntransformableError('its document catalog (/Root) cannot be read');
    const catalog = PDFCatalog.fromMapWithContext(new Map(dict.entries()), context);
    context.assign(root, catalog);
    (doc as unknown as { catalog: PDFCatalog }).catalog = catalog;
  }
  const oldRoot = doc.catalog.get(N('Pages'));
  // Page objects pdf-lib could not parse are read again from the bytes, as the check reads them
  // (inspect.ts): a fix works on the pages the check judged.
  let recoveries = 0;
  const recover = (ref: PDFRef) => {
    if (recoveries++ >= MAX_RECOVERED_PAGES) return undefined;
    try {
      return recoverDictionary(parsed, context, ref);
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
      return undefined;
    }
  };
  const tree = walkPageTree(context, oldRoot, MAX_TRANSFORM_PAGES, recover);
  if (tree.problems.length) throw new UntransformableError(`its page tree cannot be read whole (${tree.problems[0]})`);
  const unreadable = tree.pages.findIndex((p) => p.unreadable !== undefined);
  if (unreadable >= 0) throw new UntransformableError(`page ${unreadable + 1} cannot be read (${tree.pages[unreadable]!.unreadable})`);

  const root = PDFPageTree.withContext(context);
  const rootRef = context.register(root);
  const kids = PDFArray.withContext(context);
  const used = new Set<string>();
  for (const node of tree.pages) {
    // Each page becomes a page object of pdf-lib's own (whatever the parser made of it), with its
    // inherited attributes on it; a page listed twice in /Kids becomes two pages (as readers count
    // it), the second a copy.
    const leaf = PDFPageLeaf.fromMapWithContext(new Map(node.dict.entries()), context);
    const ref = node.ref && !used.has(node.ref.toString()) ? node.ref : context.nextRef();
    used.add(ref.toString());
    for (const [key, value] of Object.entries(node.inherited)) {
      if (value !== undefined && leaf.get(N(key)) === undefined) leaf.set(N(key), value);
    }
    if (leaf.get(N('MediaBox')) === undefined) leaf.set(N('MediaBox'), context.obj([0, 0, 612, 792]));
    leaf.set(N('Type'), PDFName.of('Page'));
    leaf.set(N('Parent'), rootRef);
    context.assign(ref, leaf);
    kids.push(ref);
  }
  root.set(N('Kids'), kids);
  root.set(N('Count'), PDFNumber.of(tree.pages.length));
  doc.catalog.set(N('Pages'), rootRef);
  // The old root goes (nothing refers to it now); nodes below it, if any, stay unreferenced.
  if (oldRoot instanceof PDFRef && !used.has(oldRoot.toString())) context.delete(oldRoot);
  const pages = doc.getPages();
  if (pages.length !== tree.pages.length) throw new InvalidArgumentError(`the rebuilt page tree has ${pages.length} pages, not ${tree.pages.length}`);
  return { doc, budget, pages };
}
