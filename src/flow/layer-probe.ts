/**
 * One rule for a layer's image on every surface: before it is assembled, each image is probed in the
 * pool (raster/image-probe.ts: its header's size; within the limit, whether it decodes), and one over
 * the product's `maxImagePixels` on a side, or one that cannot be decoded, is refused with a
 * {@link LayerImageError} naming the layer, its size and the limit — never scaled down. The
 * library's `check({ layers })` and `assemble`, the CLI, and the service (before its 202 for the
 * uploaded parts, after the download for layers given by URL) judge here, in the same words.
 */
import { LayerImageError } from '../errors.js';
import type { Executor } from '../pool/local.js';
import { TaskFailure } from '../pool/pool.js';
import { sharedBufferOf } from '../source/read.js';
import { grouped } from '../util/text.js';

/** The kinds of file a layer can be: what the assembly reads. */
export type LayerKind = 'png' | 'jpeg' | 'tiff' | 'webp' | 'pdf';

/** How many first bytes decide a file's kind (a PDF's header may follow up to 1 KiB of junk, as readers allow). */
export const SNIFF_BYTES = 1024;

/**
 * A file's kind from its first bytes, or null for anything the assembly cannot read.
 * @example
 * layerKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])); // 'png'
 */
export function layerKind(head: Uint8Array): LayerKind | null {
  const at = (i: number, ...bytes: number[]) => bytes.every((b, k) => head[i + k] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'jpeg';
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a) || at(0, 0x49, 0x49, 0x2b, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2b)) return 'tiff';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'webp';
  if (Buffer.from(head.subarray(0, SNIFF_BYTES)).toString('latin1').includes('%PDF-')) return 'pdf';
  return null;
}

/** The time a probe may take in a worker: a thumbnail of an image within the limit takes well under a second. */
export const PROBE_TIMEOUT_MS = 20_000;

/** What the refusal says the image is: `The part "layer.front"` (an upload) or `The image for layer "front"`. */
export type LayerSubject = string;

/** The subject of a layer's image in the library's and a check's words. */
export const layerSubject = (layer: string): LayerSubject => `The image for layer "${layer}"`;

/** The sentence of an image over the limit (the service's `layer-too-large` detail says the same). */
export function tooLargeText(subject: LayerSubject, widthPx: number, heightPx: number, limitPx: number): string {
  return `${subject} is ${pixelSize(widthPx, heightPx)}; the order service takes images of at most ${grouped(limitPx)} pixels per side. Scale it to at most ${grouped(limitPx)} pixels on its longer side and send it again.`;
}

/** `15,001 × 20 pixels` */
export const pixelSize = (widthPx: number, heightPx: number): string => `${grouped(widthPx)} × ${grouped(heightPx)} pixels`;

/** The sentence of an image that cannot be decoded (the service's `layer-unreadable` detail says the same). */
export function unreadableText(subject: LayerSubject, format: string | null, reason: string): string {
  return `${subject} cannot be decoded${format ? ` as ${format.toUpperCase()}` : ''} (${reason.slice(0, 200)}): the file is damaged, cut short or no image. Export the image again and send it whole.`;
}

/**
 * The refusal of a layer's image, or null when it may be assembled: a file that is no image the
 * assembly reads (its first bytes), over `maxSidePx` on a side (from its header, nothing decoded),
 * or one whose pixels do not decode — probed in the pool, never in this thread. A one-page PDF is
 * left to the assembly, which reads it under the decode budget. A probe that times out, or whose
 * worker stops under it (crashed, or stopped by the memory watchdog), is the file's fault: the image
 * is unreadable. A pool that is closed is not: its {@link TaskFailure} (`closed`) is thrown on.
 * @param executor the pool (or the calling thread, `pool: false`) the probe runs in
 * @param layer the layer's id, named by the refusal
 * @param subject how the refusal names the image ({@link layerSubject}, or the service's part)
 * @example
 * const refused = await layerImageRefusal(pool, 'front', bytes, 15_000);
 * if (refused) throw refused;
 */
export async function layerImageRefusal(
  executor: Pick<Executor, 'probeImage'>,
  layer: string,
  bytes: Uint8Array,
  maxSidePx: number,
  subject: LayerSubject = layerSubject(layer),
  signal?: AbortSignal,
): Promise<LayerImageError | null> {
  const kind = layerKind(bytes.subarray(0, SNIFF_BYTES));
  if (kind === 'pdf') return null;
  const unreadable = (format: string | null, reason: string) => new LayerImageError('ERR_LAYER_UNREADABLE', unreadableText(subject, format, reason), { layer, reason: reason.slice(0, 200) });
  if (kind === null) return unreadable(null, `not a PNG, JPEG, TIFF, WebP or PDF file${firstBytes(bytes)}`);
  let probe;
  try {
    probe = await executor.probeImage(sharedBufferOf(bytes), maxSidePx, signal, PROBE_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof TaskFailure) || error.reason === 'aborted' || error.reason === 'closed') throw error;
    if (error.reason === 'timeout') return unreadable(kind, `not decoded within ${PROBE_TIMEOUT_MS / 1000} s`);
    return unreadable(kind, `its decoding ${error.message}`);
  }
  const { widthPx, heightPx } = probe;
  if (widthPx !== null && heightPx !== null && Math.max(widthPx, heightPx) > maxSidePx) {
    return new LayerImageError('ERR_LAYER_TOO_LARGE', tooLargeText(subject, widthPx, heightPx, maxSidePx), { layer, widthPx, heightPx, limitPx: maxSidePx });
  }
  if (probe.unreadable !== null) return unreadable(probe.format, probe.unreadable);
  return null;
}

/** What a file that is no image starts with, for the reason (`: it starts with "<!DOCTYPE html>"`), printable characters only. */
function firstBytes(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.subarray(0, 24))
    .toString('latin1')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '.')
    .trim();
  return text ? `: it starts with "${text}"` : ': it is empty';
}

/**
 * Every layer image of a check or an assembly probed at once; the first refusal in the product's
 * layer order is thrown.
 * @throws {LayerImageError} a layer's image over `maxSidePx` on a side, or one that cannot be decoded
 * @example
 * await refuseLayerImages(run.executor, [{ id: 'front', bytes }], run.limits.maxImagePixels);
 */
export async function refuseLayerImages(executor: Pick<Executor, 'probeImage'>, layers: readonly { id: string; bytes: Uint8Array }[], maxSidePx: number, signal?: AbortSignal): Promise<void> {
  const refusals = await Promise.all(layers.map((l) => layerImageRefusal(executor, l.id, l.bytes, maxSidePx, layerSubject(l.id), signal)));
  const refused = refusals.find((r) => r !== null);
  if (refused) throw refused;
}
