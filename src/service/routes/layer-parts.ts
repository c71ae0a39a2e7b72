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
import { readSourceBytes } from '../../source/read.js';
import type { LayerImageError } from '../../errors.js';
import { layerImageRefusal, layerKind, pixelSize, SNIFF_BYTES, type LayerKind } from '../../flow/layer-probe.js';
import { Problem } from '../problem.js';

/** Layer parts a submission may have (the products' most is 8). */
export const MAX_LAYER_PARTS = 16;

export { layerKind, type LayerKind } from '../../flow/layer-probe.js';

/** A part that is not an image or one-page PDF the assembly reads. */
export function notAnImage(part: string): Problem {
  return new Problem('layer-not-image', `The part "${part}" is not a PNG, JPEG, TIFF, WebP or PDF file: send the layer's image in one of those formats.`, {
    errors: [{ path: part, message: 'not a PNG, JPEG, TIFF, WebP or PDF file' }],
  });
}

/**
 * The problem a layer image's refusal answers as (the one rule of every surface, flow/layer-probe.ts):
 * its code, its words, and the part named in `errors[].path`; the size and limit of one too large.
 * @param part the request's name of the image (`layer.front`, or `layers.front` in JSON)
 */
export function layerProblem(refusal: LayerImageError, part: string): Problem {
  const extra =
    refusal.code === 'ERR_LAYER_TOO_LARGE'
      ? {
          widthPx: refusal.widthPx,
          heightPx: refusal.heightPx,
          limitPx: refusal.limitPx,
          errors: [{ path: part, message: `${pixelSize(refusal.widthPx ?? 0, refusal.heightPx ?? 0)}, over ${grouped(refusal.limitPx ?? 0)} pixels per side` }],
        }
      : { errors: [{ path: part, message: `cannot be decoded: ${refusal.reason ?? 'unknown error'}` }] };
  return Problem.of(refusal, refusal.message, extra);
}

/**
 * What is wrong with a stored layer image, or null: probed in the pool (never decoded on this
 * thread) by the one rule of every surface (flow/layer-probe.ts) — over `maxSidePx` on a side from
 * its header alone, else whether it decodes; a probe whose worker stopped is the file's
 * `layer-unreadable`. A closed pool is no fault of the file: `pool-unavailable`, with Retry-After.
 * @param pool the pool the probe runs in
 * @param part the part's name, for the problem (`layer.front`)
 * @param file where the part was streamed to
 * @param maxSidePx the product's `maxImagePixels`
 */
export async function layerImageProblem(pool: PreflightPool, part: string, file: string, maxSidePx: number): Promise<Problem | null> {
  const bytes = (await readSourceBytes(file)).bytes;
  let refusal;
  try {
    refusal = await layerImageRefusal(pool, part.replace(/^layer\./, ''), bytes, maxSidePx, `The part "${part}"`);
  } catch (error) {
    if (error instanceof TaskFailure && error.reason === 'closed') return poolUnavailable();
    throw error;
  }
  return refusal && layerProblem(refusal, part);
}

/** The pool that probes uploads is closed (the process is stopping): try again on another server or later. */
export function poolUnavailable(): Problem {
  return new Problem('pool-unavailable', 'The worker pool that decodes uploads is closed: the server is stopping. Send the request again in a moment.', {
    headers: { 'Retry-After': '10' },
  });
}

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
