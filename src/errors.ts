/**
 * Typed errors. A problem *in a print file* is never thrown: it becomes a finding in the report.
 * These are thrown only for misuse of the API, unreadable inputs, broken profiles, timeouts and
 * worker crashes. Every error carries a stable `code` that scripts can rely on.
 */

/**
 * Stable error codes. Never renamed; new ones may be added.
 * @example
 * import { ERROR_CODES, PreflightError } from 'print-preflight';
 * const known = (e: unknown) => e instanceof PreflightError && ERROR_CODES.includes(e.code);
 */
export const ERROR_CODES = [
  'ERR_INVALID_ARGUMENT',
  'ERR_UNKNOWN_PRODUCT',
  'ERR_UNKNOWN_VARIANT',
  'ERR_UNKNOWN_SKU',
  'ERR_PROFILE_INVALID',
  'ERR_INPUT_UNREADABLE',
  'ERR_TIMEOUT',
  'ERR_WORKER_CRASHED',
  'ERR_PDF_DAMAGED',
  'ERR_ABORTED',
  'ERR_ORDER_INVALID',
  'ERR_SERVICE_VALIDATION',
  'ERR_SERVICE_AUTH',
  'ERR_SERVICE_PERMISSION',
  'ERR_SERVICE_NOT_FOUND',
  'ERR_SERVICE_RATE_LIMITED',
  'ERR_SERVICE_SERVER',
  'ERR_SERVICE_UNREACHABLE',
  'ERR_SERVICE_RESPONSE',
  'ERR_MISSING_DEPENDENCY',
  'ERR_STORAGE_UNAVAILABLE',
  'ERR_LAYER_TOO_LARGE',
  'ERR_LAYER_UNREADABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Base class of every error print-preflight throws.
 * @example
 * try { await preflight('a.pdf', { sku: 'NOPE' }); }
 * catch (e) { if (e instanceof PreflightError && e.code === 'ERR_UNKNOWN_SKU') … }
 */
export class PreflightError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A function was called with an argument it cannot use.
 * @example
 * import { InvalidArgumentError, preflight } from 'print-preflight';
 * try { await preflight('design.pdf', { sku: '' }); }
 * catch (e) { if (e instanceof InvalidArgumentError) console.error(e.code, e.message); } // ERR_INVALID_ARGUMENT
 */
export class InvalidArgumentError extends PreflightError {
  constructor(message: string) {
    super('ERR_INVALID_ARGUMENT', message);
  }
}

/**
 * The product, variant or SKU named is not in the loaded profiles.
 * @example
 * import { UnknownTargetError, preflight } from 'print-preflight';
 * try { await preflight('design.pdf', { sku: 'NO-SUCH-SKU' }); }
 * catch (e) { if (e instanceof UnknownTargetError) console.error(e.code); } // ERR_UNKNOWN_SKU
 */
export class UnknownTargetError extends PreflightError {
  constructor(code: 'ERR_UNKNOWN_PRODUCT' | 'ERR_UNKNOWN_VARIANT' | 'ERR_UNKNOWN_SKU', message: string) {
    super(code, message);
  }
}

/**
 * A profile file could not be read or does not match the profile schema.
 * @example
 * import { ProfileError, loadProfiles } from 'print-preflight';
 * try { await loadProfiles('my-profiles/'); }
 * catch (e) { if (e instanceof ProfileError) for (const i of e.issues) console.error(e.file, i.path, i.message); }
 */
export class ProfileError extends PreflightError {
  readonly file: string | null;
  readonly issues: readonly { path: string; message: string }[];
  constructor(file: string | null, issues: readonly { path: string; message: string }[], cause?: unknown) {
    const where = file ?? 'profile';
    const list = issues.map((i) => `${where}: ${i.path ? `${i.path}: ` : ''}${i.message}`).join('; ');
    super('ERR_PROFILE_INVALID', `Invalid product profile. ${list}`, { cause });
    this.file = file;
    this.issues = issues;
  }
}

/**
 * The input path cannot be read (missing, a directory, no permission).
 * @example
 * import { InputUnreadableError, preflight } from 'print-preflight';
 * try { await preflight('missing.pdf', { sku: 'T-SHIRT-M' }); }
 * catch (e) { if (e instanceof InputUnreadableError) console.error(e.code); } // ERR_INPUT_UNREADABLE
 */
export class InputUnreadableError extends PreflightError {
  constructor(message: string, cause?: unknown) {
    super('ERR_INPUT_UNREADABLE', message, { cause });
  }
}

/**
 * A layer's image is refused before it is assembled, on every surface by the same rule: over the
 * product's `maxImagePixels` on a side (`ERR_LAYER_TOO_LARGE`, with `widthPx`, `heightPx` and
 * `limitPx`: it is never scaled down), or it cannot be decoded — cut short, damaged behind the right
 * first bytes, no image at all, or its decoder stopped on it (`ERR_LAYER_UNREADABLE`, with the
 * decoder's `reason`). `layer` names the layer. The service answers the same as 422
 * `layer-too-large` / `layer-unreadable`; the command line exits 2.
 * @example
 * import { LayerImageError, assemble } from 'print-preflight';
 * try { await assemble({ sku: 'TANKTOP-M' }, ['front.png', 'back.png']); }
 * catch (e) { if (e instanceof LayerImageError && e.code === 'ERR_LAYER_TOO_LARGE') console.error(e.layer, e.widthPx, e.heightPx, e.limitPx); }
 */
export class LayerImageError extends PreflightError {
  /** The layer whose image is refused. */
  readonly layer: string;
  /** The image's size from its header (`ERR_LAYER_TOO_LARGE`); null when it was not read. */
  readonly widthPx: number | null;
  readonly heightPx: number | null;
  /** The most pixels a side may have (`ERR_LAYER_TOO_LARGE`); null otherwise. */
  readonly limitPx: number | null;
  /** Why it cannot be decoded (`ERR_LAYER_UNREADABLE`); null otherwise. */
  readonly reason: string | null;
  constructor(
    code: 'ERR_LAYER_TOO_LARGE' | 'ERR_LAYER_UNREADABLE',
    message: string,
    facts: { layer: string; widthPx?: number | null; heightPx?: number | null; limitPx?: number | null; reason?: string | null },
  ) {
    super(code, message);
    this.layer = facts.layer;
    this.widthPx = facts.widthPx ?? null;
    this.heightPx = facts.heightPx ?? null;
    this.limitPx = facts.limitPx ?? null;
    this.reason = facts.reason ?? null;
  }
}

/**
 * A feature needs packages that are not installed: the HTTP service and the Redis fleet load
 * fastify, @fastify/multipart, BullMQ, ioredis and prom-client only when they start, and the
 * `print-preflight` package lists them as optional peer dependencies (the `print-preflight-server`
 * package installs them). `packages` names what is missing.
 * @example
 * try { await startService(); }
 * catch (e) { if (e instanceof MissingDependencyError) console.error(e.message, e.packages); }
 */
export class MissingDependencyError extends PreflightError {
  readonly packages: readonly string[];
  constructor(feature: string, packages: readonly string[], cause?: unknown) {
    const list = packages.length === 1 ? packages[0]! : `${packages.slice(0, -1).join(', ')} and ${packages.at(-1)!}`;
    super(
      'ERR_MISSING_DEPENDENCY',
      `${feature} needs ${list}, which ${packages.length === 1 ? 'is' : 'are'} not installed. Install the server package, which pins the versions this release is tested with: npm install print-preflight-server; or add them yourself: npm install ${packages.map((p) => `${p}@${SERVER_PACKAGE_RANGES[p as ServerPackage] ?? 'latest'}`).join(' ')}.`,
      { cause },
    );
    this.packages = packages;
  }
}

/**
 * Object storage (`--storage s3://…`) failed: the bucket is missing, access was denied, the store
 * did not answer in time or refused a write. The message names what to fix; the service answers
 * 503 `storage-unavailable` with Retry-After, and a run is tried again.
 * @example
 * try { await storage.put(key, bytes); }
 * catch (e) { if (e instanceof StorageUnavailableError) retryLater(); }
 */
export class StorageUnavailableError extends PreflightError {
  constructor(
    message: string,
    cause?: unknown,
    /** What failed, for scripts and logs: a wrong flag or account (fix it) or an outage (wait). */
    readonly reason: StorageFailure = 'failed',
  ) {
    super('ERR_STORAGE_UNAVAILABLE', message, { cause });
  }
}

/**
 * Why object storage failed: `bucket-missing` and `access-denied` need a fix (serve and worker
 * refuse to start with them); `unreachable`, `timeout` and `failed` (a 5xx…) pass with the outage.
 */
export type StorageFailure = 'bucket-missing' | 'access-denied' | 'unreachable' | 'timeout' | 'failed';

/** The server stack: optional peer dependencies of print-preflight, with the majors it supports. */
export const SERVER_PACKAGE_RANGES = {
  fastify: '5',
  '@fastify/multipart': '10',
  bullmq: '6',
  ioredis: '5',
  'prom-client': '15',
  '@aws-sdk/client-s3': '3',
  '@aws-sdk/lib-storage': '3',
  '@aws-sdk/s3-request-presigner': '3',
} as const;
export type ServerPackage = keyof typeof SERVER_PACKAGE_RANGES;

/** Formats a value for an argument error the way sharp does: value and its type. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 57)}...` : value}" of type string`;
  return `${String(value)} of type ${typeof value}`;
}

/** "Expected positive integer for width but received -1 of type number" */
export function invalidArgument(expected: string, name: string, value: unknown): InvalidArgumentError {
  return new InvalidArgumentError(`Expected ${expected} for ${name} but received ${describeValue(value)}`);
}
