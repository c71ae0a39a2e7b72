/**
 * The HTTP API's request and response shapes, as zod schemas: the routes validate with them, the
 * OpenAPI document is generated from them, and the handlers' types are inferred from them.
 */
import { z } from 'zod';
import { CheckIdSchema, CheckOptionsSchema } from '../jobs/schema.js';
import { OrderSchema } from '../order/schema.js';
import { ReportSchema } from '../report/schema.js';
import { FixModeSchema, PolicySchema } from '../model/policy.js';
import { FitSchema, RotateSchema } from '../model/instructions.js';
import { LocaleSchema } from '../model/locales.js';
import { TOKEN_CHARS, TOKEN_PATTERN } from '../model/token.js';
import { AssemblyFillSchema } from '../model/assembly.js';

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
    /** Apply the policy's fixes: `auto` (the fixed file is used at once) or `approve` (the check ends `needs-approval`). */
    fix: FixModeSchema.optional(),
    /** With `fix`: the direction to turn sideways pages (`cw` or `ccw`), when the policy fixes page-orientation-mismatch; without it that fix is refused. */
    rotate: RotateSchema.optional(),
    /** With `fix`: how to fit pages of other proportions than their layer (`contain`, `cover` or `stretch`), when the policy fixes page-size-mismatch; without it that fix is refused. */
    fit: FitSchema.optional(),
    /** Action per finding code, as JSON (`{"page-order-mismatch":"fix"}`); may only tighten the server's policy. */
    policy: z
      .string()
      .max(4096)
      .transform((text, ctx) => {
        try {
          const parsed = PolicySchema.safeParse(JSON.parse(text));
          if (parsed.success) return parsed.data;
          for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object of finding code to reject, warn, fix or off' });
        }
        return z.NEVER;
      })
      .optional(),
    /** Language of the customer messages (report findings' `customer`, the approval page): en, pt, es. */
    locale: LocaleSchema.optional(),
  })
  .strict();

/** A multipart submission as the OpenAPI document describes it: the fields and the `file` part. */
export const CheckUploadSchema = CheckFormSchema.extend({
  file: z.file().mime(['application/pdf']).describe("The PDF to check (at most the server's upload limit, 50 MB by default)"),
});

/** The part name of a layer's image in a multipart submission: `layer.<layer id>`. */
export const LAYER_PART_PATTERN = '^layer\\.[a-z0-9][a-z0-9-]{0,63}$';
/** The field naming a layer's fill in a multipart submission: `fit.<layer id>`. */
export const LAYER_FIT_PATTERN = '^fit\\.[a-z0-9][a-z0-9-]{0,63}$';

/**
 * A multipart submission of POST /v1/checks as the OpenAPI document describes it: the fields, and
 * either the `file` part (a PDF) or one `layer.<layer id>` part per layer of the product (an image
 * or a one-page PDF), each with an optional `fit.<layer id>` field.
 */
export const CheckLayersUploadSchema = CheckFormSchema.extend({
  file: z.file().mime(['application/pdf']).optional().describe("The PDF to check (at most the server's upload limit, 50 MB by default). Instead of it: one `layer.<layer id>` part per layer"),
}).meta({
  patternProperties: {
    [LAYER_PART_PATTERN]: {
      type: 'string',
      format: 'binary',
      description:
        "The image of the layer named after `layer.` (`layer.front`), instead of `file`: PNG (8 or 16 bits, alpha or palette), JPEG (CMYK, progressive, any EXIF orientation), TIFF (CMYK too), WebP, or a one-page PDF. One part per layer of the product (GET /v1/profiles lists them); together at most the server's upload limit. They are assembled into the print file, the check's `fixed` file",
    },
    [LAYER_FIT_PATTERN]: {
      type: 'string',
      enum: [...AssemblyFillSchema.options],
      description:
        'How the image of the layer named after `fit.` fills its page: `cover`, `contain` on white, `stretch`, `tile` (repeated at its stated resolution), `mirror` (contain, the rest mirrored from its edges) or `bleed` (the image is the trim: placed at its own size, the bleed around it mirrored from its edges). Without it, an image made at the trim size — the layer less its bleed, by the size its resolution states or by its proportions within 1 mm — gets `bleed`, any other `cover`',
    },
  },
});

/** One layer's image by URL in a JSON submission, and how it fills its page. */
export const LayerUrlSchema = z
  .object({
    /** The image (PNG, JPEG, TIFF, WebP) or one-page PDF, downloaded as `url` is. */
    url: z.string().url().max(4096),
    /** How the image fills its page: `cover`, `contain`, `stretch`, `tile`, `mirror` or `bleed`; without it `bleed` for an image made at the trim size, else `cover`. */
    fit: AssemblyFillSchema.optional(),
  })
  .strict();

/** A JSON submission: a URL to download (with the SSRF-guarded fetcher) and what it is for. */
export const CheckUrlBodySchema = z
  .object({
    /** The PDF to download. Instead of it: `layers`. */
    url: z.string().url().max(4096).optional(),
    /**
     * Instead of `url`: one image (or one-page PDF) per layer id of the product, by URL, each downloaded
     * as `url` is and assembled into the print file (the check's `fixed` file): `{ "front": { "url": "…", "fit": "tile" } }`.
     */
    layers: z.record(z.string().max(64), LayerUrlSchema).optional(),
    sku: optionalText,
    product: optionalText,
    variant: optionalText,
    callbackUrl: z.string().url().max(2048).optional(),
    raster: z.boolean().optional(),
    severities: CheckOptionsSchema.shape.severities,
    limits: CheckOptionsSchema.shape.limits,
    /** Action per finding code; may only tighten the server's policy. */
    policy: PolicySchema.optional(),
    /** Apply the policy's fixes to the downloaded file, as for uploads: `auto` (the fixed file is used at once) or `approve` (the check ends `needs-approval`). */
    fix: FixModeSchema.optional(),
    /** With `fix`: the direction to turn sideways pages (`cw` or `ccw`), when the policy fixes page-orientation-mismatch; without it that fix is refused. */
    rotate: RotateSchema.optional(),
    /** With `fix`: how to fit pages of other proportions than their layer (`contain`, `cover` or `stretch`), when the policy fixes page-size-mismatch; without it that fix is refused. */
    fit: FitSchema.optional(),
    /** Language of the customer messages (report findings' `customer`, the approval page): en, pt, es. */
    locale: LocaleSchema.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.url === undefined) === (body.layers === undefined)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give either url (a PDF) or layers (an image per layer), one of them' });
  });

/** The body of POST /v1/checks/{id}/reject (and of the approval page's form). */
export const RejectBodySchema = z.object({ reason: z.string().max(1000).optional() }).strict();

/** A fixed file: `{token}.pdf`. */
export const FileParamsSchema = z.object({ file: z.string().regex(new RegExp(`^${TOKEN_CHARS}\\.pdf$`), 'must be a file token and .pdf') }).strict();
/** An approval page's token. */
export const ApprovalParamsSchema = z.object({ token: z.string().regex(TOKEN_PATTERN, 'must be an approval token (48 hex characters)') }).strict();
/**
 * `?locale=` of a customer's page: any BCP 47 tag (`pt-BR`, `de-CH`, `es-419`), matched to the
 * languages the pages are written in; a language they are not in is said on the page, never an error.
 */
const PageLocaleSchema = z
  .string()
  .max(1000)
  .optional()
  .describe(
    "The language of the page, a BCP 47 tag (`en`, `pt-PT`, `pt-BR`, `es`, `fr`, `de`, `it`; `pt` is `pt-PT`; a region falls back to its language). Default: the check's `locale`, else the browser's `Accept-Language`, else English. A language the page is not in is shown in the next choice with a notice, never an error",
  );

/** `?locale=` of the approval page (other query parameters, as links gain them, are ignored). */
export const LocaleQuerySchema = z.object({ locale: PageLocaleSchema });

/** `?locale=` and `?view=` of report.html. */
export const ReportPageQuerySchema = z.object({
  locale: PageLocaleSchema,
  /** `prepress`: the full technical report, in English, for print professionals. */
  view: z.enum(['customer', 'prepress']).optional().describe("`customer` (default): the report in the customer's language; `prepress`: the full technical report (English) for print professionals"),
});

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

/** An order by the `number` its draft gave (URL-encoded in the path). */
export const OrderNumberParamsSchema = z.object({ number: z.string().min(1).max(1000) }).strict();

export const ReleasedReferencesSchema = z.strictObject({
  /** The order number, as given. */
  number: z.string(),
  /** The fixed files (`/v1/files/{token}.pdf`) the order referenced: each now follows the retention of unreferenced files, unless another order references it. */
  files: z.array(z.string()),
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
export function targetOf(fields: {
  sku?: string | undefined;
  product?: string | undefined;
  variant?: string | undefined;
}): { ok: true; target: { sku: string } | { product: string; variant: string } } | { ok: false; errors: { path: string; message: string }[] } {
  if (fields.sku && (fields.product || fields.variant)) return { ok: false, errors: [{ path: 'sku', message: 'give either sku, or product with variant, not both' }] };
  if (fields.sku) return { ok: true, target: { sku: fields.sku } };
  if (fields.product && fields.variant) return { ok: true, target: { product: fields.product, variant: fields.variant } };
  if (fields.product) return { ok: false, errors: [{ path: 'variant', message: `product ${fields.product} needs a variant` }] };
  if (fields.variant) return { ok: false, errors: [{ path: 'product', message: 'variant needs a product' }] };
  return { ok: false, errors: [{ path: 'sku', message: 'say what the file is for: sku, or product and variant' }] };
}
