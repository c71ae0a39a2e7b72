import { z } from 'zod';
import { FindingCodeSchema, SeveritySettingSchema } from '../model/codes.js';
import { ApprovalSchema, PolicySchema } from '../model/policy.js';
import { LOCALES } from '../model/locales.js';
import { GENDERS } from '../model/genders.js';
import { PANEL_SHAPES } from './shapes.js';

const id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and hyphens, e.g. "t-shirt"');

/**
 * A name in one language: the text, or the text and its grammatical gender (`m`, `f`, `n`, or a
 * plural `mp`, `fp`, `np`), which sentences need for the article and agreement ("la espalda",
 * "auf dem Ärmel links", "as costas").
 */
export const LocalNameSchema = z.union([
  z.string().min(1).max(200),
  z.strictObject({ name: z.string().min(1).max(200), gender: z.enum(GENDERS).describe('Grammatical gender and number: m, f, n; mp, fp, np for a plural') }),
]);

/**
 * A name in other languages, by locale (`{ "pt-BR": { "name": "Camiseta", "gender": "f" }, "de": { "name": "T-Shirt", "gender": "n" } }`):
 * what the customer's report, approval page and messages call it. `pt` and `pt-PT` are European
 * Portuguese; `en` may give the English name its gender (a plural: "Curtains").
 */
export const LocalNamesSchema = z.partialRecord(z.enum(LOCALES), LocalNameSchema);

const positiveMm = z.number().positive().max(100_000);

/** Trim size of one layer in millimetres, width × height, top of the design at the top. */
export const TrimSchema = z
  .object({
    widthMm: positiveMm.describe('Trim width in millimetres'),
    heightMm: positiveMm.describe('Trim height in millimetres'),
  })
  .strict();

export const LayerSchema = z
  .object({
    id: id.describe('Layer id, e.g. "front"; page N of the PDF is layer N of this list'),
    name: z.string().min(1).optional().describe('Human name, e.g. "Left sleeve"'),
    names: LocalNamesSchema.optional().describe('The name in other languages, by locale, for customer messages'),
    sewnEdges: z
      .array(z.enum(['top', 'right', 'bottom', 'left']))
      .default(['top', 'right', 'bottom', 'left'])
      .describe('Edges of the page that are sewn: the design must reach them (page-edge-gap). Default: all four'),
    safeMarginMm: z
      .number()
      .min(0)
      .max(1000)
      .optional()
      .describe(
        'Safe margin of this layer: distance inside the trim that text and important content keep clear of, because it is sewn into the seam or cut (content-in-seam-zone). Default: the profile limits’ safeMarginMm; none: the check is off for the layer',
      ),
    shape: z.enum(PANEL_SHAPES).optional().describe('The shape of this part on the finished product, for mockups (the cut of a garment piece, or a flat panel). Default: panel'),
  })
  .strict();

export const VariantSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.-]*$/, 'must be letters, digits, dots and hyphens, e.g. "200x200" or "M"')
      .describe('Variant id, e.g. "200x200" or "M"'),
    skus: z.array(z.string().min(1)).min(1).describe('SKUs of this variant; the first is the default'),
    trim: z.record(z.string(), TrimSchema).describe('Trim size per layer id'),
  })
  .strict();

/** Thresholds of the checks, without defaults: the shape of a per-call override. Every one is bounded (a profile or a call cannot ask for 1e10 of anything). */
const LIMIT_FIELDS = {
  bleedMm: z.number().min(0).max(1000).describe('Bleed on each side; page = trim + 2 × bleed'),
  toleranceMm: z.number().min(0).max(1000).describe('Allowed difference per side of the page'),
  scaleTolerance: z.number().min(0).max(0.5).describe('Relative difference of proportions still counted as "same proportions" (0.01 = 1 %)'),
  minPpi: z.number().positive().max(10_000).describe('Effective image resolution at the printed size below which an image gets a warning (image-low-resolution)'),
  minPpiError: z.number().min(0).max(10_000).describe('Effective image resolution at the printed size below which image-low-resolution is an error (0: never)'),
  productionPpi: z.number().positive().max(10_000).describe('Resolution the service produces at'),
  maxImagePixels: z.number().int().positive().max(1_000_000).describe('Maximum pixels per image side'),
  maxFileBytes: z.number().int().positive().max(10_000_000_000).describe('Maximum source file size in bytes'),
  blankInkCoverage: z.number().min(0).max(1).describe('A page whose share of non-white pixels is at or below this is blank (page-blank)'),
  minEdgeGapMm: z.number().min(0).max(1000).describe('Narrowest white band along a sewn edge that is reported (page-edge-gap)'),
  safeMarginMm: z
    .number()
    .min(0)
    .max(1000)
    .describe(
      'Distance inside the trim that important content should keep, for layers that do not set their own (content-in-seam-zone; drawn in the visual report). A per-call value applies to every layer',
    ),
  minLineWidthPt: z.number().min(0).max(100).describe('Narrowest stroked line inside the trim, in points at the printed size (line-too-thin)'),
  minTextSizePt: z.number().min(0).max(1000).describe('Smallest text inside the trim, its em height in points at the printed size (text-too-small)'),
  minJpegQuality: z.number().min(0).max(100).describe('JPEG images of a lower estimated quality (1–100, the libjpeg scale) get a warning (image-jpeg-quality)'),
  infoJpegQuality: z.number().min(0).max(100).describe('JPEG images of a lower estimated quality get an info (image-jpeg-quality); 0: never'),
  minUpscaleFactor: z.number().min(1).max(100).describe('Smallest enlargement reported by image-upscaled (with detail at the printed size below minPpi)'),
  maxUnpaintedShare: z.number().min(0).max(1).describe('Share of the trim area that may be left unpainted (transparent) before page-unpainted-area'),
  boxEpsilonMm: z.number().min(0).max(100).describe('TrimBox/BleedBox differing from the page box by less than this are counted as equal'),
};

/** Per-call overrides of a profile's limits: any subset, no defaults (a default would silently replace the profile's value). */
export const LimitsOverrideSchema = z.object(LIMIT_FIELDS).partial().strict();

/**
 * Thresholds of the checks in a profile. Every one but the bleed has a default, so a profile may leave them out.
 * @example
 * import { LimitsSchema } from 'print-preflight/schemas';
 * const limits = LimitsSchema.parse({ bleedMm: 3 }); // every other threshold at its default
 */
export const LimitsSchema = z
  .object({
    ...LIMIT_FIELDS,
    toleranceMm: LIMIT_FIELDS.toleranceMm.default(2),
    scaleTolerance: LIMIT_FIELDS.scaleTolerance.default(0.01),
    minPpi: LIMIT_FIELDS.minPpi.default(100),
    minPpiError: LIMIT_FIELDS.minPpiError.default(50),
    productionPpi: LIMIT_FIELDS.productionPpi.default(150),
    maxImagePixels: LIMIT_FIELDS.maxImagePixels.default(15_000),
    maxFileBytes: LIMIT_FIELDS.maxFileBytes.default(50_000_000),
    blankInkCoverage: LIMIT_FIELDS.blankInkCoverage.default(0.0001),
    minEdgeGapMm: LIMIT_FIELDS.minEdgeGapMm.default(1),
    safeMarginMm: LIMIT_FIELDS.safeMarginMm.optional(),
    minLineWidthPt: LIMIT_FIELDS.minLineWidthPt.default(1),
    minTextSizePt: LIMIT_FIELDS.minTextSizePt.default(6),
    minJpegQuality: LIMIT_FIELDS.minJpegQuality.default(60),
    infoJpegQuality: LIMIT_FIELDS.infoJpegQuality.default(75),
    minUpscaleFactor: LIMIT_FIELDS.minUpscaleFactor.default(1.5),
    maxUnpaintedShare: LIMIT_FIELDS.maxUnpaintedShare.default(0.01),
    boxEpsilonMm: LIMIT_FIELDS.boxEpsilonMm.default(0.1),
  })
  .strict();

/**
 * A product profile: its variants and SKUs, its layers (the pages a print file has, in order) and
 * their trim, bleed and safe margins, limits and policy. Published as schemas/profile.schema.json.
 * @example
 * import { ProfileSchema } from 'print-preflight';
 * const result = ProfileSchema.safeParse(JSON.parse(text));
 * if (!result.success) console.error(result.error.issues);
 */
export const ProfileSchema = z
  .object({
    $schema: z.string().optional(),
    id: id.describe('Product id, e.g. "duvet-cover"'),
    name: z.string().min(1).describe('Product name as the service names it'),
    names: LocalNamesSchema.optional().describe('The product name in other languages, by locale, for customer messages'),
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a semantic version such as "1.0.0"'),
    layers: z.array(LayerSchema).min(1).describe('Layers in page order'),
    limits: LimitsSchema,
    severities: z.partialRecord(FindingCodeSchema, SeveritySettingSchema).default({}).describe('Severity per finding code, overriding the defaults'),
    policy: PolicySchema.optional().describe(
      'Action per finding code: reject (error), warn (warning), fix (fixed when fixes run, then checked again; until then judged by its severity), off. Codes not named follow their severity',
    ),
    approval: ApprovalSchema.optional().describe('Fixable codes whose fixes the customer approves when a check asks for approval (fix=approve); other fixes are approved automatically'),
    variants: z.array(VariantSchema).min(1),
  })
  .strict()
  .superRefine((profile, ctx) => {
    const layerIds = profile.layers.map((l) => l.id);
    duplicates(layerIds).forEach((d) => ctx.addIssue({ code: 'custom', path: ['layers'], message: `layer id "${d}" appears more than once` }));
    duplicates(profile.variants.map((v) => v.id.toLowerCase())).forEach((d) => ctx.addIssue({ code: 'custom', path: ['variants'], message: `variant id "${d}" appears more than once` }));
    profile.variants.forEach((variant, vi) => {
      for (const layer of layerIds) {
        if (!variant.trim[layer]) {
          ctx.addIssue({ code: 'custom', path: ['variants', vi, 'trim', layer], message: `missing trim size of layer "${layer}"` });
        }
      }
      for (const key of Object.keys(variant.trim)) {
        if (!layerIds.includes(key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['variants', vi, 'trim', key],
            message: `"${key}" is not a layer of this profile (layers: ${layerIds.join(', ')})`,
          });
        }
      }
    });
  });

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

/** A product profile as written in a profiles/ JSON file (defaults not yet applied). */
export type ProfileInput = z.input<typeof ProfileSchema>;
/** A validated product profile with every default applied. */
export type Profile = z.output<typeof ProfileSchema>;
export type Limits = z.output<typeof LimitsSchema>;
export type LimitsOverride = z.output<typeof LimitsOverrideSchema>;
export type Layer = z.output<typeof LayerSchema>;
export type Variant = z.output<typeof VariantSchema>;
