/**
 * Assemble: builds a compliant print file from one image (PNG, JPEG, TIFF, WebP) or one-page PDF per
 * layer (convert/assemble.ts, in the pool), then checks it. Every page is exactly its layer's size,
 * the image fitted, colour-managed to sRGB and resampled to the production resolution capped at
 * the pixel limit, and the file kept under the size cap.
 */
import type { z } from 'zod';
import { parseOrThrow } from '../util/parse.js';
import { InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from './options.js';
import type { Executor } from '../pool/local.js';
import { defaultPool, PreflightPool } from '../pool/pool.js';
import { registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import { callLimits, decodeLimitsOf, preflight } from './preflight.js';
import type { AssembledLayer, AssemblyFill } from '../model/assembly.js';
import { withFindings } from '../report/build.js';
import { profileRules, settle } from '../rules/index.js';
import { localizeReport } from '../messages/catalogue.js';
import { refuseLayerImages } from './layer-probe.js';
import { AssembleOptionsSchema, assembleInPool, fillOf, loadLayerInput, transparencyDrafts } from './assembly.js';

export { AssembleOptionsSchema, transparencyDrafts };
export type AssembleOptions = z.input<typeof AssembleOptionsSchema>;

/** An input for one layer: by position, or named (`{ layer: 'front', input }`, with its own `fit` if wanted). */
export type LayerInput = string | Uint8Array | { layer: string; input: string | Uint8Array; fit?: AssemblyFill };

export interface AssembleResult {
  bytes: Uint8Array;
  /** What was done, layer by layer, and any recompression. */
  changes: string[];
  /** How each layer was made (its fill; a tile's size and resolution); also the report's `assembly`. */
  layers: AssembledLayer[];
  report: Report;
}

/**
 * Builds the print file for a product from one file per layer, in the pool, and checks it.
 * @throws {InvalidArgumentError} a layer missing or unknown, or an input that cannot be used (named)
 * @throws {LayerImageError} a layer's image over the product's `maxImagePixels` on a side (`ERR_LAYER_TOO_LARGE`), or one that cannot be decoded (`ERR_LAYER_UNREADABLE`)
 * @example
 * const { bytes, report } = await assemble({ sku: 'T-SHIRT-M' }, ['front.png', 'back.png', 'left.jpg', 'right.jpg']);
 * await writeFile('order.pdf', bytes);
 */
export async function assemble(target: Target, inputs: readonly LayerInput[], options: AssembleOptions = {}, preflightOptions: PreflightOptions = {}): Promise<AssembleResult> {
  const opts = parseOrThrow(AssembleOptionsSchema, options, 'Invalid assemble options');
  const registry = await registryFrom(preflightOptions.profiles);
  const resolved = registry.resolve(target);
  const limits = callLimits(resolved.limits, preflightOptions.limits, preflightOptions.tightenOnly ?? false);
  // Inputs by layer: named ones where named, the rest in order.
  const byLayer = new Map<string, string | Uint8Array>();
  const fits = new Map<string, AssemblyFill>(Object.entries(opts.layerFit));
  for (const id of fits.keys()) {
    if (!resolved.layers.some((l) => l.id === id)) throw new InvalidArgumentError(`${resolved.profile.id} has no layer "${id}" to fill; its layers: ${resolved.layers.map((l) => l.id).join(', ')}`);
  }
  const positional = inputs.filter((i): i is string | Uint8Array => typeof i === 'string' || i instanceof Uint8Array);
  for (const i of inputs) {
    if (typeof i === 'object' && !(i instanceof Uint8Array)) {
      if (!resolved.layers.some((l) => l.id === i.layer))
        throw new InvalidArgumentError(`${resolved.profile.id} has no layer "${i.layer}"; its layers: ${resolved.layers.map((l) => l.id).join(', ')}`);
      byLayer.set(i.layer, i.input);
      const fit = fillOf(i.layer, i.fit);
      if (fit) fits.set(i.layer, fit);
    }
  }
  for (const layer of resolved.layers) if (!byLayer.has(layer.id) && positional.length) byLayer.set(layer.id, positional.shift()!);
  const missing = resolved.layers.filter((l) => !byLayer.has(l.id)).map((l) => l.id);
  if (missing.length || positional.length) {
    throw new InvalidArgumentError(
      missing.length
        ? `${resolved.profile.id} ${resolved.variant.id} needs one file per layer (${resolved.layers.map((l) => l.id).join(', ')}); missing: ${missing.join(', ')}`
        : `${positional.length} file(s) more than ${resolved.profile.id}'s ${resolved.layers.length} layers`,
    );
  }
  const layers = [];
  for (const layer of resolved.layers) layers.push({ id: layer.id, input: await loadLayerInput(byLayer.get(layer.id)!) });
  // The default fill is not passed on: an image made at the trim size then gets its bleed mirrored.
  const { layerFit: _, fit, ...rest } = opts;
  const planOptions = { ...rest, ...(options.fit !== undefined ? { fit } : {}) };
  const executor: Executor = preflightOptions.pool === false ? (await import('../pool/local.js')).localExecutor : (preflightOptions.pool ?? defaultPool());
  const decodeLimits = decodeLimitsOf(executor instanceof PreflightPool ? executor : undefined, preflightOptions.decodeLimits);
  // One rule on every surface: an image over the pixel limit, or one that cannot be decoded, is
  // refused naming its layer (probed in the pool) — never scaled down to the limit.
  await refuseLayerImages(
    executor,
    layers.map((l) => ({ id: l.id, bytes: l.input })),
    limits.maxImagePixels,
    preflightOptions.signal,
  );
  const {
    bytes,
    changes,
    layers: made,
  } = await assembleInPool(
    { executor, decodeLimits, layers: resolved.layers, limits },
    layers.map((l) => ({ ...l, ...(fits.get(l.id) ? { fit: fits.get(l.id)! } : {}) })),
    { ...planOptions, backgroundChosen: options.background !== undefined },
    { signal: preflightOptions.signal, timeoutMs: preflightOptions.timeoutMs, fileBudgetMs: preflightOptions.fileBudgetMs },
  );
  const checked = await preflight(bytes, target, { path: null, ...preflightOptions });
  // What only the images knew: transparent areas, which the print file no longer shows.
  const drafts = transparencyDrafts(made, resolved.layers, resolved.profile.name);
  const callLevel = { severities: preflightOptions.severities, policy: preflightOptions.policy };
  let report = drafts.length
    ? withFindings(checked, settle(drafts, profileRules(resolved.profile, preflightOptions.defaultPolicy), callLevel, { tightenOnly: preflightOptions.tightenOnly }))
    : checked;
  if (drafts.length && preflightOptions.locale) report = await localizeReport(report, resolved.profile, preflightOptions.locale);
  return { bytes, changes, layers: made, report: { ...report, assembly: { layers: made } } };
}
