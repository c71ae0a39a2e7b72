/**
 * The size a decoder allocates for an image: a pure function of the structure facts, apart from
 * the header readers (pdf/image-header.ts) so that the checks and the render budget need no parser.
 */

/** What a decoder allocates for: the larger of the declared size and the size the data itself gives. */
export function allocatedSize(declared: { widthPx: number; heightPx: number; coded?: { widthPx: number; heightPx: number } | null | undefined }) {
  const c = declared.coded;
  return c ? { widthPx: Math.max(declared.widthPx, c.widthPx), heightPx: Math.max(declared.heightPx, c.heightPx) } : declared;
}
