/**
 * The order façade: builds the order creation body from a draft, valid by construction, and
 * referencing only sources whose preflight passed for the row's product. Nothing partial is ever
 * returned: any failing field or source makes it throw an {@link OrderPayloadError} that lists
 * every one.
 */

import { PreflightError } from '../errors.js';
import type { PreflightOptions } from './options.js';
import { formatPath, registryFrom } from '../profile/load.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import type { Report } from '../report/schema.js';
import { preflightUrl, type NetworkOptions } from './preflight-url.js';
import { OrderSchema, type OrderDraft, type OrderPayload } from '../order/schema.js';

/** One reason the order cannot be built, at a path like `rows[2].sources[0].url`. */
export interface OrderIssue {
  path: string;
  message: string;
  /** The preflight report behind a source issue. */
  report?: Report;
}

/**
 * The draft breaks the service's field rules, or a source did not pass. Lists every issue, like
 * the service's 400 body names every failing field.
 * @example
 * import { buildOrderPayload, OrderPayloadError, type OrderDraft } from 'print-preflight/order-service';
 * declare const draft: OrderDraft;
 * try { await buildOrderPayload(draft); }
 * catch (e) { if (e instanceof OrderPayloadError) for (const i of e.issues) console.error(i.path, i.message); }
 */
export class OrderPayloadError extends PreflightError {
  readonly issues: readonly OrderIssue[];
  constructor(issues: readonly OrderIssue[]) {
    super('ERR_ORDER_INVALID', `The order cannot be built:\n${issues.map((i) => `- ${i.path}: ${i.message}`).join('\n')}`);
    this.issues = issues;
  }
}

/** A preflight result the caller already has, for a source URL. */
export interface GivenPreflight {
  url: string;
  /** When given, must equal the report's file sha256: the file the report judged is the one named. */
  sha256?: string;
  report: Report;
}

export interface BuildOptions {
  /** Accept only `pass` (default: `pass` and `warn`). */
  strict?: boolean;
  /** Preflight results the caller already has; other sources are downloaded and preflighted. */
  preflights?: readonly (GivenPreflight | Report)[];
  /** variant_id → SKU, for rows that name a variant_id and carry sources. */
  variantSkus?: Readonly<Record<string, string>>;
  /** Options for the preflights the builder runs (profiles, severities, limits, pool…). */
  preflight?: PreflightOptions;
  network?: NetworkOptions;
  /** Sources downloaded at once. Default 4. */
  concurrency?: number;
  /**
   * Runs each source's download and preflight (default: at once). A server passes one that waits
   * for a running place of the draft's tenant, so drafts are counted with its checks.
   */
  schedule?: <T>(run: () => Promise<T>) => Promise<T>;
}

const zodPath = (path: readonly PropertyKey[]) => formatPath(path) || '(body)';

/**
 * Builds the order creation body.
 * @param draft the order as the integrator writes it (snake_case, as the service names fields)
 * @returns the payload (plain JSON, defaults filled) and the preflight report of every source
 * @throws {OrderPayloadError} listing every failing field and source; nothing partial is returned
 * @example
 * const { payload } = await buildOrderPayload(draft, { network: { allowHosts: [] } });
 * await fetch(`${baseUrl}/orders`, { method: 'POST', body: JSON.stringify(payload), headers });
 */
export async function buildOrderPayload(draft: OrderDraft, options: BuildOptions = {}): Promise<{ payload: OrderPayload; reports: Report[] }> {
  return buildOrderPayloadFrom(validateDraft(draft), options);
}

/**
 * A draft from outside (parsed JSON, a request body) checked against the order schema: the typed
 * draft with its defaults filled, ready for {@link buildOrderPayload}.
 * @param draft any value
 * @throws {OrderPayloadError} naming every failing field, with a message a person can act on
 * @example
 * const draft = validateDraft(JSON.parse(await readFile('draft.json', 'utf8')));
 * const { payload } = await buildOrderPayload(draft);
 */
export function validateDraft(draft: unknown): OrderPayload {
  const parsed = OrderSchema.safeParse(draft);
  if (!parsed.success) {
    throw new OrderPayloadError(parsed.error.issues.map((i) => ({ path: zodPath(i.path), message: friendlyMessage(i, draft) })));
  }
  return parsed.data;
}

/** The distinct (URL, SKU) pairs of a validated draft's sources: the preflights building it runs, at most. */
export function draftSourceCount(order: OrderPayload): number {
  const seen = new Set<string>();
  for (const row of order.rows) for (const source of row.sources ?? []) seen.add(`${source.url}\u0000${(row.sku ?? `#${row.variant_id}`).toUpperCase()}`);
  return seen.size;
}

async function buildOrderPayloadFrom(order: OrderPayload, options: BuildOptions): Promise<{ payload: OrderPayload; reports: Report[] }> {
  const registry: ProfileRegistry = await registryFrom(options.preflight?.profiles);
  const issues: OrderIssue[] = [];
  const given = (options.preflights ?? []).map((p) => ('report' in p ? p : { url: p.source?.url ?? p.file.path ?? '', report: p }));

  // Each (url, SKU) is preflighted once, however many rows name it.
  const jobs = new Map<string, { url: string; sku: string; target: ResolvedTarget; result?: Promise<Report> }>();
  const wanted: { path: string; key: string }[] = [];
  order.rows.forEach((row, r) => {
    if (!row.sources) return;
    const sku = row.sku ?? (row.variant_id !== undefined ? options.variantSkus?.[String(row.variant_id)] : undefined);
    if (!sku) {
      issues.push({ path: `rows[${r}].variant_id`, message: `variant ${row.variant_id} has no SKU in variantSkus, so its sources cannot be checked against a product profile` });
      return;
    }
    let target: ResolvedTarget;
    try {
      target = registry.resolve({ sku });
    } catch (error) {
      issues.push({ path: `rows[${r}].sku`, message: `no product profile for SKU "${sku}": ${(error as Error).message}` });
      return;
    }
    row.sources.forEach((source, s) => {
      const key = `${source.url}\u0000${target.sku.toUpperCase()}`;
      if (!jobs.has(key)) jobs.set(key, { url: source.url, sku: target.sku, target });
      wanted.push({ path: `rows[${r}].sources[${s}]`, key });
    });
  });

  const run = (job: { url: string; sku: string; target: ResolvedTarget }): Promise<Report> => {
    const mine = given.filter((g) => g.url === job.url);
    const match = mine.find((g) => g.report.product === job.target.profile.id && g.report.variant === job.target.variant.id);
    if (match) {
      if (match.sha256 && match.sha256 !== match.report.file.sha256) {
        return Promise.reject(new Error(`the given report judged a file with sha256 ${match.report.file.sha256}, not ${match.sha256}`));
      }
      return Promise.resolve(match.report);
    }
    if (mine.length) {
      const r = mine[0]!.report;
      return Promise.reject(new Error(`the given report is for ${r.product} ${r.variant}, but the row is for ${job.target.profile.id} ${job.target.variant.id}`));
    }
    const check = () => preflightUrl(job.url, { sku: job.sku }, { ...options.preflight, network: options.network });
    return options.schedule ? options.schedule(check) : check();
  };
  await limitConcurrency([...jobs.values()], options.concurrency ?? 4, async (job) => {
    job.result = run(job);
    await job.result.catch(() => undefined);
  });

  const reports: Report[] = [];
  for (const { path, key } of wanted) {
    const job = jobs.get(key)!;
    let report: Report;
    try {
      report = await job.result!;
    } catch (error) {
      issues.push({ path, message: `${job.url}: ${(error as Error).message}` });
      continue;
    }
    if (!reports.includes(report)) reports.push(report);
    const accepted = report.verdict === 'pass' || (report.verdict === 'warn' && !options.strict);
    if (!accepted) issues.push({ path, message: `${job.url} ${explain(report, options.strict ?? false)}`, report });
  }
  if (issues.length) throw new OrderPayloadError(issues);
  // Plain JSON: defaults filled, nothing undefined.
  return { payload: JSON.parse(JSON.stringify(order)) as OrderPayload, reports };
}

const KIND: Record<string, string> = { string: 'a string', number: 'a number', int: 'a whole number', boolean: 'true or false', array: 'a list', object: 'an object' };
const kindOf = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'a list'
      : typeof v === 'object'
        ? 'an object'
        : typeof v === 'string'
          ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`
          : `${typeof v} ${String(v)}`;

/** A schema issue as a person reads it: "is required (a string)", "must be a number, not the string "2"". */
export function friendlyMessage(issue: { code: string; path: readonly PropertyKey[]; message: string; expected?: unknown; keys?: readonly string[] }, draft: unknown): string {
  let value: unknown = draft;
  for (const key of issue.path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (issue.code === 'invalid_type') {
    const expected = KIND[String(issue.expected)] ?? String(issue.expected);
    return value === undefined ? `is required (${expected})` : `must be ${expected}, not ${kindOf(value)}`;
  }
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} the service does not know: ${issue.keys.join(', ')}`;
  }
  return issue.message.replace(/^Invalid input: /, '').replace(/^Invalid /, 'invalid ');
}

function explain(report: Report, strict: boolean): string {
  const worst = report.findings.filter((f) => f.severity === (report.verdict === 'fail' ? 'error' : 'warning'));
  const why = worst
    .slice(0, 3)
    .map((f) => `${f.code}: ${f.message}`)
    .join(' | ');
  const more = worst.length > 3 ? ` (+${worst.length - 3} more)` : '';
  const verdict = report.verdict === 'warn' && strict ? 'has warnings, and strict mode accepts only pass' : `fails its preflight for ${report.product} ${report.variant}`;
  return `${verdict}: ${why}${more}`;
}

async function limitConcurrency<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}
