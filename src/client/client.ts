/**
 * A typed client of the order service: both auth headers on every request, responses validated
 * against the spec's envelope, errors typed by status, a client-side rate limiter under
 * 30 requests/minute, backoff on 429, retries of idempotent requests on 5xx and time-outs — and
 * never a blind retry of order creation (a retried POST can create two orders).
 */
import { EventEmitter } from 'node:events';
import { z } from 'zod';
import { parseOrThrow } from '../util/parse.js';
import { OrderSchema, type OrderPayload } from '../order/schema.js';
import { formatPath } from '../profile/load.js';
import { errorForStatus, OrderServiceError, ServiceResponseError, ServiceUnreachableError } from './errors.js';
import { limiterFor, type RateLimiter } from './rate-limit.js';
import {
  envelope,
  ErrorBodySchema,
  FulfillmentSchema,
  JsonValueSchema,
  LooseEnvelopeSchema,
  LooseRecordSchema,
  OrderCreatedSchema,
  ProductSchema,
  type Fulfillment,
  type JsonValue,
  type LooseList,
  type OrderCreated,
  type Product,
  type ProductPage,
  type ProductPricing,
} from './schemas.js';

/**
 * The options of {@link OrderServiceClient}, with their defaults (a rate limit of 30 requests a
 * minute, 4 retries from a 1 s backoff, 30 s per request).
 * @example
 * import { ClientOptionsSchema } from 'print-preflight/order-service';
 * const options = ClientOptionsSchema.parse({ baseUrl: process.env.ORDER_API_URL, accessToken: process.env.ACCESS_TOKEN, applicationKey: process.env.APPLICATION_KEY });
 */
export const ClientOptionsSchema = z
  .object({
    /** `{base_url}`, ending in the version segment, e.g. https://api.example.com/v2/integration */
    baseUrl: z.string().url(),
    accessToken: z.string().min(1),
    applicationKey: z.string().min(1),
    /** Requests allowed per window (the service: 30 a minute). */
    rateLimit: z.object({ requests: z.number().int().positive(), perMs: z.number().int().positive() }).default({ requests: 30, perMs: 60_000 }),
    /** Retries on 429, and on 5xx and time-outs for idempotent requests. */
    maxRetries: z.number().int().min(0).max(10).default(4),
    /** First backoff delay in ms; doubles each retry (with jitter), at most 60 s. */
    backoffMs: z.number().int().min(0).default(1_000),
    timeoutMs: z.number().int().positive().default(30_000),
    /**
     * Where the endpoints named only in release notes live (`/v1/products/:id/pricing`,
     * `/v1/orders`, `/v1/products?category=`). Default: the origin of `baseUrl` plus the path
     * before its `/v2` segment, then `/v1`.
     */
    v1BaseUrl: z.string().url().optional(),
    /** A fetch implementation (default: the global fetch). */
    fetch: z.custom<typeof fetch>((f) => typeof f === 'function').optional(),
  })
  .strict();
export type ClientOptions = z.input<typeof ClientOptionsSchema>;

export interface DeprecationWarning {
  method: string;
  path: string;
  /** The migration path the service points to (the X-Service-Deprecation header). */
  migration: string;
}

export interface ClientEvents {
  deprecation: [DeprecationWarning];
  retry: [{ method: string; path: string; attempt: number; delayMs: number; reason: string }];
}

/**
 * The order service's client: typed answers (zod-checked, loose where the service adds fields),
 * the rate limit kept (30 requests a minute per application key, and the server's headers obeyed),
 * retries with backoff on 429, 5xx and time-outs of idempotent calls, typed errors by status
 * ({@link OrderServiceError}), and a `deprecation` event when the service says a call is deprecated.
 * @example
 * const client = new OrderServiceClient({ baseUrl, accessToken, applicationKey });
 * client.on('deprecation', (w) => log.warn(w.migration));
 * const created = await client.createOrder(payload);
 * const records = await client.listFulfillments(created.data.id);
 * for await (const product of client.products()) console.log(product.name);
 */
export class OrderServiceClient extends EventEmitter<ClientEvents> {
  readonly options: z.output<typeof ClientOptionsSchema>;
  private readonly limiter: RateLimiter;
  private readonly doFetch: typeof fetch;

  constructor(options: ClientOptions) {
    super();
    this.options = parseOrThrow(ClientOptionsSchema, options, 'Invalid client options');
    this.limiter = limiterFor(this.options.applicationKey, this.options.rateLimit.requests, this.options.rateLimit.perMs);
    this.doFetch = this.options.fetch ?? fetch;
  }

  /** GET /ping. Resolves with the JSON the service answers (its shape is not published). */
  async ping(): Promise<JsonValue> {
    const { body } = await this.request('GET', '/ping', { idempotent: true });
    return this.validate(JsonValueSchema, body, 'ping');
  }

  /**
   * POST /orders with a payload that passes the order schema (a `buildOrderPayload` result does).
   * Retried only on 429 (not processed), or on 5xx/time-out when the payload has a `number`,
   * which makes a duplicate detectable; otherwise the error is thrown as it came.
   */
  async createOrder(payload: OrderPayload): Promise<OrderCreated> {
    const order = parseOrThrow(OrderSchema, payload, "The order payload breaks the service's rules");
    const { body } = await this.request('POST', '/orders', { body: order, idempotent: order.number !== undefined });
    // The order exists now: a surprising answer must not read as "not created".
    return this.validate(OrderCreatedSchema, body, 'order creation (the order was created; its id is missing from the answer)');
  }

  /** GET /orders/{id}/fulfillments: one record per copy of a product; empty before processing. */
  async listFulfillments(orderId: number | string): Promise<Fulfillment[]> {
    const { body } = await this.request('GET', `/orders/${encodeURIComponent(String(orderId))}/fulfillments`, { idempotent: true });
    return this.validate(envelope(z.array(FulfillmentSchema)), body, 'fulfillments').data as Fulfillment[];
  }

  /** GET /products?page=N: one page of the product list, with its links and meta. */
  async listProducts({ page = 1 }: { page?: number } = {}): Promise<ProductPage> {
    const { body } = await this.request('GET', `/products?page=${page}`, { idempotent: true });
    return this.validate(envelope(z.array(ProductSchema)), body, 'products') as ProductPage;
  }

  /**
   * GET /v1/products/:id/pricing (release notes): unit pricing across volume tiers per SKU.
   * Loosely typed: the answer's shape is not published, so `data` is any JSON.
   * @example const { data } = await client.getProductPricing(12);
   */
  async getProductPricing(productId: number | string): Promise<ProductPricing> {
    const { body } = await this.request('GET', this.v1(`/products/${encodeURIComponent(String(productId))}/pricing`), { idempotent: true });
    return this.validate(LooseEnvelopeSchema(JsonValueSchema), body, 'pricing');
  }

  /**
   * GET /v1/orders?status=… (release notes): one page of orders, filtered by status when given
   * (e.g. `imported`, `on hold`). Loosely typed records.
   * @example const { data } = await client.listOrders({ status: 'imported' });
   */
  async listOrders({ status, page }: { status?: string; page?: number } = {}): Promise<LooseList> {
    const query = new URLSearchParams();
    if (status !== undefined) query.set('status', status);
    if (page !== undefined) query.set('page', String(page));
    const { body } = await this.request('GET', this.v1(`/orders${query.size ? `?${query}` : ''}`), { idempotent: true });
    return this.validate(LooseEnvelopeSchema(z.array(LooseRecordSchema)), body, 'orders');
  }

  /**
   * GET /v1/products?category=… (release notes): one page of the products of a category.
   * Loosely typed records.
   * @example const { data } = await client.listProductsInCategory('home-textiles');
   */
  async listProductsInCategory(category: string, { page }: { page?: number } = {}): Promise<LooseList> {
    const query = new URLSearchParams({ category });
    if (page !== undefined) query.set('page', String(page));
    const { body } = await this.request('GET', this.v1(`/products?${query}`), { idempotent: true });
    return this.validate(LooseEnvelopeSchema(z.array(LooseRecordSchema)), body, 'products');
  }

  /** The absolute URL of a release-notes endpoint under /v1. */
  private v1(path: string): string {
    if (this.options.v1BaseUrl) return `${this.options.v1BaseUrl.replace(/\/$/, '')}${path}`;
    const base = new URL(this.options.baseUrl);
    const prefix = base.pathname.replace(/\/v2(\/.*)?$/, '').replace(/\/$/, '');
    return `${base.origin}${prefix}/v1${path}`;
  }

  /** Every product, page after page, following `links.next_page`. */
  async *products(): AsyncGenerator<Product> {
    let next: string | null | undefined = `${this.options.baseUrl}/products?page=1`;
    const seen = new Set<string>();
    while (next && !seen.has(next)) {
      seen.add(next);
      const { body } = await this.request('GET', next, { idempotent: true });
      const page = this.validate(envelope(z.array(ProductSchema)), body, 'products');
      for (const p of page.data) yield p;
      next = page.links.next_page;
    }
  }

  private validate<T extends z.ZodType>(schema: T, body: unknown, what: string): z.infer<T> {
    const r = schema.safeParse(body);
    if (!r.success) {
      throw new ServiceResponseError(
        'ERR_SERVICE_RESPONSE',
        200,
        [],
        `The ${what} answer does not have the expected shape: ${r.error.issues
          .slice(0, 3)
          .map((i) => `${formatPath(i.path)}: ${i.message}`)
          .join('; ')}`,
      );
    }
    return r.data;
  }

  private async request(method: string, pathOrUrl: string, { body, idempotent }: { body?: unknown; idempotent: boolean }): Promise<{ status: number; body: unknown }> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.options.baseUrl.replace(/\/$/, '')}${pathOrUrl}`;
    const path = new URL(url).pathname;
    for (let attempt = 0; ; attempt++) {
      await this.limiter.acquire();
      let response: Response;
      try {
        response = await this.doFetch(url, {
          method,
          headers: {
            Authorization: `Bearer ${this.options.accessToken}`,
            'X-Application-Key': this.options.applicationKey,
            Accept: 'application/json',
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs / 1000} s` : `${(error as Error).message}`;
        if (idempotent && attempt < this.options.maxRetries) {
          await this.backoff(method, path, attempt, reason, null);
          continue;
        }
        throw new ServiceUnreachableError(
          'ERR_SERVICE_UNREACHABLE',
          null,
          [],
          `${method} ${path}: ${reason}${idempotent ? '' : ' (not retried: the order may or may not have been created; set an order number to make retries safe)'}`,
        );
      }
      const remaining = response.headers.get('x-ratelimit-remaining');
      this.limiter.observe(remaining === null ? null : Number(remaining));
      const deprecation = response.headers.get('x-service-deprecation');
      if (deprecation) this.emit('deprecation', { method, path, migration: deprecation });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: kept as text
      }
      if (response.ok) return { status: response.status, body: parsed };
      const messages = ErrorBodySchema.safeParse(parsed).data?.errors.messages ?? [];
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      const error = errorForStatus(response.status, messages, `${method} ${path}`, retryAfter);
      const retryable = response.status === 429 || (idempotent && response.status >= 500);
      if (retryable && attempt < this.options.maxRetries) {
        await this.backoff(method, path, attempt, `${response.status}`, retryAfter);
        continue;
      }
      throw error;
    }
  }

  private async backoff(method: string, path: string, attempt: number, reason: string, retryAfter: number | null) {
    const base = this.options.backoffMs * 2 ** attempt;
    const delayMs = Math.min(60_000, retryAfter ?? base + Math.floor(Math.random() * base * 0.25));
    this.emit('retry', { method, path, attempt: attempt + 1, delayMs, reason });
    await new Promise((r) => setTimeout(r, delayMs));
  }
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export { OrderServiceError };
