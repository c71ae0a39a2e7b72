/**
 * Prometheus metrics (prom-client), in a registry of the server's own (two servers in one process,
 * as in tests, do not share counters). Nothing here waits on Redis for more than a moment: a
 * gauge without a current value is left out of the scrape.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueCounts } from '../jobs/queue.js';
import { isSettled, type CheckRecord } from '../jobs/schema.js';
import type { TenantLedger } from '../jobs/tenants.js';
import { OptionalGauge } from '../jobs/optional-gauge.js';

export type RejectReason = 'too-large' | 'unsupported-media' | 'invalid' | 'unknown-target' | 'unauthorized' | 'too-many' | 'too-fast' | 'limits-not-allowed' | 'unavailable';

/** The mean check time assumed before any check finished, in seconds. */
const ASSUMED_CHECK_SECONDS = 10;

export interface MetricsSources {
  /** Queue counts at most a second old, answered at once; null when unknown. */
  counts(): Promise<QueueCounts | null>;
  tenants: TenantLedger;
  /** Per-tenant series (`--tenant-metrics`): one label value per tenant. */
  perTenant: boolean;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly checks: Counter<'status' | 'verdict'>;
  private readonly duration: Histogram<'status'>;
  private readonly rejected: Counter<'reason'>;
  private readonly accepted: Counter<'source'>;
  private readonly tenantAccepted: Counter<'tenant'> | null = null;
  private readonly tenantRejected: Counter<'tenant' | 'reason'> | null = null;
  private readonly tenantChecks: Counter<'tenant' | 'status' | 'verdict'> | null = null;
  /** Exponentially weighted mean of recent check times (run start to result), in seconds. */
  private meanSeconds: number | null = null;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'print_preflight_' });
    this.checks = new Counter({
      name: 'print_preflight_checks_total',
      help: 'Checks finished, by status (done, error) and verdict (pass, warn, fail, none)',
      labelNames: ['status', 'verdict'],
      registers,
    });
    this.duration = new Histogram({
      name: 'print_preflight_check_duration_seconds',
      help: 'Time from a check starting to run to its result',
      labelNames: ['status'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.rejected = new Counter({
      name: 'print_preflight_rejected_submissions_total',
      help: 'Submissions refused, by reason (too-large uploads, too-many queued, too-fast…)',
      labelNames: ['reason'],
      registers,
    });
    this.accepted = new Counter({ name: 'print_preflight_submissions_total', help: 'Checks accepted, by source (upload, url)', labelNames: ['source'], registers });
    new OptionalGauge({
      name: 'print_preflight_queue_depth',
      help: 'Checks waiting to run (absent while the queue does not answer)',
      registers,
      read: async () => (await sources.counts())?.waiting ?? null,
    });
    new OptionalGauge({
      name: 'print_preflight_checks_in_flight',
      help: 'Checks running now (absent while the queue does not answer)',
      registers,
      read: async () => (await sources.counts())?.active ?? null,
    });
    if (sources.perTenant) {
      this.tenantAccepted = new Counter({ name: 'print_preflight_tenant_submissions_total', help: 'Checks and order-draft sources accepted, by tenant', labelNames: ['tenant'], registers });
      this.tenantRejected = new Counter({ name: 'print_preflight_tenant_rejected_submissions_total', help: 'Submissions refused, by tenant and reason', labelNames: ['tenant', 'reason'], registers });
      this.tenantChecks = new Counter({ name: 'print_preflight_tenant_checks_total', help: 'Checks finished, by tenant, status and verdict', labelNames: ['tenant', 'status', 'verdict'], registers });
      const loads = latestLoads(sources.tenants);
      for (const [name, part, help] of [
        ['print_preflight_tenant_checks_queued', 'queued', 'Checks and draft sources waiting to run, by tenant'],
        ['print_preflight_tenant_checks_running', 'running', 'Checks and draft sources running now, by tenant'],
      ] as const) {
        new Gauge({
          name,
          help,
          labelNames: ['tenant'],
          registers,
          async collect() {
            const map = await loads();
            this.reset();
            for (const [tenant, load] of map ?? []) this.set({ tenant }, load[part]);
          },
        });
      }
    }
  }

  finished(record: CheckRecord): void {
    if (!isSettled(record.status)) return;
    this.checks.inc({ status: record.status, verdict: record.verdict ?? 'none' });
    this.tenantChecks?.inc({ tenant: record.owner ?? 'none', status: record.status, verdict: record.verdict ?? 'none' });
    if (record.startedAt && record.finishedAt) {
      const seconds = Math.max(0, Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000;
      this.duration.observe({ status: record.status }, seconds);
      this.meanSeconds = this.meanSeconds === null ? seconds : this.meanSeconds * 0.8 + seconds * 0.2;
    }
  }

  /** The recent mean time of a check, in seconds (an assumed 10 s before the first one). */
  meanCheckSeconds(): number {
    return this.meanSeconds ?? ASSUMED_CHECK_SECONDS;
  }

  rejectedSubmission(reason: RejectReason, tenant?: string): void {
    this.rejected.inc({ reason });
    if (tenant) this.tenantRejected?.inc({ tenant, reason });
  }

  acceptedSubmission(source: 'upload' | 'url' | 'layers', tenant: string): void {
    this.accepted.inc({ source });
    this.tenantAccepted?.inc({ tenant });
  }

  acceptedDraftSources(tenant: string, n: number): void {
    this.tenantAccepted?.inc({ tenant }, n);
  }
}

/** The ledger's loads, fetched once per scrape and waited for at most 0.4 s. */
function latestLoads(ledger: TenantLedger): () => Promise<Map<string, { queued: number; running: number }> | null> {
  let pending: Promise<Map<string, { queued: number; running: number }> | null> | null = null;
  return () => {
    pending ??= ledger
      .loads()
      .catch(() => null)
      .finally(() => setTimeout(() => (pending = null), 500).unref());
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([pending, new Promise<null>((r) => (timer = setTimeout(() => r(null), 400)))]).finally(() => clearTimeout(timer));
  };
}
