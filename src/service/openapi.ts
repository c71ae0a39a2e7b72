/**
 * The OpenAPI 3.1 document, generated from the route table (and so from the zod schemas the routes
 * validate with), and a small self-contained page that renders it (no CDN: the server may have no
 * network).
 */
import { z } from 'zod';
import { CheckViewSchema } from '../jobs/view.js';
import { OrderSchema } from '../order/schema.js';
import { ProfileListingSchema } from '../profile/listing.js';
import { ReportSchema } from '../report/schema.js';
import { FindingSchema } from '../model/finding.js';
import { packageVersion } from '../util/package-root.js';
import { normaliseJsonSchema, openEnumOverride } from '../util/json-schema.js';
import { ProblemFieldSchema, ProblemSchema, problemTitle, type ProblemCode } from './problem.js';
import { allResponses, jsonSchema, type ResponseDoc, type RouteDoc } from './route.js';
import { CheckLayersUploadSchema, CheckUploadSchema, CheckUrlBodySchema, HealthSchema, OrderForwardAnswerSchema, OrderPayloadAnswerSchema } from './schemas.js';

/**
 * Schemas the document names (components), referenced wherever a route or another schema uses
 * them: what we send (output) and what we read (input) are converted apart, as zod sees each.
 */
const OUTPUT_COMPONENTS: [string, z.ZodType][] = [
  ['Problem', ProblemSchema],
  ['ProblemField', ProblemFieldSchema],
  ['Check', CheckViewSchema],
  ['Report', ReportSchema],
  ['Finding', FindingSchema],
  ['ProfileListing', ProfileListingSchema],
  ['Health', HealthSchema],
  ['OrderPayload', OrderSchema],
  ['OrderPayloadAnswer', OrderPayloadAnswerSchema],
  ['OrderForwardAnswer', OrderForwardAnswerSchema],
];
const INPUT_COMPONENTS: [string, z.ZodType][] = [
  ['CheckUpload', CheckUploadSchema],
  ['CheckLayersUpload', CheckLayersUploadSchema],
  ['CheckSubmission', CheckUrlBodySchema],
  ['OrderDraft', OrderSchema],
];

/** What each route family is for; a route with a tag not listed here still gets it declared. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  checks: 'Preflight a print file: submit it (upload or URL), poll, read the report, the visual report and page previews, delete.',
  profiles: 'The products, variants and SKUs this server checks against.',
  orders: 'Build order bodies from drafts (every source preflighted) and forward them to the order service.',
  operations: 'Health, metrics and this document.',
};

function components(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [io, list] of [
    ['output', OUTPUT_COMPONENTS],
    ['input', INPUT_COMPONENTS],
  ] as const) {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of list) registry.add(schema, { id });
    const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}`, override: openEnumOverride(io) }) as {
      schemas: Record<string, Record<string, unknown>>;
    };
    for (const [id, schema] of Object.entries(schemas)) {
      const { $schema: _s, $id: _i, ...rest } = schema;
      out[id] = normaliseJsonSchema(rest);
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

function refOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const named = (io === 'output' ? OUTPUT_COMPONENTS : INPUT_COMPONENTS).find(([, s]) => s === schema);
  return named ? { $ref: `#/components/schemas/${named[0]}` } : jsonSchema(schema, io);
}

function problemExample(status: number, code: ProblemCode, detail: string, url: string): Record<string, unknown> {
  return { type: `urn:print-preflight:problem:${code}`, title: problemTitle(status), status, detail, instance: url, code };
}

function responseObject(status: number, doc: ResponseDoc, path: string): Record<string, unknown> {
  const problem = status >= 400;
  const types = doc.type ? [doc.type].flat() : problem ? ['application/problem+json'] : doc.schema ? ['application/json'] : [];
  const schema = doc.schema ?? (problem ? ProblemSchema : undefined);
  const example = doc.example ?? (problem && doc.codes?.length ? problemExample(status, doc.codes[0]!, doc.description, path) : undefined);
  const description = doc.codes?.length ? `${doc.description}. Problem codes: ${doc.codes.map((c) => `\`${c}\``).join(', ')}.` : doc.description;
  return {
    description,
    ...(doc.codes?.length ? { 'x-problem-codes': doc.codes } : {}),
    ...(doc.headers
      ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([h, d]) => [h, { description: d, schema: h === 'Retry-After' ? { type: 'integer', minimum: 0 } : { type: 'string' } }])) }
      : {}),
    ...(types.length
      ? {
          content: Object.fromEntries(
            types.map((t) => [
              t,
              schema && /json$/.test(t)
                ? { schema: refOf(schema, 'output'), ...(example !== undefined ? { example } : {}) }
                : { schema: /json$/.test(t) ? { type: 'object' } : t.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary', contentMediaType: t } },
            ]),
          ),
        }
      : {}),
  };
}

/**
 * The OpenAPI 3.1 document of the routes as this server runs them (with API keys: 401s and
 * security). `serverUrl` is where the client reached it.
 */
export function openApiDocument(routes: readonly RouteDoc[], options: { apiKeys: boolean; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue;
      const js = jsonSchema(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
      for (const [name, prop] of Object.entries(js.properties ?? {})) {
        const { description, ...rest } = prop;
        parameters.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: rest, description: description ?? `The ${name}` });
      }
    }
    const content: Record<string, unknown> = {};
    if (r.body) content['application/json'] = { schema: refOf(r.body, 'input') };
    for (const [type, body] of Object.entries(r.requestBodies ?? {})) {
      content[type] = {
        schema: refOf(body.schema, 'input'),
        ...(body.example !== undefined ? { example: body.example } : {}),
        ...(body.partTypes ? { encoding: Object.fromEntries(Object.entries(body.partTypes).map(([part, t]) => [part, { contentType: t }])) } : {}),
      };
    }
    const responses = Object.fromEntries(Object.entries(allResponses(r, options)).map(([status, doc]) => [status, responseObject(Number(status), doc, path)]));
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      description: r.description,
      tags: r.tags,
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(content).length ? { requestBody: { required: true, content } } : {}),
      responses,
      security: r.auth && options.apiKeys ? [{ bearer: [] }, { apiKey: [] }] : [],
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'print-preflight',
      version: packageVersion(),
      summary: 'Preflight print files for the order service over HTTP',
      description:
        'Preflight print files for the order service over HTTP. Submit a PDF (multipart upload) or a URL with its SKU; get the report `print-preflight check --json` prints, the visual HTML report and page previews. Errors are application/problem+json (RFC 9457) with a stable `code`. Reports carry `schemaVersion`; what may change within one is written in docs/contracts.md (Versioned contracts).',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'print-preflight' },
    },
    servers: [{ url: options.serverUrl ?? 'http://127.0.0.1:8080', description: options.serverUrl ? 'This server' : 'A local server' }],
    tags: [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name}.` })),
    paths,
    components: {
      schemas: withKnownProblemCodes(components(), paths),
      // Declared when the server has API keys (an unused scheme is a lint warning).
      ...(options.apiKeys
        ? {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api key>' },
              apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'x-api-key: <api key>' },
            },
          }
        : {}),
    },
  };
}

/**
 * The Problem schema's `code` documents every code this server's routes list (`x-problem-codes`),
 * as `examples`: an open string — a newer server may answer a code a client has not seen; the
 * status says what kind of failure it is.
 */
function withKnownProblemCodes(schemas: Record<string, unknown>, paths: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const known = new Set<string>();
  for (const ops of Object.values(paths))
    for (const op of Object.values(ops) as { responses: Record<string, { 'x-problem-codes'?: string[] }> }[])
      for (const r of Object.values(op.responses)) for (const c of r['x-problem-codes'] ?? []) known.add(c);
  const problem = schemas.Problem as { properties: Record<string, Record<string, unknown>> };
  const codes = [...known].sort();
  problem.properties.code = {
    ...problem.properties.code,
    description: `A stable problem code, in kebab-case; the \`type\` URI ends in it. Known codes: ${codes.join(', ')}. The list is open: match the ones you handle and treat others by the status.`,
    examples: codes,
  };
  return schemas;
}

/** A page that fetches /openapi.json and shows every operation; text is set with textContent only. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>print-preflight API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 1.5rem 4rem; color: #1d232a; }
h1 { margin-bottom: .2rem; } .intro { color: #4a5561; }
section.op { border: 1px solid #d6dbe0; border-radius: 6px; margin: .8rem 0; padding: .6rem .9rem; }
.method { display: inline-block; min-width: 4.2rem; font-weight: 700; font-family: ui-monospace, monospace; }
.method.get { color: #116b2f; } .method.post { color: #0b4f9c; } .method.delete { color: #a3211b; }
.path { font-family: ui-monospace, monospace; font-weight: 600; }
.summary { color: #4a5561; margin-left: .5rem; }
table { border-collapse: collapse; margin: .4rem 0; } td, th { border-bottom: 1px solid #eceff2; padding: .2rem .6rem .2rem 0; text-align: left; vertical-align: top; }
pre { background: #f5f7f9; padding: .6rem; overflow: auto; max-height: 24rem; font-size: 12px; }
details { margin: .3rem 0; } summary { cursor: pointer; }
</style>
</head>
<body>
<h1>print-preflight API</h1>
<p class="intro" id="intro">Loading <a href="/openapi.json">/openapi.json</a>…</p>
<main id="ops"></main>
<script>
const el = (tag, props = {}, ...kids) => { const e = document.createElement(tag); Object.assign(e, props); for (const k of kids) e.append(k); return e; };
const pretty = (v) => el('pre', { textContent: JSON.stringify(v, null, 2) });
fetch('/openapi.json').then((r) => r.json()).then((doc) => {
  const intro = document.getElementById('intro');
  intro.textContent = doc.info.description + ' Version ' + doc.info.version + '. ';
  intro.append(el('a', { href: '/openapi.json', textContent: 'OpenAPI document' }));
  const main = document.getElementById('ops');
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const s = el('section', { className: 'op' });
      s.dataset.method = method.toUpperCase(); s.dataset.path = path;
      s.append(el('div', {}, el('span', { className: 'method ' + method, textContent: method.toUpperCase() }), el('span', { className: 'path', textContent: path }), el('span', { className: 'summary', textContent: op.summary || '' })));
      if (op.description) s.append(el('p', { textContent: op.description }));
      if (op.parameters && op.parameters.length) {
        const t = el('table', {}, el('tr', {}, el('th', { textContent: 'parameter' }), el('th', { textContent: 'in' }), el('th', { textContent: 'description' })));
        for (const p of op.parameters) t.append(el('tr', {}, el('td', { textContent: p.name + (p.required ? ' *' : '') }), el('td', { textContent: p.in }), el('td', { textContent: p.description || '' })));
        s.append(t);
      }
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) s.append(el('details', {}, el('summary', { textContent: 'Request body: ' + type }), pretty(c.schema)));
      for (const [status, r] of Object.entries(op.responses)) {
        const d = el('details', {}, el('summary', { textContent: status + ' ' + r.description }));
        for (const [type, c] of Object.entries(r.content || {})) if (c.schema) d.append(el('p', { textContent: type }), pretty(c.schema));
        s.append(d);
      }
      main.append(s);
    }
  }
  document.body.dataset.operations = String(main.children.length);
}).catch((e) => { document.getElementById('intro').textContent = 'Cannot load /openapi.json: ' + e; });
</script>
</body>
</html>
`;
