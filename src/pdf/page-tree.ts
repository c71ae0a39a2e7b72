/**
 * Walks the page tree (ISO 32000-2 §7.7.3) iteratively, carrying the inheritable attributes
 * (MediaBox, CropBox, Rotate, Resources) down to each page, and guarding against cycles and
 * absurd sizes. pdf-lib's own traversal has no cycle guard, so it is not used.
 *
 * A page (or subtree) listed twice in /Kids is counted twice, as qpdf, poppler and MuPDF count it;
 * only a node that is its own ancestor is a cycle.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import { N, PDFArray, PDFDict as Dict, PDFRef, dictOf, getName, numberOf, resolve } from './objects.js';
import type { RecoveredObject } from './recover.js';

export interface PageNode {
  dict: PDFDict;
  ref: PDFRef | undefined;
  inherited: { MediaBox?: PDFObject; CropBox?: PDFObject; Rotate?: PDFObject; Resources?: PDFObject };
  /**
   * Why the page's object cannot be read, for an entry of /Kids that is not a dictionary (missing,
   * or broken beyond reading). The page keeps its place, as in poppler, MuPDF, qpdf's page count
   * and PDFium, so that every later page keeps its number; its `dict` is empty.
   */
  unreadable?: string;
  /** The page object was read again from the file's bytes (see recover.ts): tokens skipped. */
  recovered?: number;
}

export interface PageTree {
  pages: PageNode[];
  problems: string[];
}

/** Real page trees are a few levels deep; a deeper one is an attack on parsers. */
const MAX_DEPTH = 1024;
const INHERITABLE = ['MediaBox', 'CropBox', 'Rotate', 'Resources'] as const;

/**
 * The pages in order. `recover` reads an object again from the file when pdf-lib could not parse
 * it (or lost it to a neighbour without `endobj`); without it, such entries are unreadable pages.
 */
export function walkPageTree(context: PDFContext, root: PDFObject | undefined, maxPages: number, recover?: (ref: PDFRef) => RecoveredObject | undefined): PageTree {
  const pages: PageNode[] = [];
  const problems: string[] = [];
  // Repeated subtrees can multiply the walk; nodes visited are capped, not just pages.
  const maxVisits = maxPages * 4 + 10_000;
  let visits = 0;
  const rootRef = root instanceof PDFRef ? root : undefined;
  const rootObj = resolve(context, root);
  if (!dictOf(rootObj)) {
    const where = rootRef ? ` (${rootRef.objectNumber} ${rootRef.generationNumber} R)` : '';
    // An object that does not parse (a stream inside its dictionary…) is kept as raw bytes.
    const why = rootObj === undefined ? 'is missing' : 'cannot be read as a dictionary';
    return { pages, problems: [`the root of the page tree${where} ${why}, so no page can be found (qpdf and MuPDF read no pages)`] };
  }
  // Depth-first, kids in order: a stack of [node, ref, inherited] with kids pushed in reverse.
  const stack: { obj: PDFObject; ref: PDFRef | undefined; inherited: PageNode['inherited']; parent: Ancestor | undefined; unreadable?: string; recovered?: number }[] = [
    { obj: rootObj!, ref: rootRef, inherited: {}, parent: undefined },
  ];
  while (stack.length > 0) {
    const { obj, ref, inherited, parent, unreadable, recovered } = stack.pop()!;
    if (++visits > maxVisits) {
      problems.push(`more than ${maxVisits} page tree nodes: the rest were not read`);
      break;
    }
    if (unreadable !== undefined) {
      if (pages.length >= maxPages) {
        problems.push(`more than ${maxPages} pages: the rest were not read`);
        break;
      }
      pages.push({ dict: Dict.withContext(context), ref, inherited, unreadable });
      continue;
    }
    const dict = dictOf(obj);
    if (!dict) {
      problems.push(`a page tree node${ref ? ` (${ref.objectNumber} ${ref.generationNumber} R)` : ''} is missing or not a dictionary`);
      continue;
    }
    if (isAncestor(parent, obj)) {
      problems.push('the page tree contains a cycle');
      continue;
    }
    const self: Ancestor = { obj, parent, depth: (parent?.depth ?? 0) + 1 };
    if (self.depth > MAX_DEPTH) {
      problems.push(`more than ${MAX_DEPTH} levels of page tree: the rest were not read`);
      break;
    }
    const here = { ...inherited };
    for (const key of INHERITABLE) {
      const v = dict.get(N(key));
      if (v !== undefined) here[key] = v;
    }
    const type = getName(context, dict, 'Type');
    const kidsObj = resolve(context, dict.get(N('Kids')));
    if (type === 'Page' || (type !== 'Pages' && !(kidsObj instanceof PDFArray))) {
      if (pages.length >= maxPages) {
        problems.push(`more than ${maxPages} pages: the rest were not read`);
        break;
      }
      pages.push({ dict, ref, inherited: here, ...(recovered !== undefined ? { recovered } : {}) });
      continue;
    }
    if (!(kidsObj instanceof PDFArray)) {
      problems.push('a /Pages node has no /Kids array');
      continue;
    }
    const kids = kidsObj.asArray();
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i];
      const kidRef = kid instanceof PDFRef ? kid : undefined;
      let kidObj = resolve(context, kid);
      let skipped: number | undefined;
      if (!dictOf(kidObj) && kidRef && recover) {
        const again = recover(kidRef);
        if (again) {
          context.assign(kidRef, again.dict);
          kidObj = again.dict;
          skipped = again.skipped;
        }
      }
      if (!dictOf(kidObj)) {
        const label = kidRef ? `${kidRef.objectNumber} ${kidRef.generationNumber} R` : 'a direct entry';
        const why = kidObj === undefined ? `its object (${label}) does not exist` : `its object (${label}) is not a dictionary and cannot be read as one`;
        stack.push({ obj: self.obj, ref: kidRef, inherited: here, parent: self, unreadable: why });
        continue;
      }
      stack.push({ obj: kidObj!, ref: kidRef, inherited: here, parent: self, ...(skipped !== undefined ? { recovered: skipped } : {}) });
    }
  }
  dropSurplusPlaceholders(context, rootObj, pages);
  return { pages, problems };
}

/**
 * An unreadable entry keeps its place because readers number pages by the tree's /Count. When
 * /Count shows that an entry was never a page (a stray null in /Kids), it is dropped again.
 */
function dropSurplusPlaceholders(context: PDFContext, root: PDFObject | undefined, pages: PageNode[]): void {
  const declared = numberOf(resolve(context, dictOf(root)?.get(N('Count'))));
  if (declared === undefined) return;
  for (let i = pages.length - 1; i >= 0 && pages.length > declared; i--) if (pages[i]!.unreadable !== undefined) pages.splice(i, 1);
}

/** The chain of /Pages nodes above a node (shared between siblings). */
interface Ancestor {
  obj: PDFObject;
  parent: Ancestor | undefined;
  depth: number;
}

function isAncestor(chain: Ancestor | undefined, obj: PDFObject): boolean {
  for (let a = chain; a; a = a.parent) if (a.obj === obj) return true;
  return false;
}
