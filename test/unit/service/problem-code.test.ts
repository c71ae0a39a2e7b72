/**
 * Problem codes have one spelling, kebab-case: library error codes (`ERR_UNKNOWN_SKU`, the spelling
 * problem bodies used before 0.2.0) are converted, and the old spelling rides along as the
 * deprecated `legacyCode`; the missing server packages are one typed error naming what to install.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, MissingDependencyError, PreflightError } from '../../../src/errors.js';
import { PROBLEM_CODE_PATTERN, problemBody, problemCode } from '../../../src/service/problem.js';

describe('problemCode', () => {
  it.each([
    ['ERR_UNKNOWN_SKU', 'unknown-sku'],
    ['ERR_UNKNOWN_VARIANT', 'unknown-variant'],
    ['ERR_SERVICE_RATE_LIMITED', 'service-rate-limited'],
    ['ERR_INVALID_ARGUMENT', 'invalid-argument'],
    ['request-invalid', 'request-invalid'],
    ['upload-too-large', 'upload-too-large'],
  ])('%s → %s', (given, expected) => {
    expect(problemCode(given)).toBe(expected);
  });

  it('gives every library error code a kebab-case problem code, each its own', () => {
    const codes = ERROR_CODES.map(problemCode);
    for (const c of codes) expect(c).toMatch(PROBLEM_CODE_PATTERN);
    expect(new Set(codes).size).toBe(ERROR_CODES.length);
  });

  it('a problem body carries the new code, its type URI, and the old spelling as legacyCode only when it differed', () => {
    const request = { url: '/v1/checks?wait=60' } as Parameters<typeof problemBody>[3];
    expect(problemBody(422, 'ERR_UNKNOWN_SKU', 'No product has SKU "X".', request)).toMatchObject({
      type: 'urn:print-preflight:problem:unknown-sku',
      code: 'unknown-sku',
      legacyCode: 'ERR_UNKNOWN_SKU',
      instance: '/v1/checks',
    });
    expect(problemBody(400, 'request-invalid', 'x', request)).not.toHaveProperty('legacyCode');
  });
});

describe('MissingDependencyError', () => {
  it('is a PreflightError with a stable code that names each package and the command that installs them', () => {
    const e = new MissingDependencyError('print-preflight serve', ['fastify', 'prom-client']);
    expect(e).toBeInstanceOf(PreflightError);
    expect(e.code).toBe('ERR_MISSING_DEPENDENCY');
    expect(e.packages).toEqual(['fastify', 'prom-client']);
    expect(e.message).toBe(
      'print-preflight serve needs fastify and prom-client, which are not installed. Install the server package, which pins the versions this release is tested with: npm install print-preflight-server; or add them yourself: npm install fastify@5 prom-client@15.',
    );
  });
});
