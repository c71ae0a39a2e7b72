/**
 * JSON Schema (draft 2020-12) from our zod schemas: the one conversion behind the published
 * schemas/ files and the OpenAPI document, so both say the same thing.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * Lists of values that grow within a contract version (the finding codes): zod checks them as an
 * enum, and what we publish about what we *write* says `type: string` with the values of this
 * release as `examples` and in the description. A generated client then types the field as a
 * string — a report from a newer release, with a code this client has not seen, still parses —
 * while its documentation lists every known code. Why this form: an `enum` makes strict clients
 * refuse new codes; `anyOf: [{enum}, {type: string}]` becomes a union that TypeScript collapses to
 * `string` anyway and a wrapper class in openapi-generator's Python client; vendor keywords
 * (`x-extensible-enum`) trip ajv's strict mode in the published JSON Schemas. Documents we *read*
 * (profiles, request bodies) keep the enum: the server refuses a code it does not know.
 */
const OPEN_ENUMS = new WeakMap<z.ZodType, string>();

/**
 * Marks `schema` (a z.enum) as an open list in published output schemas.
 * @param what what one value is, for the description ("A finding code")
 * @example export const FindingCodeSchema = openEnum(z.enum(CODES), 'A finding code');
 */
export function openEnum<T extends z.ZodType>(schema: T, what: string): T {
  OPEN_ENUMS.set(schema, what);
  return schema;
}

/** The zod → JSON Schema override that writes open enums as documented strings (output only). */
export function openEnumOverride(io: 'input' | 'output'): (ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) => void {
  return (ctx) => {
    if (io !== 'output') return;
    const what = OPEN_ENUMS.get(ctx.zodSchema as z.ZodType);
    const values = ctx.jsonSchema.enum;
    if (!what || !Array.isArray(values)) return;
    delete ctx.jsonSchema.enum;
    ctx.jsonSchema.type = 'string';
    // Codes keep their form (kebab-case), so the values a reader may meet stay recognisable.
    ctx.jsonSchema.pattern = '^[a-z][a-z0-9]*(-[a-z0-9]+)*$';
    ctx.jsonSchema.description = `${what}. Known values in this release: ${values.join(', ')}. The list is open: new values may appear within the same contract version; treat one you do not know by the fields beside it.`;
    ctx.jsonSchema.examples = values;
  };
}

/**
 * The JSON Schema of a zod schema as `io` sees it: `input` for what we accept (defaults may be left
 * out), `output` for what we emit (every field we always write is required). Objects zod keeps
 * strict or strips become `additionalProperties: false`.
 * @example toJsonSchema(ReportSchema, 'output') // { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', … }
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return normaliseJsonSchema(z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline', override: openEnumOverride(io) })) as JsonSchema;
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
