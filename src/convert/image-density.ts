/**
 * The resolution an image file states for itself — PNG pHYs, JPEG JFIF density, TIFF resolution —
 * or null when it states none. libvips reports 72 ppi both for an image that says 72 and for one
 * that says nothing (a PNG without pHYs, a JFIF with aspect-ratio units), so a tile would be laid
 * at 72 ppi by accident: the PNG chunk is read here, and JPEG/TIFF values are taken only when the
 * file carries a unit.
 */
import type { Metadata } from 'sharp';

/** Pixels per inch a PNG's pHYs chunk states (unit metre), or null. */
export function pngPpi(png: Uint8Array): number | null {
  if (png.length < 33 || png[0] !== 0x89 || png[1] !== 0x50) return null;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let at = 8; at + 8 <= png.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (type === 'pHYs' && length === 9 && at + 17 <= png.length) {
      const x = view.getUint32(at + 8);
      const y = view.getUint32(at + 12);
      // Unit 0 is an aspect ratio only: no resolution stated.
      if (png[at + 16] !== 1 || x === 0 || y === 0) return null;
      // Pixels per metre are whole numbers: 150 ppi is stored as 5906 (rounded) or 5905 (ImageMagick
      // truncates). A value within one of a whole ppi's means that ppi.
      const ppm = (x + y) / 2;
      const ppi = ppm * 0.0254;
      return Math.abs(Math.round(ppi) / 0.0254 - ppm) < 1 ? Math.round(ppi) : ppi;
    }
    if (type === 'IDAT' || type === 'IEND') return null;
    at += 12 + length;
  }
  return null;
}

/**
 * The stated resolution of an image, in pixels per inch (rounded to 0.01), or null.
 * @example
 * statedPpi(bytes, await sharp(bytes).metadata()); // 150 for a PNG saved at 150 dpi
 */
export function statedPpi(bytes: Uint8Array, meta: Pick<Metadata, 'format' | 'density' | 'resolutionUnit'>): number | null {
  let ppi: number | null = null;
  if (meta.format === 'png') ppi = pngPpi(bytes);
  else if ((meta.format === 'jpeg' || meta.format === 'tiff') && meta.resolutionUnit && meta.density) ppi = meta.density;
  return ppi !== null && Number.isFinite(ppi) && ppi >= 1 && ppi <= 100_000 ? Math.round(ppi * 100) / 100 : null;
}
