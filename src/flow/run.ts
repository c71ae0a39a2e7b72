/**
 * A run, resolved once: what one call to the pipeline works under — the options parsed, the
 * profiles loaded, the target resolved (with the call's safe margin), the effective limits, the
 * rules' levels (profile and call, bounded or not), the executor and the decode budget in force.
 * Every level of a check, a fix or a download receives this value instead of parsing options,
 * loading profiles and resolving the target again.
 */
import { parseOrThrow } from '../util/parse.js';
import { PreflightError } from '../errors.js';
import { CheckOptionsSchema, TargetSchema, type CheckOptions, type PreflightOptions, type ResolvedCheckOptions, type Target } from './options.js';
import { DEFAULT_FIX_POLICY } from '../model/policy.js';
import { DEFAULT_DECODE_LIMITS } from '../pdf/decode-budget.js';
import { tightenLimits, type DecodeLimits } from '../pdf/decode-limits.js';
import type { Executor } from '../pool/local.js';
import { defaultPool, PreflightPool } from '../pool/pool.js';
import { registryFrom } from '../profile/load.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import type { Limits, LimitsOverride } from '../profile/schema.js';
import { tightenedLimits } from '../profile/tighten.js';

export interface ResolvedRun {
  /** The target as the caller gave it. */
  request: Target;
  /** The call's options, parsed once (defaults set): the preflight's, the fix's, the download's, the previews'. */
  options: ResolvedCheckOptions;
  registry: ProfileRegistry;
  /** The product variant, with the call's safe margin on its layers. */
  target: ResolvedTarget;
  /** The limits the checks use: the profile's with the call's (only where stricter when `tightenOnly`). */
  limits: Limits;
  executor: Executor;
  /** The file's decode budget: the operator's (the pool's), lowered where the call asks. */
  decodeLimits: DecodeLimits;
}

/**
 * Resolves a call once: options, profiles, target, limits, executor, decode budget.
 * @param known the target as the surface already resolved it from `options.profiles` (batch's
 *   discovery, the command line's typo check): taken as it is, not looked up again
 * @throws {PreflightError} for misuse (bad options, an unknown product, variant or SKU)
 * @example
 * const run = await resolveRun({ sku: 'T-SHIRT-M' }, { raster: false });
 * run.target.layers.map((l) => l.id); // ['front', 'back', 'left-sleeve', 'right-sleeve']
 */
export async function resolveRun(target: Target, options: CheckOptions = {}, known?: ResolvedTarget): Promise<ResolvedRun> {
  const opts = parseOrThrow(CheckOptionsSchema, options ?? {}, 'Invalid preflight options', 'options');
  // With fixes, the profile's policy (DEFAULT_FIX_POLICY when it has none) is the profile's level;
  // the call's severities and policy stay over it (a client's tightening is kept).
  if (opts.fix && !opts.defaultPolicy) opts.defaultPolicy = DEFAULT_FIX_POLICY;
  const request = parseOrThrow(TargetSchema, target, 'Expected { product, variant } or { sku } for target', 'target');
  const registry = await registryFrom(opts.profiles);
  const resolved = withSafeMargin(known ?? registry.resolve(request), opts.limits.safeMarginMm, opts.tightenOnly);
  const executor: Executor = opts.pool === false ? (await import('../pool/local.js')).localExecutor : (opts.pool ?? defaultPool());
  return {
    request,
    options: opts,
    registry,
    target: resolved,
    limits: callLimits(resolved.limits, opts.limits, opts.tightenOnly),
    executor,
    decodeLimits: decodeLimitsOf(executor, opts.decodeLimits),
  };
}

/**
 * The decode limits a call works under: the operator's (its pool's; the safe defaults without one),
 * lowered where the call asks. The commands that write PDFs (fix, assemble) parse under the same.
 * @example
 * decodeLimitsOf(undefined, { maxFileDecodedBytes: 1 << 20 }).maxFileDecodedBytes; // 1048576
 */
export function decodeLimitsOf(pool: unknown, override: PreflightOptions['decodeLimits']): DecodeLimits {
  return tightenLimits(pool instanceof PreflightPool ? pool.decodeLimits : DEFAULT_DECODE_LIMITS, override);
}

/**
 * The limits a call works under: the profile's with the call's over them, or — for a call that may
 * only tighten — each of the call's only where it is stricter.
 * @example
 * callLimits(resolved.limits, { minPpi: 40 }, true).minPpi; // the profile's 100
 */
export function callLimits(profile: Limits, call: LimitsOverride | undefined, tightenOnly: boolean): Limits {
  return tightenOnly ? tightenedLimits(profile, call) : ({ ...profile, ...call } as Limits);
}

/**
 * A per-call safe margin applies to every layer, over the layers' own — for a call that may only
 * tighten, where it is wider than the layer's.
 */
function withSafeMargin(target: ResolvedTarget, safeMarginMm: number | undefined, tightenOnly: boolean): ResolvedTarget {
  if (safeMarginMm === undefined) return target;
  return { ...target, layers: target.layers.map((l) => ({ ...l, safeMarginMm: tightenOnly && (l.safeMarginMm ?? 0) > safeMarginMm ? l.safeMarginMm : safeMarginMm })) };
}

/** Throws ERR_ABORTED once the call's signal aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new PreflightError('ERR_ABORTED', 'The preflight was aborted', { cause: signal.reason });
}
