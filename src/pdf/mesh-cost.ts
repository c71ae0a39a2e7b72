/**
 * What drawing a patch mesh shading (types 6 and 7: Coons and tensor-product patches) costs a
 * renderer: the pieces it cuts the patches into. pdf.js cuts each patch into 3 to 20 pieces along
 * each side, in proportion to the patch's share of the whole mesh (20 across the mesh); PDFium
 * and MuPDF cut by the patch's size on the device, which at a preview's scale comes to fewer. A
 * mesh of many small patches — an Illustrator gradient mesh, thousands of patches — is cheap
 * (3 × 3 pieces each); a few large ones are cut finely but are few. Counting every patch as the
 * finest cut (64) made PdfPig's ColorIssue.pdf, an Illustrator jersey template that Ghostscript
 * draws in 0.6 s, look like half a million vertices.
 *
 * The patch data is read only for the coordinates (colours are skipped by their width), at most
 * {@link MAX_PATCHES} patches; the pieces of the rest are counted at the finest cut.
 */

/** Most patches read for their coordinates; beyond, each counts the finest cut. */
export const MAX_PATCHES = 1_000_000;
const MIN_SPLIT = 3;
const MAX_SPLIT = 20;
const DENSITY = 20;

export interface PatchMeshLayout {
  /** 6 (Coons: 12 points, 4 colours) or 7 (tensor-product: 16 points, 4 colours). */
  type: 6 | 7;
  bitsPerFlag: number;
  bitsPerCoordinate: number;
  bitsPerComponent: number;
  /** Colour components per vertex (1 when a /Function maps a parameter t). */
  colourComponents: number;
}

/**
 * Patches of a type 6 or 7 shading's decoded data and the pieces a renderer cuts them into.
 * @example
 * patchMeshPieces(data, { type: 6, bitsPerFlag: 8, bitsPerCoordinate: 16, bitsPerComponent: 8, colourComponents: 4 });
 * // { patches: 7856, pieces: 70704 } for a mesh of small patches
 */
export function patchMeshPieces(data: Uint8Array, layout: PatchMeshLayout): { patches: number; pieces: number } {
  const { type, bitsPerFlag, bitsPerCoordinate: bc, bitsPerComponent, colourComponents } = layout;
  if (![2, 4, 8].includes(bitsPerFlag) || bc < 1 || bc > 32 || bitsPerComponent < 1 || bitsPerComponent > 16) return { patches: 0, pieces: 0 };
  const colourBits = colourComponents * bitsPerComponent;
  const totalBits = data.length * 8;
  let bit = 0;
  const read = (n: number): number => {
    let v = 0;
    for (let k = 0; k < n; ) {
      const byte = data[bit >> 3]!;
      const left = 8 - (bit & 7);
      const take = Math.min(left, n - k);
      v = v * 2 ** take + ((byte >> (left - take)) & ((1 << take) - 1));
      bit += take;
      k += take;
    }
    return v;
  };
  const boxes: number[] = [];
  let patches = 0;
  let rest = 0;
  while (bit + bitsPerFlag <= totalBits) {
    const flag = read(bitsPerFlag);
    if (flag > 3) break;
    const points = flag === 0 ? (type === 6 ? 12 : 16) : type === 6 ? 8 : 12;
    const colours = flag === 0 ? 4 : 2;
    const need = points * 2 * bc + colours * colourBits;
    if (bit + need > totalBits) break;
    patches++;
    if (patches > MAX_PATCHES) {
      rest++;
      bit += need;
      continue;
    }
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let p = 0; p < points; p++) {
      const x = read(bc);
      const y = read(bc);
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    bit += colours * colourBits;
    boxes.push(x0, y0, x1, y1);
  }
  // The mesh's bounds (in the coordinates' raw units: the /Decode scaling cancels out of the ratio).
  let mx0 = Infinity;
  let my0 = Infinity;
  let mx1 = -Infinity;
  let my1 = -Infinity;
  for (let i = 0; i < boxes.length; i += 4) {
    mx0 = Math.min(mx0, boxes[i]!);
    my0 = Math.min(my0, boxes[i + 1]!);
    mx1 = Math.max(mx1, boxes[i + 2]!);
    my1 = Math.max(my1, boxes[i + 3]!);
  }
  const w = Math.max(1e-9, mx1 - mx0);
  const h = Math.max(1e-9, my1 - my0);
  const split = (v: number) => Math.min(MAX_SPLIT, Math.max(MIN_SPLIT, Math.ceil(v * DENSITY)));
  let pieces = rest * MAX_SPLIT * MAX_SPLIT;
  for (let i = 0; i < boxes.length; i += 4) pieces += split((boxes[i + 2]! - boxes[i]!) / w) * split((boxes[i + 3]! - boxes[i + 1]!) / h);
  return { patches, pieces };
}
