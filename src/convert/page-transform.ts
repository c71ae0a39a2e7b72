/**
 * Applies a page fix with pdf-lib: the page's content is wrapped in `q <matrix> cm … Q`, its boxes
 * become the new size, /Rotate becomes 0. Resources are untouched, so nothing is re-encoded.
 */
import { PDFArray, PDFName, PDFNumber, PDFRef, type PDFPage } from '../pdf/pdf-lib.js';
import type { Matrix } from '../model/geometry.js';

export function transformPage(page: PDFPage, matrix: Matrix, width: number, height: number, clip = true): void {
  const context = page.doc.context;
  const head = context.flateStream(`q ${clip ? `0 0 ${num(width)} ${num(height)} re W n ` : ''}${matrix.map(num).join(' ')} cm\n`);
  const tail = context.flateStream('\nQ\n');
  const contents = page.node.get(PDFName.of('Contents'));
  const parts: (PDFRef | undefined)[] = [];
  const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
  if (resolved instanceof PDFArray) for (let i = 0; i < resolved.size(); i++) parts.push(resolved.get(i) as PDFRef);
  else if (contents instanceof PDFRef) parts.push(contents);
  const array = PDFArray.withContext(context);
  array.push(context.register(head));
  for (const p of parts) if (p) array.push(p);
  array.push(context.register(tail));
  page.node.set(PDFName.of('Contents'), array);
  const box = context.obj([0, 0, width, height]);
  page.node.set(PDFName.of('MediaBox'), box);
  for (const name of ['CropBox', 'TrimBox', 'BleedBox', 'ArtBox']) page.node.delete(PDFName.of(name));
  page.node.set(PDFName.of('Rotate'), PDFNumber.of(0));
  page.node.delete(PDFName.of('UserUnit'));
}

const num = (n: number) => (Math.abs(n) < 1e-9 ? '0' : String(Math.round(n * 10000) / 10000));
