/**
 * Undoing one row of a PNG predictor (RFC 2083 §6; PDF's /Predictor 10–15): the row's filter type,
 * its bytes and the row above, `bpp` bytes per pixel (at least 1). In place. Shared by the readers
 * that stream rows (the Flate fast path, the fix's image conversion).
 */

/**
 * Undoes filter `type` on `row` (without its type byte), given the row above (`up`, the same
 * length; zeros above the first row). Returns false for a type PNG does not define (the row is
 * left as it is).
 * @example
 * unfilterPngRow(1, row, up, 3); // Sub, 3 bytes per pixel
 */
export function unfilterPngRow(type: number, row: Uint8Array, up: Uint8Array, bpp: number): boolean {
  const end = row.length;
  switch (type) {
    case 0:
      return true;
    case 1:
      for (let i = bpp; i < end; i++) row[i] = (row[i]! + row[i - bpp]!) & 0xff;
      return true;
    case 2:
      for (let i = 0; i < end; i++) row[i] = (row[i]! + up[i]!) & 0xff;
      return true;
    case 3:
      for (let i = 0; i < end; i++) row[i] = (row[i]! + (((i >= bpp ? row[i - bpp]! : 0) + up[i]!) >> 1)) & 0xff;
      return true;
    case 4:
      for (let i = 0; i < end; i++) {
        const a = i >= bpp ? row[i - bpp]! : 0;
        const b = up[i]!;
        const c = i >= bpp ? up[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return true;
    default:
      return false;
  }
}
