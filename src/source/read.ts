import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
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
  if (input instanceof Uint8Array) return { bytes: input, path, sha256: sha256Hex(input) };
  if (typeof input !== 'string' || input.length === 0) throw invalidArgument('a file path or a Uint8Array', 'input', input);
  let info;
  try {
    info = await stat(input);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new InputUnreadableError(
      code === 'ENOENT' ? `No such file: ${input}` : `Cannot read ${input} (${code ?? (cause as Error).message})`,
      cause,
    );
  }
  if (!info.isFile()) throw new InputUnreadableError(`${input} is not a regular file`);
  let bytes: Uint8Array;
  try {
    const buf = await readFile(input);
    bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (cause) {
    throw new InputUnreadableError(`Cannot read ${input} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  return { bytes, path: path ?? input, sha256: sha256Hex(bytes) };
}
