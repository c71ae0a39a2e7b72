import type { PreflightOptions, Target } from './options.js';
import type { Report } from '../report/schema.js';
import { NetworkOptionsSchema, type NetworkOptions } from '../source/network.js';
import { check } from './check.js';
import { downloadWith } from './download.js';
import type { Preview } from './preflight.js';
import { resolveRun } from './run.js';

export { NetworkOptionsSchema, type NetworkOptions };

export type UrlPreflightOptions = PreflightOptions & { network?: NetworkOptions };

/**
 * Downloads a source URL the way the order service will, then preflights the file. Problems
 * with the download are findings too: `source-unreachable`, `source-requires-auth`,
 * `source-address-blocked` (SSRF guard), `source-redirected`, `source-url-expires`,
 * `file-too-large` (checked before and while downloading).
 * @param url the `sources[].url` of an order row
 * @example
 * const report = await preflightUrl('https://cdn.example.com/a.pdf', { sku: 'T-SHIRT-M' });
 * report.source?.redirects; // the chain followed
 */
export async function preflightUrl(url: string, target: Target, options: UrlPreflightOptions = {}): Promise<Report> {
  return (await check({ url }, target, { ...options, keepPreviews: false })).report;
}

/** Like {@link preflightUrl}, and also returns each rasterised page's preview (the service keeps them). */
export async function preflightUrlWithPreviews(url: string, target: Target, options: UrlPreflightOptions = {}): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const { report, previews } = await check({ url }, target, options);
  return { report, previews };
}

/**
 * A source URL downloaded the way the order service will: its bytes and `finish`, which puts what
 * the download found (the `source` member, `source-*` findings, a login page) on a report of those
 * bytes — or, when nothing usable came, the report that says why.
 */
export type DownloadedSource = { ok: true; bytes: Uint8Array; options: PreflightOptions; finish: (report: Report) => Promise<Report> } | { ok: false; report: Report };

/** Downloads `url` within the target's file-size limit and the network options; see {@link DownloadedSource}. */
export async function downloadSource(url: string, target: Target, options: UrlPreflightOptions = {}): Promise<DownloadedSource> {
  // Resolve the target and limits first: an unknown SKU is misuse, not a finding.
  const run = await resolveRun(target, options);
  const got = await downloadWith(run, url);
  const { network: _n, ...preflightOptions } = options;
  return got.ok ? { ...got, options: { ...preflightOptions, profiles: run.registry } } : got;
}
