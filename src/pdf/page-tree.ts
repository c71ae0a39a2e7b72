/**
 * Walks the page tree (ISO 32000-2 §7.7.3) iteratively, carrying the inheritable attributes
 * (MediaBox, CropBox, Rotate, Resources) down to each page, and guarding against cycles and
 * absurd sizes. pdf-lib's own traversal has no cycle guard, so it is not used.
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

const INHERITABLE = ['MediaBox', 'CropBox', 'Rotate', 'Resources'] as const;

export function walkPageTree(context: PDFContext, root: PDFObject | undefined, maxPages: number): PageTree {
  const pages: PageNode[] = [];
  const problems: string[] = [];
  const seen = new Set<PDFObject>();
  const rootRef = root instanceof PDFRef ? root : undefined;
  const rootObj = resolve(context, root);
  if (!dictOf(rootObj)) return { pages, problems: ['the catalog has no /Pages tree'] };
  // Depth-first, kids in order: a stack of [node, ref, inherited] with kids pushed in reverse.
  const stack: { obj: PDFObject; ref: PDFRef | undefined; inherited: PageNode['inherited'] }[] = [
    { obj: rootObj!, ref: rootRef, inherited: {} },
  ];
  while (stack.length > 0) {
    const { obj, ref, inherited } = stack.pop()!;
    const dict = dictOf(obj);
    if (!dict) {
      problems.push(`a page tree node${ref ? ` (${ref.objectNumber} ${ref.generationNumber} R)` : ''} is missing or not a dictionary`);
      continue;
    }
    if (seen.has(obj)) {
      problems.push('the page tree contains a cycle');
      continue;
    }
    seen.add(obj);
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
      stack.push({ obj: kidObj, ref: kidRef, inherited: here });
    }
  }
  return { pages, problems };
}

