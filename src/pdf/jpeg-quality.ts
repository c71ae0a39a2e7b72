/**
 * A JPEG's compression quality, estimated from its quantisation tables (DQT) without decoding a
 * pixel. libjpeg and the encoders built on it (libjpeg-turbo, ImageMagick, PIL, GIMP, sharp/libvips…)
 * write the tables of ITU-T T.81 Annex K scaled by one factor that the quality setting decides;
 * mozjpeg (sharp's `mozjpeg: true`, its cjpeg) scales one of eight other base tables the same way —
 * by default ImageMagick's, by N. Robidoux. Fitting the factor for each base gives the setting back,
 * exactly for those encoders (a libjpeg fit alone read mozjpeg's quality 60 as 55). Other encoders
 * (Photoshop, jpegli, cameras) use tables of their own, not scaled from a known base: the fit gives
 * the libjpeg quality whose tables come closest, said as an estimate, which is what "quality" means
 * on the scale people know.
 */

/** ITU-T T.81 Annex K, table K.1 (luminance), in natural (row-major) order. */
const STD_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
  49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
/** Table K.2 (chrominance). */
const STD_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];
/** Zig-zag position → natural position (T.81 figure A.6). DQT stores its values in zig-zag order. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45,
  38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/**
 * The base tables of mozjpeg (its jcparam.c, `quant_tbl_master_idx` 1–8; 0 is Annex K), in natural
 * order, read back from the encoder sharp ships (every quality of every index checked against the
 * scaling below). Values above 255 are the base's own: scaling brings them within 8 bits.
 */
const MOZJPEG_BASES: readonly { index: number; name: string; luma: readonly number[]; chroma: readonly number[] | null }[] = [
  {
    index: 1,
    name: 'flat',
    luma: [
      16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
      16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    ],
    chroma: null,
  },
  {
    index: 2,
    name: 'MS-SSIM-tuned on Kodak images',
    luma: [
      12, 17, 20, 21, 30, 34, 56, 63, 18, 20, 20, 26, 28, 51, 61, 55, 19, 20, 21, 26, 33, 58, 69, 55, 26, 26, 26, 30, 46, 87, 86, 66, 31, 33, 36, 40, 46, 96, 100, 73, 40, 35, 46, 62, 81, 100, 111, 91,
      46, 66, 76, 86, 102, 121, 120, 101, 68, 90, 90, 96, 113, 102, 105, 103,
    ],
    chroma: [
      8, 12, 15, 15, 86, 96, 96, 98, 13, 13, 15, 26, 90, 96, 99, 98, 12, 15, 18, 96, 99, 99, 99, 99, 17, 16, 90, 96, 99, 99, 99, 99, 96, 96, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
      99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    ],
  },
  {
    index: 3,
    name: 'ImageMagick’s (N. Robidoux), mozjpeg’s default',
    luma: [
      16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135, 18, 27, 31, 40, 53, 74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169,
      238, 56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418,
    ],
    chroma: null,
  },
  {
    index: 4,
    name: 'PSNR-HVS-M-tuned',
    luma: [
      9, 10, 12, 14, 27, 32, 51, 62, 11, 12, 14, 19, 27, 44, 59, 73, 12, 14, 18, 25, 42, 59, 79, 78, 17, 18, 25, 42, 61, 92, 87, 92, 23, 28, 42, 75, 79, 112, 112, 99, 40, 42, 59, 84, 88, 124, 132,
      111, 42, 64, 78, 95, 105, 126, 125, 99, 70, 75, 100, 102, 116, 100, 107, 98,
    ],
    chroma: [
      9, 10, 17, 19, 62, 89, 91, 97, 12, 13, 18, 29, 84, 91, 88, 98, 14, 19, 29, 93, 95, 95, 98, 97, 20, 26, 84, 88, 95, 95, 98, 94, 26, 86, 91, 93, 97, 99, 98, 99, 99, 100, 98, 99, 99, 99, 99, 99,
      99, 99, 99, 99, 99, 99, 99, 99, 97, 97, 99, 99, 99, 99, 97, 99,
    ],
  },
  {
    index: 5,
    name: 'Klein, Silverstein and Carney 1992',
    luma: [
      10, 12, 14, 19, 26, 38, 57, 86, 12, 18, 21, 28, 35, 41, 54, 76, 14, 21, 25, 32, 44, 63, 92, 136, 19, 28, 32, 41, 54, 75, 107, 157, 26, 35, 44, 54, 70, 95, 132, 190, 38, 41, 63, 75, 95, 125, 170,
      239, 57, 54, 92, 107, 132, 170, 227, 312, 86, 76, 136, 157, 190, 239, 312, 419,
    ],
    chroma: null,
  },
  {
    index: 6,
    name: 'Watson, Taylor and Borthwick 1997',
    luma: [
      7, 8, 10, 14, 23, 44, 95, 241, 8, 8, 11, 15, 25, 47, 102, 255, 10, 11, 13, 19, 31, 58, 127, 255, 14, 15, 19, 27, 44, 83, 181, 255, 23, 25, 31, 44, 72, 136, 255, 255, 44, 47, 58, 83, 136, 255,
      255, 255, 95, 102, 127, 181, 255, 255, 255, 255, 241, 255, 255, 255, 255, 255, 255, 255,
    ],
    chroma: null,
  },
  {
    index: 7,
    name: 'Ahumada, Watson and Peterson 1993',
    luma: [
      15, 11, 11, 12, 15, 19, 25, 32, 11, 13, 10, 10, 12, 15, 19, 24, 11, 10, 14, 14, 16, 18, 22, 27, 12, 10, 14, 18, 21, 24, 28, 33, 15, 12, 16, 21, 26, 31, 36, 42, 19, 15, 18, 24, 31, 38, 45, 53,
      25, 19, 22, 28, 36, 45, 55, 65, 32, 24, 27, 33, 42, 53, 65, 77,
    ],
    chroma: null,
  },
  {
    index: 8,
    name: 'Peterson, Ahumada and Watson 1993',
    luma: [
      14, 10, 11, 14, 19, 25, 34, 45, 10, 11, 11, 12, 15, 20, 26, 33, 11, 11, 15, 18, 21, 25, 31, 38, 14, 12, 18, 24, 28, 33, 39, 47, 19, 15, 21, 28, 36, 43, 51, 59, 25, 20, 25, 33, 43, 54, 64, 74,
      34, 26, 31, 39, 51, 64, 77, 91, 45, 33, 38, 47, 59, 74, 91, 108,
    ],
    chroma: null,
  },
];

/** Base tables and the encoder family that scales them. */
interface TableSet {
  encoder: 'libjpeg' | 'mozjpeg';
  name: string;
  luma: readonly number[];
  chroma: readonly number[];
}

export interface JpegQuality {
  /** The quality setting (1–100) whose tables fit best: the encoder's own setting when `exact`, else the libjpeg setting that comes closest. */
  quality: number;
  /** The tables are exactly those of an encoder whose scaling is known, at that setting. */
  exact: boolean;
  /** Whose tables they are when `exact`: libjpeg's (Annex K, scaled) or one of mozjpeg's bases. */
  tables?: 'libjpeg' | 'mozjpeg';
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

const TABLE_SETS: readonly TableSet[] = [
  { encoder: 'libjpeg', name: 'ITU-T T.81 Annex K', luma: STD_LUMA, chroma: STD_CHROMA },
  ...MOZJPEG_BASES.map((b) => ({ encoder: 'mozjpeg' as const, name: b.name, luma: b.luma, chroma: b.chroma ?? b.luma })),
];

/** libjpeg's jpeg_quality_scaling + jpeg_add_quant_table (force_baseline). */
export function scaledTable(standard: readonly number[], quality: number): number[] {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? Math.floor(5000 / q) : 200 - 2 * q;
  return standard.map((v) => Math.min(255, Math.max(1, Math.floor((v * scale + 50) / 100))));
}

/**
 * The quality setting that explains the tables: for each known base (Annex K, mozjpeg's eight),
 * the quality whose scaled tables are nearest (in log steps: the scaling is multiplicative). An
 * exact match names its encoder and setting; otherwise the nearest libjpeg quality is the estimate.
 * Table 0 is compared with the luminance table, table 1 with the chrominance table; others are
 * ignored.
 * @example
 * estimateJpegQuality(jpegQuantTables(bytes)!); // { quality: 85, exact: true, tables: 'libjpeg' } for `convert -quality 85`
 */
export function estimateJpegQuality(tables: ReadonlyMap<number, readonly number[]>): JpegQuality | null {
  const luma = tables.get(0);
  const chroma = tables.get(1);
  if (!luma) return null;
  let estimate: JpegQuality | null = null;
  for (const set of TABLE_SETS) {
    let best: { quality: number; error: number } | null = null;
    for (let q = 1; q <= 100; q++) {
      let error = tableError(luma, scaledTable(set.luma, q));
      if (chroma) error += tableError(chroma, scaledTable(set.chroma, q));
      // On a tie the higher quality wins: near 100 several settings give all-ones tables.
      if (!best || error <= best.error) best = { quality: q, error };
    }
    if (best!.error === 0) return { quality: best!.quality, exact: true, tables: set.encoder };
    // Not exact: the libjpeg scale is the one people know.
    if (set.encoder === 'libjpeg') estimate = { quality: best!.quality, exact: false };
  }
  return estimate;
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
