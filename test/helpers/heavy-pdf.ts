/**
 * A hand-written PDF of `pages` pages (400 × 400 pt each) that all draw one content stream,
 * `contents`, with `extra` written into each page dictionary.
 */
function sharedContentPdf(contents: string, extra = '', pages = 1): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  const obj = (s: string) => {
    offsets.push(out.length);
    out += s;
  };
  const kids = Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ');
  obj('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  obj(`2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj\n`);
  obj(`3 0 obj << /Length ${contents.length} >> stream\n${contents}\nendstream endobj\n`);
  for (let i = 0; i < pages; i++) obj(`${i + 4} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 3 0 R${extra} >> endobj\n`);
  const xref = out.length;
  out += `xref\n0 ${pages + 4}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size ${pages + 4} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * A hand-written PDF whose page paints `n` tiny rectangles: cheap to scan, heavy for pdf.js. With
 * `pages`, that many pages draw the same stream: the work grows with the pages, the file does not.
 */
export function heavyPdf(n: number, pages = 1): Uint8Array {
  return sharedContentPdf(`0.2 0.4 0.6 rg\n${'1 1 1 1 re f\n'.repeat(n)}`, '', pages);
}

/**
 * A one-page PDF whose page dictionary holds `arrays` arrays of `items` numbers each (each array
 * under the parser's 1,000,000-item bound): cheap to write, millions of objects to read — a 64 MB
 * worker heap runs out while reading its structure.
 */
export function manyNumbersPdf(items: number, arrays: number): Uint8Array {
  const numbers = `[${'0.5 '.repeat(items)}]`;
  return sharedContentPdf('0 0 1 1 re', ` /Numbers [${Array(arrays).fill(numbers).join(' ')}]`);
}
