/**
 * A minimal uncompressed TIFF (one strip, little-endian) around raw 8-bit samples, so that sharp
 * reads them as CMYK, gray or RGB — with an ICC profile when the PDF gave one. sharp's raw input
 * cannot say "these 4 channels are CMYK"; a TIFF can.
 */

export type SampleModel = 'cmyk' | 'gray' | 'rgb';

const PHOTOMETRIC: Record<SampleModel, number> = { gray: 1, rgb: 2, cmyk: 5 };
const CHANNELS: Record<SampleModel, number> = { gray: 1, rgb: 3, cmyk: 4 };

export function rawToTiff(data: Uint8Array, width: number, height: number, model: SampleModel, icc?: Uint8Array): Uint8Array {
  const spp = CHANNELS[model];
  if (data.length < width * height * spp) throw new Error(`expected ${width * height * spp} bytes of ${model} samples, got ${data.length}`);
  const entries: [tag: number, type: number, count: number, value: number | Uint8Array][] = [];
  const bps = new Uint8Array(spp * 2);
  for (let i = 0; i < spp; i++) bps[i * 2] = 8;
  entries.push([256, 4, 1, width], [257, 4, 1, height], [258, 3, spp, spp > 2 ? bps : 8], [259, 3, 1, 1], [262, 3, 1, PHOTOMETRIC[model]]);
  entries.push([273, 4, 1, 0 /* patched */], [277, 3, 1, spp], [278, 4, 1, height], [279, 4, 1, width * height * spp], [284, 3, 1, 1]);
  if (model === 'cmyk') entries.push([332, 3, 1, 1]);
  if (icc) entries.push([34675, 7, icc.length, icc]);
  const ifdSize = 2 + entries.length * 12 + 4;
  let extraOffset = 8 + ifdSize;
  const extras: { offset: number; bytes: Uint8Array }[] = [];
  for (const e of entries) {
    if (e[3] instanceof Uint8Array && e[3].length > 4) {
      extras.push({ offset: extraOffset, bytes: e[3] });
      extraOffset += e[3].length + (e[3].length % 2);
    }
  }
  const pixelOffset = extraOffset;
  const out = new Uint8Array(pixelOffset + width * height * spp);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, 8, true);
  view.setUint16(8, entries.length, true);
  let extraIndex = 0;
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    view.setUint16(at, tag, true);
    view.setUint16(at + 2, type, true);
    view.setUint32(at + 4, count, true);
    if (tag === 273) view.setUint32(at + 8, pixelOffset, true);
    else if (value instanceof Uint8Array) {
      if (value.length > 4) view.setUint32(at + 8, extras[extraIndex++]!.offset, true);
      else out.set(value, at + 8);
    } else if (type === 3) view.setUint16(at + 8, value, true);
    else view.setUint32(at + 8, value, true);
  });
  view.setUint32(10 + entries.length * 12, 0, true);
  for (const e of extras) out.set(e.bytes, e.offset);
  out.set(data.subarray(0, width * height * spp), pixelOffset);
  return out;
}

/** How CCITT fax data is coded, in TIFF's terms (TIFF 6.0 §10–11; TIFF Class F). */
export interface FaxCoding {
  /** 2: Modified Huffman, each row byte-aligned, no EOL; 3: T.4 (Group 3); 4: T.6 (Group 4). */
  compression: 2 | 3 | 4;
  /** Compression 3 only: T4Options (bit 0 two-dimensional coding, bit 2 EOLs padded to a byte boundary). */
  t4Options?: number;
  /** 0 (white is zero): black runs are drawn black; 1: black runs are drawn white. */
  photometric: 0 | 1;
}

/**
 * A one-strip bilevel TIFF around CCITT fax data as it stands in a PDF stream (most significant bit
 * first), so that libtiff decodes it. One strip taller than 128 rows is read by libvips a scanline
 * at a time (TIFFReadScanline): memory is a few rows, whatever the image's height.
 * @example
 * const tiff = faxToTiff(stream.contents, 35000, 35000, { compression: 4, photometric: 0 });
 */
export function faxToTiff(data: Uint8Array, width: number, height: number, coding: FaxCoding): Uint8Array {
  const entries: [tag: number, type: number, value: number][] = [
    [256, 4, width],
    [257, 4, height],
    [258, 3, 1],
    [259, 3, coding.compression],
    [262, 3, coding.photometric],
    [266, 3, 1], // FillOrder: most significant bit first, as in PDF
    [273, 4, 0 /* patched */],
    [277, 3, 1],
    [278, 4, height],
    [279, 4, data.length],
  ];
  if (coding.compression === 3) entries.push([292, 4, coding.t4Options ?? 0]);
  if (coding.compression === 4) entries.push([293, 4, 0]);
  const dataOffset = 8 + 2 + entries.length * 12 + 4;
  const out = new Uint8Array(dataOffset + data.length);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, 8, true);
  view.setUint16(8, entries.length, true);
  entries.forEach(([tag, type, value], i) => {
    const at = 10 + i * 12;
    view.setUint16(at, tag, true);
    view.setUint16(at + 2, type, true);
    view.setUint32(at + 4, 1, true);
    const v = tag === 273 ? dataOffset : value;
    if (type === 3) view.setUint16(at + 8, v, true);
    else view.setUint32(at + 8, v, true);
  });
  view.setUint32(10 + entries.length * 12, 0, true);
  out.set(data, dataOffset);
  return out;
}
