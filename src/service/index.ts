/**
 * The HTTP service's API (`import … from 'print-preflight/service'`): starting the server as a
 * library call, its options, and the building blocks it runs checks with (the job store, the
 * embedded queue, callbacks) for those who embed or extend it. fastify and prom-client load only
 * when {@link startService} runs; without them it throws a MissingDependencyError naming what to
 * install (`npm install print-preflight-server`). The fleet's Redis queue is `redisQueue` from
 * `print-preflight/fleet`.
 * @example
 * import { startService } from 'print-preflight/service';
 * const service = await startService({ port: 8080, dataDir: './print-preflight-data', apiKeys: [process.env.PRINT_PREFLIGHT_API_KEY ?? ''] });
 * process.once('SIGTERM', () => void service.close());
 */
export { startService } from './start.js';
export { ServeOptionsSchema, type ServeOptions } from './options.js';
export type { QueueContext } from '../jobs/queue.js';
export type { ServiceHandle } from './server.js';
export { CheckJobSchema, CheckRecordSchema, CheckStatusSchema, type CheckJob, type CheckRecord, type CheckStatus } from '../jobs/schema.js';
export { CheckViewSchema, type CheckView } from '../jobs/view.js';
export { JobStore } from '../jobs/store.js';
export { ProcessRecordLock, RecordLockUnavailableError, type RecordLock, type RunLease } from '../jobs/record-lock.js';
export { runCheckJob, type RunContext } from '../jobs/run.js';
export { EmbeddedQueue, type CheckQueue, type QueueCounts, type EmbeddedQueueOptions } from '../jobs/queue.js';
export { deliverCallback, CallbackOptionsSchema, type CallbackOptions } from '../jobs/callback.js';
export { MissingDependencyError } from '../errors.js';
export { FixedFiles, type CheckFolders, type FixedMeta, type FixedState } from '../jobs/fixed-files.js';
export type { ObjectInfo, ObjectStorage } from '../storage/storage.js';
export type { MemoryLedger, TenantAdmission, TenantLedger, TenantLoad } from '../jobs/tenants.js';
