import { z } from 'zod';
import { layerSpecs, type ProfileRegistry } from './registry.js';

/** What `profiles --json` prints and `GET /v1/profiles` answers: products, variants, SKUs, page sizes. */
export const ProfileListingSchema = z.array(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    bleedMm: z.number(),
    toleranceMm: z.number(),
    /** Layer ids, in page order. */
    layers: z.array(z.string()),
    variants: z.array(
      z.strictObject({
        id: z.string(),
        skus: z.array(z.string()),
        pages: z.array(z.strictObject({ layer: z.string(), trimWidthMm: z.number(), trimHeightMm: z.number(), pageWidthMm: z.number(), pageHeightMm: z.number() })),
      }),
    ),
  }),
);
export type ProfileListing = z.infer<typeof ProfileListingSchema>;

/** Lists a registry's products, variants, SKUs, layers and page sizes (trim + 2 × bleed). */
export function profileListing(registry: ProfileRegistry): ProfileListing {
  return registry.list().map((p) => ({
    id: p.id,
    name: p.name,
    version: p.version,
    bleedMm: p.limits.bleedMm,
    toleranceMm: p.limits.toleranceMm,
    layers: p.layers.map((l) => l.id),
    variants: p.variants.map((v) => ({
      id: v.id,
      skus: v.skus,
      pages: layerSpecs(p, v).map((l) => ({
        layer: l.id,
        trimWidthMm: l.trimWidthMm,
        trimHeightMm: l.trimHeightMm,
        pageWidthMm: l.pageWidthMm,
        pageHeightMm: l.pageHeightMm,
      })),
    })),
  }));
}
