/**
 * Receiving the service's webhooks: `x-webhook-signature` is the base64 of the HMAC-SHA256 of the
 * raw body with the shared secret. Verification compares in constant time. The handler answers at
 * once (200, or 403 for a bad signature) and hands the event to the application afterwards, so a
 * slow application never makes a delivery count as failed (10 failures disable the webhook).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookFailedSchema, WebhookOrderSchema, type WebhookOrder } from './schemas.js';

/** Why a delivery's signature was refused. */
export type WebhookSignatureProblem = 'missing-signature' | 'malformed-signature' | 'missing-secret' | 'mismatch';

/**
 * Signs a body as the service does (for tests and fakes).
 * @example
 * import { signWebhook, verifyWebhook } from 'print-preflight/order-service';
 * const body = JSON.stringify({ topic: 'order.updated' });
 * verifyWebhook(body, signWebhook(body, 'whsec'), 'whsec'); // true
 */
export function signWebhook(rawBody: Uint8Array | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64');
}

/**
 * Whether a delivery's signature is the service's, for this raw body and secret (constant-time
 * comparison). Returns a boolean, as `verify()` of GitHub's `@octokit/webhooks` does, so that
 * `if (!verifyWebhook(…))` reads and works as it looks; {@link webhookSignatureProblem} says why
 * a signature was refused.
 * @param rawBody the body exactly as received (not re-serialised JSON)
 * @param signatureHeader the `x-webhook-signature` header
 * @param secret the webhook signing secret
 * @returns true only for a well-formed signature that matches
 * @example
 * if (!verifyWebhook(rawBody, req.headers['x-webhook-signature'], process.env.SIGNING_SECRET ?? '')) {
 *   return res.writeHead(403).end();
 * }
 */
export function verifyWebhook(rawBody: Uint8Array | string, signatureHeader: string | string[] | undefined | null, secret: string): boolean {
  return webhookSignatureProblem(rawBody, signatureHeader, secret) === null;
}

/**
 * Why a delivery's signature is refused, or null when it verifies: for logs and for the 403 body.
 * @example
 * const problem = webhookSignatureProblem(rawBody, header, secret);
 * if (problem) log.warn(`webhook refused: ${problem}`); // 'missing-signature' | 'malformed-signature' | 'missing-secret' | 'mismatch'
 */
export function webhookSignatureProblem(rawBody: Uint8Array | string, signatureHeader: string | string[] | undefined | null, secret: string): WebhookSignatureProblem | null {
  if (!secret) return 'missing-secret';
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (!header?.trim()) return 'missing-signature';
  const value = header.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return 'malformed-signature';
  const given = Buffer.from(value, 'base64');
  if (given.length !== 32) return 'malformed-signature';
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(given, expected) ? null : 'mismatch';
}

export type WebhookEvent =
  | { topic: 'order.created' | 'order.updated'; order: WebhookOrder; raw: unknown }
  | { topic: 'order.failed'; failure: Record<string, unknown>; raw: unknown }
  | { topic: string; raw: unknown };

/**
 * Parses a verified delivery by its topic; unknown topics come through as raw JSON.
 * @example
 * import { parseWebhook } from 'print-preflight/order-service';
 * declare const rawBody: Buffer;
 * const event = parseWebhook('order.updated', rawBody);
 * if (event.topic === 'order.updated' && 'order' in event) console.log(event.order.fulfillment_status);
 */
export function parseWebhook(topic: string | undefined, rawBody: Uint8Array | string): WebhookEvent {
  const raw = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  if (topic === 'order.created' || topic === 'order.updated') {
    const body = raw && typeof raw === 'object' && 'data' in raw ? (raw as { data: unknown }).data : raw;
    return { topic, order: WebhookOrderSchema.parse(body), raw };
  }
  if (topic === 'order.failed') return { topic, failure: WebhookFailedSchema.parse(raw), raw };
  return { topic: topic ?? 'unknown', raw };
}

export interface WebhookHandlerOptions {
  secret: string;
  /** Called after the answer was sent. */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Called for a body that verified but could not be parsed, or an onEvent that threw. */
  onError?: (error: unknown) => void;
  /** Largest body read, in bytes. Default 1 MiB. */
  maxBytes?: number;
}

/**
 * A request handler for Node's http server, Express or Fastify (raw body): verifies, answers 200
 * at once or 403, then hands the event to `onEvent` asynchronously.
 * @example
 * http.createServer(webhookHandler({ secret, onEvent: (e) => queue.push(e) })).listen(8080);
 */
export function webhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  return (req, res) => {
    const finish = (raw: Buffer) => {
      const problem = webhookSignatureProblem(raw, req.headers['x-webhook-signature'], options.secret);
      if (problem) {
        res.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: problem }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      const topic = req.headers['x-webhook-topic'];
      setImmediate(async () => {
        try {
          await options.onEvent(parseWebhook(Array.isArray(topic) ? topic[0] : topic, raw));
        } catch (error) {
          options.onError?.(error);
        }
      });
    };
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    // Express with express.raw() has already read the body.
    if (Buffer.isBuffer(req.body)) return finish(req.body);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size <= maxBytes) finish(Buffer.concat(chunks));
    });
  };
}
