// preflight → façade → createOrder → webhooks, end to end against the local fake of the service.
// Run: node node_modules/print-preflight/docs/example-order-flow.mjs in a project that installed
// print-preflight, or node docs/example-order-flow.mjs in a checkout (after npm ci). Swap the fake
// for your real base URL and credentials, and the loopback file server for your CDN, and nothing
// else changes.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { closeDefaultPool } from 'print-preflight';
import { OrderServiceClient, buildOrderPayload, webhookHandler } from 'print-preflight/order-service';
import { startFakeOrderService } from 'print-preflight/testing';

const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`)));

// 1. The print file, hosted where the service will download it (a t-shirt M design made by
// reportlab, shipped beside this example).
const pdf = await readFile(new URL('./samples/t-shirt-M.pdf', import.meta.url));
const files = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(pdf));
const fileBase = await listen(files);

// 2. The order service, and our webhook receiver subscribed to it.
const service = await startFakeOrderService({ accessToken: 'token', applicationKey: 'app', signingSecret: 'whsec' });
const events = [];
const hooks = http.createServer(webhookHandler({ secret: 'whsec', onEvent: (e) => events.push(e) }));
service.subscribe(`${await listen(hooks)}/hooks`);

// 3. The façade: every source downloaded and preflighted for its row's product, or no payload.
const draft = {
  number: 'SHOP-2001',
  purchased_at: '2026-11-22 10:15:00',
  rows: [{ sku: 'T-SHIRT-M', quantity: 1, sources: [{ url: `${fileBase}/designs/2001.pdf` }] }],
  customer: { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', phone: '+351 912 345 678' },
  shipping_address: { address: 'Rua Augusta 100', city: 'Lisboa', country_code: 'PT', country: 'Portugal', postal_code: '1100-053', first_name: 'Ana', last_name: 'Silva' },
};
const { payload, reports } = await buildOrderPayload(draft, { network: { allowHosts: ['127.0.0.1'] } });
console.log(`preflight: ${reports.map((r) => `${r.file.path} ${r.verdict}`).join(', ')}`);

// 4. Send it, follow it.
const client = new OrderServiceClient({ baseUrl: service.baseUrl, accessToken: 'token', applicationKey: 'app' });
const created = await client.createOrder(payload);
console.log(`order ${created.data.id} created (${created.data.number})`);
await service.advance(created.data.id);
const fulfilments = await client.listFulfillments(created.data.id);
console.log(`fulfilment: ${fulfilments.map((f) => `${f.barcode} ${f.production_steps.map((s) => `${s.name}=${s.status.value}`).join('/')}`).join(', ')}`);
await new Promise((r) => setTimeout(r, 200));
console.log(`webhooks: ${events.map((e) => `${e.topic} ${e.order.fulfillment_status}`).join(', ')}`);

await service.close();
files.close();
hooks.close();
await closeDefaultPool();
