/**
 * The OpenAPI document as tools nobody on the project wrote read it: Redocly's `recommended`
 * ruleset and Spectral's `oas` ruleset (both run offline from devDependencies) find nothing, with
 * and without API keys; and the shapes generators depend on are there.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { OpenApiContract } from '../helpers/contracts.js';

const BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin');
const dir = mkdtempSync(join(tmpdir(), 'pp-openapi-'));
const docs: Record<string, Record<string, unknown>> = {};
const services: ServiceHandle[] = [];

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
};

beforeAll(async () => {
  for (const [name, apiKeys] of [
    ['with-keys', ['openapi-test-key-1']],
    ['without-keys', []],
  ] as const) {
    // No pool: the document is all this needs, and it must not depend on one.
    const s = await startService({ port: 0, dataDir: join(dir, name), logLevel: 'silent', apiKeys: [...apiKeys], workers: 1 });
    services.push(s);
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.status).toBe(200);
    docs[name] = (await res.json()) as Record<string, unknown>;
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(docs[name], null, 2));
  }
  writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
});

afterAll(async () => {
  for (const s of services) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(join(BIN, bin), args, {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const operations = (doc: Record<string, unknown>) =>
  Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe.each(['with-keys', 'without-keys'])('the OpenAPI document (%s)', (name) => {
  it('passes Redocly `recommended` with no error and no warning', async () => {
    const r = await run('redocly', ['lint', `${name}.json`, '--extends', 'recommended', '--format', 'json']);
    const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string }[] };
    expect(out.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(out.totals).toMatchObject({ errors: 0, warnings: 0, ignored: 0 });
    expect(r.code, r.stderr).toBe(0);
  });

  it('passes Spectral `oas` with no error, warning, info or hint', async () => {
    const r = await run('spectral', ['lint', `${name}.json`, '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet']);
    const problems = JSON.parse(r.stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(problems.map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`)).toEqual([]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('names every operation once, summarises and describes it, and declares a 4xx for it', () => {
    const ops = operations(docs[name]!);
    expect(ops.length).toBeGreaterThanOrEqual(12);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ops.length);
    for (const { path, method, op } of ops) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(op.description, `${method} ${path}`).toBeTruthy();
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('4')),
        `${method} ${path}`,
      ).toBe(true);
    }
  });

  it('describes the uploaded file as binary PDF, so generators type it Blob | File', () => {
    const upload = (docs[name]!.components as { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }> }).schemas.CheckUpload!;
    expect(upload.properties.file).toMatchObject({ type: 'string', format: 'binary', contentMediaType: 'application/pdf' });
    expect(upload.required).toContain('file');
    const submit = operations(docs[name]!).find((o) => o.op.operationId === 'submitCheck')!.op;
    expect(Object.keys(submit.requestBody!.content).sort()).toEqual(['application/json', 'multipart/form-data']);
  });

  it('refers to the Report component wherever a report is answered', () => {
    const text = JSON.stringify(docs[name]);
    const check = (docs[name]!.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas.Check!;
    expect(check.properties.report).toEqual({ anyOf: [{ $ref: '#/components/schemas/Report' }, { type: 'null' }] });
    // The report's own fields appear once: in the component.
    expect(text.split('"profileDigest":').length - 1).toBe(1);
  });

  it('says of reports and order bodies exactly what schemas/ publishes', () => {
    const schemas = (docs[name]!.components as { schemas: Record<string, unknown> }).schemas;
    const inline = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(inline)
        : node && typeof node === 'object'
          ? '$ref' in node
            ? inline(
                schemas[
                  String((node as { $ref: string }).$ref)
                    .split('/')
                    .pop()!
                ],
              )
            : Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]))
          : node;
    for (const [component, file] of [
      ['Report', 'report'],
      ['OrderPayload', 'order'],
    ] as const) {
      const { $schema: _s, title: _t, ...published } = JSON.parse(readFileSync(join('schemas', `${file}.schema.json`), 'utf8')) as Record<string, unknown>;
      expect(inline(schemas[component]), component).toEqual(published);
    }
  });

  it('has components ajv compiles in strict mode, and examples that are valid against them', () => {
    const contract = new OpenApiContract(docs[name]!);
    for (const { op } of operations(docs[name]!)) {
      for (const [status, r] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(r.content ?? {})) {
          const example = (media as { example?: unknown }).example;
          if (example === undefined) continue;
          const ref = (media.schema?.$ref as string | undefined)?.split('/').pop();
          expect(ref, `${op.operationId} ${status} ${type}`).toBeTruthy();
          expect(contract.componentErrors(ref!, JSON.stringify(example)), `${op.operationId} ${status} ${type}`).toEqual([]);
        }
      }
    }
  });
});

describe('OpenAPI security', () => {
  it('declares both key schemes and asks for them exactly on the routes behind keys', () => {
    const doc = docs['with-keys']!;
    expect(Object.keys((doc.components as { securitySchemes: object }).securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    // The approval page and fixed files are reached without a key: their unguessable token is the secret.
    const behindKeys = (path: string) => path.startsWith('/v1/') && !path.startsWith('/v1/approvals/') && !path.startsWith('/v1/files/');
    for (const { path, op } of operations(doc)) {
      const secured = (op as { security?: unknown[] }).security?.length ?? 0;
      expect(secured > 0, path).toBe(behindKeys(path));
      expect('401' in op.responses, path).toBe(behindKeys(path));
    }
    for (const { op } of operations(docs['without-keys']!)) expect('401' in op.responses).toBe(false);
    expect((docs['without-keys']!.components as { securitySchemes?: object }).securitySchemes).toBeUndefined();
  });
});
