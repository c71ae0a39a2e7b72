import type { RawPixels } from './pixels.js';
import { encodePng } from './png.js';
import { loadSharp } from './sharp.js';

export type PreviewFormat = 'png' | 'webp';

export const PREVIEW_MIME: Record<PreviewFormat, string> = { png: 'image/png', webp: 'image/webp' };

/**
 * Encodes raw pixels as PNG or WebP (alpha dropped: pages are rendered on white). Previews are
 * looked at, not archived: fast settings (PNG: zlib level 2, no row filters; WebP: effort 2). PNG is
 * written on node:zlib (png.ts), so a check with PNG previews of vector pages never loads sharp.
 * Either way the encoding runs on libuv's threads while the caller goes on.
 */
export async function encodePreview(pixels: RawPixels, format: PreviewFormat): Promise<Uint8Array> {
  if (format === 'png') return encodePng(pixels, 2);
  const { data, width, height, channels } = pixels;
  const sharp = await loadSharp();
  let img = sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: channels as 3 | 4 } });
  if (channels === 4) img = img.removeAlpha();
  const out = await img.webp({ quality: 82, effort: 2 }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
