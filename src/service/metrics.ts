/**
 * Prometheus metrics (prom-client), in a registry of the server's own (two servers in one process,
 * as in tests, do not share counters).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CheckQueue } from '../jobs/queue.js';
import type { CheckRecord } from '../jobs/schema.js';

export type RejectReason = 'too-large' | 'unsupported-media' | 'invalid' | 'unknown-target' | 'unauthorized' | 'too-many';

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly checks: Counter<'status' | 'verdict'>;
  private readonly duration: Histogram<'status'>;
  private readonly rejected: Counter<'reason'>;
  private readonly accepted: Counter<'source'>;

  constructor(queue: CheckQueue) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'print_preflight_' });
    this.checks = new Counter({ name: 'print_preflight_checks_total', help: 'Checks finished, by status (done, error) and verdict (pass, warn, fail, none)', labelNames: ['status', 'verdict'], registers });
    this.duration = new Histogram({
      name: 'print_preflight_check_duration_seconds',
      help: 'Time from a check starting to run to its result',
      labelNames: ['status'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.rejected = new Counter({ name: 'print_preflight_rejected_submissions_total', help: 'Submissions refused, by reason (too-large uploads…)', labelNames: ['reason'], registers });
    this.accepted = new Counter({ name: 'print_preflight_submissions_total', help: 'Checks accepted, by source (upload, url)', labelNames: ['source'], registers });
    new Gauge({
      name: 'print_preflight_queue_depth',
      help: 'Checks waiting to run',
      registers,
      async collect() {
        this.set((await queue.counts()).waiting);
      },
    });
    new Gauge({
      name: 'print_preflight_checks_in_flight',
      help: 'Checks running now',
      registers,
      async collect() {
        this.set((await queue.counts()).active);
      },
    });
  }

  finished(record: CheckRecord): void {
    if (record.status !== 'done' && record.status !== 'error') return;
    this.checks.inc({ status: record.status, verdict: record.verdict ?? 'none' });
    if (record.startedAt && record.finishedAt) {
      this.duration.observe({ status: record.status }, Math.max(0, Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000);
    }
  }

  rejectedSubmission(reason: RejectReason): void {
    this.rejected.inc({ reason });
  }

  acceptedSubmission(source: 'upload' | 'url'): void {
    this.accepted.inc({ source });
  }
}
