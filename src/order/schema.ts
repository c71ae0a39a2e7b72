/**
 * The order creation request body of the order service ("Order creation request body" in the
 * spec), as zod schemas, field by field. Snake_case as the service expects; `sources[].type`
 * defaults to "file".
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { ISO_3166_1_ALPHA_2 } from './countries.js';

/** "YYYY-MM-DD HH:MM:SS" that names a real moment (no 2026-02-30, no 25:00). */
export const DateTimeSchema = z.string().refine(isRealDateTime, { message: 'must be a real date and time written YYYY-MM-DD HH:MM:SS' });

export function isRealDateTime(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || se > 59 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/** Code 128 encodes ASCII (0–127) through its code sets A, B and C. */
export function isCode128(s: string): boolean {
  return s.length >= 1 && s.length <= 80 && [...s].every((c) => c.charCodeAt(0) <= 127);
}

const text = z.string().trim().min(1, 'must not be empty');
function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}
const httpUrl = z.string().refine(isHttpUrl, { message: 'must be an http or https URL' });

/**
 * A print file of a row: an http(s) URL the service downloads, with its print properties.
 * @example
 * import { SourceSchema } from 'print-preflight/order-service';
 * SourceSchema.parse({ url: 'https://cdn.example.com/designs/2001.pdf' });
 */
export const SourceSchema = z
  .object({
    type: z.literal('file', { message: 'must be "file" in requests' }).default('file'),
    url: httpUrl.describe('Direct link to the source PDF, downloadable without authentication for the whole production process'),
  })
  .strict();

/**
 * A row of an order: a SKU, a quantity and its sources (one per layer of the product).
 * @example
 * import { RowSchema } from 'print-preflight/order-service';
 * RowSchema.parse({ sku: 'T-SHIRT-M', quantity: 1, sources: [{ url: 'https://cdn.example.com/designs/2001.pdf' }] });
 */
export const RowSchema = z
  .object({
    sku: text.optional().describe('SKU of the product variant'),
    variant_id: z.number().int().positive().optional().describe('Variant id, as the spec’s sample row uses instead of sku'),
    quantity: z.number({ message: 'must be a number' }).int('must be a whole number').positive('must be at least 1').max(1_000_000, 'must be at most 1,000,000'),
    client_barcode: z.string().refine(isCode128, { message: 'must be Code 128 data: 1 to 80 ASCII characters' }).optional().describe('Unique client-side identifier per order line'),
    cart_item_key: text.optional().describe('The studio cart item key; required when sources is absent'),
    sources: z.array(SourceSchema).min(1, 'must hold at least one source').optional().describe('Required when cart_item_key is absent'),
  })
  .strict()
  .superRefine((row, ctx) => {
    if (row.sku === undefined && row.variant_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sku'], message: 'is required (or variant_id)' });
    }
    if (row.cart_item_key === undefined && row.sources === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sources'], message: 'is required when cart_item_key is absent' });
      ctx.addIssue({ code: 'custom', path: ['cart_item_key'], message: 'is required when sources is absent' });
    }
  });

/**
 * The customer of an order: name, e-mail and phone.
 * @example
 * import { CustomerSchema } from 'print-preflight/order-service';
 * CustomerSchema.parse({ first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', phone: '+351 912 345 678' });
 */
export const CustomerSchema = z
  .object({
    first_name: text,
    last_name: text,
    email: z.string().email('must be an email address'),
    phone: text,
  })
  .strict();

/**
 * Where an order ships: address, city, country (ISO 3166-1 alpha-2 code and name), postal code.
 * @example
 * import { ShippingAddressSchema } from 'print-preflight/order-service';
 * const checked = ShippingAddressSchema.safeParse({ address: 'Rua Augusta 100', city: 'Lisboa', country_code: 'PT', country: 'Portugal', postal_code: '1100-053', first_name: 'Ana', last_name: 'Silva' });
 */
export const ShippingAddressSchema = z
  .object({
    address: text,
    address2: z.string().optional(),
    address3: z.string().optional(),
    city: text,
    country_code: z.string().refine((c) => ISO_3166_1_ALPHA_2.has(c), { message: 'must be an ISO 3166-1 alpha-2 country code in capitals, e.g. "PT" (alpha-3 is no longer accepted)' }),
    country: text,
    postal_code: text,
    state: z.string().optional(),
    first_name: text,
    last_name: text,
    phone: z.string().optional(),
    company: z.string().optional(),
  })
  .strict();

/**
 * A shipping label the shop provides (carrier, tracking, label URL) instead of the service's.
 * @example
 * import { ShippingLabelSchema } from 'print-preflight/order-service';
 * declare const json: unknown;
 * const label = ShippingLabelSchema.safeParse(json);
 */
export const ShippingLabelSchema = z
  .object({
    method_name: text.optional().describe('Carrier service name'),
    tracking_number: text.optional(),
    tracking_url: httpUrl.optional(),
    label_pdf_url: httpUrl.optional(),
    date_created: DateTimeSchema.optional(),
  })
  .strict()
  .refine((l) => Object.keys(l).length > 0, { message: 'must not be empty: leave shipping_label out instead' });

/**
 * The order creation body (POST /orders), by the service's field rules: `z.input` is the draft a
 * shop writes, `z.output` the payload sent. Published as schemas/order.schema.json.
 * @example
 * import { OrderSchema } from 'print-preflight/order-service';
 * declare const json: unknown;
 * const checked = OrderSchema.safeParse(json);
 * if (!checked.success) for (const i of checked.error.issues) console.error(i.path.join('.'), i.message);
 */
export const OrderSchema = z
  .object({
    number: text.optional().describe('When omitted, the service generates a unique number'),
    comments: z.string().optional(),
    purchased_at: DateTimeSchema.describe('Date and time of purchase, YYYY-MM-DD HH:MM:SS'),
    client_ip: z
      .string()
      .refine((ip) => isIP(ip) !== 0, { message: 'must be an IPv4 or IPv6 address' })
      .optional(),
    client_user_agent: z.string().optional(),
    rows: z.array(RowSchema).min(1, 'must hold at least one row'),
    customer: CustomerSchema,
    shipping_address: ShippingAddressSchema,
    shipping_label: ShippingLabelSchema.optional(),
  })
  .strict()
  .superRefine((order, ctx) => {
    const seen = new Map<string, number>();
    order.rows.forEach((row, i) => {
      if (row.client_barcode === undefined) return;
      const first = seen.get(row.client_barcode);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['rows', i, 'client_barcode'], message: `must be unique within the order (rows[${first}] has it too)` });
      } else seen.set(row.client_barcode, i);
    });
  });

/** An order as the integrator writes it (sources[].type may be left out). */
export type OrderDraft = z.input<typeof OrderSchema>;
/** The order creation body, exactly as the service expects it. */
export type OrderPayload = z.output<typeof OrderSchema>;
export type OrderRow = z.output<typeof RowSchema>;
