import type { RawPixels } from './pixels.js';
import { encodePng } from './png.js';
import { loadSharp, loadedSharp } from './sharp.js';

import type { PreviewFormat } from '../model/preview.js';

export type { PreviewFormat };

export const PREVIEW_MIME: Record<PreviewFormat, string> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

/**
 * Encodes raw pixels as PNG, WebP or JPEG (alpha dropped: pages are rendered on white). Previews are
 * looked at, not archived: fast settings (PNG: zlib level 2, no row filters; WebP: effort 2; JPEG:
 * quality 80, libjpeg-turbo's own tables — a quarter of WebP's CPU for a third more bytes). A PNG
 * is written by sharp when the thread has it loaded (its zlib-ng deflates a photo page ~40 % faster),
 * else on node:zlib (png.ts): a check with PNG previews of vector pages never loads libvips for
 * them. Either way the encoding runs on libuv's threads while the caller goes on.
 */
export async function encodePreview(pixels: RawPixels, format: PreviewFormat): Promise<Uint8Array> {
  const loaded = loadedSharp();
  if (format === 'png' && !loaded) return encodePng(pixels, 2);
  const { data, width, height, channels } = pixels;
  const sharp = await (loaded ?? loadSharp());
  let img = sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: channels as 3 | 4 } });
  if (channels === 4) img = img.removeAlpha();
  const encoded = format === 'png' ? img.png({ compressionLevel: 2, adaptiveFiltering: false }) : format === 'jpeg' ? img.jpeg({ quality: 80 }) : img.webp({ quality: 82, effort: 2 });
  const out = await encoded.toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
