import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CheckQueue } from '../jobs/queue.js';
import type { CheckRecord } from '../jobs/schema.js';
import type { JobStore } from '../jobs/store.js';
import type { PreflightPool } from '../pool/pool.js';
import type { ProfileRegistry } from '../profile/registry.js';
import type { Admission } from './admission.js';
import type { TenantLedger } from '../jobs/tenants.js';
import type { Caller, Callers } from './tenants.js';
import type { ServiceMetrics } from './metrics.js';
import type { ResolvedServeOptions } from './options.js';
import type { RouteDoc } from './route.js';

/** What every route family is given. */
export interface ServiceContext {
  app: FastifyInstance;
  routes: RouteDoc[];
  options: ResolvedServeOptions;
  store: JobStore;
  queue: CheckQueue;
  registry: ProfileRegistry;
  /** The local pool, when checks run in this process. */
  pool: PreflightPool | undefined;
  callers: Callers;
  /** What each tenant has queued and running (the queue's, or the server's own). */
  tenants: TenantLedger;
  admission: Admission;
  metrics: ServiceMetrics;
  /**
   * The request is whole and the server is working on it: the idle timeout (meant for clients that
   * stop sending) is off until the answer is sent.
   */
  processing(request: FastifyRequest): void;
  /** The finished record, or null when `ms` pass first or the server shuts down. */
  waitFinished(id: string, ms: number): Promise<CheckRecord | null>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent it (set for every route that needs a key; `anonymous` on a server without keys). */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    auth?: boolean;
  }
}
