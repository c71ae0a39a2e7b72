/**
 * Where an assembled layer's image is transparent: its alpha placed on the page as the fill places
 * the image (at 2 mm a pixel), measured inside the trim — the share that is transparent or
 * semi-transparent, the box around it and the part of the trim it is mostly in. Such an area prints
 * as the bare fabric colour unless a background colour is chosen to fill it.
 */
import sharp from 'sharp';
import { MAX_CONVERT_PIXELS } from './images.js';
import type { AssemblyFill, TransparentArea } from '../model/assembly.js';

/** Alpha below this (of 255) counts as transparent; 5 and above as semi-transparent. */
const OPAQUE = 250;
const CLEAR = 5;
/** Below this share of the trim nothing is said (anti-aliased edges of an opaque design). */
export const MIN_TRANSPARENT_SHARE = 0.001;
const MM_PER_PX = 2;

/**
 * The transparent area of an image placed on a page of `page` mm by `fill`, inside the centred
 * `trim`, or null when there is none to speak of.
 * @example
 * await transparentArea(png, 'cover', { widthMm: 560, heightMm: 750 }, { widthMm: 540, heightMm: 730 });
 */
export async function transparentArea(
  input: Uint8Array,
  fill: AssemblyFill,
  page: { widthMm: number; heightMm: number },
  trim: { widthMm: number; heightMm: number },
  design: { widthMm: number; heightMm: number } | null = null,
): Promise<TransparentArea | null> {
  const aw = Math.max(1, Math.round(page.widthMm / MM_PER_PX));
  const ah = Math.max(1, Math.round(page.heightMm / MM_PER_PX));
  const alpha = () => sharp(input, { limitInputPixels: MAX_CONVERT_PIXELS, failOn: 'none' }).rotate().ensureAlpha().extractChannel(3);
  let raw: Buffer;
  if (fill === 'tile') {
    // A tile repeats everywhere: its own share is the page's, all over it.
    const { data } = await alpha().resize(256, 256, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
    const stats = count(data);
    if (stats.share < MIN_TRANSPARENT_SHARE) return null;
    return { share: round4(stats.share), semiShare: round4(stats.semi), boxMm: [0, 0, trim.widthMm, trim.heightMm], region: 'other' };
  } else if (fill === 'mirror') {
    const meta = await alpha().raw().toBuffer({ resolveWithObject: true });
    const s = Math.min(aw / meta.info.width, ah / meta.info.height);
    const iw = Math.max(1, Math.min(aw, Math.round(meta.info.width * s)));
    const ih = Math.max(1, Math.min(ah, Math.round(meta.info.height * s)));
    const placed = await sharp(meta.data, { raw: { width: meta.info.width, height: meta.info.height, channels: 1 } })
      .resize(iw, ih, { fit: 'fill' })
      .extractChannel(0)
      .raw()
      .toBuffer();
    raw = await mirroredAround(placed, iw, ih, aw, ah);
  } else if (fill === 'bleed') {
    // The image on the design's place (the trim), the bleed around it its own edges mirrored.
    const iw = Math.max(1, Math.min(aw, Math.round((design ?? trim).widthMm / MM_PER_PX)));
    const ih = Math.max(1, Math.min(ah, Math.round((design ?? trim).heightMm / MM_PER_PX)));
    const placed = await alpha().resize(iw, ih, { fit: 'cover' }).raw().toBuffer();
    raw = await mirroredAround(placed, iw, ih, aw, ah);
  } else {
    // The bands of contain are painted with the background: opaque.
    raw = await alpha()
      .resize(aw, ah, { fit: fill === 'stretch' ? 'fill' : fill, background: { r: 255, g: 255, b: 255, alpha: 1 } })
      .raw()
      .toBuffer();
  }
  const x0 = Math.max(0, Math.round((page.widthMm - trim.widthMm) / 2 / MM_PER_PX));
  const y0 = Math.max(0, Math.round((page.heightMm - trim.heightMm) / 2 / MM_PER_PX));
  const x1 = Math.min(aw, aw - x0);
  const y1 = Math.min(ah, ah - y0);
  let n = 0;
  let semi = 0;
  let sx = 0;
  let sy = 0;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = -1;
  let maxY = -1;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const a = raw[y * aw + x]!;
      if (a >= OPAQUE) continue;
      n++;
      if (a >= CLEAR) semi++;
      sx += x;
      sy += y;
      if (x < minX) minX = x;
      if (y < minY) minY = y;
      if (x > maxX) maxX = x;
      if (y > maxY) maxY = y;
    }
  }
  const total = Math.max(1, (x1 - x0) * (y1 - y0));
  if (n / total < MIN_TRANSPARENT_SHARE) return null;
  const boxMm: [number, number, number, number] = [(minX - x0) * MM_PER_PX, (minY - y0) * MM_PER_PX, (maxX - minX + 1) * MM_PER_PX, (maxY - minY + 1) * MM_PER_PX];
  // The third of the trim (across and down) the area's centre is in; spread over most of it: several places.
  const cx = (sx / n - x0 + 0.5) / (x1 - x0);
  const cy = (sy / n - y0 + 0.5) / (y1 - y0);
  const spread = (maxX - minX + 1) / (x1 - x0) > 0.8 && (maxY - minY + 1) / (y1 - y0) > 0.8 && n / total < 0.6;
  const col = cx < 1 / 3 ? 0 : cx < 2 / 3 ? 1 : 2;
  const row = cy < 1 / 3 ? 0 : cy < 2 / 3 ? 1 : 2;
  const region = spread ? 'other' : (REGIONS[row]![col]! as TransparentArea['region']);
  return { share: round4(n / total), semiShare: round4(semi / total), boxMm: boxMm.map((v) => Math.round(v)) as [number, number, number, number], region };
}

const REGIONS = [
  ['topLeft', 'top', 'topRight'],
  ['left', 'centre', 'right'],
  ['bottomLeft', 'bottom', 'bottomRight'],
];

const round4 = (v: number) => Math.round(v * 10000) / 10000;

function count(data: Uint8Array) {
  const total = data.length;
  let n = 0;
  let semi = 0;
  for (const a of data) {
    if (a >= OPAQUE) continue;
    n++;
    if (a >= CLEAR) semi++;
  }
  return { share: n / Math.max(1, total), semi: semi / Math.max(1, total) };
}

/** A one-band `iw` × `ih` alpha centred in `aw` × `ah`, the rest its own edges mirrored (as the assembly fills mirror and bleed). */
async function mirroredAround(placed: Buffer, iw: number, ih: number, aw: number, ah: number): Promise<Buffer> {
  const left = Math.floor((aw - iw) / 2);
  const top = Math.floor((ah - ih) / 2);
  return (
    sharp(placed, { raw: { width: iw, height: ih, channels: 1 } })
      .extend({ left, right: aw - iw - left, top, bottom: ah - ih - top, extendWith: 'mirror' })
      // One band out, as in: libvips would write the extended band as sRGB, three bands.
      .extractChannel(0)
      .raw()
      .toBuffer()
  );
}
