/**
 * A small typed PDF writer for generated test files (fuzz targets and property tests): numbered
 * objects, a correct cross-reference table and a trailer. No PDF library involved, so what a test
 * writes is exactly what it says (a filter chain, a predictor, a split content stream).
 */
const enc = new TextEncoder();

export type Body = string | Uint8Array;

export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** A stream object's body: dictionary entries (without << >>) and data; /Length is added. */
export function streamObject(dict: string, data: Body): Uint8Array {
  const bytes = typeof data === 'string' ? enc.encode(data) : data;
  return concatBytes([enc.encode(`<< ${dict} /Length ${bytes.length} >>\nstream\n`), bytes, enc.encode('\nendstream')]);
}

/** Objects 1..n (object 1 is the catalog) with a cross-reference table and trailer. */
export function writePdf(bodies: readonly Body[], { trailer = '' }: { trailer?: string } = {}): Uint8Array {
  const parts: Uint8Array[] = [enc.encode('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  bodies.forEach((body, i) => {
    const b = typeof body === 'string' ? enc.encode(body) : body;
    const chunk = concatBytes([enc.encode(`${i + 1} 0 obj\n`), b, enc.encode('\nendobj\n')]);
    offsets.push(offset);
    parts.push(chunk);
    offset += chunk.length;
  });
  const size = bodies.length + 1;
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(enc.encode(`xref\n0 ${size}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${size} /Root 1 0 R ${trailer} >>\nstartxref\n${offset}\n%%EOF\n`));
  return concatBytes(parts);
}

/**
 * Collects objects and hands out their numbers, so a generator can refer to an object before the
 * file is written: `const ref = b.add(...)` gives `"7 0 R"`. Object 1 is reserved for the catalog.
 */
export class PdfBuilder {
  private readonly bodies: Body[] = ['', ''];
  private readonly kids: string[] = [];
  /** Entries added to the catalog (`/OCProperties << … >>`). */
  catalogExtra = '';

  add(body: Body): string {
    this.bodies.push(body);
    return `${this.bodies.length} 0 R`;
  }

  /** A number for an object written later with {@link set} (a form that refers to itself). */
  reserve(): string {
    return this.add('null');
  }

  set(ref: string, body: Body): void {
    this.bodies[Number(ref.split(' ')[0]) - 1] = body;
  }

  /** A page under the root page tree: `dict` holds its entries other than /Type and /Parent. */
  page(dict: string): string {
    const ref = this.add(`<< /Type /Page /Parent 2 0 R ${dict} >>`);
    this.kids.push(ref);
    return ref;
  }

  bytes(): Uint8Array {
    this.bodies[0] = `<< /Type /Catalog /Pages 2 0 R ${this.catalogExtra} >>`;
    this.bodies[1] = `<< /Type /Pages /Kids [${this.kids.join(' ')}] /Count ${this.kids.length} >>`;
    return writePdf(this.bodies);
  }
}
