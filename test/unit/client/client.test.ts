import { afterEach, describe, expect, it } from 'vitest';
import { OrderServiceClient } from '../../../src/client/client.js';
import { ServiceAuthenticationError, ServiceNotFoundError, ServiceServerError, ServiceValidationError } from '../../../src/client/errors.js';
import { startFakeOrderService, type FakeOrderService, type FakeServiceOptions } from '../../../src/client/fake-service.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { OrderSchema } from '../../../src/order/schema.js';
import { validDraft } from '../../helpers/order.js';

let fake: FakeOrderService;
let n = 0;
async function setup(options: FakeServiceOptions = {}, client: Partial<ConstructorParameters<typeof OrderServiceClient>[0]> = {}) {
  // A fresh application key per test: the limiter is shared per key, as the service's limit is.
  const applicationKey = `app-${++n}-${Date.now()}`;
  fake = await startFakeOrderService({ applicationKey, ...options });
  return new OrderServiceClient({ baseUrl: fake.baseUrl, accessToken: 'test-token', applicationKey, backoffMs: 20, ...client });
}
afterEach(() => fake?.close());
const payload = (number?: string) => {
  const d = OrderSchema.parse(validDraft());
  if (number) d.number = number;
  else delete d.number;
  return d;
};

describe('OrderServiceClient', () => {
  it('sends both auth headers and reads the envelope', async () => {
    const client = await setup();
    expect(await client.ping()).toMatchObject({ data: { pong: true } });
    const page = await client.listProducts({ page: 2 });
    expect(page.data.map((p) => p.id)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(page.meta).toMatchObject({ total: 23, current_page: 2, per_page: 10 });
  });

  it('iterates every product across pages by links.next_page', async () => {
    const client = await setup();
    const ids: number[] = [];
    for await (const p of client.products()) ids.push(p.id);
    expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
  });

  it('creates an order and follows its fulfilment, tolerating fields added later', async () => {
    const client = await setup();
    const created = await client.createOrder(payload('SHOP-1'));
    expect(created.data).toMatchObject({ id: 1, production_hub: 'PT' });
    expect(await client.listFulfillments(created.data.id)).toEqual([]);
    await fake.advance(1);
    const records = await client.listFulfillments(1);
    expect(records).toHaveLength(3); // 2 + 1 copies
    expect(records[0]!.production_steps.map((s) => s.status.value)).toEqual(['in progress', 'pending']);
  });

  it('types errors by status, with the messages of the error body', async () => {
    const wrong = new OrderServiceClient({ baseUrl: (await setup()).options.baseUrl, accessToken: 'nope', applicationKey: 'x', backoffMs: 1 });
    await expect(wrong.ping()).rejects.toBeInstanceOf(ServiceAuthenticationError);
    const otherApp = new OrderServiceClient({ baseUrl: fake.baseUrl, accessToken: 'test-token', applicationKey: 'someone-else', backoffMs: 1 });
    await expect(otherApp.ping()).rejects.toMatchObject({ code: 'ERR_SERVICE_AUTH', status: 401 });
    const ok = await setup();
    await expect(ok.listFulfillments(999)).rejects.toBeInstanceOf(ServiceNotFoundError);
    await ok.createOrder(payload('DUP-1'));
    const dup = await ok.createOrder(payload('DUP-1')).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(ServiceValidationError);
    expect((dup as ServiceValidationError).messages).toEqual(['number: the order number DUP-1 has already been taken.']);
  });

  it('refuses to send a payload that breaks the schema', async () => {
    const client = await setup();
    const bad = { ...payload('X'), rows: [] };
    await expect(client.createOrder(bad)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(fake.requests).toHaveLength(0);
  });

  it('retries idempotent requests on 5xx, and never retries an order without a number', async () => {
    const client = await setup();
    fake.setFailNext(2);
    expect((await client.listProducts()).data).toHaveLength(10);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    fake.setFailNext(1);
    await expect(client.createOrder(payload())).rejects.toBeInstanceOf(ServiceServerError);
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(fake.orders).toHaveLength(0);
    fake.setFailNext(1);
    await client.createOrder(payload('SAFE-1'));
    expect(fake.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([500, 500, 201]);
    expect(fake.orders).toHaveLength(1);
  });

  it('keeps a burst under the limit without a single 429', async () => {
    const client = await setup({ rateLimit: 10, windowMs: 1000 }, { rateLimit: { requests: 10, perMs: 1000 } });
    const started = Date.now();
    const pages = await Promise.all(Array.from({ length: 25 }, () => client.listProducts()));
    expect(pages).toHaveLength(25);
    expect(fake.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000); // 25 requests at 10 a second
  }, 30_000);

  it('waits and retries on 429, honouring Retry-After', async () => {
    const client = await setup({ rateLimit: 5, windowMs: 1000 }, { rateLimit: { requests: 1000, perMs: 1000 } });
    const retries: number[] = [];
    client.on('retry', (r) => retries.push(r.delayMs));
    const pages = await Promise.all(Array.from({ length: 12 }, () => client.listProducts()));
    expect(pages).toHaveLength(12);
    expect(fake.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(retries.every((d) => d >= 1000)).toBe(true); // Retry-After: 1
  }, 30_000);

  it('surfaces X-Service-Deprecation as a warning event with its migration path', async () => {
    const client = await setup({ deprecation: 'https://docs.example.com/migrate/v3-orders' });
    const warnings: string[] = [];
    client.on('deprecation', (w) => warnings.push(`${w.method} ${w.path} → ${w.migration}`));
    await client.ping();
    expect(warnings).toEqual(['GET /v2/integration/ping → https://docs.example.com/migrate/v3-orders']);
  });

  it('validates its options', () => {
    expect(() => new OrderServiceClient({ baseUrl: 'not a url', accessToken: 't', applicationKey: 'k' })).toThrow(/baseUrl/);
    expect(() => new OrderServiceClient({ baseUrl: 'https://x.example', accessToken: '', applicationKey: 'k' })).toThrow(/accessToken/);
  });
});

describe('OrderServiceClient: endpoints named only in release notes (/v1, loosely typed)', () => {
  it('GET /v1/products/:id/pricing', async () => {
    const client = await setup();
    const pricing = await client.getProductPricing(3);
    expect(pricing.data).toEqual(expect.arrayContaining([expect.objectContaining({ sku: 'P3-M', currency: 'EUR' })]));
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/products/3/pricing', status: 200 });
    await expect(client.getProductPricing(999)).rejects.toBeInstanceOf(ServiceNotFoundError);
  });

  it('GET /v1/orders?status=…', async () => {
    const client = await setup();
    await client.createOrder(payload('A-1'));
    await client.createOrder(payload('A-2'));
    fake.setStatus(2, 'On hold');
    expect((await client.listOrders()).data.map((o) => o.number)).toEqual(['A-1', 'A-2']);
    expect((await client.listOrders({ status: 'on hold' })).data.map((o) => o.id)).toEqual([2]);
    expect(fake.requests.at(-1)!.path).toBe('/v1/orders?status=on+hold');
  });

  it('GET /v1/products?category=…, and a v1BaseUrl of your own', async () => {
    const client = await setup();
    const page = await client.listProductsInCategory('home-textiles');
    expect(page.data.map((p) => p.id)).toEqual([1, 4, 7, 10, 13, 16, 19, 22]);
    expect(fake.requests.at(-1)!.path).toBe('/v1/products?category=home-textiles');
    const elsewhere = new OrderServiceClient({
      baseUrl: fake.baseUrl,
      v1BaseUrl: `${new URL(fake.baseUrl).origin}/nowhere/v1`,
      accessToken: 'test-token',
      applicationKey: client.options.applicationKey,
    });
    await expect(elsewhere.listProductsInCategory('apparel')).rejects.toBeInstanceOf(ServiceNotFoundError);
  });

  it('an answer without the expected envelope is a typed error, not a silent unknown', async () => {
    const client = await setup({}, { fetch: (async () => new Response(JSON.stringify({ nope: true }), { status: 200 })) as typeof fetch });
    await expect(client.listOrders()).rejects.toMatchObject({ code: 'ERR_SERVICE_RESPONSE' });
    await expect(client.createOrder(payload('X-1'))).rejects.toThrow(/the order was created; its id is missing/);
  });
});
