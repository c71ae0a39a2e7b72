/**
 * The parts of a submission with one image per layer (`layer.<id>` parts, `fit.<id>` fields): each
 * part streamed to the scratch folder through a guard that knows its kind from its first bytes and
 * counts the request's bytes — nothing is decoded here (the assembly decodes in the pool), nothing
 * is held in memory beyond the first kilobyte of a part.
 */
import { Transform, type TransformCallback } from 'node:stream';
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

/**
 * A pass-through for one layer part that knows, from the part's first bytes, whether it is an image
 * (else `problem` is {@link notAnImage}), and adds its bytes to the request's count (past `limit`,
 * `problem` is `tooLarge()`). A part found wanting is read on to its end and dropped, not torn
 * down: the multipart reader goes on, so the answer goes out at once instead of after a stall.
 */
export function layerGuard(part: string, request: { bytes: number }, limit: number, tooLarge: () => Problem): Transform & { problem: Problem | null } {
  let head: Buffer[] = [];
  let headBytes = 0;
  let judged = false;
  const judge = (stream: Transform & { problem: Problem | null }) => {
    judged = true;
    const bytes = Buffer.concat(head);
    head = [];
    if (!layerKind(bytes)) stream.problem = notAnImage(part);
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
  }) as Transform & { problem: Problem | null };
  guard.problem = null;
  return guard;
}
