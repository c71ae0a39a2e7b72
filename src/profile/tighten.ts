/**
 * Which way each per-call override is stricter. The operator's profile (and the severities it sets)
 * is the bound: a client of the service may ask for a stricter check — a lower size limit, a
 * higher resolution, a finding raised to an error — never a looser one.
 */
import { FINDING_CODES, type FindingCode, type SeveritySetting } from '../model/codes.js';
import { grouped } from '../util/text.js';
import type { Limits, LimitsOverride } from './schema.js';

/**
 * `lower`: a smaller value is stricter; `higher`: a larger one is; `fixed`: the value describes the
 * product (its bleed, the resolution it is produced at) and only the profile sets it.
 */
export const LIMIT_DIRECTION: Record<keyof LimitsOverride, 'lower' | 'higher' | 'fixed'> = {
  bleedMm: 'fixed',
  toleranceMm: 'lower',
  scaleTolerance: 'lower',
  minPpi: 'higher',
  minPpiError: 'higher',
  productionPpi: 'fixed',
  maxImagePixels: 'lower',
  maxFileBytes: 'lower',
  blankInkCoverage: 'higher',
  minEdgeGapMm: 'lower',
  safeMarginMm: 'higher',
  minLineWidthPt: 'higher',
  minTextSizePt: 'higher',
  minJpegQuality: 'higher',
  infoJpegQuality: 'higher',
  /** A smaller enlargement reported is stricter. */
  minUpscaleFactor: 'lower',
  maxUnpaintedShare: 'lower',
  boxEpsilonMm: 'lower',
};

/** Severity settings from the least to the most strict. */
const SEVERITY_ORDER: readonly SeveritySetting[] = ['off', 'info', 'warning', 'error'];

export interface Loosening {
  /** `limits.maxFileBytes`, `severities.page-blank` */
  path: string;
  message: string;
}

/**
 * The overrides that would loosen what `limits` and `severities` (the operator's, for the target)
 * set; empty when every override is as strict or stricter.
 * @example
 * loosenings(resolved.limits, resolved.profile.severities, { limits: { maxFileBytes: 1e10 } });
 * // [{ path: 'limits.maxFileBytes', message: 'may only be lowered: this server's limit is 50,000,000' }]
 */
export function loosenings(
  limits: Limits,
  severities: Readonly<Partial<Record<FindingCode, SeveritySetting>>>,
  overrides: { limits?: LimitsOverride | undefined; severities?: Readonly<Partial<Record<FindingCode, SeveritySetting>>> | undefined },
): Loosening[] {
  const out: Loosening[] = [];
  for (const [field, value] of Object.entries(overrides.limits ?? {}) as [keyof LimitsOverride, number | undefined][]) {
    if (value === undefined) continue;
    const bound = limits[field];
    const direction = LIMIT_DIRECTION[field];
    const path = `limits.${field}`;
    if (bound === undefined) {
      // The profile sets no bound (a safe margin it does not draw): a client may add one.
      if (direction === 'fixed') out.push({ path, message: 'is set by the product profile only' });
      continue;
    }
    if (value === bound) continue;
    const shown = grouped(bound);
    if (direction === 'fixed') out.push({ path, message: `is set by the product profile only (${shown})` });
    else if (direction === 'lower' && value > bound) out.push({ path, message: `may only be lowered: this server's limit is ${shown}` });
    else if (direction === 'higher' && value < bound) out.push({ path, message: `may only be raised: this server's limit is ${shown}` });
  }
  for (const [code, setting] of Object.entries(overrides.severities ?? {}) as [FindingCode, SeveritySetting | undefined][]) {
    if (setting === undefined) continue;
    const current = severities[code] ?? FINDING_CODES[code].severity;
    if (SEVERITY_ORDER.indexOf(setting) < SEVERITY_ORDER.indexOf(current)) {
      out.push({ path: `severities.${code}`, message: `may only be raised: this server's severity is "${current}"` });
    }
  }
  return out;
}

/**
 * The limits a call that may only tighten works under: each override where it is stricter than the
 * operator's (`LIMIT_DIRECTION`), the operator's where it is not; the product's own values
 * (`fixed`) stay the profile's.
 * @example
 * tightenedLimits(resolved.limits, { minPpi: 40, maxFileBytes: 1e6 }); // minPpi stays 100, maxFileBytes 1,000,000
 */
export function tightenedLimits(limits: Limits, overrides: LimitsOverride | undefined): Limits {
  const out = { ...limits } as Record<string, number | undefined>;
  for (const [field, value] of Object.entries(overrides ?? {}) as [keyof LimitsOverride, number | undefined][]) {
    if (value === undefined || !(field in LIMIT_DIRECTION)) continue;
    const bound = limits[field];
    const direction = LIMIT_DIRECTION[field];
    if (bound === undefined) {
      if (direction !== 'fixed') out[field] = value;
      continue;
    }
    if (direction === 'lower' && value < bound) out[field] = value;
    else if (direction === 'higher' && value > bound) out[field] = value;
  }
  return out as Limits;
}
