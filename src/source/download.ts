/**
 * Downloads a source URL the way the order service will: no cookies, no credentials, http(s)
 * only, redirects followed up to a limit (a redirect's body is never read), the size cap enforced from Content-Length and while
 * streaming (never buffering more), connect and total timeouts, and every connection checked
 * against the SSRF guard on the address it resolved to.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { FindingCode } from '../model/codes.js';
import { blockedReason } from './address.js';

export interface DownloadOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  connectTimeoutMs: number;
  /** For the whole download, redirects included. */
  totalTimeoutMs: number;
  maxRedirects: number;
  /** Hosts (name or IP, optionally with :port) allowed even when they resolve to private or loopback addresses. */
  allowHosts: readonly string[];
  signal?: AbortSignal | undefined;
  userAgent: string;
}

export interface Redirect {
  from: string;
  to: string;
  status: number;
}

export type DownloadResult =
  | { ok: true; url: string; bytes: Uint8Array; status: number; contentType: string | null; redirects: Redirect[] }
  | { ok: false; code: FindingCode; detail: string; url: string; status: number | null; redirects: Redirect[] };

class Failure extends Error {
  constructor(
    readonly code: FindingCode,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Downloads `url` within the limits. Never throws for a network problem: the result says what
 * went wrong, as a finding code and a sentence.
 */
export async function download(url: string, options: DownloadOptions): Promise<DownloadResult> {
  const redirects: Redirect[] = [];
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.totalTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const target = parseUrl(current);
      const response = await request(target, options, signal, () => deadline.signal.aborted);
      if (response.redirect) {
        const next = new URL(response.redirect, target).toString();
        redirects.push({ from: current, to: next, status: response.status });
        if (next === url || redirects.some((r) => r.from === next)) {
          throw new Failure('source-unreachable', `the URL redirects in a loop (${[url, ...redirects.map((r) => r.to)].join(' → ')})`, response.status);
        }
        if (hop + 1 > options.maxRedirects) {
          throw new Failure('source-unreachable', `the URL redirects more than ${options.maxRedirects} times`, response.status);
        }
        current = next;
        continue;
      }
      return { ok: true, url: current, bytes: response.body!, status: response.status, contentType: response.contentType, redirects };
    }
  } catch (error) {
    const f = error instanceof Failure ? error : new Failure('source-unreachable', (error as Error).message);
    return { ok: false, code: f.code, detail: f.message, url: current, status: f.status, redirects };
  } finally {
    clearTimeout(timer);
  }
}

function parseUrl(text: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Failure('source-unreachable', `"${text}" is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Failure('source-unreachable', `the URL uses ${u.protocol.replace(':', '')}; the service downloads http and https URLs only`);
  }
  if (u.username || u.password) {
    throw new Failure('source-requires-auth', 'the URL carries a user name or password; the service downloads without authentication');
  }
  return u;
}

interface Response {
  status: number;
  redirect?: string;
  body?: Uint8Array;
  contentType: string | null;
}

function request(u: URL, options: DownloadOptions, signal: AbortSignal, timedOut: () => boolean): Promise<Response> {
  const isAllowed = hostAllowed(u, options.allowHosts);
  const literal = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !isAllowed) {
    const why = blockedReason(literal);
    if (why) return Promise.reject(new Failure('source-address-blocked', `${literal} is a ${why} address, which the service cannot reach`));
  }
  const lookup = guardedLookup(isAllowed, (code, message) => new Failure(code, message));
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    let overflow = false;
    let body: Uint8Array[] = [];
    let received = 0;
    let expected: number | null = null;
    let result: Response | null = null;
    let failure: Failure | null = null;
    const fail = (f: Failure) => {
      failure ??= f;
      req.destroy();
    };
    const req = lib.get(
      u,
      {
        agent: false,
        lookup: lookup as never,
        headers: { 'User-Agent': options.userAgent, Accept: '*/*', 'Accept-Encoding': 'identity', Connection: 'close' },
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const contentType = (res.headers['content-type'] ?? null) as string | null;
        if (status >= 300 && status < 400 && res.headers.location) {
          // A redirect's own body is never read (a server could send one without end): the
          // connection is closed as soon as the headers are in.
          result = { status, redirect: res.headers.location, contentType };
          res.on('error', () => undefined);
          res.destroy();
          req.destroy();
          return;
        }
        if (status === 401 || status === 403) {
          res.resume();
          return fail(new Failure('source-requires-auth', `the server answers ${status} ${res.statusMessage ?? ''}: the file needs credentials the service does not have`.replace('  ', ' '), status));
        }
        if (status < 200 || status >= 300) {
          res.resume();
          const what = status === 404 || status === 410 ? 'the file is not there' : status >= 500 ? 'the server failed' : 'the request was refused';
          return fail(new Failure('source-unreachable', `the server answers ${status} ${res.statusMessage ?? ''}: ${what}`.replace('  ', ' '), status));
        }
        const length = res.headers['content-length'] !== undefined ? Number(res.headers['content-length']) : null;
        expected = length !== null && Number.isFinite(length) ? length : null;
        if (expected !== null && expected > options.maxBytes) {
          res.resume();
          return fail(new Failure('file-too-large', `the server announces ${expected} bytes, over the limit of ${options.maxBytes} bytes; not downloaded`, status));
        }
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > options.maxBytes) {
            body = [];
            return fail(new Failure('file-too-large', `the download passed the limit of ${options.maxBytes} bytes and was stopped`, status));
          }
          body.push(chunk);
        });
        res.on('end', () => {
          if (!res.complete) return;
          result = { status, body: concat(body, received), contentType };
        });
      },
    );
    const connectTimer = setTimeout(() => fail(new Failure('source-unreachable', `no connection within ${options.connectTimeoutMs / 1000} s`)), options.connectTimeoutMs);
    req.on('socket', (socket) => {
      socket.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      if (!socket.connecting) clearTimeout(connectTimer);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (/^HPE_/.test(error.code ?? '')) overflow = true;
      else if (error instanceof Failure) failure ??= error;
      else if (error.name === 'AbortError' || timedOut()) failure ??= new Failure('source-unreachable', timedOut() ? `the download took longer than ${options.totalTimeoutMs / 1000} s` : 'aborted');
      else failure ??= new Failure('source-unreachable', `the connection failed (${error.code ?? error.message})`);
    });
    req.on('close', () => {
      clearTimeout(connectTimer);
      if (settled) return;
      settled = true;
      if (failure) return reject(failure);
      if (overflow && result?.body) {
        return reject(new Failure('source-unreachable', `the server sent more data than its Content-Length (${expected} bytes) says: the service would read a cut-off file`, result.status));
      }
      if (!result) {
        const detail = timedOut()
          ? `the download took longer than ${options.totalTimeoutMs / 1000} s`
          : expected !== null
            ? `the connection closed after ${received} of ${expected} bytes`
            : 'the connection closed before the response was complete';
        return reject(new Failure('source-unreachable', detail));
      }
      if (result.body && expected !== null && result.body.length !== expected) {
        return reject(new Failure('source-unreachable', `the server sent ${result.body.length} bytes where its Content-Length says ${expected}`, result.status));
      }
      resolve(result);
    });
  });
}

/**
 * A `lookup` for http(s).request that resolves, then refuses loopback, private and link-local
 * answers unless the host is allowed (DNS rebinding included: the address checked is the one used).
 * Also used for outgoing callbacks.
 */
export function guardedLookup(hostAllowed: boolean, failure: (code: 'source-unreachable' | 'source-address-blocked', message: string) => Error = (_c, m) => new Error(m)) {
  return (hostname: string, opts: object, callback: (e: Error | null, a: string | LookupAddress[], f?: number) => void) => {
    dnsLookup(hostname, { ...opts, all: true }, (error, addresses) => {
      if (error) return callback(failure('source-unreachable', `the host ${hostname} cannot be resolved (${error.code ?? error.message})`), '');
      const list = addresses as LookupAddress[];
      if (!hostAllowed) {
        for (const a of list) {
          const why = blockedReason(a.address);
          if (why) return callback(failure('source-address-blocked', `${hostname} resolves to ${a.address}, a ${why} address, which the service cannot reach`), '');
        }
      }
      if ((opts as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Whether a URL's host is in an allow list ("127.0.0.1", "localhost", "files.internal:8080"). */
export function hostAllowed(u: URL, allowHosts: readonly string[]): boolean {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return allowHosts.some((h) => h === host || h === u.host || h === `${host}:${u.port}`);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
