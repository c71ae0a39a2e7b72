/**
 * The token of a fixed file and of its approval page: 48 lower-case hex characters (192 random
 * bits), so it can be given out as a link and never guessed. One spelling for every room that
 * makes, stores, routes or reads one.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** The token's characters, for patterns that embed it (`{token}.pdf`, `{token}.json`). */
export const TOKEN_CHARS = '[0-9a-f]{48}';
/** A whole token. */
export const TOKEN_PATTERN = new RegExp(`^${TOKEN_CHARS}$`);
/** A token as a schema field. */
export const TokenSchema = z.string().regex(TOKEN_PATTERN, 'must be a token (48 hex characters)');

/** A token named by a file or a path: `{token}{suffix}` (`.pdf`, `.json`) gives the token, else null. */
export function tokenOf(name: string, suffix: string): string | null {
  if (!name.endsWith(suffix)) return null;
  const token = name.slice(0, name.length - suffix.length);
  return TOKEN_PATTERN.test(token) ? token : null;
}

/** A new token. */
export function newToken(): string {
  return randomBytes(24).toString('hex');
}
