/**
 * What an image's header says and whether its pixels decode: the facts the service needs to refuse
 * a layer image while the client still waits (service/routes/layer-parts.ts judges them). It runs
 * in a pool worker, never on the server's main thread. The size comes from the header alone; only
 * an image within `maxSidePx` is then decoded — to a small thumbnail, so a JPEG or WebP is shrunk
 * on load — with sharp failing on any error (a truncated file included); a JPEG's scans are counted
 * first, as no decoder bounds them.
 */
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import { loadSharp } from './sharp.js';

/** The long side of the thumbnail an image is decoded to: enough to read every row of a JPEG's scans. */
const THUMBNAIL_PX = 64;

/** What {@link probeImage} found. */
export interface ImageProbe {
  /** The format sharp read from the header (`png`, `jpeg`, `tiff`, `webp`…); null when the header cannot be read. */
  format: string | null;
  /** The stored size, before any EXIF orientation; null when the header cannot be read. */
  widthPx: number | null;
  heightPx: number | null;
  /** Whether the pixels were decoded: false for an image over `maxSidePx` (never decoded) or an unreadable one. */
  decoded: boolean;
  /** Why the image cannot be read (sharp's first line), or null. */
  unreadable: string | null;
}

/**
 * Reads an image's header and, when neither side is over `maxSidePx`, decodes it to a thumbnail.
 * @param bytes the image file (PNG, JPEG, TIFF, WebP…)
 * @param maxSidePx the longest side decoded; a larger image is only measured
 * @returns the facts; never throws for a bad image (`unreadable` says why)
 * @example
 * const probe = await probeImage(bytes, 15_000);
 * if (probe.unreadable) console.log(`cannot be read: ${probe.unreadable}`);
 */
export async function probeImage(bytes: Uint8Array, maxSidePx: number): Promise<ImageProbe> {
  const sharp = await loadSharp();
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let meta;
  try {
    meta = await sharp(input, { failOn: 'error' }).metadata();
  } catch (error) {
    return { format: null, widthPx: null, heightPx: null, decoded: false, unreadable: firstLine(error) };
  }
  const size = { format: meta.format ?? null, widthPx: meta.width ?? null, heightPx: meta.height ?? null };
  if (!meta.width || !meta.height) return { ...size, decoded: false, unreadable: 'the header gives no size' };
  if (Math.max(meta.width, meta.height) > maxSidePx) return { ...size, decoded: false, unreadable: null };
  // No decoder bounds a progressive JPEG's scans: a flood of them is refused before any is decoded.
  const scans = meta.format === 'jpeg' ? jpegScanReason(bytes, meta.width * meta.height) : null;
  if (scans) return { ...size, decoded: false, unreadable: scans };
  try {
    await sharp(input, { failOn: 'error', sequentialRead: true }).resize(THUMBNAIL_PX, THUMBNAIL_PX, { fit: 'inside' }).raw().toBuffer();
  } catch (error) {
    return { ...size, decoded: false, unreadable: firstLine(error) };
  }
  return { ...size, decoded: true, unreadable: null };
}

function firstLine(error: unknown): string {
  return ((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '').trim() || 'unknown error';
}
