/**
 * Assemble: builds a compliant print file from one image (PNG, JPEG, TIFF, WebP) or one-page PDF per
 * layer (convert/assemble.ts, in the pool), then checks it. Every page is exactly its layer's size,
 * the image fitted, colour-managed to sRGB and resampled to the production resolution capped at
 * the pixel limit, and the file kept under the size cap.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputUnreadableError, InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from './options.js';
import type { Executor } from '../pool/local.js';
import { defaultPool, PreflightPool, TaskFailure } from '../pool/pool.js';
import { TimeBudget } from '../pool/budget.js';
import { formatPath, registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import { callLimits, decodeLimitsOf, preflight } from './preflight.js';
import { AssemblyFillSchema, type AssembledLayer, type AssemblyFill } from '../model/assembly.js';
import type { Draft } from '../model/finding.js';
import { withFindings } from '../report/build.js';
import { profileRules, settle } from '../rules/index.js';
import { localizeReport } from '../messages/catalogue.js';

/**
 * Options of `assemble()`: the artwork per layer, its fill, the background, the target.
 * @example
 * import { AssembleOptionsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const options = AssembleOptionsSchema.safeParse(json);
 */
export const AssembleOptionsSchema = z
  .object({
    /**
     * How each image fills its page: `cover` (default), `contain` on the background, `stretch`,
     * `tile` (repeated at the image's stated resolution — PNG pHYs, JPEG density, TIFF resolution —
     * else the production resolution) or `mirror` (contain, the rest mirrored from its edges).
     */
    fit: AssemblyFillSchema.default('cover'),
    /** A fill per layer id, over `fit`. */
    layerFit: z.record(z.string(), AssemblyFillSchema).default({}),
    /** Background for `contain` and for transparent images, CSS colour. */
    background: z.string().default('#ffffff'),
    /** JPEG quality; ignored with `lossless`. */
    jpegQuality: z.number().int().min(30).max(100).default(90),
    lossless: z.boolean().default(false),
    /** Resample up to the production resolution even when the image has fewer pixels. */
    upsample: z.boolean().default(false),
  })
  .strict();
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
 * @example
 * const { bytes, report } = await assemble({ sku: 'T-SHIRT-M' }, ['front.png', 'back.png', 'left.jpg', 'right.jpg']);
 * await writeFile('order.pdf', bytes);
 */
export async function assemble(target: Target, inputs: readonly LayerInput[], options: AssembleOptions = {}, preflightOptions: PreflightOptions = {}): Promise<AssembleResult> {
  const parsed = AssembleOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InvalidArgumentError(`Invalid assemble options: ${parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  const opts = parsed.data;
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
      if (i.fit !== undefined) {
        if (!AssemblyFillSchema.safeParse(i.fit).success)
          throw new InvalidArgumentError(`Expected cover, contain, stretch, tile or mirror for the fill of layer ${i.layer}, got ${JSON.stringify(i.fit)}`);
        fits.set(i.layer, i.fit);
      }
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
  for (const layer of resolved.layers) {
    const fit = fits.get(layer.id);
    layers.push({
      id: layer.id,
      pageWidthMm: layer.pageWidthMm,
      pageHeightMm: layer.pageHeightMm,
      trimWidthMm: layer.trimWidthMm,
      trimHeightMm: layer.trimHeightMm,
      input: await load(byLayer.get(layer.id)!),
      ...(fit ? { fit } : {}),
    });
  }
  const { layerFit: _, ...planOptions } = opts;
  const executor: Executor = preflightOptions.pool === false ? (await import('../pool/local.js')).localExecutor : (preflightOptions.pool ?? defaultPool());
  const decodeLimits = decodeLimitsOf(executor instanceof PreflightPool ? executor : undefined, preflightOptions.decodeLimits);
  let answer;
  try {
    answer = await executor.transform(
      {
        bytes: new SharedArrayBuffer(0),
        op: {
          op: 'assemble',
          plan: {
            layers,
            ...planOptions,
            backgroundChosen: options.background !== undefined,
            productionPpi: limits.productionPpi,
            maxImagePixels: limits.maxImagePixels,
            maxFileBytes: limits.maxFileBytes,
          },
        },
        limits: decodeLimits,
      },
      preflightOptions.signal,
      preflightOptions.timeoutMs,
      new TimeBudget(preflightOptions.fileBudgetMs ?? 300_000),
    );
  } catch (error) {
    if (error instanceof TaskFailure && error.reason !== 'aborted') throw new InvalidArgumentError(`the layers cannot be assembled within the limits: the assembly ${error.message}`);
    throw error;
  }
  if (answer.op !== 'assemble') throw new Error('a worker answered another transform');
  if ('invalid' in answer) throw new InvalidArgumentError(answer.invalid);
  const { bytes, changes, layers: made } = answer.outcome;
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

/**
 * image-transparent-area for each layer whose image is transparent inside the trim and not filled
 * with a chosen background: it prints as the fabric colour.
 */
export function transparencyDrafts(made: readonly AssembledLayer[], layers: readonly { id: string }[], product: string): Draft[] {
  const out: Draft[] = [];
  for (const l of made) {
    const t = l.transparent;
    if (!t || t.filledWith) continue;
    const index = layers.findIndex((x) => x.id === l.layer);
    const percent = Math.round(t.share * 1000) / 10;
    const [x, y, w, h] = t.boxMm;
    out.push({
      code: 'image-transparent-area',
      page: index + 1,
      layer: l.layer,
      message: `The image for page ${index + 1} (${l.layer}) is transparent or semi-transparent over ${percent} % of the ${product} layer's trim (${Math.round(t.semiShare * 1000) / 10} % semi-transparent), within ${w} × ${h} mm at ${x}, ${y} mm from the trim's top-left corner: it prints as the bare fabric colour there. Fill it in the image, or choose a background colour (assemble --background).`,
      expected: 'opaque inside the trim',
      actual: `${percent} % transparent`,
      details: { share: t.share, semiShare: t.semiShare, percent, region: t.region, xMm: x, yMm: y, widthMm: w, heightMm: h },
    });
  }
  return out;
}

async function load(input: string | Uint8Array): Promise<Uint8Array> {
  if (input instanceof Uint8Array) return input;
  try {
    return new Uint8Array(await readFile(input));
  } catch (cause) {
    throw new InputUnreadableError(`Cannot read ${input} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
}
