/** A hand-written PDF whose one page paints `n` tiny rectangles: cheap to scan, heavy for pdf.js. */
export function heavyPdf(n: number): Uint8Array {
  const ops = `0.2 0.4 0.6 rg\n${'1 1 1 1 re f\n'.repeat(n)}`;
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  const obj = (s: string) => {
    offsets.push(out.length);
    out += s;
  };
  obj('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  obj('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n');
  obj('3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R >> endobj\n');
  obj(`4 0 obj << /Length ${ops.length} >> stream\n${ops}\nendstream endobj\n`);
  const xref = out.length;
  out += `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * A one-page PDF whose page dictionary holds `arrays` arrays of `items` numbers each (each array
 * under the parser's 1,000,000-item bound): cheap to write, millions of objects to read — a 64 MB
 * worker heap runs out while reading its structure.
 */
export function manyNumbersPdf(items: number, arrays: number): Uint8Array {
  const arr = `[${'0.5 '.repeat(items)}]`;
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  const obj = (s: string) => {
    offsets.push(out.length);
    out += s;
  };
  obj('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  obj('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n');
  obj(`3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Numbers [${Array(arrays).fill(arr).join(' ')}] >> endobj\n`);
  obj('4 0 obj << /Length 9 >> stream\n0 0 1 1 re\nendstream endobj\n');
  const xref = out.length;
  out += `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer << /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
