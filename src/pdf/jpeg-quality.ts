/**
 * A JPEG's compression quality, estimated from its quantisation tables (DQT) without decoding a
 * pixel. libjpeg and the encoders built on it (libjpeg-turbo, mozjpeg, ImageMagick, PIL, GIMP,
 * sharp/libvips…) write the tables of ITU-T T.81 Annex K scaled by one factor that the quality
 * setting decides; fitting that factor gives the setting back, exactly for those encoders. Other
 * encoders (Photoshop, cameras) use tables of their own: the fit gives the libjpeg quality whose
 * tables come closest, which is what "quality" means on the scale people know.
 */

/** ITU-T T.81 Annex K, table K.1 (luminance), in natural (row-major) order. */
const STD_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56,
  68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
/** Table K.2 (chrominance). */
const STD_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];
/** Zig-zag position → natural position (T.81 figure A.6). DQT stores its values in zig-zag order. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43,
  36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

export interface JpegQuality {
  /** The libjpeg quality setting (1–100) whose tables fit best. */
  quality: number;
  /** The tables are exactly libjpeg's for that setting (an encoder of the libjpeg family). */
  exact: boolean;
}

/**
 * The quantisation tables of a JPEG stream (id → 64 values in natural order), read up to its
 * first scan; null when the data is not a JPEG or has no table before its first scan.
 * @example
 * jpegQuantTables(bytes)?.get(0)?.[0]; // the luminance DC step, e.g. 8 at quality 75
 */
export function jpegQuantTables(data: Uint8Array): Map<number, number[]> | null {
  const tables = new Map<number, number[]>();
  const wellFormed = walkJpegSegments(data, (marker, i, length) => {
    if (marker !== 0xdb) return false;
    const end = Math.min(data.length, i + length);
    let p = i + 2;
    while (p < end) {
      const pq = data[p]! >> 4;
      const id = data[p]! & 15;
      const size = pq ? 128 : 64;
      if (p + 1 + size > end || id > 3) break;
      const natural = new Array<number>(64);
      for (let k = 0; k < 64; k++) natural[ZIGZAG[k]!] = pq ? (data[p + 1 + 2 * k]! << 8) | data[p + 2 + 2 * k]! : data[p + 1 + k]!;
      tables.set(id, natural);
      p += 1 + size;
    }
    return false;
  });
  return wellFormed && tables.size ? tables : null;
}

/**
 * Walks the marker segments of a JPEG stream up to its first scan (or its end, or where it is cut
 * short), calling `visit` with each segment's marker, the offset of its length field and that
 * length; `visit` returns true to stop. False when the data is not a JPEG or a marker is malformed.
 * @example
 * walkJpegSegments(bytes, (marker) => marker === 0xc0); // stops at a baseline frame header
 */
export function walkJpegSegments(data: Uint8Array, visit: (marker: number, at: number, length: number) => boolean): boolean {
  if (data[0] !== 0xff || data[1] !== 0xd8) return false;
  let i = 2;
  while (i + 3 < data.length) {
    if (data[i] !== 0xff) return false;
    let marker = data[i + 1]!;
    // Fill bytes: any number of 0xFF before a marker.
    while (marker === 0xff && i + 2 < data.length) marker = data[++i + 1]!;
    i += 2;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; // no length
    if (marker === 0xd9 || marker === 0xda) return true; // end of image / start of scan
    if (i + 1 >= data.length) return true;
    const length = (data[i]! << 8) | data[i + 1]!;
    if (length < 2) return false;
    if (visit(marker, i, length)) return true;
    i += length;
  }
  return true;
}

/** libjpeg's jpeg_quality_scaling + jpeg_add_quant_table (force_baseline). */
export function scaledTable(standard: readonly number[], quality: number): number[] {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? Math.floor(5000 / q) : 200 - 2 * q;
  return standard.map((v) => Math.min(255, Math.max(1, Math.floor((v * scale + 50) / 100))));
}

/**
 * The quality setting that explains the tables: the libjpeg quality whose scaled standard tables
 * are nearest (in log steps: the scaling is multiplicative). Table 0 is compared with the
 * luminance table, table 1 with the chrominance table; others are ignored.
 * @example
 * estimateJpegQuality(jpegQuantTables(bytes)!); // { quality: 85, exact: true } for `convert -quality 85`
 */
export function estimateJpegQuality(tables: ReadonlyMap<number, readonly number[]>): JpegQuality | null {
  const luma = tables.get(0);
  const chroma = tables.get(1);
  if (!luma) return null;
  let best: JpegQuality | null = null;
  let bestError = Infinity;
  for (let q = 1; q <= 100; q++) {
    let error = tableError(luma, scaledTable(STD_LUMA, q));
    if (chroma) error += tableError(chroma, scaledTable(STD_CHROMA, q));
    // On a tie the higher quality wins: near 100 several settings give all-ones tables.
    if (error <= bestError) {
      bestError = error;
      best = { quality: q, exact: error === 0 };
    }
  }
  return best;
}

function tableError(actual: readonly number[], expected: readonly number[]): number {
  let sum = 0;
  for (let k = 0; k < 64; k++) {
    const a = Math.max(1, actual[k]!);
    const e = expected[k]!;
    if (a !== e) sum += Math.abs(Math.log(a / e)) + 1e-6;
  }
  return sum;
}

/** The estimated quality of a JPEG stream, or null when it has no readable tables. */
export function jpegQuality(data: Uint8Array): JpegQuality | null {
  const tables = jpegQuantTables(data);
  return tables ? estimateJpegQuality(tables) : null;
}
