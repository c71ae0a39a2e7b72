/**
 * The headers every answer carries, set before its first byte is written (fastify's onSend hook,
 * and the raw answers to requests the HTTP parser refused): no MIME sniffing, no referrer, no
 * framing unless the operator allows it, no caching of what a DELETE must be able to take back, and
 * a Content-Security-Policy. HTML pages get a policy that allows their own inline script by its
 * hash and nothing else, so markup that slipped into a report could not run.
 */
import { createHash } from 'node:crypto';

/** A CSP source for an inline script: `'sha256-…'` of its exact text. */
export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;
}

/** The `frame-ancestors` value: the operator's sources, or `'none'`. */
export function frameAncestorsValue(sources: readonly string[]): string {
  return sources.length ? sources.join(' ') : "'none'";
}

/** The policy of an answer that is not a page (JSON, images, problems): it may load and run nothing. */
export function defaultPolicy(frameAncestors: readonly string[]): string {
  return `default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors ${frameAncestorsValue(frameAncestors)}`;
}

/**
 * The policy of an HTML page: nothing by default; its inline scripts only by their hashes, styles
 * inline (the report sizes each page's figure with a style attribute), images as data: URIs, and
 * fetch() to this origin when `connect` is set (the docs page loads /openapi.json).
 */
export function pagePolicy(frameAncestors: readonly string[], { scripts, connect = false, forms = false }: { scripts: readonly string[]; connect?: boolean; forms?: boolean }): string {
  return [
    "default-src 'none'",
    `script-src ${scripts.map(scriptHash).join(' ') || "'none'"}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    ...(connect ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    // The approval page posts its two forms to this origin; no other page posts anything.
    forms ? "form-action 'self'" : "form-action 'none'",
    `frame-ancestors ${frameAncestorsValue(frameAncestors)}`,
  ].join('; ');
}

/** Headers of every answer (a route may set its own Content-Security-Policy and Cache-Control first). */
export function securityHeaders(frameAncestors: readonly string[]): Record<string, string> {
  return {
    'Content-Security-Policy': defaultPolicy(frameAncestors),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Older browsers do not read frame-ancestors; X-Frame-Options can only say "nowhere".
    ...(frameAncestors.length ? {} : { 'X-Frame-Options': 'DENY' }),
    'Cross-Origin-Resource-Policy': 'same-origin',
    // Reports name a customer's files: no shared cache keeps them, and a DELETE is final.
    'Cache-Control': 'no-store',
  };
}

/** The Cache-Control of a check's report, HTML report and previews. */
export const PRIVATE_NO_STORE = 'private, no-store';

/** Pulls each inline `<script>`'s text out of a static page (never of a page with untrusted text). */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}
