/** The image XObjects a page draws (fix.ts converts them, measure.ts weighs what drawing them costs). */
import { N, dictOf, getDict, getName, resolve } from '../pdf/objects.js';
import type { PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFRef, type PDFPage } from '../pdf/pdf-lib.js';

/** Image XObjects a page draws, through Form XObjects too. */
export function imageRefs(doc: PDFDocument, page: PDFPage): PDFRef[] {
  const context = doc.context;
  const out: PDFRef[] = [];
  const seen = new Set<string>();
  const visit = (resources: ReturnType<typeof dictOf>, depth: number) => {
    const xobjects = getDict(context, resources, 'XObject');
    if (!xobjects || depth > 32) return;
    for (const [, value] of xobjects.entries()) {
      if (!(value instanceof PDFRef) || seen.has(value.toString())) continue;
      seen.add(value.toString());
      const dict = dictOf(context.lookup(value));
      const subtype = getName(context, dict, 'Subtype');
      if (subtype === 'Image') out.push(value);
      else if (subtype === 'Form') visit(getDict(context, dict, 'Resources'), depth + 1);
    }
  };
  visit(dictOf(resolve(context, page.node.get(N('Resources')))), 0);
  return out;
}
