import { z } from 'zod';
import { PREVIEW_FORMATS } from '../model/preview.js';
import { LimitsOverrideSchema } from '../profile/schema.js';
import { ProfileRegistry } from '../profile/registry.js';
import { FindingCodeSchema, SeveritySettingSchema } from '../model/codes.js';
import { FixModeSchema, PolicySchema } from '../model/policy.js';
import { NetworkOptionsSchema } from '../source/network.js';
import { FitSchema, InstructionWordsSchema, RotateSchema } from '../model/instructions.js';
import { LocaleSchema } from '../model/locales.js';
import { PreflightPool } from '../pool/pool.js';
import { MAX_RENDER_IMAGE_PIXELS } from '../raster/budget.js';
import { DEFAULT_FILE_BUDGET_MS } from '../pool/budget.js';
import { DecodeLimitsOverrideSchema } from '../pdf/decode-limits.js';

/**
 * What to check a file against: `{ product, variant }` or `{ sku }`.
 * @example
 * import { TargetSchema } from 'print-preflight/schemas';
 * TargetSchema.parse({ product: 'duvet-cover', variant: '200x200' });
 */
export const TargetSchema = z.union([z.object({ product: z.string().min(1), variant: z.string().min(1) }).strict(), z.object({ sku: z.string().min(1) }).strict()]);

/** The options of every check (those of `preflight`); defaults are set here and nowhere else. */
const PreflightFields = z
  .object({
    /** A folder of profile JSON files, or a loaded registry. Default: the profiles shipped with the package. */
    profiles: z.union([z.string().min(1), z.custom<ProfileRegistry>((v) => v instanceof ProfileRegistry, 'a ProfileRegistry from loadProfiles()')]).optional(),
    /** Severity per finding code for this call (`off` drops it); overrides the profile. */
    severities: z.partialRecord(FindingCodeSchema, SeveritySettingSchema).default({}),
    /**
     * Action per finding code for this call: `reject` (an error), `warn` (a warning), `fix` (fixed by
     * `checkAndFix()`, then checked again), `off`. Overrides the profile's policy; codes not
     * named follow the profile, then their severity.
     */
    policy: PolicySchema.default({}),
    /**
     * The call's severities, policy and limits may only make the profile's verdict stricter,
     * finding by finding (a service's clients): an image the profile's limits make an error stays
     * an error whatever the call says, a limit the call loosens keeps the profile's value. Default
     * false: the caller owns the rules (the library, the CLI, batch).
     */
    tightenOnly: z.boolean().default(false),
    /**
     * The policy of a product whose profile sets none, at the profile's level (the call's severities
     * and policy still come first). checkAndFix sets DEFAULT_FIX_POLICY. Default: none.
     */
    defaultPolicy: PolicySchema.optional(),
    /** Fill each finding's `customer` message in this language (`en`, `pt`, `es`). Default: none. */
    locale: LocaleSchema.optional(),
    /** Thresholds for this call; override the profile's. */
    limits: LimitsOverrideSchema.default({}),
    /** The path to name in the report when the input is bytes. */
    path: z.string().nullable().default(null),
    /** Rasterise pages for the pixel checks (page-blank, page-edge-gap) and previews. `false`: structure only. */
    raster: z.boolean().default(true),
    /** Preview size: pixels on the longest side. */
    previewSize: z.number().int().min(64).max(10_000).default(1200),
    /**
     * Preview format: `webp` (default), `png` or `jpeg` — the cheapest to encode, for previews kept in
     * memory (batch's visual reports); not with `previewDir`, whose files the report names.
     */
    previewFormat: z.enum(PREVIEW_FORMATS).default('webp'),
    /**
     * Which pages get a preview when previews are kept or written: `all` (default) or `layers`, the
     * pages that print as a layer of the product. A page that is no layer is drawn only for its
     * preview — its pixels judge nothing that prints — so with `layers`, or when no preview is
     * asked for, it is not drawn at all.
     */
    previewPages: z.enum(['all', 'layers']).default('all'),
    /** Write each page's preview into this folder; the report names the files. */
    previewDir: z.string().min(1).nullable().default(null),
    /**
     * Memory budget of rendering one page: the pixels of the images it draws (soft masks and
     * mask images included, at the size their data declares), which pdf.js decodes whole. A page
     * over it is not rendered and gets pdf-too-complex. Pages drawn from one JPEG by the fast
     * path do not count. Default 48,000,000 (≈ 550 MB of worker memory).
     */
    maxRenderImagePixels: z.number().int().min(1).default(MAX_RENDER_IMAGE_PIXELS),
    /**
     * The file's decode budget for this call (bytes decoded and interpreted, objects, names,
     * values, token and container sizes, structure time; see SECURITY.md). Each may only lower the
     * operator's — the pool's `decodeLimits` — never raise it. Over budget is `pdf-too-complex`.
     */
    decodeLimits: DecodeLimitsOverrideSchema.default({}),
    /** Most pages rasterised per file (the rest get structure checks only). */
    maxRasterPages: z.number().int().min(0).default(64),
    /**
     * The worker pool to run in. Default: a shared pool sized by os.availableParallelism().
     * `false` runs everything in this thread, with no time limit or memory cap.
     */
    pool: z.union([z.custom<PreflightPool>((v) => v instanceof PreflightPool, 'a PreflightPool'), z.literal(false)]).optional(),
    /** Time limit of each task of this call (structure, each page), in ms, from when a worker takes it. Default: the pool's. */
    timeoutMs: z.number().int().min(1).optional(),
    /**
     * Worker time the whole file may use (structure and every page together), in ms: a heavy file
     * stops here (its remaining pages get pdf-timeout) instead of holding the pool. Time spent
     * waiting in the queue does not count. Default 300,000 (5 min).
     */
    fileBudgetMs: z.number().int().min(1).default(DEFAULT_FILE_BUDGET_MS),
    /** Cancels the call. */
    signal: z.instanceof(AbortSignal).optional(),
  })
  .strict();

// The report names written previews as PNG or WebP (its schema): JPEG stays in memory.
const noJpegInFolder = (o: { previewFormat: string; previewDir: string | null }) => !(o.previewFormat === 'jpeg' && o.previewDir);
const NO_JPEG_IN_FOLDER = { message: 'previewFormat jpeg is for previews kept in memory (a visual report); previewDir writes png or webp', path: ['previewFormat'] };

/**
 * Options of `preflight`. Defaults are set here and nowhere else.
 * @example
 * import { PreflightOptionsSchema } from 'print-preflight/schemas';
 * const options = PreflightOptionsSchema.parse({ raster: false, severities: { 'font-not-embedded': 'off' } });
 */
export const PreflightOptionsSchema = PreflightFields.refine(noJpegInFolder, NO_JPEG_IN_FOLDER);

/**
 * Options of `check`, the one entrance: a preflight's, and what the entrance does around it
 * — the fix and its instructions, the download of a URL, whether previews are returned. Every
 * surface's options are parsed by it once, into the resolved run (flow/run.ts).
 * @example
 * import { CheckOptionsSchema } from 'print-preflight/schemas';
 * const options = CheckOptionsSchema.parse({ fix: 'auto', locale: 'de' });
 */
export const CheckOptionsSchema = z
  .object({
    ...PreflightFields.shape,
    /** Apply the policy's fixes (`auto`) or apply them and wait for approval (`approve`). Default: no fix. */
    fix: FixModeSchema.optional(),
    /** Direction to turn sideways pages, when the policy fixes page-orientation-mismatch. */
    rotate: RotateSchema.optional(),
    /** How to fit pages of other proportions, when the policy fixes page-size-mismatch. */
    fit: FitSchema.optional(),
    /** The name the fixed file's report gives it (default: the input's name with `.fixed.pdf`). */
    fixedPath: z.string().min(1).optional(),
    /** How a `{ url }` source is downloaded (SSRF allow list, timeouts). */
    network: NetworkOptionsSchema.prefault({}),
    /** Return each page's preview (default true). */
    keepPreviews: z.boolean().default(true),
    /** Whose words a refused fix uses to say which instruction it needs (`library` options, `cli` flags, `http` fields). */
    instructions: InstructionWordsSchema.default('library'),
  })
  .strict()
  .refine(noJpegInFolder, NO_JPEG_IN_FOLDER);

export type Target = z.infer<typeof TargetSchema>;
export type PreflightOptions = z.input<typeof PreflightOptionsSchema>;
export type ResolvedPreflightOptions = z.output<typeof PreflightOptionsSchema>;
export type CheckOptions = z.input<typeof CheckOptionsSchema>;
export type ResolvedCheckOptions = z.output<typeof CheckOptionsSchema>;
