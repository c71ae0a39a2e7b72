/**
 * A source URL downloaded the way the order service will: within the run's file-size limit and the
 * network options (SSRF-guarded, redirects counted, signed links' expiry read), and what the download
 * found — a redirect, a link that expires, a login page, a failure — as findings settled by the
 * run's rules, put on the report of the downloaded bytes (or on a report of its own when nothing
 * usable came).
 */
import { buildReport, withFindings } from '../report/build.js';
import type { Report } from '../report/schema.js';
import type { Draft } from '../model/finding.js';
import { profileRules, settle } from '../rules/index.js';
import { packageVersion } from '../util/package-root.js';
import { localizeReport } from '../messages/catalogue.js';
import { download, type DownloadResult } from '../source/download.js';
import { sha256Hex } from '../source/read.js';
import { signedUrl } from '../source/signed-url.js';
import type { ResolvedRun } from './run.js';

/**
 * {@link downloadSource} under a resolved run: the download within the run's file-size limit and
 * network options, and what it found settled by the run's rules.
 * @example
 * const got = await downloadWith(await resolveRun({ sku: 'T-SHIRT-M' }), 'https://cdn.example.com/a.pdf');
 */
export async function downloadWith(run: ResolvedRun, url: string): Promise<{ ok: true; bytes: Uint8Array; finish: (report: Report) => Promise<Report> } | { ok: false; report: Report }> {
  // The run's target (with the call's safe margin) and network options, as the call resolved them.
  const { options, limits, target: resolved } = run;
  const { network } = options;
  const result = await download(url, {
    ...network,
    maxBytes: limits.maxFileBytes,
    signal: options.signal,
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
  const profileLevel = profileRules(resolved.profile, options.defaultPolicy);
  const how = { tightenOnly: options.tightenOnly };
  const locale = options.locale;
  const localized = async (r: Report) => (locale ? localizeReport(r, resolved.profile, locale) : r);
  const callLevel = { severities: options.severities, policy: options.policy };
  if (!result.ok) {
    const empty = buildReport({
      file: { path: url, bytes: 0, sha256: sha256Hex(new Uint8Array()) },
      facts: { bytes: 0, pdfVersion: null, encryption: null, problems: [], activeContent: [], pageCount: null, pages: [] },
      target: resolved,
      findings: [],
      limits,
      severities: options.severities,
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
  return { ok: true, bytes: result.bytes, finish: async (report) => localized(withFindings(report, findings, source)) };
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
    const when = signed.expires
      ? `expires ${signed.expires
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC')}`
      : 'may expire';
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
