/**
 * A local fake of the order service on 127.0.0.1, for tests and for trying an integration: the
 * spec's envelope and error body, both auth headers checked, the request limit with its
 * X-RateLimit headers, paginated products, order creation validated like the real 400, fulfilment
 * records, and signed webhook deliveries that disable a subscription after 10 failed attempts.
 * The endpoints named only in release notes answer under /v1 with shapes of our own choosing
 * (the spec does not show theirs): pricing tiers per SKU, orders filtered by status, products
 * filtered by category.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OrderSchema } from '../order/schema.js';
import { formatPath } from '../profile/load.js';
import { signWebhook } from './webhooks.js';

export interface FakeServiceOptions {
  accessToken?: string;
  applicationKey?: string;
  signingSecret?: string;
  /** Requests per window per application (the service: 30 a minute). */
  rateLimit?: number;
  windowMs?: number;
  perPage?: number;
  products?: { id: number; name: string; description: string; category?: string }[];
  /** When set, every response carries X-Service-Deprecation with this migration path. */
  deprecation?: string;
  /** Answer the next N requests with 500 (to test retries). */
  failNext?: number;
}

export interface FakeOrderService {
  baseUrl: string;
  /** Orders received, in order. */
  orders: { id: number; body: Record<string, unknown> }[];
  /** Requests seen, in order (method and path), including refused ones. */
  requests: { method: string; path: string; status: number }[];
  /** Subscribes a URL to webhooks. */
  subscribe(url: string): void;
  /** Delivery attempts and whether the subscription is still active. */
  subscription(url: string): { attempts: number; failures: number; active: boolean } | undefined;
  /** Moves an order into production (fulfilment records appear) and sends order.updated. */
  advance(orderId: number): Promise<void>;
  /** Sets an order's status (as GET /v1/orders?status= filters it), e.g. `on hold`. */
  setStatus(orderId: number, status: string): void;
  setFailNext(n: number): void;
  close(): Promise<void>;
}

const now = () => new Date().toISOString().replace('Z', '000Z');

export async function startFakeOrderService(options: FakeServiceOptions = {}): Promise<FakeOrderService> {
  const token = options.accessToken ?? 'test-token';
  const appKey = options.applicationKey ?? 'test-app';
  const secret = options.signingSecret ?? 'test-secret';
  const limit = options.rateLimit ?? 30;
  const windowMs = options.windowMs ?? 60_000;
  const perPage = options.perPage ?? 10;
  const products =
    options.products ?? Array.from({ length: 23 }, (_, i) => ({ id: i + 1, name: `Product ${i + 1}`, description: `Description ${i + 1}`, category: i % 3 === 0 ? 'home-textiles' : 'apparel' }));
  let failNext = options.failNext ?? 0;
  const hits: number[] = [];
  const orders: FakeOrderService['orders'] = [];
  const requests: FakeOrderService['requests'] = [];
  const fulfilments = new Map<number, unknown[]>();
  const statuses = new Map<number, string>();
  const subscriptions = new Map<string, { attempts: number; failures: number; consecutive: number; active: boolean; queue: Promise<void> }>();
  let base = '';

  const send = (res: http.ServerResponse, req: http.IncomingMessage, status: number, body: unknown, headers: Record<string, string> = {}) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', status });
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, req: http.IncomingMessage, status: number, messages: string[], headers: Record<string, string> = {}) =>
    send(res, req, status, { links: { self: `${base}${req.url}` }, meta: [], errors: { messages } }, headers);
  const envelope = (req: http.IncomingMessage, data: unknown, meta: Record<string, number>, links: Record<string, string | null> = {}) => ({
    links: { self: `${base}${req.url}`, first_page: `${base}${req.url}`, last_page: `${base}${req.url}`, next_page: null, prev_page: null, ...links },
    meta,
    data,
  });

  // Each subscription gets its events in order, one delivery at a time.
  const deliver = async (topic: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    await Promise.all([...subscriptions].map(([url, sub]) => (sub.queue = sub.queue.then(() => deliverOne(url, sub, topic, body)))));
  };
  const deliverOne = async (url: string, sub: { attempts: number; failures: number; consecutive: number; active: boolean }, topic: string, body: string) => {
    if (!sub.active) return;
    sub.attempts++;
    let ok = false;
    try {
      const r = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhook(body, secret), 'x-webhook-topic': topic },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      ok = (r.status >= 200 && r.status < 300) || r.status === 301 || r.status === 302;
    } catch {
      ok = false;
    }
    if (ok) sub.consecutive = 0;
    else {
      sub.failures++;
      sub.consecutive++;
      if (sub.consecutive >= 10) sub.active = false;
    }
  };
  const orderPayload = (o: { id: number; body: Record<string, unknown> }, status = 'imported', fulfillment = 'unfulfilled') => ({
    id: o.id,
    number: (o.body.number as string) ?? `FAKE-${o.id}`,
    comments: (o.body.comments as string) ?? null,
    is_archived: false,
    status,
    fulfillment_status: fulfillment,
    purchased_at: now(),
    created_at: now(),
    updated_at: now(),
    production_hub: 'PT',
    rows: ((o.body.rows as Record<string, unknown>[]) ?? []).map((r, i) => ({
      id: o.id * 100 + i,
      quantity: r.quantity,
      client_barcode: (r.client_barcode as string) ?? null,
      fulfillment_status: fulfillment,
      variant: { id: 1000 + i, name: String(r.sku ?? r.variant_id), subtitle: null, SKU: String(r.sku ?? ''), product: { id: 1, name: 'Product', subtitle: null } },
      sources: ((r.sources as { type: string; url: string }[]) ?? []).map((s) => ({ ...s, properties: { fill_style: 'stretch' } })),
    })),
  });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const headers: Record<string, string> = {};
    if (options.deprecation) headers['X-Service-Deprecation'] = options.deprecation;
    const key = req.headers['x-application-key'];
    if (!key) return error(res, req, 401, ['The application key is not specified.'], headers);
    if (key !== appKey || req.headers.authorization !== `Bearer ${token}`) return error(res, req, 401, ['Unauthenticated.'], headers);
    const t = Date.now();
    while (hits.length && hits[0]! <= t - windowMs) hits.shift();
    if (hits.length >= limit) {
      return error(res, req, 429, ['Too Many Attempts.'], {
        ...headers,
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': '0',
        'Retry-After': String(Math.ceil((hits[0]! + windowMs - t) / 1000)),
      });
    }
    hits.push(t);
    Object.assign(headers, { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(limit - hits.length) });
    if (failNext > 0) {
      failNext--;
      return error(res, req, 500, ['Server Error'], headers);
    }
    if (req.method === 'GET' && url.pathname.startsWith('/v1/')) return v1(req, res, url, headers);
    const path = url.pathname.replace(/^\/v2\/integration/, '');
    if (req.method === 'GET' && path === '/ping') return send(res, req, 200, envelope(req, { pong: true }, {}), headers);
    if (req.method === 'GET' && path === '/products') {
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const last = Math.max(1, Math.ceil(products.length / perPage));
      const at = (p: number) => `${base}/v2/integration/products?page=${p}`;
      return send(
        res,
        req,
        200,
        envelope(
          req,
          products.slice((page - 1) * perPage, page * perPage),
          { total: products.length, current_page: page, per_page: perPage },
          {
            first_page: at(1),
            last_page: at(last),
            next_page: page < last ? at(page + 1) : null,
            prev_page: page > 1 ? at(page - 1) : null,
          },
        ),
        headers,
      );
    }
    const f = /^\/orders\/(\d+)\/fulfillments$/.exec(path);
    if (req.method === 'GET' && f) {
      const id = Number(f[1]);
      if (!orders.some((o) => o.id === id)) return error(res, req, 404, [`Order ${id} not found.`], headers);
      const data = fulfilments.get(id) ?? [];
      return send(res, req, 200, envelope(req, data, { total: data.length, current_page: 1, per_page: perPage }), headers);
    }
    if (req.method === 'POST' && path === '/orders') {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return error(res, req, 400, ['The body is not valid JSON.'], headers);
        }
        const parsed = OrderSchema.safeParse(body);
        if (!parsed.success)
          return error(
            res,
            req,
            400,
            parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`),
            headers,
          );
        const number = parsed.data.number;
        if (number && orders.some((o) => o.body.number === number)) return error(res, req, 400, [`number: the order number ${number} has already been taken.`], headers);
        const order = { id: orders.length + 1, body: parsed.data as Record<string, unknown> };
        orders.push(order);
        const payload = orderPayload(order);
        send(res, req, 201, envelope(req, payload, {}), headers);
        void deliver('order.created', payload);
      });
      return;
    }
    return error(res, req, 404, [`No route for ${req.method} ${path}.`], headers);
  });
  /** The release-notes endpoints: GET /v1/products/:id/pricing, /v1/orders?status=, /v1/products?category=. */
  function v1(req: http.IncomingMessage, res: http.ServerResponse, url: URL, headers: Record<string, string>) {
    const path = url.pathname.slice('/v1'.length);
    const pricing = /^\/products\/(\d+)\/pricing$/.exec(path);
    if (pricing) {
      const product = products.find((p) => p.id === Number(pricing[1]));
      if (!product) return error(res, req, 404, [`Product ${pricing[1]} not found.`], headers);
      const tiers = (base: number) => [
        { min_quantity: 1, unit_price: base },
        { min_quantity: 10, unit_price: Math.round(base * 88) / 100 },
        { min_quantity: 50, unit_price: Math.round(base * 75) / 100 },
      ];
      const data = ['S', 'M', 'L'].map((size, i) => ({ sku: `P${product.id}-${size}`, currency: 'EUR', tiers: tiers(20 + product.id + i) }));
      return send(res, req, 200, envelope(req, data, {}), headers);
    }
    if (path === '/orders') {
      const status = url.searchParams.get('status');
      const data = orders.map((o) => orderPayload(o, statuses.get(o.id) ?? 'imported')).filter((o) => status === null || o.status === status.toLowerCase());
      return send(res, req, 200, envelope(req, data, { total: data.length, current_page: 1, per_page: data.length }), headers);
    }
    if (path === '/products') {
      const category = url.searchParams.get('category');
      const data = products.filter((p) => category === null || p.category === category);
      return send(res, req, 200, envelope(req, data, { total: data.length, current_page: 1, per_page: data.length }), headers);
    }
    return error(res, req, 404, [`No route for ${req.method} ${url.pathname}.`], headers);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${base}/v2/integration`,
    orders,
    requests,
    subscribe: (url) => void subscriptions.set(url, { attempts: 0, failures: 0, consecutive: 0, active: true, queue: Promise.resolve() }),
    subscription: (url) => {
      const s = subscriptions.get(url);
      return s ? { attempts: s.attempts, failures: s.failures, active: s.active } : undefined;
    },
    async advance(orderId) {
      const order = orders.find((o) => o.id === orderId);
      if (!order) throw new Error(`no order ${orderId}`);
      const rows = (order.body.rows as { sku?: string; quantity: number }[]) ?? [];
      fulfilments.set(
        orderId,
        rows.flatMap((r, i) =>
          Array.from({ length: r.quantity }, (_, copy) => ({
            id: orderId * 1000 + i * 10 + copy,
            barcode: `BC${orderId}${i}${copy}`,
            status: 'unfulfilled',
            created_at: now(),
            updated_at: now(),
            variant: { id: 1000 + i, name: r.sku ?? 'variant', subtitle: 'M', SKU: r.sku ?? '' },
            product: { id: 1, name: 'Product', subtitle: '' },
            production_steps: [
              { id: 1, name: 'Printing', description: 'Sublimation print', status: { value: 'in progress', notes: null, updated_at: now() } },
              { id: 2, name: 'Sewing', description: 'Panels sewn', status: { value: 'pending', notes: null, updated_at: null } },
            ],
          })),
        ),
      );
      await deliver('order.updated', orderPayload(order, 'imported', 'scheduled'));
    },
    setFailNext: (n) => void (failNext = n),
    setStatus: (orderId, status) => void statuses.set(orderId, status.toLowerCase()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
