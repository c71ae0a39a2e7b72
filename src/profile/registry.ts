import { ProfileError, UnknownTargetError, invalidArgument } from '../errors.js';
import type { Layer, Limits, Profile, Variant } from './schema.js';
import { ordinal } from '../util/text.js';

/** What a file is checked against: a product and variant, or a SKU. */
export type Target = { product: string; variant: string } | { sku: string };

/** One layer of a resolved variant, with its page size (trim + 2 × bleed). */
export interface LayerSpec {
  index: number;
  id: string;
  name: string;
  trimWidthMm: number;
  trimHeightMm: number;
  pageWidthMm: number;
  pageHeightMm: number;
  sewnEdges: ('top' | 'right' | 'bottom' | 'left')[];
  /** Safe margin inside the trim (the layer's own, else the profile's); null: none set. */
  safeMarginMm?: number | null;
}

/** A product variant resolved from a target: everything the checks need. */
export interface ResolvedTarget {
  profile: Profile;
  variant: Variant;
  /** The SKU asked for, or the variant's default SKU. */
  sku: string;
  layers: LayerSpec[];
  limits: Limits;
}

export function layerSpecs(profile: Profile, variant: Variant): LayerSpec[] {
  const bleed2 = 2 * profile.limits.bleedMm;
  return profile.layers.map((layer: Layer, index) => {
    const trim = variant.trim[layer.id]!;
    return {
      index,
      id: layer.id,
      name: layer.name ?? layer.id,
      trimWidthMm: trim.widthMm,
      trimHeightMm: trim.heightMm,
      pageWidthMm: trim.widthMm + bleed2,
      pageHeightMm: trim.heightMm + bleed2,
      sewnEdges: layer.sewnEdges,
      safeMarginMm: layer.safeMarginMm ?? profile.limits.safeMarginMm ?? null,
    };
  });
}

/**
 * The loaded product profiles, looked up by product + variant or by SKU.
 * @example
 * const registry = await loadProfiles();
 * const t = registry.resolve({ product: 't-shirt', variant: 'M' });
 * t.layers[0].pageWidthMm; // 560
 */
export class ProfileRegistry {
  private readonly byId = new Map<string, Profile>();
  private readonly bySku = new Map<string, { profile: Profile; variant: Variant; sku: string }>();

  private constructor() {}

  /** Builds a registry; throws a {@link ProfileError} when two profiles share an id or a SKU. */
  static from(entries: readonly { profile: Profile; file?: string | null }[]): ProfileRegistry {
    const registry = new ProfileRegistry();
    for (const { profile, file = null } of entries) {
      if (registry.byId.has(profile.id)) {
        throw new ProfileError(file, [{ path: 'id', message: `product id "${profile.id}" is defined twice` }]);
      }
      registry.byId.set(profile.id, profile);
      profile.variants.forEach((variant, vi) => {
        variant.skus.forEach((sku, si) => {
          const key = sku.toUpperCase();
          const other = registry.bySku.get(key);
          if (other) {
            throw new ProfileError(file, [
              {
                path: `variants[${vi}].skus[${si}]`,
                message: `SKU "${sku}" is already used by ${other.profile.id} ${other.variant.id}`,
              },
            ]);
          }
          registry.bySku.set(key, { profile, variant, sku });
        });
      });
    }
    return registry;
  }

  /** All profiles, sorted by id. */
  list(): Profile[] {
    return [...this.byId.values()].sort((a, b) => ordinal(a.id, b.id));
  }

  get(productId: string): Profile | undefined {
    return this.byId.get(productId);
  }

  /**
   * Resolves a product + variant or a SKU (case-insensitive) to its layers and limits.
   * @throws {UnknownTargetError} naming what is known instead
   */
  resolve(target: Target): ResolvedTarget {
    if (target && typeof target === 'object' && 'sku' in target && typeof target.sku === 'string') {
      const hit = this.bySku.get(target.sku.trim().toUpperCase());
      if (!hit) {
        throw new UnknownTargetError('ERR_UNKNOWN_SKU', `Unknown SKU "${target.sku}". Known SKUs look like ${this.exampleSkus()}; run \`print-preflight profiles\` for the list.`);
      }
      return this.resolved(hit.profile, hit.variant, hit.sku);
    }
    if (target && typeof target === 'object' && 'product' in target && typeof target.product === 'string') {
      const profile = this.byId.get(target.product.trim().toLowerCase());
      if (!profile) {
        throw new UnknownTargetError(
          'ERR_UNKNOWN_PRODUCT',
          `Unknown product "${target.product}". Known products: ${this.list()
            .map((p) => p.id)
            .join(', ')}.`,
        );
      }
      const wanted = String(target.variant ?? '')
        .trim()
        .toLowerCase();
      const variant = profile.variants.find((v) => v.id.toLowerCase() === wanted);
      if (!variant) {
        throw new UnknownTargetError('ERR_UNKNOWN_VARIANT', `Unknown variant "${target.variant}" of ${profile.id}. Its variants: ${profile.variants.map((v) => v.id).join(', ')}.`);
      }
      return this.resolved(profile, variant, variant.skus[0]!);
    }
    throw invalidArgument('{ product, variant } or { sku }', 'target', target);
  }

  private resolved(profile: Profile, variant: Variant, sku: string): ResolvedTarget {
    return { profile, variant, sku, layers: layerSpecs(profile, variant), limits: profile.limits };
  }

  private exampleSkus(): string {
    return [...this.bySku.values()]
      .slice(0, 2)
      .map((v) => v.sku)
      .join(', ');
  }
}
