/**
 * The parts of a submission with one image per layer (`layer.<id>` parts, `fit.<id>` fields): each
 * part streamed to the scratch folder through a guard that knows its kind from its first bytes and
 * counts the request's bytes — nothing is decoded here, nothing is held in memory beyond the first
 * kilobyte of a part. Before the check is accepted, each image is probed in the pool (its header's
 * size, and whether it decodes) and judged here: too large or unreadable is refused while the
 * client waits.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { TaskFailure, type PreflightPool } from '../../pool/pool.js';
import { grouped } from '../../util/text.js';
import { readSourceBytes, sharedBufferOf } from '../../source/read.js';
import { Problem } from '../problem.js';

/** Layer parts a submission may have (the products' most is 8). */
export const MAX_LAYER_PARTS = 16;

/** The kinds of file a layer can be: what the assembly reads. */
export type LayerKind = 'png' | 'jpeg' | 'tiff' | 'webp' | 'pdf';

/** How many first bytes decide a part's kind (a PDF's header may follow up to 1 KiB of junk, as readers allow). */
const SNIFF_BYTES = 1024;

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

/** A part that is not an image or one-page PDF the assembly reads. */
export function notAnImage(part: string): Problem {
  return new Problem('layer-not-image', `The part "${part}" is not a PNG, JPEG, TIFF, WebP or PDF file: send the layer's image in one of those formats.`, {
    errors: [{ path: part, message: 'not a PNG, JPEG, TIFF, WebP or PDF file' }],
  });
}

/** An image part with more pixels on a side than the product's limit (`maxImagePixels`). */
export function layerTooLarge(part: string, widthPx: number, heightPx: number, limitPx: number): Problem {
  const size = `${grouped(widthPx)} × ${grouped(heightPx)} pixels`;
  return new Problem(
    'layer-too-large',
    `The part "${part}" is ${size}; the order service takes images of at most ${grouped(limitPx)} pixels per side. Scale it to at most ${grouped(limitPx)} pixels on its longer side and send it again.`,
    { widthPx, heightPx, limitPx, errors: [{ path: part, message: `${size}, over ${grouped(limitPx)} pixels per side` }] },
  );
}

/** An image part whose header or pixels cannot be decoded (cut short, or damaged behind good magic bytes). */
export function layerUnreadable(part: string, format: string | null, reason: string): Problem {
  const said = reason.slice(0, 200);
  return new Problem(
    'layer-unreadable',
    `The part "${part}" cannot be decoded${format ? ` as ${format.toUpperCase()}` : ''} (${said}): the file is damaged or cut short. Export the image again and send it whole.`,
    { errors: [{ path: part, message: `cannot be decoded: ${said}` }] },
  );
}

/**
 * What is wrong with a stored layer image, or null: probed in the pool (never decoded on this
 * thread) — over `maxSidePx` on a side from its header alone, else whether it decodes.
 * @param pool the pool the probe runs in
 * @param part the part's name, for the problem (`layer.front`)
 * @param file where the part was streamed to
 * @param maxSidePx the product's `maxImagePixels`
 */
export async function layerImageProblem(pool: PreflightPool, part: string, file: string, maxSidePx: number): Promise<Problem | null> {
  let probe;
  try {
    probe = await pool.probeImage(sharedBufferOf((await readSourceBytes(file)).bytes), maxSidePx, undefined, PROBE_TIMEOUT_MS);
  } catch (error) {
    // A thumbnail of an image within the limit takes well under a second: longer is a bomb or damage.
    if (error instanceof TaskFailure && error.reason === 'timeout') return layerUnreadable(part, null, `not decoded within ${PROBE_TIMEOUT_MS / 1000} s`);
    throw error;
  }
  if (probe.unreadable !== null) return layerUnreadable(part, probe.format, probe.unreadable);
  if (probe.widthPx !== null && probe.heightPx !== null && Math.max(probe.widthPx, probe.heightPx) > maxSidePx) return layerTooLarge(part, probe.widthPx, probe.heightPx, maxSidePx);
  return null;
}

/** The time a probe may take in a worker. */
const PROBE_TIMEOUT_MS = 20_000;

/** A layer part's guard: what it found wrong, and the part's kind once its first bytes are in. */
export type LayerGuard = Transform & { problem: Problem | null; kind: LayerKind | null };

/**
 * A pass-through for one layer part that knows, from the part's first bytes, its `kind` (else
 * `problem` is {@link notAnImage}), and adds its bytes to the request's count (past `limit`,
 * `problem` is `tooLarge()`). A part found wanting is read on to its end and dropped, not torn
 * down: the multipart reader goes on, so the answer goes out at once instead of after a stall.
 */
export function layerGuard(part: string, request: { bytes: number }, limit: number, tooLarge: () => Problem): LayerGuard {
  let head: Buffer[] = [];
  let headBytes = 0;
  let judged = false;
  const judge = (stream: LayerGuard) => {
    judged = true;
    const bytes = Buffer.concat(head);
    head = [];
    stream.kind = layerKind(bytes);
    if (!stream.kind) stream.problem = notAnImage(part);
    else stream.push(bytes);
  };
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      request.bytes += chunk.length;
      if (guard.problem) return done();
      if (request.bytes > limit) {
        guard.problem = tooLarge();
        head = [];
        return done();
      }
      if (judged) return done(null, chunk);
      head.push(chunk);
      headBytes += chunk.length;
      if (headBytes >= SNIFF_BYTES) judge(guard);
      done();
    },
    flush(done: TransformCallback) {
      if (!judged && !guard.problem) judge(guard);
      done();
    },
  }) as LayerGuard;
  guard.problem = null;
  guard.kind = null;
  return guard;
}
