/**
 * The fleet's public API (`import … from 'print-preflight/fleet'`): a separate entry point so that
 * the library's main import never loads BullMQ and ioredis.
 */
export { FleetConnectionSchema, parseRedisUrl, redactRedisUrl, type FleetConnection } from './connection.js';
export { BatchFileJobSchema, RetryPolicySchema, TransientJobError, JOB_CHECK, JOB_BATCH_FILE, type BatchFileJob, type RetryPolicy } from './jobs.js';
export { jsonLogger, silentLogger, type Logger, type LogLevel } from './log.js';
export { FleetWorker, FleetWorkerOptionsSchema, WorkerHeartbeatSchema, type FleetWorkerOptions, type JobHandler, type JobContext, type WorkerHeartbeat } from './worker.js';
export { RedisQueue, redisQueueFactory, QueueUnavailableError, type RedisQueueOptions } from './queue.js';
export { preflightFolderOnFleet, batchFileHandler, type FleetFolderOptions, type BatchWorkerOptions } from './batch.js';
export { checkJobHandler, fleetHandlers, transientDownloadFailure, type CheckHandlerOptions } from './handlers.js';
export { startFleetWorker, redisQueue } from './start.js';
export type { RedisLedger } from './tenants.js';
export type { TenantAdmission, TenantLedger, TenantLoad } from '../jobs/tenants.js';
