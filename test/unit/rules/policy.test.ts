import { describe, expect, it } from 'vitest';
import { PolicySchema } from '../../../src/model/policy.js';
import { policyLoosenings, settleFinding } from '../../../src/rules/settle.js';
import { settle } from '../../../src/rules/index.js';

describe('policy per finding code', () => {
  it('fix keeps the severity the finding would have, and marks it', () => {
    expect(settleFinding('colour-space-not-rgb', undefined, { policy: { 'colour-space-not-rgb': 'fix' } }, {})).toEqual({ action: 'fix', severity: 'warning' });
    expect(settleFinding('page-order-mismatch', undefined, {}, { policy: { 'page-order-mismatch': 'fix' } })).toEqual({ action: 'fix', severity: 'error' });
  });

  it('reject, warn and off set the severity; the call overrides the profile', () => {
    expect(settleFinding('page-scale-mismatch', undefined, { policy: { 'page-scale-mismatch': 'reject' } }, {})).toEqual({ action: 'reject', severity: 'error' });
    expect(settleFinding('page-order-mismatch', undefined, { policy: { 'page-order-mismatch': 'reject' } }, { policy: { 'page-order-mismatch': 'warn' } })).toEqual({
      action: 'warn',
      severity: 'warning',
    });
    expect(settleFinding('page-blank', undefined, {}, { policy: { 'page-blank': 'off' } }).action).toBe('off');
  });

  it('refuses fix for a code with no fix', () => {
    expect(PolicySchema.safeParse({ 'image-low-resolution': 'fix' }).success).toBe(false);
    expect(PolicySchema.safeParse({ 'page-rotate-set': 'fix', 'image-low-resolution': 'reject' }).success).toBe(true);
  });

  it('settle drops off findings and marks fix findings only', () => {
    const drafts = [
      { code: 'page-rotate-set' as const, page: 1, layer: 'front', message: 'a', expected: null, actual: null },
      { code: 'page-blank' as const, page: 2, layer: 'back', message: 'b', expected: null, actual: null },
      { code: 'page-scale-mismatch' as const, page: 1, layer: 'front', message: 'c', expected: null, actual: null },
    ];
    const out = settle(drafts, { policy: { 'page-rotate-set': 'fix' } }, { policy: { 'page-blank': 'off' } });
    expect(out.map((f) => [f.code, f.severity, f.action])).toEqual([
      ['page-rotate-set', 'warning', 'fix'],
      ['page-scale-mismatch', 'warning', undefined],
    ]);
    expect('action' in out[1]!).toBe(false);
  });

  it("a call may tighten the operator's policy, never loosen it", () => {
    const operator = { policy: { 'page-order-mismatch': 'reject' as const } };
    expect(policyLoosenings(operator, { 'page-order-mismatch': 'fix' })).toHaveLength(1);
    expect(policyLoosenings(operator, { 'page-order-mismatch': 'warn' })).toHaveLength(1);
    expect(policyLoosenings({}, { 'page-rotate-set': 'fix', 'page-blank': 'reject' })).toEqual([]);
    expect(policyLoosenings({}, { 'page-count-mismatch': 'off' })).toHaveLength(1);
  });
});
