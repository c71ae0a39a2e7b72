/**
 * Whether a file is likely to need a pool worker to draw it: anything but pages of JPEG images
 * alone (fonts, patterns, shadings, or no JPEG at all), which the caller's own thread draws through
 * sharp. Decided from the raw bytes, before the structure is read, so that a one-shot command can
 * start a worker while it reads the structure. Imports nothing: the command decides it first thing.
 * @example
 * if (likelyNeedsWorker(bytes)) pool.warm(1);
 */
export function likelyNeedsWorker(bytes: Uint8Array): boolean {
  const has = (marker: string) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(marker);
  return !has('/DCTDecode') || ['/Font', '/Pattern', '/Shading'].some(has);
}
