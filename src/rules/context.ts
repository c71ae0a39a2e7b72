import type { Limits } from '../profile/schema.js';
import type { LayerSpec, ResolvedTarget } from '../profile/registry.js';
import type { DocumentFacts, PageFacts } from '../pdf/facts.js';
import type { RasterFacts, RasterFailure } from '../raster/facts.js';

/** Everything a check may look at: the facts, the target and the limits in force. */
export interface CheckContext {
  facts: DocumentFacts;
  target: ResolvedTarget;
  limits: Limits;
  /** Raster facts per page number, when pages were rasterised. */
  raster?: ReadonlyMap<number, RasterFacts>;
  /** Pages that could not be rasterised. */
  rasterFailures?: readonly RasterFailure[];
}

/** A page and the layer it is matched to by position (null for pages beyond the layer count). */
export function pagesWithLayers(ctx: CheckContext): { page: PageFacts; layer: LayerSpec | null }[] {
  return ctx.facts.pages.map((page) => ({ page, layer: ctx.target.layers[page.index - 1] ?? null }));
}

/** "Page 2 (back)" */
export function pageLabel(page: PageFacts | number, layer: LayerSpec | null): string {
  const n = typeof page === 'number' ? page : page.index;
  return layer ? `Page ${n} (${layer.id})` : `Page ${n}`;
}

/** "duvet-cover 200x200" */
export function targetLabel(ctx: CheckContext): string {
  return `${ctx.target.profile.id} ${ctx.target.variant.id}`;
}

/** A check: facts in, drafts out. Pure: no I/O, clock or pool. */
export type Check = (ctx: CheckContext) => import('../model/finding.js').Draft[];
