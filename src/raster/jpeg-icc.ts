/**
 * JPEG ICC segments: a JPEG given the profile the PDF (or the default chain) says its samples are in.
 */
import { concatBytes } from '../util/array.js';

/**
 * The JPEG with its APP2 ICC_PROFILE segments replaced by `icc` (none when undefined), so that
 * libvips converts from the colour space the PDF gives.
 */
export function withIccProfile(jpeg: Uint8Array, icc: Uint8Array | undefined): Uint8Array {
  const kept: Uint8Array[] = [jpeg.subarray(0, 2)];
  let i = 2;
  let dropped = false;
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      kept.push(jpeg.subarray(i, i + 2));
      i += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break;
    const len = (jpeg[i + 2]! << 8) | jpeg[i + 3]!;
    const end = i + 2 + len;
    const isIcc = marker === 0xe2 && len >= 16 && String.fromCharCode(...jpeg.subarray(i + 4, i + 15)) === 'ICC_PROFILE';
    if (isIcc) dropped = true;
    else kept.push(jpeg.subarray(i, Math.min(end, jpeg.length)));
    i = end;
  }
  if (!dropped && !icc) return jpeg;
  const segments: Uint8Array[] = [];
  if (icc?.length) {
    const chunk = 65_519;
    const count = Math.ceil(icc.length / chunk);
    if (count <= 255) {
      for (let n = 0; n < count; n++) {
        const part = icc.subarray(n * chunk, (n + 1) * chunk);
        const seg = new Uint8Array(4 + 14 + part.length);
        const len = 2 + 14 + part.length;
        seg.set([0xff, 0xe2, len >> 8, len & 0xff]);
        seg.set(new TextEncoder().encode('ICC_PROFILE\0'), 4);
        seg[16] = n + 1;
        seg[17] = count;
        seg.set(part, 18);
        segments.push(seg);
      }
    }
  }
  const head = kept[0]!;
  const rest = [...kept.slice(1), jpeg.subarray(Math.min(i, jpeg.length))];
  return concatBytes([head, ...segments, ...rest]);
}
