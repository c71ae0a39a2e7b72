/**
 * A hand-written one-page PDF (400 × 400 pt) with `contents` as its content stream and `extra`
 * written into its page dictionary.
 */
function onePagePdf(contents: string, extra = ''): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  const obj = (s: string) => {
    offsets.push(out.length);
    out += s;
  };
  obj('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  obj('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n');
  obj(`3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R${extra} >> endobj\n`);
  obj(`4 0 obj << /Length ${contents.length} >> stream\n${contents}\nendstream endobj\n`);
  const xref = out.length;
  out += `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** A hand-written PDF whose one page paints `n` tiny rectangles: cheap to scan, heavy for pdf.js. */
export function heavyPdf(n: number): Uint8Array {
  return onePagePdf(`0.2 0.4 0.6 rg\n${'1 1 1 1 re f\n'.repeat(n)}`);
}

/**
 * A one-page PDF whose page dictionary holds `arrays` arrays of `items` numbers each (each array
 * under the parser's 1,000,000-item bound): cheap to write, millions of objects to read — a 64 MB
 * worker heap runs out while reading its structure.
 */
export function manyNumbersPdf(items: number, arrays: number): Uint8Array {
  const numbers = `[${'0.5 '.repeat(items)}]`;
  return onePagePdf('0 0 1 1 re', ` /Numbers [${Array(arrays).fill(numbers).join(' ')}]`);
}
