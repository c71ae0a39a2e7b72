/**
 * The order service, from our side (`import … from 'print-preflight/order-service'`): its client
 * (typed answers, retries, rate limits, deprecation notices), the webhooks it sends (signature,
 * parsing, a ready handler), the embedded design studio, and order bodies whose every source was
 * downloaded and preflighted for its row's product before the order is sent.
 * @example
 * import { OrderServiceClient, buildOrderPayload } from 'print-preflight/order-service';
 * const client = new OrderServiceClient({ baseUrl: 'https://orders.example.com', accessToken: 'token', applicationKey: 'app' });
 * declare const draft: import('print-preflight/order-service').OrderDraft;
 * const { payload } = await buildOrderPayload(draft);
 * const created = await client.createOrder(payload);
 * console.log(created.data.id);
 * @packageDocumentation
 */
export { OrderServiceClient, ClientOptionsSchema, type ClientOptions, type ClientEvents, type DeprecationWarning } from './client/client.js';
export {
  OrderServiceError,
  ServiceValidationError,
  ServiceAuthenticationError,
  ServicePermissionError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceServerError,
  ServiceUnreachableError,
  ServiceResponseError,
} from './client/errors.js';
export { verifyWebhook, webhookSignatureProblem, signWebhook, parseWebhook, webhookHandler, type WebhookEvent, type WebhookSignatureProblem, type WebhookHandlerOptions } from './client/webhooks.js';
export { studioUrl, studioPreviewUrl, listenToStudio, type MessageTarget } from './client/studio.js';
export { RateLimiter } from './client/rate-limit.js';
export {
  FulfillmentSchema,
  ProductSchema,
  WebhookOrderSchema,
  WebhookFailedSchema,
  OrderCreatedSchema,
  CreatedOrderSchema,
  LinksSchema,
  MetaSchema,
  LooseEnvelopeSchema,
  LooseRecordSchema,
  type Fulfillment,
  type Product,
  type ProductPage,
  type WebhookOrder,
  type OrderCreated,
  type CreatedOrder,
  type ProductPricing,
  type LooseList,
  type LooseRecord,
  type JsonValue,
} from './client/schemas.js';
export { buildOrderPayload, validateDraft, OrderPayloadError, type OrderIssue, type BuildOptions, type GivenPreflight } from './flow/order.js';
export { OrderSchema, RowSchema, SourceSchema, CustomerSchema, ShippingAddressSchema, ShippingLabelSchema, type OrderDraft, type OrderPayload, type OrderRow } from './order/schema.js';
