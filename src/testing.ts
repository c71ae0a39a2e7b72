/**
 * Test doubles for integrators (`import … from 'print-preflight/testing'`): a fake of the order
 * service that speaks its API on a loopback port, so an integration's tests create orders, receive
 * signed webhooks and see the service's validation answers without its sandbox.
 * @example
 * import { startFakeOrderService } from 'print-preflight/testing';
 * import { OrderServiceClient } from 'print-preflight/order-service';
 * const fake = await startFakeOrderService({ accessToken: 'token', applicationKey: 'app', signingSecret: 'test-secret' });
 * const client = new OrderServiceClient({ baseUrl: fake.baseUrl, accessToken: 'token', applicationKey: 'app' });
 * // … create orders with client, subscribe a webhook URL with fake.subscribe(url) …
 * await fake.close();
 */
export { startFakeOrderService, type FakeOrderService, type FakeServiceOptions } from './client/fake-service.js';
