import type { RawPixels } from './pixels.js';

let loadedSharp: typeof import('sharp').default | undefined;

export type PreviewFormat = 'png' | 'webp';

export const PREVIEW_MIME: Record<PreviewFormat, string> = { png: 'image/png', webp: 'image/webp' };

/** Encodes raw pixels as PNG or WebP (alpha dropped: pages are rendered on white). */
export async function encodePreview(pixels: RawPixels, format: PreviewFormat): Promise<Uint8Array> {
  const { data, width, height, channels } = pixels;
  // A check without previews never loads sharp. Once loaded, the encoding starts before this
  // function first returns, so it runs on libuv's threads while the caller goes on.
  const sharp = loadedSharp ?? (loadedSharp = (await import('sharp')).default);
  let img = sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: channels as 3 | 4 } });
  if (channels === 4) img = img.removeAlpha();
  // Previews are looked at, not archived: fast PNG settings (zlib level 2, no adaptive filtering).
  const out =
    format === 'png' ? await img.png({ compressionLevel: 2, adaptiveFiltering: false }).toBuffer() : await img.webp({ quality: 82, effort: 2 }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
