/**
 * Our published contracts, checked against the bytes we emit with a validator nobody on the project
 * wrote: ajv 8 in strict mode, draft 2020-12, with ajv-formats. The schemas are read from the files
 * an integrator reads (schemas/*.schema.json) or from the OpenAPI document the server serves, never
 * from our zod schemas, and what is validated is the text we wrote, parsed as JSON.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { expect } from 'vitest';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

const ROOT = join(import.meta.dirname, '..', '..');

/** A strict ajv: unknown keywords, formats, loose types and ignored tuple items are schema errors. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

export type Published = 'report' | 'fixed-report' | 'batch-summary' | 'batch-error' | 'profile' | 'order';

const published = new Map<Published, ValidateFunction>();

function publishedValidator(name: Published): ValidateFunction {
  let v = published.get(name);
  if (!v) {
    v = strictAjv().compile(JSON.parse(readFileSync(join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object);
    published.set(name, v);
  }
  return v;
}

function asText(bytes: string | Uint8Array): string {
  return typeof bytes === 'string' ? bytes : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** Errors of a document (as the bytes we wrote) against a published schema; empty when valid. */
export function publishedErrors(name: Published, bytes: string | Uint8Array): string[] {
  const v = publishedValidator(name);
  return v(JSON.parse(asText(bytes))) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Asserts the bytes are valid against schemas/<name>.schema.json, and returns them parsed. */
export function expectPublished<T = Record<string, unknown>>(name: Published, bytes: string | Uint8Array, what: string = name): T {
  expect(publishedErrors(name, bytes), `${what} against schemas/${name}.schema.json`).toEqual([]);
  return JSON.parse(asText(bytes)) as T;
}

/** Validates bodies against the schemas of an OpenAPI 3.1 document (its components and operations). */
export class OpenApiContract {
  private readonly ajv = strictAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private static seq = 0;
  private readonly id = `urn:openapi-under-test:${++OpenApiContract.seq}`;

  constructor(readonly doc: Record<string, unknown>) {
    // OpenAPI's own format for file contents; everything else is JSON Schema 2020-12.
    this.ajv.addFormat('binary', true);
    this.ajv.addVocabulary(['example']);
    const schemas = (doc.components as { schemas?: object } | undefined)?.schemas ?? {};
    this.ajv.addSchema({ $id: this.id, $defs: rewriteRefs(schemas, '') }, this.id);
  }

  /** The schema of a response (or of a component when `status` is a component name). */
  private validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: pointer });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  /** Errors of a body against a component schema (`Problem`, `Check`, `Report`…). */
  componentErrors(component: string, bytes: string | Uint8Array): string[] {
    const v = this.validator(`${this.id}#/$defs/${component}`);
    return v(JSON.parse(asText(bytes))) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  /** The operation a request reached, by method and concrete path. */
  operation(method: string, path: string): { template: string; op: Record<string, unknown> } | null {
    for (const [template, ops] of Object.entries(this.doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+')}$`);
      if (re.test(path) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()]! };
    }
    return null;
  }

  /**
   * What is wrong with an answer to `method path`: an undeclared status, or a body that its declared
   * schema refuses. Empty when the answer is as documented.
   */
  answerErrors(method: string, path: string, status: number, contentType: string | null, body: Uint8Array): string[] {
    const found = this.operation(method, path);
    if (!found) return [`${method} ${path} answered ${status}, but the document has no such operation`];
    const responses = found.op.responses as Record<string, { content?: Record<string, { schema?: object }> }>;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    const where = `${method.toUpperCase()} ${found.template} → ${status}`;
    if (!declared) return [`${where} is not declared (declared: ${Object.keys(responses).join(', ')})`];
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!declared.content) return body.length ? [`${where} answered a ${type || 'body'} but declares no content`] : [];
    const media = declared.content[type];
    if (!media) return [`${where} answered ${type || 'no content type'}; declared: ${Object.keys(declared.content).join(', ')}`];
    if (!media.schema || !/json$/.test(type)) return [];
    const key = `${where} ${type}`;
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile({ $id: `${this.id}:${++OpenApiContract.seq}`, ...rewriteRefs(media.schema, this.id) });
      this.compiled.set(key, v);
    }
    return v(JSON.parse(asText(body))) ? [] : (v.errors ?? []).map((e) => `${where}: ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
}

/** `#/components/schemas/X` → `<id>#/$defs/X`: the components are held as one schema's $defs. */
function rewriteRefs(node: unknown, id: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(node).replaceAll('"#/components/schemas/', `"${id}#/$defs/`)) as Record<string, unknown>;
}
