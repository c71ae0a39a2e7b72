/**
 * Callbacks: when a check is done, its view is POSTed to the `callbackUrl` the client gave, signed
 * the way the order service signs its webhooks (`x-webhook-signature`: base64 HMAC-SHA256 of the
 * raw body), so a client verifies both with the same `verifyWebhook`. A failed delivery is retried
 * with exponential backoff, up to 10 attempts; every attempt is kept on the check's record, so a
 * restart resumes where it stopped. The SSRF guard of source downloads applies: a callback never
 * reaches a loopback, private or link-local address unless its host is allowed.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import { signWebhook } from '../client/webhooks.js';
import { blockedReason } from '../source/address.js';
import { guardedLookup, hostAllowed } from '../source/download.js';
import { packageVersion } from '../util/package-root.js';
import { isSettled, type CheckRecord } from './schema.js';
import type { JobStore } from './store.js';
import { checkView } from './view.js';

/** How callbacks are delivered. Defaults are set here and nowhere else. */
export const CallbackOptionsSchema = z
  .object({
    /** The HMAC secret (`--callback-secret`). Without one, callbacks are refused at submission. */
    secret: z.string().min(1),
    /** Delivery attempts in all. */
    maxAttempts: z.number().int().min(1).max(10).default(10),
    /** Delay before the second attempt, in ms; doubles each time (with jitter), at most `maxDelayMs`. */
    backoffMs: z.number().int().min(0).default(5_000),
    maxDelayMs: z
      .number()
      .int()
      .min(0)
      .default(15 * 60_000),
    /** Time limit of one attempt, in ms. */
    timeoutMs: z.number().int().min(1).default(10_000),
    /** Hosts allowed although they resolve to private or loopback addresses. */
    allowHosts: z.array(z.string().min(1)).default([]),
    /** The server's public URL (`--public-url`): the fixed file's URL in a callback is absolute under it. */
    publicUrl: z.string().nullable().optional(),
  })
  .strict();
export type CallbackOptions = z.input<typeof CallbackOptionsSchema>;

/** The topic header of a callback delivery. */
export const CALLBACK_TOPIC = 'check.finished';
/** The topic of the callback of a check that waits for approval (a `check.finished` follows the approval or rejection). */
export const NEEDS_APPROVAL_TOPIC = 'check.needs-approval';

/**
 * Why a callback URL cannot be used, checked when the check is submitted (the address it resolves
 * to is checked again at each delivery); null when it can.
 */
export function callbackUrlProblem(text: string, allowHosts: readonly string[]): string | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http or https URL';
  if (u.username || u.password) return 'must not carry a user name or password';
  const literal = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !hostAllowed(u, allowHosts)) {
    const why = blockedReason(literal);
    if (why) return `points to ${literal}, a ${why} address, which callbacks may not reach`;
  }
  return null;
}

/** How long a submission waits for the callback host's name to resolve; past it, only delivery judges it. */
const SUBMISSION_LOOKUP_MS = 3_000;

/**
 * {@link callbackUrlProblem}, and the addresses the host name resolves to now: a name that points
 * to loopback or a private network (`localhost`, a DNS entry for 10.0.0.5) or that does not exist is
 * refused at submission, instead of failing ten deliveries later. A name that does not answer in
 * time is left to the check at each delivery.
 */
export async function resolvedCallbackUrlProblem(text: string, allowHosts: readonly string[]): Promise<string | null> {
  const literal = callbackUrlProblem(text, allowHosts);
  if (literal) return literal;
  const u = new URL(text);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || hostAllowed(u, allowHosts)) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), SUBMISSION_LOOKUP_MS)));
  try {
    const answer = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    if (answer === 'timeout') return null;
    for (const a of answer) {
      const why = blockedReason(a.address);
      if (why) return `resolves to ${a.address}, a ${why} address, which callbacks may not reach`;
    }
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOTFOUND' || code === 'ENODATA' ? `names the host ${host}, which does not resolve` : null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Delivers a finished check's callback, attempt after attempt, recording each on the record.
 * Resolves when delivered, given up, or `signal` aborts (the state stays `pending`: a restart
 * resumes). Safe to call for a record already delivered (does nothing).
 */
export async function deliverCallback(id: string, store: JobStore, rawOptions: CallbackOptions, signal?: AbortSignal): Promise<CheckRecord | null> {
  const options = CallbackOptionsSchema.parse(rawOptions);
  const job = await store.readJob(id);
  if (!job?.callbackUrl) return store.readRecord(id);
  for (;;) {
    const record = await store.readRecord(id);
    if (record?.callbackState !== 'pending' || !isSettled(record.status)) return record;
    // Attempts since the last one delivered: a check that waits for approval delivers twice
    // (check.needs-approval, then check.finished after the decision), each with its own retries.
    const n = failuresInARow(record.callbacks);
    if (n >= options.maxAttempts) return store.updateRecord(id, (r) => ({ ...r, callbackState: 'failed' }));
    if (n > 0) {
      const base = Math.min(options.maxDelayMs, options.backoffMs * 2 ** (n - 1));
      const last = Date.parse(record.callbacks[n - 1]!.at);
      const due = last + base + Math.floor(Math.random() * base * 0.1);
      if (!(await sleep(due - Date.now(), signal))) return record;
    }
    if (signal?.aborted) return record;
    const report = await store.readReport(id);
    const pages = [...(await store.previews(id)).keys()];
    const body = JSON.stringify(checkView(record, report, pages, null, options.publicUrl));
    const at = new Date().toISOString();
    const outcome = await post(job.callbackUrl, body, options, signal, record.status === 'needs-approval' ? NEEDS_APPROVAL_TOPIC : CALLBACK_TOPIC);
    if (signal?.aborted && outcome.error === 'aborted') return record;
    const updated = await store.updateRecord(id, (r) => {
      const callbacks = [...r.callbacks, { at, ...outcome }];
      const delivered = isDelivered(outcome);
      // Decided while this one was posted: the decision's callback is still owed.
      const state = delivered ? (r.status !== record.status ? 'pending' : 'delivered') : failuresInARow(callbacks) >= options.maxAttempts ? 'failed' : 'pending';
      return { ...r, callbacks, callbackState: state };
    });
    if (updated?.callbackState !== 'pending') return updated;
  }
}

const isDelivered = (attempt: { status?: number | undefined }) => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;

/** Failed attempts after the last delivered one. */
function failuresInARow(attempts: readonly { status?: number | undefined }[]): number {
  let n = 0;
  for (let i = attempts.length - 1; i >= 0 && !isDelivered(attempts[i]!); i--) n++;
  return n;
}

/** One POST: the status it answered, or why it did not. */
function post(url: string, body: string, options: z.output<typeof CallbackOptionsSchema>, signal: AbortSignal | undefined, topic: string): Promise<{ status?: number; error?: string }> {
  const problem = callbackUrlProblem(url, options.allowHosts);
  if (problem) return Promise.resolve({ error: `the callback URL ${problem}` });
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  return new Promise((resolve) => {
    const req = lib.request(
      u,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(hostAllowed(u, options.allowHosts)) as never,
        signal: combined,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': `print-preflight/${packageVersion()}`,
          'x-webhook-topic': topic,
          'x-webhook-signature': signWebhook(body, options.secret),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(res.statusCode && res.statusCode >= 300 ? { error: `answered ${res.statusCode}` } : {}) }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) return resolve({ error: 'aborted' });
      if (timeout.aborted) return resolve({ error: `no answer within ${options.timeoutMs / 1000} s` });
      resolve({ error: (error.code ? `${error.code}: ` : '') + error.message });
    });
    req.end(body);
  });
}

/** Waits `ms`; resolves false when `signal` aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The callbacks a queue is delivering: one delivery loop per check at a time (a second call for the
 * same check waits for the first, which may already deliver what is owed), and a way to wait for
 * them all at shutdown. Shared by the embedded queue and the fleet's Redis queue.
 * @example
 * const chain = new DeliveryChain();
 * chain.add(id, () => deliverCallback(id, store, callback, signal));
 * await chain.drained();
 */
export class DeliveryChain {
  private readonly all = new Set<Promise<unknown>>();
  private readonly latest = new Map<string, Promise<unknown>>();

  /** Runs `deliver` once every earlier delivery of check `id` has ended; its failure stays its own. */
  add(id: string, deliver: () => Promise<unknown>): void {
    const earlier = this.latest.get(id) ?? Promise.resolve();
    const delivery = earlier
      .then(deliver)
      .catch(() => undefined)
      .finally(() => {
        this.all.delete(delivery);
        if (this.latest.get(id) === delivery) this.latest.delete(id);
      });
    this.all.add(delivery);
    this.latest.set(id, delivery);
  }

  /** Resolves when every delivery added so far has ended. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.all]);
  }
}

/**
 * The checks of a data folder that are settled and still owe their callback (a process stopped
 * before delivering it): a queue delivers them when it starts.
 */
export async function owedCallbacks(store: JobStore): Promise<string[]> {
  const owed: string[] = [];
  for (const id of await store.ids()) {
    const record = await store.readRecord(id).catch(() => null);
    if (record?.callbackState === 'pending' && isSettled(record.status)) owed.push(id);
  }
  return owed;
}
