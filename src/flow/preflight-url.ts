import { InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from '../options.js';
import { callLimits, preflightWithPreviews, type Preview } from './preflight.js';
import { formatPath, registryFrom } from '../profile/load.js';
import { buildReport, withFindings } from '../report/build.js';
import type { Report } from '../report/schema.js';
import type { Draft } from '../model/finding.js';
import { profileRules, settle } from '../rules/index.js';
import { packageVersion } from '../util/package-root.js';
import { localizeReport } from '../messages/catalogue.js';
import { download, type DownloadResult } from '../source/download.js';
import { NetworkOptionsSchema, type NetworkOptions } from '../source/network.js';
import { sha256Hex } from '../source/read.js';
import { signedUrl } from '../source/signed-url.js';


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
  return (await preflightUrlWithPreviews(url, target, { ...options, keepPreviews: false } as UrlPreflightOptions)).report;
}

/** Like {@link preflightUrl}, and also returns each rasterised page's preview (the service keeps them). */
export async function preflightUrlWithPreviews(url: string, target: Target, options: UrlPreflightOptions = {}): Promise<{ report: Report; previews: Map<number, Preview> }> {
  const got = await downloadSource(url, target, options);
  if (!got.ok) return { report: got.report, previews: new Map() };
  const { report, previews } = await preflightWithPreviews(got.bytes, target, { ...got.options, path: url } as PreflightOptions);
  return { report: await got.finish(report), previews };
}

/**
 * A source URL downloaded the way the order service will: its bytes and `finish`, which puts what
 * the download found (the `source` member, `source-*` findings, a login page) on a report of those
 * bytes — or, when nothing usable came, the report that says why.
 */
export type DownloadedSource =
  | { ok: true; bytes: Uint8Array; options: PreflightOptions; finish: (report: Report) => Promise<Report> }
  | { ok: false; report: Report };

/** Downloads `url` within the target's file-size limit and the network options; see {@link DownloadedSource}. */
export async function downloadSource(url: string, target: Target, options: UrlPreflightOptions = {}): Promise<DownloadedSource> {
  const { network: rawNetwork, ...preflightOptions } = options;
  const parsed = NetworkOptionsSchema.safeParse(rawNetwork ?? {});
  if (!parsed.success) {
    throw new InvalidArgumentError(`Invalid network options: ${parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  }
  const network = parsed.data;
  // Resolve the target and limits first: an unknown SKU is misuse, not a finding.
  const registry = await registryFrom(preflightOptions.profiles);
  const resolved = registry.resolve(target);
  const limits = callLimits(resolved.limits, preflightOptions.limits, preflightOptions.tightenOnly ?? false);

  const result = await download(url, {
    ...network,
    maxBytes: limits.maxFileBytes,
    signal: preflightOptions.signal,
    userAgent: `print-preflight/${packageVersion()}`,
  });
  const drafts: Draft[] = sourceDrafts(url, result);
  const signed = safeSigned(url);
  const source: Report['source'] = {
    url,
    finalUrl: result.url,
    status: result.status,
    contentType: result.ok ? result.contentType : null,
    redirects: result.redirects,
    signed: signed ? { provider: signed.provider, expires: signed.expires?.toISOString() ?? null } : null,
  };
  const profileLevel = profileRules(resolved.profile, preflightOptions.defaultPolicy);
  const how = { tightenOnly: preflightOptions.tightenOnly ?? false };
  const locale = preflightOptions.locale;
  const localized = async (r: Report) => (locale ? localizeReport(r, resolved.profile, locale) : r);
  const callLevel = { severities: preflightOptions.severities ?? {}, policy: preflightOptions.policy ?? {} };
  if (!result.ok) {
    const empty = buildReport({
      file: { path: url, bytes: 0, sha256: sha256Hex(new Uint8Array()) },
      facts: { bytes: 0, pdfVersion: null, encryption: null, problems: [], activeContent: [], pageCount: null, pages: [] },
      target: resolved,
      findings: [],
      limits,
      severities: preflightOptions.severities ?? {},
    });
    return { ok: false, report: await localized(withFindings(empty, settle(drafts, profileLevel, callLevel, how), source)) };
  }
  const login = looksLikeLoginPage(result.contentType, result.bytes);
  if (login) {
    drafts.push({
      code: 'source-requires-auth',
      page: null,
      layer: null,
      message: `The URL answers ${result.status} with an HTML page that looks like a login form, not the file: the service would get that page. Share a direct link that downloads the PDF without signing in.`,
      expected: 'the PDF file',
      actual: `${result.contentType ?? 'HTML'} login page`,
    });
  }
  const findings = settle(drafts, profileLevel, callLevel, how);
  return {
    ok: true,
    bytes: result.bytes,
    options: { ...preflightOptions, profiles: registry },
    finish: async (report) => localized(withFindings(report, findings, source)),
  };
}

function safeSigned(url: string) {
  try {
    return signedUrl(new URL(url));
  } catch {
    return null;
  }
}

function sourceDrafts(url: string, result: DownloadResult): Draft[] {
  const out: Draft[] = [];
  const base = { page: null, layer: null };
  if (result.ok && result.redirects.length) {
    const chain = [url, ...result.redirects.map((r) => r.to)];
    out.push({
      ...base,
      code: 'source-redirected',
      message: `The URL redirects ${result.redirects.length} time${result.redirects.length === 1 ? '' : 's'} (${result.redirects.map((r) => r.status).join(', ')}) before the file: ${chain.join(' → ')}. The service follows redirects, but a direct link to the final address is one thing less to break.`,
      expected: 'a direct link',
      actual: `${result.redirects.length} redirect${result.redirects.length === 1 ? '' : 's'}`,
      details: { redirects: result.redirects.length, finalUrl: result.url },
    });
  }
  const signed = safeSigned(url);
  if (signed) {
    const when = signed.expires ? `expires ${signed.expires.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}` : 'may expire';
    out.push({
      ...base,
      code: 'source-url-expires',
      message: `The URL is a signed ${signed.provider} link that ${when}; the service needs it for the whole production process, which can take days. Use a long-lived link, or one that does not expire.`,
      expected: 'a URL that stays reachable',
      actual: `signed ${signed.provider} URL${signed.expires ? `, ${when}` : ''}`,
      details: { provider: signed.provider, expires: signed.expires?.toISOString() ?? null },
    });
  }
  if (!result.ok) {
    const code = result.code;
    const message =
      code === 'file-too-large'
        ? `The file at the URL is too large: ${result.detail}. The service rejects or delays files over 50 MB; recompress its images.`
        : code === 'source-requires-auth'
          ? `The URL cannot be downloaded without authentication: ${result.detail}. The service needs a direct link that downloads without signing in.`
          : code === 'source-address-blocked'
            ? `The URL is not on the public internet: ${result.detail}. Host the file where the service can reach it.`
            : `The URL cannot be downloaded: ${result.detail}. It must stay reachable for the whole production process.`;
    out.push({ ...base, code, message, expected: 'a file the service can download', actual: result.detail, details: { status: result.status } });
  }
  return out;
}

function looksLikeLoginPage(contentType: string | null, bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 65536)).toString('latin1');
  const html = /text\/html|application\/xhtml/i.test(contentType ?? '') || /^\s*(<!doctype html|<html)/i.test(head);
  if (!html) return false;
  return /<input[^>]+type\s*=\s*["']?password/i.test(head) || /\b(log\s?in|sign\s?in|anmelden|connexion)\b/i.test(head);
}
