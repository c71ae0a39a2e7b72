import { z } from 'zod';
import { LimitsSchema } from './profile/schema.js';
import { ProfileRegistry } from './profile/registry.js';
import { FindingCodeSchema, SeveritySettingSchema } from './rules/codes.js';

/** What to check a file against: `{ product, variant }` or `{ sku }`. */
export const TargetSchema = z.union([
  z.object({ product: z.string().min(1), variant: z.string().min(1) }).strict(),
  z.object({ sku: z.string().min(1) }).strict(),
]);

/** Options of {@link preflight}. Defaults are set here and nowhere else. */
export const PreflightOptionsSchema = z
  .object({
    /** A folder of profile JSON files, or a loaded registry. Default: the profiles shipped with the package. */
    profiles: z.union([z.string().min(1), z.custom<ProfileRegistry>((v) => v instanceof ProfileRegistry, 'a ProfileRegistry from loadProfiles()')]).optional(),
    /** Severity per finding code for this call (`off` drops it); overrides the profile. */
    severities: z.partialRecord(FindingCodeSchema, SeveritySettingSchema).default({}),
    /** Thresholds for this call; override the profile's. */
    limits: LimitsSchema.partial().default({}),
    /** The path to name in the report when the input is bytes. */
    path: z.string().nullable().default(null),
    /** Cancels the call. */
    signal: z.instanceof(AbortSignal).optional(),
  })
  .strict();

export type Target = z.infer<typeof TargetSchema>;
export type PreflightOptions = z.input<typeof PreflightOptionsSchema>;
export type ResolvedPreflightOptions = z.output<typeof PreflightOptionsSchema>;
