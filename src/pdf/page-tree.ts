/**
 * Walks the page tree (ISO 32000-2 §7.7.3) iteratively, carrying the inheritable attributes
 * (MediaBox, CropBox, Rotate, Resources) down to each page, and guarding against cycles and
 * absurd sizes. pdf-lib's own traversal has no cycle guard, so it is not used.
 *
 * A page (or subtree) listed twice in /Kids is counted twice, as qpdf, poppler and MuPDF count it;
 * only a node that is its own ancestor is a cycle.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import { N, PDFArray, PDFRef, dictOf, getName, resolve } from './objects.js';

export interface PageNode {
  dict: PDFDict;
  ref: PDFRef | undefined;
  inherited: { MediaBox?: PDFObject; CropBox?: PDFObject; Rotate?: PDFObject; Resources?: PDFObject };
}

export interface PageTree {
  pages: PageNode[];
  problems: string[];
}

/** Real page trees are a few levels deep; a deeper one is an attack on parsers. */
const MAX_DEPTH = 1024;
const INHERITABLE = ['MediaBox', 'CropBox', 'Rotate', 'Resources'] as const;

export function walkPageTree(context: PDFContext, root: PDFObject | undefined, maxPages: number): PageTree {
  const pages: PageNode[] = [];
  const problems: string[] = [];
  // Repeated subtrees can multiply the walk; nodes visited are capped, not just pages.
  const maxVisits = maxPages * 4 + 10_000;
  let visits = 0;
  const rootRef = root instanceof PDFRef ? root : undefined;
  const rootObj = resolve(context, root);
  if (!dictOf(rootObj)) return { pages, problems: ['the catalog has no /Pages tree'] };
  // Depth-first, kids in order: a stack of [node, ref, inherited] with kids pushed in reverse.
  const stack: { obj: PDFObject; ref: PDFRef | undefined; inherited: PageNode['inherited']; parent: Ancestor | undefined }[] = [
    { obj: rootObj!, ref: rootRef, inherited: {}, parent: undefined },
  ];
  while (stack.length > 0) {
    const { obj, ref, inherited, parent } = stack.pop()!;
    if (++visits > maxVisits) {
      problems.push(`more than ${maxVisits} page tree nodes: the rest were not read`);
      break;
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
      pages.push({ dict, ref, inherited: here });
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
      const kidObj = resolve(context, kid);
      if (kidObj === undefined) {
        problems.push(
          `page tree entry ${kidRef ? `${kidRef.objectNumber} ${kidRef.generationNumber} R ` : ''}points to an object that does not exist`,
        );
        continue;
      }
      stack.push({ obj: kidObj, ref: kidRef, inherited: here, parent: self });
    }
  }
  return { pages, problems };
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
