/**
 * The order service's responses and webhook payloads as zod schemas ("Resources and their fields"
 * in the spec). Objects are loose: the service adds fields in minor releases (production_hub…),
 * and a client must not break on them.
 */
import { z } from 'zod';

const url = z.string();
/**
 * The `links` of a list answer: where this page, the first, the last and the next are.
 * @example
 * import { LinksSchema } from 'print-preflight/order-service';
 * LinksSchema.parse(answer.links).next; // the next page's URL, or null
 * declare const answer: { links: unknown };
 */
export const LinksSchema = z.looseObject({
  self: url,
  first_page: url.optional(),
  last_page: url.optional(),
  next_page: url.nullable().optional(),
  prev_page: url.nullable().optional(),
});

/**
 * The `meta` of a list answer: the page's number, size and the total.
 * @example
 * import { MetaSchema } from 'print-preflight/order-service';
 * declare const answer: { meta: unknown };
 * const meta = MetaSchema.parse(answer.meta);
 */
export const MetaSchema = z.looseObject({
  total: z.number().int().optional(),
  current_page: z.number().int().optional(),
  per_page: z.number().int().optional(),
});

/** The envelope of every response: `links`, `meta`, `data`. */
export const envelope = <T extends z.ZodType>(data: T) => z.looseObject({ links: LinksSchema, meta: z.union([MetaSchema, z.array(z.unknown())]), data });

/**
 * A product of the catalogue (`GET /products`).
 * @example
 * import { ProductSchema, OrderServiceClient } from 'print-preflight/order-service';
 * declare const client: OrderServiceClient;
 * for await (const product of client.products()) console.log(ProductSchema.parse(product).name);
 */
export const ProductSchema = z.looseObject({ id: z.number().int(), name: z.string(), description: z.string().nullable().optional() });

export const ProductionStepSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable().optional(),
  status: z.looseObject({
    value: z.string().describe('pending, in progress, rejected or done'),
    notes: z.string().nullable(),
    updated_at: z.string().nullable(),
  }),
});

/**
 * A fulfilment of an order (`GET /orders/{id}/fulfillments`): its barcode and production steps.
 * @example
 * import { FulfillmentSchema } from 'print-preflight/order-service';
 * declare const json: unknown;
 * const f = FulfillmentSchema.parse(json);
 * console.log(f.barcode, f.production_steps.map((s) => s.name));
 */
export const FulfillmentSchema = z.looseObject({
  id: z.number().int(),
  barcode: z.string(),
  status: z.string().describe('unfulfilled or fulfilled'),
  created_at: z.string(),
  updated_at: z.string(),
  variant: z.looseObject({ id: z.number().int(), name: z.string(), subtitle: z.string().nullable().optional(), SKU: z.string() }),
  product: z.looseObject({ id: z.number().int(), name: z.string(), subtitle: z.string().nullable().optional() }),
  production_steps: z.array(ProductionStepSchema),
});

export const ErrorBodySchema = z.looseObject({
  links: z.looseObject({ self: z.string() }).optional(),
  meta: z.unknown().optional(),
  errors: z.looseObject({ messages: z.array(z.string()) }),
});

export const WebhookRowSchema = z.looseObject({
  id: z.number().int(),
  quantity: z.number().int(),
  client_barcode: z.string().nullable().optional(),
  fulfillment_status: z.string(),
  variant: z.looseObject({
    id: z.number().int(),
    name: z.string(),
    subtitle: z.string().nullable().optional(),
    SKU: z.string(),
    product: z.looseObject({ id: z.number().int(), name: z.string(), subtitle: z.string().nullable().optional() }),
  }),
  sources: z.array(z.looseObject({ type: z.string(), url: z.string(), properties: z.looseObject({ fill_style: z.unknown().optional() }).optional() })).optional(),
});

/**
 * The order in `order.created` and `order.updated` deliveries.
 * @example
 * import { WebhookOrderSchema } from 'print-preflight/order-service';
 * declare const delivery: { order: unknown };
 * console.log(WebhookOrderSchema.parse(delivery.order).fulfillment_status);
 */
export const WebhookOrderSchema = z.looseObject({
  id: z.number().int(),
  number: z.string(),
  comments: z.string().nullable(),
  is_archived: z.boolean(),
  status: z.string(),
  fulfillment_status: z.string(),
  purchased_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  rows: z.array(WebhookRowSchema),
  production_hub: z.enum(['PT', 'ES']).optional(),
});

/**
 * `order.failed`: its structure is not published; only what is certain is required.
 * @example
 * import { WebhookFailedSchema } from 'print-preflight/order-service';
 * declare const delivery: unknown;
 * const failed = WebhookFailedSchema.safeParse(delivery);
 */
export const WebhookFailedSchema = z.looseObject({
  id: z.number().int().optional(),
  number: z.string().optional(),
  reasons: z.array(z.unknown()).optional(),
});

export type Product = z.infer<typeof ProductSchema>;
export type Fulfillment = z.infer<typeof FulfillmentSchema>;
export type WebhookOrder = z.infer<typeof WebhookOrderSchema>;

/** Any JSON value: the honest type of an answer whose shape the spec does not publish. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]));

/**
 * The order in the answer to POST /orders. Its shape is not published: only an id is required (to follow it).
 * @example
 * import { CreatedOrderSchema } from 'print-preflight/order-service';
 * declare const answer: { data: unknown };
 * const { id } = CreatedOrderSchema.parse(answer.data);
 */
export const CreatedOrderSchema = z.looseObject({
  id: z.union([z.number().int(), z.string().min(1)]),
  number: z.string().optional(),
  status: z.string().optional(),
});

/**
 * The answer to POST /orders: the envelope, its `data` the order.
 * @example
 * import { OrderCreatedSchema } from 'print-preflight/order-service';
 * declare const json: unknown;
 * console.log(OrderCreatedSchema.parse(json).data.id);
 */
export const OrderCreatedSchema = z.looseObject({ links: LinksSchema.optional(), meta: z.unknown().optional(), data: CreatedOrderSchema });

/**
 * The envelope of the endpoints named only in release notes (/v1/…): their shapes are not
 * published, so everything is optional except `data`, and records are loose JSON objects.
 * @example
 * import { LooseEnvelopeSchema, LooseRecordSchema } from 'print-preflight/order-service';
 * import { z } from 'zod';
 * declare const json: unknown;
 * const orders = LooseEnvelopeSchema(z.array(LooseRecordSchema)).parse(json).data;
 */
export const LooseEnvelopeSchema = <T extends z.ZodType>(data: T) =>
  z.looseObject({ links: z.looseObject({ next_page: z.string().nullable().optional() }).optional(), meta: JsonValueSchema.optional(), data });
/**
 * A JSON object of unpublished shape: any keys, JSON values.
 * @example
 * import { LooseRecordSchema } from 'print-preflight/order-service';
 * LooseRecordSchema.parse({ id: 1, status: 'scheduled' });
 */
export const LooseRecordSchema = z.record(z.string(), JsonValueSchema);

export type CreatedOrder = z.infer<typeof CreatedOrderSchema>;
export type OrderCreated = z.infer<typeof OrderCreatedSchema>;
export type LooseRecord = z.infer<typeof LooseRecordSchema>;
/** GET /v1/products/:id/pricing: unit prices across volume tiers per SKU (shape not published). */
export type ProductPricing = z.infer<ReturnType<typeof LooseEnvelopeSchema<typeof JsonValueSchema>>>;
/** GET /v1/orders and GET /v1/products?category=…: a page of loose records. */
export type LooseList = z.infer<ReturnType<typeof LooseEnvelopeSchema<z.ZodArray<typeof LooseRecordSchema>>>>;
/** GET /products?page=N: a page of products with its links and meta. */
export type ProductPage = { data: Product[]; links: z.infer<typeof LinksSchema>; meta: z.infer<typeof MetaSchema> | unknown[] };
