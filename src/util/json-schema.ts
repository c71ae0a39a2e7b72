/**
 * JSON Schema (draft 2020-12) from our zod schemas: the one conversion behind the published
 * schemas/ files and the OpenAPI document, so both say the same thing.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of a zod schema as `io` sees it: `input` for what we accept (defaults may be left
 * out), `output` for what we emit (every field we always write is required). Objects zod keeps
 * strict or strips become `additionalProperties: false`.
 * @example toJsonSchema(ReportSchema, 'output') // { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', … }
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return normaliseJsonSchema(z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' })) as JsonSchema;
}

/**
 * Rewrites what zod emits into forms every tool reads the same way, without changing which values
 * are valid: a fixed-length tuple (`prefixItems`, `items: false`, `maxItems` = its length) gets the
 * items schema its members share instead of `false`, which OpenAPI linters and generators written
 * for OpenAPI 3.0 require (nothing can follow the prefix either way: `maxItems` forbids it).
 */
export function normaliseJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normaliseJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = normaliseJsonSchema(v);
  const prefix = out.prefixItems;
  if (Array.isArray(prefix) && out.items === false && out.maxItems === prefix.length) {
    const first = JSON.stringify(prefix[0]);
    out.items = prefix.every((p) => JSON.stringify(p) === first) ? prefix[0] : {};
  }
  return out;
}
