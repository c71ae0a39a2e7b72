import { describe, expect, it } from 'vitest';
import { LimitsOverrideSchema, LimitsSchema } from '../../../src/profile/schema.js';
import { LIMIT_DIRECTION, loosenings } from '../../../src/profile/tighten.js';

const limits = LimitsSchema.parse({ bleedMm: 20 });

describe('loosenings: what a call may not change', () => {
  it('names a direction for every per-call limit (a new limit field must say which way is stricter)', () => {
    expect(Object.keys(LIMIT_DIRECTION).sort()).toEqual(Object.keys(LimitsOverrideSchema.shape).sort());
  });

  it.each([
    // field, value, allowed
    ['maxFileBytes', 1e10, false],
    ['maxFileBytes', 50_000_000, true],
    ['maxFileBytes', 1_000, true],
    ['maxImagePixels', 15_001, false],
    ['toleranceMm', 2.5, false],
    ['toleranceMm', 0, true],
    ['scaleTolerance', 0.02, false],
    ['minPpi', 99, false],
    ['minPpi', 300, true],
    ['minPpiError', 0, false],
    ['minPpiError', 60, true],
    ['blankInkCoverage', 0, false],
    ['blankInkCoverage', 0.01, true],
    ['minEdgeGapMm', 2, false],
    ['minEdgeGapMm', 0.5, true],
    ['boxEpsilonMm', 1, false],
    ['bleedMm', 20, true],
    ['bleedMm', 10, false],
    ['bleedMm', 30, false],
    ['productionPpi', 300, false],
    ['safeMarginMm', 10, true],
  ] as const)('limits.%s = %s: allowed %s', (field, value, allowed) => {
    const found = loosenings(limits, {}, { limits: { [field]: value } });
    expect(found.length === 0, JSON.stringify(found)).toBe(allowed);
    if (!allowed) expect(found[0]!.path).toBe(`limits.${field}`);
  });

  it('a safe margin the profile draws may only grow', () => {
    const withMargin = LimitsSchema.parse({ bleedMm: 20, safeMarginMm: 15 });
    expect(loosenings(withMargin, {}, { limits: { safeMarginMm: 10 } })).toHaveLength(1);
    expect(loosenings(withMargin, {}, { limits: { safeMarginMm: 20 } })).toHaveLength(0);
  });

  it.each([
    ['page-blank', 'warning', {}, true],
    ['page-blank', 'info', {}, false],
    ['page-blank', 'off', {}, false],
    ['file-too-large', 'warning', {}, false],
    ['file-too-large', 'error', {}, true],
    ['page-blank', 'warning', { 'page-blank': 'off' }, true],
    ['page-blank', 'off', { 'page-blank': 'off' }, true],
    ['page-blank', 'info', { 'page-blank': 'error' }, false],
  ] as const)("severities.%s = %s against the profile's %j: allowed %s", (code, setting, profile, allowed) => {
    const found = loosenings(limits, profile, { severities: { [code]: setting } });
    expect(found.length === 0, JSON.stringify(found)).toBe(allowed);
  });

  it('lists every loosening at once', () => {
    expect(loosenings(limits, {}, { limits: { maxFileBytes: 1e9, minPpi: 1 }, severities: { 'file-too-large': 'off' } }).map((l) => l.path)).toEqual([
      'limits.maxFileBytes',
      'limits.minPpi',
      'severities.file-too-large',
    ]);
  });
});
