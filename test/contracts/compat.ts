/**
 * Is a new version of a contract compatible with the released one? The rules (README, "Versioned
 * contracts"):
 * - a document we read (profile, order draft, request body, parameter) is compatible when every
 *   document the old schema accepted is still accepted: `old ⊆ new`;
 * - a document we write (report, response body) is compatible when a reader written against the old
 *   schema still reads every new document, ignoring properties it does not know: `new ⊆ old`, where
 *   new properties are allowed, and an open list (finding codes) may gain values.
 * The comparison is structural and conservative: what it cannot prove compatible it reports.
 */

type Schema = Record<string, unknown> | boolean;

export interface CompatOptions {
  /** Reading direction: 'input' (old ⊆ new) or 'output' (new ⊆ old, additions allowed). */
  direction: 'input' | 'output';
  /** An enum that may gain values (e.g. the finding codes), given its old values. */
  openEnum?: (values: readonly unknown[]) => boolean;
}

interface Side {
  schema: Schema;
  root: Record<string, unknown>;
}

const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'example',
  'default',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  'contentEncoding',
  'contentMediaType',
  'x-problem-codes',
]);
const UNDERSTOOD = new Set([
  ...ANNOTATIONS,
  '$ref',
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

function resolve(side: Side, seen = 0): Side {
  const s = side.schema;
  if (typeof s === 'object' && typeof s.$ref === 'string' && Object.keys(s).every((k) => k === '$ref' || ANNOTATIONS.has(k))) {
    if (seen > 32) throw new Error(`$ref loop at ${s.$ref}`);
    const target = (s.$ref.replace(/^#\//, '').split('/') as string[]).reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], side.root);
    if (target === undefined) throw new Error(`unresolved $ref ${s.$ref}`);
    return resolve({ schema: target as Schema, root: side.root }, seen + 1);
  }
  return side;
}

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

function typesOf(s: Record<string, unknown>): Set<string> | null {
  if (s.const !== undefined) return new Set([jsonType(s.const)]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map(jsonType));
  if (s.type === undefined) return null;
  return new Set([s.type].flat() as string[]);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const typeWithin = (t: string, allowed: Set<string>) => allowed.has(t) || (t === 'integer' && allowed.has('number'));

function valuesOf(s: Record<string, unknown>): unknown[] | null {
  if (s.const !== undefined) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  return null;
}

/**
 * Why not every value `a` allows is allowed by `b` (empty when it is so). `extraOk`: properties of
 * `a` that `b` does not know are fine (output direction).
 */
function subset(a: Side, b: Side, path: string, o: CompatOptions, out: string[]): void {
  a = resolve(a);
  b = resolve(b);
  const A = a.schema;
  const B = b.schema;
  if (B === true || (typeof B === 'object' && Object.keys(B).every((k) => ANNOTATIONS.has(k)))) return;
  if (A === false) return;
  if (B === false) return void out.push(`${path}: no longer allowed at all`);
  if (A === true || Object.keys(A).every((k) => ANNOTATIONS.has(k))) return void out.push(`${path}: anything was allowed, now constrained`);
  const outerOutput = o.direction === 'output';
  for (const k of Object.keys(B)) if (!UNDERSTOOD.has(k)) out.push(`${path}: cannot compare keyword "${k}"`);
  for (const k of Object.keys(A)) if (!UNDERSTOOD.has(k)) out.push(`${path}: cannot compare keyword "${k}"`);

  const aUnion = (A.anyOf ?? A.oneOf) as Schema[] | undefined;
  if (aUnion) {
    const { anyOf: _x, oneOf: _y, ...restA } = A;
    for (const [i, branch] of aUnion.entries()) subset({ schema: merge(restA, branch), root: a.root }, b, `${path}|${i}`, o, out);
    return;
  }
  // A value of several types: each type on its own (so it can meet the right branch of b).
  const aTypes = typesOf(A);
  if (aTypes && aTypes.size > 1 && !valuesOf(A)) {
    for (const t of aTypes) subset({ schema: { ...A, type: t }, root: a.root }, b, path, o, out);
    return;
  }
  const bUnion = (B.anyOf ?? B.oneOf) as Schema[] | undefined;
  if (bUnion) {
    const { anyOf: _x, oneOf: _y, ...restB } = B;
    const tries = bUnion.map((branch) => {
      const errs: string[] = [];
      subset(a, { schema: merge(restB, branch), root: b.root }, path, o, errs);
      return errs;
    });
    const best = tries.reduce((x, y) => (y.length < x.length ? y : x));
    out.push(...best);
    return;
  }

  const bTypes = typesOf(B);
  if (bTypes) {
    if (!aTypes) out.push(`${path}: any type was allowed, now ${[...bTypes].join(' | ')}`);
    else for (const t of aTypes) if (!typeWithin(t, bTypes)) out.push(`${path}: type ${t} is not allowed by ${[...bTypes].join(' | ')}`);
  }
  const bValues = valuesOf(B);
  if (bValues) {
    const aValues = valuesOf(A);
    const open = o.openEnum?.(o.direction === 'output' ? bValues : (aValues ?? [])) ?? false;
    // An open list published as a string that documents its values (`examples`): a reader of the
    // old enum was told the list grows, and every value it knew is still among the documented ones.
    const documented = Array.isArray(A.examples) ? (A.examples as unknown[]) : [];
    const openString = !aValues && open && outerOutput && aTypes?.size === 1 && aTypes.has('string') && bValues.every((v) => documented.includes(v));
    if (openString) {
      // compatible: see above
    } else if (!aValues) out.push(`${path}: any value was allowed, now one of ${bValues.length}`);
    else if (!(open && outerOutput)) {
      const missing = aValues.filter((v) => !bValues.some((w) => JSON.stringify(w) === JSON.stringify(v)));
      if (missing.length) out.push(`${path}: ${missing.map((v) => JSON.stringify(v)).join(', ')} not allowed`);
    }
  }
  const types = aTypes ?? new Set(TYPES);
  if (types.has('string')) {
    if (B.pattern !== undefined && B.pattern !== A.pattern) out.push(`${path}: pattern ${String(A.pattern ?? '(none)')} → ${String(B.pattern)}`);
    // `binary` (OpenAPI) and contentMediaType say how a value is encoded, not which values are valid.
    if (B.format !== undefined && B.format !== 'binary' && B.format !== A.format) out.push(`${path}: format ${String(A.format ?? '(none)')} → ${String(B.format)}`);
    bound(A.minLength as number | undefined, B.minLength as number | undefined, 'min', `${path} minLength`, out);
    bound(A.maxLength as number | undefined, B.maxLength as number | undefined, 'max', `${path} maxLength`, out);
  }
  if (types.has('number') || types.has('integer')) {
    bound(lower(A), lower(B), 'min', `${path} minimum`, out);
    bound(upper(A), upper(B), 'max', `${path} maximum`, out);
    if (B.multipleOf !== undefined && B.multipleOf !== A.multipleOf) out.push(`${path}: multipleOf changed`);
  }
  if (types.has('array')) {
    bound(A.minItems as number | undefined, B.minItems as number | undefined, 'min', `${path} minItems`, out);
    bound(A.maxItems as number | undefined, B.maxItems as number | undefined, 'max', `${path} maxItems`, out);
    const ap = (A.prefixItems as Schema[] | undefined) ?? [];
    const bp = (B.prefixItems as Schema[] | undefined) ?? [];
    const n = Math.max(ap.length, bp.length);
    for (let i = 0; i < n; i++) {
      const ai = ap[i] ?? (A.items as Schema | undefined) ?? true;
      const bi = bp[i] ?? (B.items as Schema | undefined) ?? true;
      subset({ schema: ai, root: a.root }, { schema: bi, root: b.root }, `${path}[${i}]`, o, out);
    }
    // Items past both prefixes, unless `a` cannot have any.
    const aMax = A.maxItems as number | undefined;
    if (B.items !== undefined && !(aMax !== undefined && aMax <= n))
      subset({ schema: (A.items as Schema | undefined) ?? true, root: a.root }, { schema: B.items as Schema, root: b.root }, `${path}[]`, o, out);
  }
  if (types.has('object')) objectSubset(A, a.root, B, b.root, path, o, out);
}

function lower(s: Record<string, unknown>): number | undefined {
  const m = s.minimum as number | undefined;
  const x = s.exclusiveMinimum as number | undefined;
  return x !== undefined && (m === undefined || x >= m) ? x + Number.EPSILON : m;
}
function upper(s: Record<string, unknown>): number | undefined {
  const m = s.maximum as number | undefined;
  const x = s.exclusiveMaximum as number | undefined;
  return x !== undefined && (m === undefined || x <= m) ? x - Number.EPSILON : m;
}

/** `a`'s bound must be within `b`'s: a lower bound no lower, an upper bound no higher. */
function bound(a: number | undefined, b: number | undefined, kind: 'min' | 'max', where: string, out: string[]): void {
  if (b === undefined) return;
  if (a === undefined || (kind === 'min' ? a < b : a > b)) out.push(`${where}: ${a ?? 'none'} → ${b}`);
}

function merge(base: Record<string, unknown>, branch: Schema): Schema {
  if (typeof branch === 'boolean') return Object.keys(base).every((k) => ANNOTATIONS.has(k)) ? branch : { ...base };
  return { ...base, ...branch };
}

function objectSubset(A: Record<string, unknown>, rootA: Record<string, unknown>, B: Record<string, unknown>, rootB: Record<string, unknown>, path: string, o: CompatOptions, out: string[]): void {
  const ap = (A.properties ?? {}) as Record<string, Schema>;
  const bp = (B.properties ?? {}) as Record<string, Schema>;
  const aReq = new Set((A.required ?? []) as string[]);
  const bReq = (B.required ?? []) as string[];
  const aAdd = (A.additionalProperties ?? true) as Schema;
  const bAdd = (B.additionalProperties ?? true) as Schema;
  const extraOk = o.direction === 'output';
  for (const r of bReq) if (!aReq.has(r)) out.push(`${path}.${r}: ${r in ap ? 'no longer always present' : 'is now required'}`);
  for (const [k, s] of Object.entries(ap)) {
    if (k in bp) subset({ schema: s, root: rootA }, { schema: bp[k]!, root: rootB }, `${path}.${k}`, o, out);
    else if (extraOk) continue;
    else subset({ schema: s, root: rootA }, { schema: bAdd, root: rootB }, `${path}.${k}`, o, out);
  }
  for (const [k, s] of Object.entries(bp)) {
    if (k in ap) continue;
    subset({ schema: aAdd, root: rootA }, { schema: s, root: rootB }, `${path}.${k}`, o, out);
  }
  if (!extraOk) subset({ schema: aAdd, root: rootA }, { schema: bAdd, root: rootB }, `${path}.*`, o, out);
  else if (aAdd !== false && bAdd !== false) subset({ schema: aAdd, root: rootA }, { schema: bAdd, root: rootB }, `${path}.*`, o, out);
  // Patterns compared pattern by pattern (the same text), a pattern only one side has against the
  // other's additionalProperties: conservative where patterns and names overlap.
  const app = (A.patternProperties ?? {}) as Record<string, Schema>;
  const bpp = (B.patternProperties ?? {}) as Record<string, Schema>;
  for (const [k, s] of Object.entries(app)) subset({ schema: s, root: rootA }, { schema: bpp[k] ?? bAdd, root: rootB }, `${path}[/${k}/]`, o, out);
  for (const [k, s] of Object.entries(bpp)) if (!(k in app)) subset({ schema: aAdd, root: rootA }, { schema: s, root: rootB }, `${path}[/${k}/]`, o, out);
  if (B.propertyNames !== undefined)
    subset({ schema: (A.propertyNames as Schema | undefined) ?? { type: 'string' }, root: rootA }, { schema: B.propertyNames as Schema, root: rootB }, `${path} (keys)`, o, out);
}

/** Incompatibilities of `next` with `released` (a JSON Schema each), as the direction reads them. */
export function schemaIncompatibilities(released: Record<string, unknown>, next: Record<string, unknown>, o: CompatOptions): string[] {
  const out: string[] = [];
  const [a, b] = o.direction === 'input' ? [released, next] : [next, released];
  subset({ schema: a, root: a }, { schema: b, root: b }, '$', o, out);
  return [...new Set(out)];
}

type Doc = Record<string, unknown>;
type Operation = {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

/**
 * Incompatibilities of an OpenAPI document with the released one: an operation gone, a parameter or
 * body that refuses what it accepted, a success answer that lost a status, a content type or a
 * guarantee. New operations, optional parameters and error statuses are compatible.
 */
export function openApiIncompatibilities(released: Doc, next: Doc, openEnum?: CompatOptions['openEnum']): string[] {
  const out: string[] = [];
  const oldPaths = released.paths as Record<string, Record<string, Operation>>;
  const newPaths = next.paths as Record<string, Record<string, Operation>>;
  const inp: CompatOptions = { direction: 'input', ...(openEnum ? { openEnum } : {}) };
  const outp: CompatOptions = { direction: 'output', ...(openEnum ? { openEnum } : {}) };
  for (const [path, ops] of Object.entries(oldPaths)) {
    for (const [method, old] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      const now = newPaths[path]?.[method];
      if (!now) {
        out.push(`${where}: removed`);
        continue;
      }
      for (const p of now.parameters ?? []) {
        const before = old.parameters?.find((q) => q.name === p.name && q.in === p.in);
        if (!before) {
          if (p.required) out.push(`${where}: new required ${p.in} parameter ${p.name}`);
          continue;
        }
        const errs: string[] = [];
        subset({ schema: before.schema, root: released }, { schema: p.schema, root: next }, `${where} ${p.in} ${p.name}`, inp, errs);
        out.push(...errs);
      }
      for (const p of old.parameters ?? []) if (!now.parameters?.some((q) => q.name === p.name && q.in === p.in)) out.push(`${where}: ${p.in} parameter ${p.name} removed`);
      if (now.requestBody?.required && !old.requestBody?.required) out.push(`${where}: a body is now required`);
      for (const [type, media] of Object.entries(old.requestBody?.content ?? {})) {
        const m = now.requestBody?.content[type];
        if (!m) out.push(`${where}: no longer takes ${type}`);
        else subset({ schema: media.schema, root: released }, { schema: m.schema, root: next }, `${where} body ${type}`, inp, out);
      }
      for (const [status, r] of Object.entries(old.responses)) {
        if (!status.startsWith('2')) continue;
        const n = now.responses[status];
        if (!n) {
          out.push(`${where}: no longer answers ${status}`);
          continue;
        }
        for (const [type, media] of Object.entries(r.content ?? {})) {
          const m = n.content?.[type];
          if (!m) out.push(`${where} ${status}: no longer answers ${type}`);
          else if (media.schema && m.schema) subset({ schema: m.schema, root: next }, { schema: media.schema, root: released }, `${where} ${status} ${type}`, outp, out);
        }
      }
    }
  }
  return [...new Set(out)];
}
