/**
 * A gauge that can be absent: while it has nothing current to say (Redis does not answer, nothing
 * measured yet) it exports its HELP and TYPE lines and no sample, so a dashboard shows a gap, not a
 * zero that looks true.
 */
import { Gauge, type GaugeConfiguration } from 'prom-client';

export interface OptionalGaugeConfiguration extends Omit<GaugeConfiguration<string>, 'collect' | 'labelNames'> {
  /** The value at each scrape, or null for none. */
  read: () => Promise<number | null>;
}

export class OptionalGauge extends Gauge<string> {
  private readonly latest: { value: number | null };

  constructor({ read, ...config }: OptionalGaugeConfiguration) {
    const latest = { value: null as number | null };
    super({
      ...config,
      async collect() {
        latest.value = await read();
        if (latest.value !== null) this.set(latest.value);
      },
    });
    this.latest = latest;
  }

  override async get() {
    const metric = await super.get();
    return this.latest.value === null ? { ...metric, values: [] } : metric;
  }
}
