/**
 * The server stack (fastify, @fastify/multipart, BullMQ, ioredis, prom-client) is an optional peer
 * dependency of print-preflight: a library or CLI user does not install it. The service and the
 * fleet call {@link requireServerPackages} before they load a module that imports one, so a missing
 * package is a {@link MissingDependencyError} naming what to install, not Node's bare
 * "Cannot find package".
 */
import { MissingDependencyError, type ServerPackage } from '../errors.js';

/** The packages `serve` needs (without --redis), and those the fleet adds. */
export const SERVICE_PACKAGES: readonly ServerPackage[] = ['fastify', '@fastify/multipart', 'prom-client'];
export const FLEET_PACKAGES: readonly ServerPackage[] = ['bullmq', 'ioredis', 'prom-client'];
/** What `--storage s3://…` adds (the AWS SDK v3). */
export const STORAGE_PACKAGES: readonly ServerPackage[] = ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'];

const present = new Set<string>();

/** Is this error Node saying that `name` itself (not something inside it) cannot be found? */
function isMissing(error: unknown, name: string): boolean {
  const e = error as NodeJS.ErrnoException | null;
  return !!e && (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && typeof e.message === 'string' && e.message.includes(`'${name}'`);
}

/**
 * Loads each package once (they are loaded right after anyway) and throws one error naming every
 * one that is missing.
 * @param feature what needs them, as a user says it (`print-preflight serve`, `startFleetWorker()`)
 * @throws {MissingDependencyError} naming the missing packages and the command that installs them
 * @example
 * await requireServerPackages('print-preflight serve', SERVICE_PACKAGES);
 */
export async function requireServerPackages(feature: string, packages: readonly ServerPackage[]): Promise<void> {
  const missing: ServerPackage[] = [];
  let cause: unknown;
  for (const name of packages) {
    if (present.has(name)) continue;
    try {
      await import(name);
      present.add(name);
    } catch (error) {
      if (!isMissing(error, name)) throw error;
      missing.push(name);
      cause ??= error;
    }
  }
  if (missing.length) throw new MissingDependencyError(feature, missing, cause);
}
