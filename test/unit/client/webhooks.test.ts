import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OrderServiceClient } from '../../../src/client/client.js';
import { startFakeOrderService, type FakeOrderService } from '../../../src/client/fake-service.js';
import type { WebhookOrder } from '../../../src/client/schemas.js';
import { signWebhook, verifyWebhook, webhookHandler, webhookSignatureProblem, type WebhookEvent } from '../../../src/client/webhooks.js';
import { OrderSchema } from '../../../src/order/schema.js';
import { validDraft } from '../../helpers/order.js';

describe('webhook signatures (vectors computed with Python’s hmac)', () => {
  it.each([
    ['{"id":1,"number":"A-1"}', 'test-secret', 'IqxV5ziN2NvTV5RdAc/iRLZN7p+vFqGNriYne36CKhs='],
    ['', 'k', 'i7mQxAp9YcuXWXqUISUCW+UKyL63RDbjc1uYiTp/ZiA='],
    ['{"name":"François Å"}', 's3cr3t-ü', 'HfX50gO/891NnglWatD5wui6Kw4KA9JM8XLxaATwqpg='],
  ])('%j with %j', (body, secret, signature) => {
    expect(signWebhook(Buffer.from(body, 'utf8'), secret)).toBe(signature);
    expect(verifyWebhook(Buffer.from(body, 'utf8'), signature, secret)).toBe(true);
    expect(webhookSignatureProblem(Buffer.from(body, 'utf8'), signature, secret)).toBeNull();
  });

  it.each([
    [undefined, 'missing-signature'],
    ['', 'missing-signature'],
    ['not base64!', 'malformed-signature'],
    ['c2hvcnQ=', 'malformed-signature'],
    ['i7mQxAp9YcuXWXqUISUCW+UKyL63RDbjc1uYiTp/ZiA=', 'mismatch'],
  ])('refuses %j: %s', (header, reason) => {
    expect(verifyWebhook('{"id":1,"number":"A-1"}', header, 'test-secret')).toBe(false);
    expect(webhookSignatureProblem('{"id":1,"number":"A-1"}', header, 'test-secret')).toBe(reason);
  });

  it('refuses a tampered body and a wrong secret', () => {
    const sig = signWebhook('{"id":1}', 'a');
    expect([verifyWebhook('{"id":2}', sig, 'a'), verifyWebhook('{"id":1}', sig, 'b'), verifyWebhook('{"id":1}', sig, ''), verifyWebhook('{"id":1}', sig, 'a')]).toEqual([false, false, false, true]);
    expect(webhookSignatureProblem('{"id":2}', sig, 'a')).toBe('mismatch');
    expect(webhookSignatureProblem('{"id":1}', sig, 'b')).toBe('mismatch');
    expect(webhookSignatureProblem('{"id":1}', sig, '')).toBe('missing-secret');
    // The natural check cannot be misread: a forged signature is falsy.
    const forged = signWebhook('{"id":1}', 'attacker');
    expect(!verifyWebhook('{"id":1}', forged, 'a')).toBe(true);
  });
});

describe('webhook handler and delivery', () => {
  let fake: FakeOrderService;
  const servers: http.Server[] = [];
  afterEach(async () => {
    await fake?.close();
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });
  const listen = async (handler: http.RequestListener) => {
    const s = http.createServer(handler);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hooks`;
  };

  it('answers 200 at once, hands order.created and order.updated on asynchronously, refuses bad signatures with 403', async () => {
    const applicationKey = `hook-app-${Date.now()}`;
    fake = await startFakeOrderService({ applicationKey, signingSecret: 'whsec' });
    const events: WebhookEvent[] = [];
    // A slow application: it finishes only when the test lets it, so "answered before handled" is
    // decided by order of events, not by a clock on a loaded machine.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const url = await listen(
      webhookHandler({
        secret: 'whsec',
        onEvent: async (e) => {
          await gate;
          events.push(e);
        },
      }),
    );
    fake.subscribe(url);
    const client = new OrderServiceClient({ baseUrl: fake.baseUrl, accessToken: 'test-token', applicationKey });
    await client.createOrder(OrderSchema.parse(validDraft()));
    await fake.advance(1); // resolves once both deliveries were answered
    expect(fake.subscription(url)).toEqual({ attempts: 2, failures: 0, active: true });
    expect(events).toEqual([]); // answered 200 while the application had handled nothing
    release();
    const until = Date.now() + 10_000;
    while (events.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(events.map((e) => e.topic)).toEqual(['order.created', 'order.updated']);
    const updated = events[1] as { order: WebhookOrder };
    expect(updated.order.fulfillment_status).toBe('scheduled');
    expect(updated.order.production_hub).toBe('PT');
    expect(fake.subscription(url)).toEqual({ attempts: 2, failures: 0, active: true });
    const forged = await fetch(url, { method: 'POST', headers: { 'x-webhook-signature': signWebhook('{}', 'other'), 'x-webhook-topic': 'order.updated' }, body: '{}' });
    expect(forged.status).toBe(403);
  });

  it('the fake disables a subscription after 10 failed deliveries', async () => {
    const applicationKey = `hook-fail-${Date.now()}`;
    fake = await startFakeOrderService({ applicationKey });
    const url = await listen((_req, res) => res.writeHead(500).end());
    fake.subscribe(url);
    const client = new OrderServiceClient({ baseUrl: fake.baseUrl, accessToken: 'test-token', applicationKey });
    for (let i = 0; i < 11; i++) await client.createOrder(OrderSchema.parse({ ...validDraft(), number: `F-${i}` }));
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.subscription(url)).toEqual({ attempts: 10, failures: 10, active: false });
  });
});
