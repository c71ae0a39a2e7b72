/**
 * The fleet's entry points (`print-preflight/fleet`). BullMQ and ioredis load on the first call, and
 * a missing one is a MissingDependencyError naming what to install.
 */
import type { FolderOptions } from '../batch/run.js';
import type { BatchSummary } from '../batch/summary.js';
import type { QueueContext } from '../jobs/queue.js';
import type { CheckQueue } from '../jobs/queue.js';
import type { PreflightPool } from '../pool/pool.js';
import type { NetworkOptions } from '../source/network.js';
import type { FleetConnection } from './connection.js';
import type { RetryPolicy } from './jobs.js';
import type { Logger } from './log.js';
import type { RedisQueueOptions } from './queue.js';
import type { FleetWorker, FleetWorkerOptions } from './worker.js';
import { FLEET_PACKAGES, requireServerPackages } from '../util/server-packages.js';

/**
 * Judges every PDF of a folder on the fleet's workers (`batch --redis`); same outputs as
 * `preflightFolder`. The folder and `out` must be mounted at the same path on every worker.
 * @example
 * import { preflightFolderOnFleet } from 'print-preflight/fleet';
 * const summary = await preflightFolderOnFleet('/mnt/shared/incoming', { out: '/mnt/shared/checked', connection: { url: 'redis://queue.internal:6379/0' } });
 */
export async function preflightFolderOnFleet(
  dir: string,
  options: FolderOptions & { connection: FleetConnection; policy?: RetryPolicy; timeoutMs?: number; window?: number; reconcileMs?: number },
): Promise<BatchSummary> {
  await requireServerPackages('preflightFolderOnFleet()', FLEET_PACKAGES);
  return (await import('./batch.js')).preflightFolderOnFleet(dir, options);
}

/**
 * Starts a fleet worker in this process (`print-preflight worker`): service checks against the
 * shared data folder `data`, and batch files.
 * @example
 * import { PreflightPool } from 'print-preflight';
 * import { startFleetWorker } from 'print-preflight/fleet';
 * const pool = new PreflightPool({ maxThreads: 2 });
 * const worker = await startFleetWorker({ url: 'redis://queue.internal:6379/0' }, pool, { data: '/mnt/shared/data' });
 * process.once('SIGTERM', () => void worker.close(60_000).then(() => pool.destroy()));
 */
export async function startFleetWorker(
  connection: FleetConnection,
  pool: PreflightPool,
  options: FleetWorkerOptions & { data: string; profiles?: string; network?: NetworkOptions },
  log?: Logger,
): Promise<FleetWorker> {
  await requireServerPackages('startFleetWorker()', FLEET_PACKAGES);
  const [{ FleetWorker }, { fleetHandlers }] = await Promise.all([import('./worker.js'), import('./handlers.js')]);
  const { data, profiles, network, ...workerOptions } = options;
  const worker = new FleetWorker(connection, pool, fleetHandlers({ data, ...(profiles ? { profiles } : {}), ...(network ? { network } : {}) }), workerOptions, log);
  await worker.ready();
  return worker;
}

/**
 * The `queue` option of `startService` for fleet mode (`serve --redis`): checks go to Redis and
 * fleet workers run them.
 * @example
 * import { redisQueue } from 'print-preflight/fleet';
 * import { startService } from 'print-preflight/service';
 * const service = await startService({ dataDir: '/mnt/shared/data', queue: redisQueue({ url: 'redis://queue.internal:6379/0' }) });
 */
export function redisQueue(connection: FleetConnection, options: Omit<RedisQueueOptions, 'store' | 'onFinished'> = {}): (ctx: QueueContext) => Promise<CheckQueue> {
  return async (ctx) => {
    await requireServerPackages('redisQueue()', FLEET_PACKAGES);
    return (await import('./queue.js')).redisQueueFactory(connection, options)(ctx);
  };
}
