/**
 * The assembly step every surface shares: one image (PNG, JPEG, TIFF, WebP) or one-page PDF per
 * layer made into the product's print file in the pool (convert/assemble.ts), and what only the
 * images knew (transparent areas) said as findings. `assemble` (flow/assemble.ts) and `check` with a
 * source per layer (flow/check.ts) both stand on it.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputUnreadableError, InvalidArgumentError } from '../errors.js';
import type { Executor } from '../pool/local.js';
import { TaskFailure } from '../pool/pool.js';
import { TimeBudget } from '../pool/budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import type { Limits } from '../profile/schema.js';
import type { ResolvedTarget } from '../profile/registry.js';
import { AssemblyFillSchema, type AssembledLayer, type AssemblyFill } from '../model/assembly.js';
import type { AssemblyOutcome } from '../convert/plan.js';
import type { Draft } from '../model/finding.js';

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
     * else the production resolution), `mirror` (contain, the rest mirrored from its edges) or
     * `bleed` (the image is the trim: placed on it at its own size, the bleed mirrored from its
     * edges). When no fill is given, an image made at the trim size — its stated size, or its
     * proportions, those of the layer less its bleed within 1 mm — gets `bleed`, the others `cover`.
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

/** The layers of a product as an assembly needs them: sizes in mm. */
type LayerSizes = readonly Pick<ResolvedTarget['layers'][number], 'id' | 'pageWidthMm' | 'pageHeightMm' | 'trimWidthMm' | 'trimHeightMm'>[];

/**
 * The assembly of one image or one-page PDF per layer, made in the pool under the decode budget
 * (never in the calling thread: the images are untrusted bytes). Inputs are in the layers' order.
 * @throws {InvalidArgumentError} an input that cannot be used, or an assembly over the limits
 * @example
 * const made = await assembleInPool(run, [{ id: 'front', input: png, fit: 'tile' }], { fit: 'cover' });
 */
export async function assembleInPool(
  run: { executor: Executor; decodeLimits: DecodeLimits; layers: LayerSizes; limits: Pick<Limits, 'productionPpi' | 'maxImagePixels' | 'maxFileBytes'> },
  inputs: readonly { id: string; input: Uint8Array; fit?: AssemblyFill }[],
  options: Partial<Omit<z.output<typeof AssembleOptionsSchema>, 'layerFit'>> & { backgroundChosen?: boolean },
  how: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; fileBudgetMs?: number | undefined } = {},
): Promise<AssemblyOutcome> {
  const { layerFit: _, ...defaults } = AssembleOptionsSchema.parse({});
  const layers = inputs.map((i) => {
    const layer = run.layers.find((l) => l.id === i.id);
    if (!layer) throw new InvalidArgumentError(`There is no layer "${i.id}" to assemble; the layers: ${run.layers.map((l) => l.id).join(', ')}`);
    return {
      id: layer.id,
      pageWidthMm: layer.pageWidthMm,
      pageHeightMm: layer.pageHeightMm,
      trimWidthMm: layer.trimWidthMm,
      trimHeightMm: layer.trimHeightMm,
      input: i.input,
      ...(i.fit ? { fit: i.fit } : {}),
    };
  });
  let answer;
  try {
    answer = await run.executor.transform(
      {
        bytes: new SharedArrayBuffer(0),
        op: {
          op: 'assemble',
          plan: {
            layers,
            ...defaults,
            ...options,
            backgroundChosen: options.backgroundChosen ?? false,
            fitAsked: options.fit !== undefined,
            productionPpi: run.limits.productionPpi,
            maxImagePixels: run.limits.maxImagePixels,
            maxFileBytes: run.limits.maxFileBytes,
          },
        },
        limits: run.decodeLimits,
      },
      how.signal,
      how.timeoutMs,
      new TimeBudget(how.fileBudgetMs ?? 300_000),
    );
  } catch (error) {
    if (error instanceof TaskFailure && error.reason !== 'aborted') throw new InvalidArgumentError(`the layers cannot be assembled within the limits: the assembly ${error.message}`);
    throw error;
  }
  if (answer.op !== 'assemble') throw new Error('a worker answered another transform');
  if ('invalid' in answer) throw new InvalidArgumentError(answer.invalid);
  return answer.outcome;
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

/**
 * One layer's source in a check: a path or bytes, or `{ url }` downloaded as a source URL is; with a fill of its own if wanted.
 * @example
 * const back: LayerSource = { url: 'https://cdn.example.com/tile.png', fit: 'tile' };
 */
export type LayerSource = string | Uint8Array | { input: string | Uint8Array; fit?: AssemblyFill } | { url: string; fit?: AssemblyFill };

/**
 * A source per layer, by layer id (`{ layers: { front: 'front.png', back: { url, fit: 'tile' } } }`):
 * what `check` assembles into the print file before it checks it.
 * @example
 * const out = await check({ layers: { front: 'front.png', back: { input: bytes, fit: 'mirror' } } }, { sku: 'TANKTOP-M' });
 */
export interface LayersSource {
  layers: Record<string, LayerSource>;
}

/** Whether a check's source is one per layer. */
export function isLayersSource(source: unknown): source is LayersSource {
  return typeof source === 'object' && source !== null && !(source instanceof Uint8Array) && 'layers' in source;
}

/**
 * The layer ids of a source per layer judged against the product's: the problems by layer id (an
 * unknown id, a layer missing), empty when every layer has exactly one source.
 * @example
 * layerProblems(['front', 'sleeve'], target.layers); // [{ path: 'sleeve', message: 'no such layer…' }, { path: 'back', … }]
 */
export function layerProblems(given: readonly string[], layers: readonly { id: string }[]): { path: string; message: string }[] {
  const ids = layers.map((l) => l.id);
  const out: { path: string; message: string }[] = [];
  for (const id of given) if (!ids.includes(id)) out.push({ path: id, message: `no such layer; the layers are ${ids.join(', ')}` });
  for (const id of ids) if (!given.includes(id)) out.push({ path: id, message: 'missing: every layer needs an image or a one-page PDF' });
  return out;
}

/** A layer's bytes: read from its path, or as given. */
export async function loadLayerInput(input: string | Uint8Array): Promise<Uint8Array> {
  if (input instanceof Uint8Array) return input;
  try {
    return new Uint8Array(await readFile(input));
  } catch (cause) {
    throw new InputUnreadableError(`Cannot read ${input} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
}

/** A fill given for a layer, checked (a library caller's typo is named, not ignored). */
export function fillOf(id: string, fit: unknown): AssemblyFill | undefined {
  if (fit === undefined) return undefined;
  if (!AssemblyFillSchema.safeParse(fit).success) throw new InvalidArgumentError(`Expected cover, contain, stretch, tile, mirror or bleed for the fill of layer ${id}, got ${JSON.stringify(fit)}`);
  return fit as AssemblyFill;
}
