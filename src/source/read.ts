import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { InputUnreadableError, invalidArgument } from '../errors.js';

export interface SourceBytes {
  bytes: Uint8Array;
  path: string | null;
  sha256: string;
}

/** SHA-256 of the bytes, lower-case hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Reads a file path or takes bytes as they are. Throws {@link InputUnreadableError} for a path that
 * is missing, a folder or unreadable; any content at all is accepted (judging it is the checks' job).
 */
export async function readSource(input: string | Uint8Array, path: string | null = null): Promise<SourceBytes> {
  const source = await readSourceBytes(input, path);
  return { ...source, sha256: sha256Hex(source.bytes) };
}

/**
 * Like {@link readSource}, without hashing (the pool hashes in a worker). A file is read straight
 * into shared memory, which the workers see without a copy.
 */
export async function readSourceBytes(input: string | Uint8Array, path: string | null = null): Promise<Omit<SourceBytes, 'sha256'>> {
  if (input instanceof Uint8Array) return { bytes: input, path };
  if (typeof input !== 'string' || input.length === 0) throw invalidArgument('a file path or a Uint8Array', 'input', input);
  let info;
  try {
    info = await stat(input);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new InputUnreadableError(code === 'ENOENT' ? `No such file: ${input}` : `Cannot read ${input} (${code ?? (cause as Error).message})`, cause);
  }
  if (!info.isFile()) throw new InputUnreadableError(`${input} is not a regular file`);
  let bytes: Uint8Array;
  try {
    bytes = await readIntoShared(input, info.size);
  } catch (cause) {
    throw new InputUnreadableError(`Cannot read ${input} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  return { bytes, path: path ?? input };
}

/**
 * The bytes as one whole SharedArrayBuffer, as a pool task takes them: the bytes' own buffer when it
 * is one (a file read by {@link readSourceBytes}), else a copy.
 * @example
 * const shared = sharedBufferOf((await readSourceBytes('design.pdf')).bytes); // no copy
 */
export function sharedBufferOf(bytes: Uint8Array): SharedArrayBuffer {
  if (bytes.buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer;
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/** The file's bytes in a SharedArrayBuffer (as many as it has when read, up to `size`). */
async function readIntoShared(file: string, size: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break; // the file shrank since stat()
      filled += bytesRead;
    }
    return filled === size ? bytes : bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
