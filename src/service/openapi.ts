/**
 * The OpenAPI 3.1 document, generated from the route table (and so from the zod schemas the routes
 * validate with), and a small self-contained page that renders it (no CDN: the server may have no
 * network).
 */
import type { z } from 'zod';
import { ReportSchema } from '../report/schema.js';
import { CheckViewSchema } from '../jobs/view.js';
import { packageVersion } from '../util/package-root.js';
import { ProblemSchema } from './problem.js';
import { jsonSchema, type RouteDoc } from './route.js';

const COMPONENTS: [string, z.ZodType][] = [
  ['Problem', ProblemSchema],
  ['Check', CheckViewSchema],
  ['Report', ReportSchema],
];

export function openApiDocument(routes: readonly RouteDoc[], options: { apiKeys: boolean }): Record<string, unknown> {
  const refOf = (schema: z.ZodType, io: 'input' | 'output') => {
    const named = COMPONENTS.find(([, s]) => s === schema);
    return named ? { $ref: `#/components/schemas/${named[0]}` } : jsonSchema(schema, io);
  };
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
        parameters.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) });
      }
    }
    const content: Record<string, unknown> = {};
    if (r.body) content['application/json'] = { schema: refOf(r.body, 'input') };
    for (const [type, schema] of Object.entries(r.requestBodies ?? {})) content[type] = { schema: refOf(schema, 'input') };
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(r.responses)) {
      const type = doc.type ?? (Number(status) >= 400 ? 'application/problem+json' : 'application/json');
      const schema = doc.schema ?? (Number(status) >= 400 ? ProblemSchema : undefined);
      responses[status] = {
        description: doc.description,
        ...(doc.headers ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) } : {}),
        ...(schema ? { content: { [type]: { schema: refOf(schema, 'output') } } } : doc.type ? { content: { [doc.type]: {} } } : {}),
      };
    }
    if (r.auth && options.apiKeys) responses['401'] ??= { description: 'No API key, or an unknown one', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(content).length ? { requestBody: { required: true, content } } : {}),
      responses,
      ...(r.auth ? { security: [{ bearer: [] }, { apiKey: [] }] } : { security: [] }),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'print-preflight',
      version: packageVersion(),
      description:
        'Preflight print files for the order service over HTTP. Submit a PDF (multipart upload) or a URL with its SKU; get the report `print-preflight check --json` prints, the visual HTML report and page previews. Errors are application/problem+json (RFC 9457).',
    },
    paths,
    components: {
      schemas: Object.fromEntries(COMPONENTS.map(([name, schema]) => [name, jsonSchema(schema, 'output')])),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api key>' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
  };
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
