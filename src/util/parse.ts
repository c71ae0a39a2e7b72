/**
 * Options given to a function are parsed by their schema at the door, and every refusal reads
 * the same way: "Invalid fix options: fit: Invalid option…; jpegQuality: Too small…", each field by
 * its path. One function for every options schema, so no door words its own.
 */
import type { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';

/** "variants[2].trim.front.widthMm" from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** A zod error's issues as `{ path, message }`, paths formatted. */
export function zodIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
}

/**
 * The issues of a zod error, one line: `path: message; path: message`. An issue at the root is
 * named by `root` (the thing parsed: `options`, `target`).
 */
export function describeIssues(error: z.ZodError, root = ''): string {
  return error.issues.map((i) => `${formatPath(i.path) || root}: ${i.message}`).join('; ');
}

/**
 * Parses `value` with `schema`, or throws an {@link InvalidArgumentError}:
 * "`what`: path: message; path: message".
 * @param what how the refusal begins (`Invalid fix options`)
 * @param root the name of the whole value, for an issue at its root (`options`)
 * @throws {InvalidArgumentError} when the value does not match the schema
 * @example
 * const opts = parseOrThrow(FixOptionsSchema, given, 'Invalid fix options');
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, root = ''): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`${what}: ${describeIssues(parsed.error, root)}`);
  return parsed.data;
}
