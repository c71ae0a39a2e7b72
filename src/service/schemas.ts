/**
 * The HTTP API's request and response shapes, as zod schemas: the routes validate with them, the
 * OpenAPI document is generated from them, and the handlers' types are inferred from them.
 */
import { z } from 'zod';
import { CheckIdSchema, CheckOptionsSchema } from '../jobs/schema.js';
import { OrderSchema } from '../order/schema.js';
import { ReportSchema } from '../report/schema.js';

const optionalText = z.string().trim().min(1).max(200).optional();

/**
 * A number written in plain decimal (`12`, `2.5`): path and query parameters arrive as text, and
 * `1e0`, `0x1`, ` 1` or an empty string are not numbers a client meant. Other text is left as it
 * is, so the number schema refuses it.
 */
const decimal = (v: unknown) => (typeof v === 'string' && /^(0|[1-9][0-9]{0,15})(\.[0-9]{1,6})?$/.test(v) ? Number(v) : v);
/** A whole number written in plain decimal (`12`; not `1.0`, `01` or `+1`). */
const decimalInteger = (v: unknown) => (typeof v === 'string' && /^(0|[1-9][0-9]{0,15})$/.test(v) ? Number(v) : v);

/** Fields of a multipart submission (besides the `file` part). */
export const CheckFormSchema = z
  .object({
    sku: optionalText,
    product: optionalText,
    variant: optionalText,
    callbackUrl: z.string().url().max(2048).optional(),
    /** `false` skips rendering: structure checks only, no previews (fastest). */
    raster: z.enum(['true', 'false']).optional(),
  })
  .strict();

/** A multipart submission as the OpenAPI document describes it: the fields and the `file` part. */
export const CheckUploadSchema = CheckFormSchema.extend({
  file: z.file().mime(['application/pdf']).describe('The PDF to check (at most the server\'s upload limit, 50 MB by default)'),
});

/** A JSON submission: a URL to download (with the SSRF-guarded fetcher) and what it is for. */
export const CheckUrlBodySchema = z
  .object({
    url: z.string().url().max(4096),
    sku: optionalText,
    product: optionalText,
    variant: optionalText,
    callbackUrl: z.string().url().max(2048).optional(),
    raster: z.boolean().optional(),
    severities: CheckOptionsSchema.shape.severities,
    limits: CheckOptionsSchema.shape.limits,
  })
  .strict();

export const SubmitQuerySchema = z
  .object({
    /** Seconds to wait for the result (0–60). Finished within it: 200 with the check; else 202. */
    wait: z.preprocess(decimal, z.number().min(0).max(60)).optional(),
  })
  .strict();

export const CheckParamsSchema = z.object({ id: CheckIdSchema }).strict();
/** `n`: a page number, a decimal integer from 1 (a page beyond the file's is a 404). */
export const PageParamsSchema = z.object({ id: CheckIdSchema, n: z.preprocess(decimalInteger, z.number().int().min(1).max(100_000)) }).strict();

export const OrderQuerySchema = z
  .object({
    /** Accept only sources that pass (default: pass and warn). */
    strict: z.enum(['true', 'false']).default('false'),
  })
  .strict();

/** The order draft, as the integrator writes it (the service's field names). */
export const OrderDraftSchema = OrderSchema;

export const OrderPayloadAnswerSchema = z.strictObject({
  /** The order creation body: valid by construction, every source passed. */
  payload: OrderSchema,
  /** Each source's preflight report (one per distinct source). */
  reports: z.array(ReportSchema),
});

export const OrderForwardAnswerSchema = z.strictObject({
  payload: OrderSchema,
  /** What the order service answered, as it answered it. */
  service: z.unknown(),
});

export const HealthSchema = z.strictObject({
  status: z.enum(['ok', 'failing']),
  checks: z.record(z.string(), z.strictObject({ ok: z.boolean(), detail: z.string().optional() })),
});

/** Which target fields were given, as a Target or a per-field problem list. */
export function targetOf(fields: { sku?: string | undefined; product?: string | undefined; variant?: string | undefined }):
  | { ok: true; target: { sku: string } | { product: string; variant: string } }
  | { ok: false; errors: { path: string; message: string }[] } {
  if (fields.sku && (fields.product || fields.variant)) return { ok: false, errors: [{ path: 'sku', message: 'give either sku, or product with variant, not both' }] };
  if (fields.sku) return { ok: true, target: { sku: fields.sku } };
  if (fields.product && fields.variant) return { ok: true, target: { product: fields.product, variant: fields.variant } };
  if (fields.product) return { ok: false, errors: [{ path: 'variant', message: `product ${fields.product} needs a variant` }] };
  if (fields.variant) return { ok: false, errors: [{ path: 'product', message: 'variant needs a product' }] };
  return { ok: false, errors: [{ path: 'sku', message: 'say what the file is for: sku, or product and variant' }] };
}
