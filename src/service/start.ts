import { requireServerPackages, SERVICE_PACKAGES } from '../util/server-packages.js';
import type { ServeOptions } from './options.js';
import type { ServiceHandle } from './server.js';

/**
 * Starts the HTTP API (`print-preflight serve` as a library call). fastify is loaded on the first
 * call, so importing print-preflight does not pay for it.
 * @param options port, host, data folder, API keys, workers, retention, profiles, callback secret…
 * @returns the bound URL and `close()` (graceful: waiting clients answered, running checks finished
 *   or put back in the queue)
 * @throws {InvalidArgumentError} for bad options, or a non-loopback host without API keys
 * @throws {MissingDependencyError} when fastify, @fastify/multipart or prom-client is not installed
 *   (they come with the `print-preflight-server` package)
 * @example
 * import { startService } from 'print-preflight/service';
 * const service = await startService({ port: 8080, dataDir: './print-preflight-data' });
 * process.once('SIGTERM', () => void service.close());
 */
export async function startService(options: ServeOptions = {}): Promise<ServiceHandle> {
  await requireServerPackages('startService()', SERVICE_PACKAGES);
  const server = await import('./server.js');
  return server.startService(options);
}
