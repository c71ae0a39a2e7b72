/**
 * A PNG encoder on node:zlib: 8-bit RGB, no row filters, deflate at a fast level — what sharp
 * writes with `compressionLevel: 2, adaptiveFiltering: false`, without loading libvips for it.
 * The deflate runs on libuv's thread pool, so the caller's thread goes on (measuring the pixels).
 */
import { concatBytes } from '../util/array.js';
import { crc32, deflate } from 'node:zlib';
import { promisify } from 'node:util';
import type { RawPixels } from './pixels.js';

const deflateAsync = promisify(deflate);
const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** Encodes RGB or RGBA pixels (alpha dropped: pages are drawn on white) as an RGB PNG. */
export async function encodePng(pixels: RawPixels, level = 2): Promise<Uint8Array> {
  const { data, width, height, channels } = pixels;
  const row = width * 3 + 1;
  const raw = Buffer.allocUnsafe(row * height);
  for (let y = 0; y < height; y++) {
    let o = y * row;
    raw[o++] = 0; // filter: none
    let i = y * width * channels;
    if (channels === 3) {
      raw.set(data.subarray(i, i + width * 3), o);
      continue;
    }
    for (let x = 0; x < width; x++, i += channels) {
      raw[o++] = data[i]!;
      raw[o++] = data[i + 1]!;
      raw[o++] = data[i + 2]!;
    }
  }
  const idat = await deflateAsync(raw, { level });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const parts = [SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))];
  return concatBytes(parts);
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}
