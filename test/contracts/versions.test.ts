/**
 * Versioned contracts: the schemas and the OpenAPI document of this tree against those of the last
 * release (test/contracts/released/<version>/, committed when a version is released). A change a
 * reader or writer of the old contract would trip over needs a version bump: the report's
 * `schemaVersion` for the report, the package's major version (minor before 1.0) for profiles,
 * order bodies and the HTTP API. The checker itself is tested on changes of each kind.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINDING_CODES } from '../../src/model/codes.js';
import { jsonSchemas } from '../../src/schemas.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { openApiIncompatibilities, schemaIncompatibilities } from './compat.js';
import { tempDir } from '../service/harness.js';

const RELEASED = join(import.meta.dirname, 'released');
const semver = (v: string) => v.split('.').map(Number) as [number, number, number];
const newer = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
};
const last = readdirSync(RELEASED).reduce((a, b) => (newer(b, a) ? b : a));
const released = (file: string) => JSON.parse(readFileSync(join(RELEASED, last, file), 'utf8')) as Record<string, unknown>;
const current = jsonSchemas() as Record<string, Record<string, unknown>>;
const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
/** What has to change for an incompatible change: the major version, or the minor one before 1.0. */
const compatKey = (v: string) => (semver(v)[0] === 0 ? `0.${semver(v)[1]}` : String(semver(v)[0]));

const codes = new Set(Object.keys(FINDING_CODES));
/** The finding codes are an open list: codes are added (README), a reader must accept new ones. */
const openEnum = (values: readonly unknown[]) => values.length > 0 && values.every((v) => codes.has(v as string));
const schemaVersionOf = (schema: Record<string, unknown>) => ((schema.properties as Record<string, { const?: number }>).schemaVersion?.const ?? null) as number | null;

const clone = <T>(x: T): T => structuredClone(x);
type Obj = Record<string, any>;

let service: ServiceHandle;
let doc: Record<string, unknown>;

beforeAll(async () => {
  service = await startService({ port: 0, dataDir: tempDir('pp-versions-'), logLevel: 'silent', apiKeys: ['versions-test-key-1'], workers: 1 });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
});
afterAll(async () => {
  await service?.close();
});

describe(`contracts against the last release (${last})`, () => {
  it('the release snapshot is not newer than this package', () => {
    expect(newer(last, packageVersion)).toBe(false);
  });

  it('report.schema.json: compatible for readers, or schemaVersion was raised', () => {
    const before = released('report.schema.json');
    const now = current['report.schema.json']!;
    const [v0, v1] = [schemaVersionOf(before), schemaVersionOf(now)];
    expect(v1).not.toBeNull();
    expect(v1!).toBeGreaterThanOrEqual(v0!);
    if (v1 === v0) expect(schemaIncompatibilities(before, now, { direction: 'output', openEnum })).toEqual([]);
  });

  it.each([
    ['profile.schema.json', 'input'],
    ['order.schema.json', 'input'],
  ] as const)('%s: accepts everything the release accepted, or the package version was raised', (file, direction) => {
    if (compatKey(packageVersion) !== compatKey(last)) return;
    expect(schemaIncompatibilities(released(file), current[file]!, { direction, openEnum })).toEqual([]);
  });

  it('the HTTP API (OpenAPI): no operation, parameter, body or success answer broken, or the package version was raised', () => {
    if (compatKey(packageVersion) !== compatKey(last)) return;
    expect(openApiIncompatibilities(released('openapi.json'), doc, openEnum)).toEqual([]);
  });
});

describe('the compatibility checker', () => {
  const report = () => clone(current['report.schema.json']!) as Obj;
  const profile = () => clone(current['profile.schema.json']!) as Obj;
  const check = (before: Obj, after: Obj, direction: 'input' | 'output') => schemaIncompatibilities(before, after, { direction, openEnum });

  it('takes a closed list of finding codes becoming an open string that documents them all as compatible, and one that leaves a code out as not', () => {
    const closed = report();
    const code = closed.properties.findings.items.properties.code;
    closed.properties.findings.items.properties.code = { type: 'string', enum: [...code.examples] };
    expect(check(closed, report(), 'output')).toEqual([]);
    const missing = report();
    missing.properties.findings.items.properties.code.examples.pop();
    expect(check(closed, missing, 'output').length).toBeGreaterThan(0);
  });

  it('finds the report unchanged compatible with itself', () => {
    expect(check(report(), report(), 'output')).toEqual([]);
    expect(check(profile(), profile(), 'input')).toEqual([]);
  });

  it.each<[string, boolean, (r: Obj) => void]>([
    ['a field added to each page', true, (r) => (r.properties.pages.items.properties.newField = { type: 'string' })],
    ['a new finding code', true, (r) => r.properties.findings.items.properties.code.examples.push('page-new-code')],
    ['a new finding code as a key of rules', true, (r) => r.properties.rules.propertyNames.examples.push('page-new-code')],
    ['a closed list (verdict) made an open string', false, (r) => (r.properties.verdict = { type: 'string', examples: ['pass', 'warn', 'fail'] })],
    [
      'a field removed',
      false,
      (r) => ((r.properties.pages.items.required = r.properties.pages.items.required.filter((x: string) => x !== 'rotate')), delete r.properties.pages.items.properties.rotate),
    ],
    ['a required field made optional', false, (r) => (r.properties.pages.items.required = r.properties.pages.items.required.filter((x: string) => x !== 'rotate'))],
    ['null allowed where a number was promised', false, (r) => (r.properties.pages.items.properties.widthMm = { type: ['number', 'null'] })],
    ['a new verdict', false, (r) => r.properties.verdict.enum.push('maybe')],
    ['a number where an integer was promised', false, (r) => (r.properties.counts.properties.error.type = 'number')],
    ['a wider range', false, (r) => (r.properties.file.properties.bytes.minimum = -1)],
    ['a string no longer matching its pattern', false, (r) => delete r.properties.file.properties.sha256.pattern],
  ])('report (output): %s → compatible %s', (_what, compatible, change) => {
    const after = report();
    change(after);
    expect(check(report(), after, 'output').length === 0).toBe(compatible);
  });

  it.each<[string, boolean, (p: Obj) => void]>([
    ['an optional field added', true, (p) => (p.properties.notes = { type: 'string' })],
    ['a limit relaxed', true, (p) => (p.properties.limits.properties.toleranceMm.maximum = 5000)],
    ['a new required field', false, (p) => ((p.properties.owner = { type: 'string' }), p.required.push('owner'))],
    ['a field removed (strict objects then refuse it)', false, (p) => delete p.properties.name],
    ['a limit tightened', false, (p) => (p.properties.limits.properties.toleranceMm.maximum = 10)],
    ['a pattern changed', false, (p) => (p.properties.id.pattern = '^[a-z]+$')],
    ['an enum narrowed', false, (p) => p.properties.layers.items.properties.sewnEdges.items.enum.pop()],
  ])('profile (input): %s → compatible %s', (_what, compatible, change) => {
    const after = profile();
    change(after);
    expect(check(profile(), after, 'input').length === 0).toBe(compatible);
  });

  it.each<[string, boolean, (d: Obj) => void]>([
    ['a new operation', true, (d) => (d.paths['/v1/extra'] = { get: { responses: { 200: { description: 'x' } } } })],
    ['a new error status', true, (d) => (d.paths['/v1/checks/{id}'].get.responses['418'] = { description: 'x' })],
    ['an operation removed', false, (d) => delete d.paths['/v1/checks/{id}'].delete],
    ['a new required query parameter', false, (d) => d.paths['/v1/checks/{id}'].get.parameters.push({ name: 'x', in: 'query', required: true, schema: { type: 'string' } })],
    ['a success status removed', false, (d) => delete d.paths['/v1/checks'].post.responses['202']],
    ['a multipart upload no longer taken', false, (d) => delete d.paths['/v1/checks'].post.requestBody.content['multipart/form-data']],
    [
      'a check field removed',
      false,
      (d) => ((d.components.schemas.Check.required = d.components.schemas.Check.required.filter((x: string) => x !== 'links')), delete d.components.schemas.Check.properties.links),
    ],
    ['a submission field refused', false, (d) => delete d.components.schemas.CheckSubmission.properties.callbackUrl],
  ])('OpenAPI: %s → compatible %s', (_what, compatible, change) => {
    const after = clone(doc) as Obj;
    change(after);
    expect(openApiIncompatibilities(doc, after, openEnum).length === 0).toBe(compatible);
  });
});
