/**
 * What a JBIG2 decoder will allocate and work through for an embedded JBIG2 stream (ISO 32000-2
 * §7.4.7: segments without a file header) and its /JBIG2Globals, read from the segment headers
 * and the sizes the segments declare — never by decoding a bitmap. A decoder takes these sizes
 * at their word: pdf.js allocates a byte per pixel of every region it decodes, and the collective
 * bitmap of a pattern dictionary, before it reads a bit of coded data.
 *
 * Every segment is read, as pdf.js reads them: past an end-of-stripe or end-of-page segment (only
 * end-of-file ends the stream), in the globals as in the image's own data, and past a generic
 * region of unknown length (whose end pdf.js looks for by its closing pattern, and takes as a
 * length from the start of the data — so the next segment it reads lies elsewhere than where a
 * decoder reading the standard finds it: both readings are followed). Every size-bearing segment
 * counts: page information, the region information of every region segment (text, halftone,
 * generic and refinement, intermediate or immediate), end-of-stripe rows of a striped page, the
 * collective bitmap of a pattern dictionary, the grid of a halftone region, and the symbol and
 * instance counts of symbol dictionaries and text regions, which a decoder loops over.
 */

export interface Jbig2Claims {
  /** The widest and the tallest page or region bitmap a decoder allocates (a striped page as tall as its stripes reach). */
  widthPx: number;
  heightPx: number;
  /** Pixels of all the bitmaps decoded together (a decoder decodes each region once, at its declared size). */
  pixels: number;
  /** New symbols declared by the symbol dictionaries (each decoded as a bitmap of its own). */
  symbols: number;
  /** Symbol instances declared by the text regions (each decoded and drawn). */
  instances: number;
  /** Segments read. */
  segments: number;
}

/** Segment types that start with a region segment information field (width, height, x, y, flags). */
const REGIONS = new Set([4, 6, 7, 20, 22, 23, 36, 38, 39, 40, 42, 43]);
/** Segment types a decoder knows (pdf.js stops at any other; so does this reader). */
const KNOWN = new Set([0, 4, 6, 7, 16, 20, 22, 23, 36, 38, 39, 40, 42, 43, 48, 49, 50, 51, 52, 53, 62]);
const REGION_INFO_BYTES = 17;

const u32 = (d: Uint8Array, i: number) => (i + 4 <= d.length ? ((d[i]! << 24) | (d[i + 1]! << 16) | (d[i + 2]! << 8) | d[i + 3]!) >>> 0 : 0);
const u16 = (d: Uint8Array, i: number) => (i + 2 <= d.length ? (d[i]! << 8) | d[i + 1]! : 0);

/** A pattern dictionary as a halftone region that refers to it needs it. */
interface Patterns {
  count: number;
  widthPx: number;
  heightPx: number;
}

/** Tallies one reading of the segments. */
class Tally implements Jbig2Claims {
  widthPx = 0;
  heightPx = 0;
  pixels = 0;
  symbols = 0;
  instances = 0;
  segments = 0;
  /** Pattern dictionaries by segment number, for the halftone regions that refer to them. */
  readonly patterns = new Map<number, Patterns>();

  bitmap(width: number, height: number): void {
    this.widthPx = Math.max(this.widthPx, width);
    this.heightPx = Math.max(this.heightPx, height);
    this.pixels += width * height;
  }
}

/** Where a striped page's height comes from: its regions' bottoms and its end-of-stripe rows. */
interface Page {
  width: number;
  striped: boolean;
  bottom: number;
}

/**
 * What the segments of `chunks` (the globals first, then the image's own data, as a decoder reads
 * them) declare. Never throws; a segment it cannot read ends that reading, as it ends a decoder's.
 * @example
 * jbig2Claims([data]).widthPx; // the widest bitmap any segment declares
 */
export function jbig2Claims(chunks: readonly Uint8Array[]): Jbig2Claims {
  const claims: Jbig2Claims = { widthPx: 0, heightPx: 0, pixels: 0, symbols: 0, instances: 0, segments: 0 };
  // The readings part only after a generic region of unknown length: each is a decoder's whole
  // work, so the larger of the two is what one decoder may do.
  for (const reading of ['pdfjs', 'standard'] as const) {
    const tally = new Tally();
    const page: Page = { width: 0, striped: false, bottom: 0 };
    for (const chunk of chunks) readChunk(chunk, reading, tally, page);
    if (page.striped && page.bottom) tally.bitmap(page.width, page.bottom);
    for (const key of ['widthPx', 'heightPx', 'pixels', 'symbols', 'instances', 'segments'] as const) claims[key] = Math.max(claims[key], tally[key]);
  }
  return claims;
}

function readChunk(data: Uint8Array, reading: 'pdfjs' | 'standard', tally: Tally, page: Page): void {
  let position = 0;
  while (position < data.length) {
    const header = readHeader(data, position, reading);
    if (!header) return;
    tally.segments++;
    const start = header.headerEnd;
    const end = header.length < 0 ? data.length : Math.min(data.length, start + header.length);
    readSegment(data, header, start, end, tally, page);
    if (header.type === 51 || header.length < 0) return; // end of file, or an end that cannot be found
    position = start + header.length;
  }
}

interface Header {
  number: number;
  type: number;
  referredTo: number[];
  headerEnd: number;
  /** The data's length as the reading takes it (pdf.js's unknown length of a generic region is an end position); -1: not found. */
  length: number;
}

/** A segment header (§7.2), or null where a decoder stops: an unknown type, a header cut short, an unknown length it cannot find. */
function readHeader(data: Uint8Array, start: number, reading: 'pdfjs' | 'standard'): Header | null {
  if (start + 11 > data.length) return null;
  const number = u32(data, start);
  const flags = data[start + 4]!;
  const type = flags & 0x3f;
  if (!KNOWN.has(type)) return null;
  let position = start + 5;
  let count = data[position]! >> 5;
  if (count === 7) {
    count = u32(data, position) & 0x1fffffff;
    position += 4 + ((count + 8) >> 3);
  } else {
    if (count === 5 || count === 6) return null;
    position += 1;
  }
  const size = number <= 256 ? 1 : number <= 65536 ? 2 : 4;
  const referredTo: number[] = [];
  for (let i = 0; i < count && position + size <= data.length; i++, position += size) {
    if (i < 16) referredTo.push(size === 1 ? data[position]! : size === 2 ? u16(data, position) : u32(data, position));
  }
  if (referredTo.length < Math.min(count, 16)) return null;
  position += Math.max(0, count - 16) * size;
  position += flags & 0x40 ? 4 : 1; // page association
  if (position + 4 > data.length) return null;
  let length = u32(data, position);
  position += 4;
  if (length === 0xffffffff) {
    // Only an immediate generic region may leave its length to be found (§7.2.7).
    if (type !== 38) return null;
    const found = genericRegionEnd(data, position, reading);
    // pdf.js takes the end's position as the data's length; a reader of the standard, the bytes up
    // to it. An end not found: the region's own information is still read, and the stream ends.
    length = found < 0 ? -1 : reading === 'pdfjs' ? found : found - position;
  }
  return { number, type, referredTo, headerEnd: position, length };
}

/**
 * The end of a generic region of unknown length: after its closing marker (§7.4.6.4: 0xFFAC, or
 * 0x0000 when MMR-coded, then the row count), or -1. pdf.js looks for the marker followed by the
 * region's declared height; a reader of the standard takes the first marker, whatever rows follow.
 */
function genericRegionEnd(data: Uint8Array, start: number, reading: 'pdfjs' | 'standard'): number {
  if (start + REGION_INFO_BYTES + 1 > data.length) return -1;
  const rows = u32(data, start + 4);
  const mmr = (data[start + REGION_INFO_BYTES]! & 1) === 1;
  const pattern = [mmr ? 0x00 : 0xff, mmr ? 0x00 : 0xac, (rows >>> 24) & 0xff, (rows >>> 16) & 0xff, (rows >>> 8) & 0xff, rows & 0xff];
  const compared = reading === 'pdfjs' ? pattern.length : 2;
  for (let i = start; i + pattern.length <= data.length; i++) {
    let j = 0;
    while (j < compared && data[i + j] === pattern[j]) j++;
    if (j === compared) return i + pattern.length;
  }
  return -1;
}

function readSegment(data: Uint8Array, header: Header, start: number, end: number, tally: Tally, page: Page): void {
  const type = header.type;
  if (type === 48 && start + 19 <= end) {
    const width = u32(data, start);
    const height = u32(data, start + 4);
    page.width = width;
    page.bottom = 0;
    page.striped = height === 0xffffffff;
    // A striped page starts as tall as its largest stripe (PDFium), or empty (pdf.js), and grows.
    if (page.striped) tally.bitmap(width, u16(data, start + 17) & 0x7fff);
    else tally.bitmap(width, height);
    return;
  }
  if (type === 49 && start + 4 <= end) {
    // End of stripe: the page reaches at least to this row.
    if (page.striped) page.bottom = Math.max(page.bottom, u32(data, start) + 1);
    return;
  }
  if (type === 0) {
    const flags = u16(data, start);
    const huffman = (flags & 1) === 1;
    const refinement = (flags & 2) === 2;
    const template = (flags >> 10) & 3;
    let p = start + 2 + (huffman ? 0 : template === 0 ? 8 : 2);
    if (refinement && !((flags >> 12) & 1)) p += 4;
    if (p + 8 <= end) tally.symbols += u32(data, p + 4);
    return;
  }
  if (type === 16 && start + 7 <= end) {
    const widthPx = data[start + 1]!;
    const heightPx = data[start + 2]!;
    const count = u32(data, start + 3) + 1;
    tally.patterns.set(header.number, { count, widthPx, heightPx });
    // The patterns are decoded as one bitmap side by side (§6.7.5), then cut apart. (Not an image
    // size: a dictionary of 4,096 patterns of 8 px is 32,768 px wide, and legitimate.)
    tally.pixels += 2 * count * widthPx * heightPx;
    return;
  }
  if (!REGIONS.has(type) || start + REGION_INFO_BYTES > end) return;
  const width = u32(data, start);
  const height = u32(data, start + 4);
  const y = u32(data, start + 12);
  tally.bitmap(width, height);
  if (page.striped) page.bottom = Math.max(page.bottom, y + height);
  const p = start + REGION_INFO_BYTES;
  if (type === 4 || type === 6 || type === 7) {
    const flags = u16(data, p);
    const huffman = (flags & 1) === 1;
    const refinement = (flags & 2) === 2;
    let q = p + 2 + (huffman ? 2 : 0);
    if (refinement && !((flags >> 15) & 1)) q += 4;
    if (q + 4 <= end) tally.instances += u32(data, q);
  } else if ((type === 20 || type === 22 || type === 23) && p + 17 <= end) {
    // A halftone region: a grid of gray values, decoded as one bitmap per bit of them, each cell
    // then drawn with a pattern.
    const gridWidth = u32(data, p + 1);
    const gridHeight = u32(data, p + 5);
    const patterns = header.referredTo.length ? tally.patterns.get(header.referredTo[0]!) : undefined;
    const planes = Math.max(1, Math.ceil(Math.log2(Math.max(2, patterns?.count ?? 2))));
    tally.pixels += gridWidth * gridHeight * (planes + (patterns ? patterns.widthPx * patterns.heightPx : 1));
  }
}
