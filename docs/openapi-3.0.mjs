#!/usr/bin/env node
// Turns print-preflight's OpenAPI 3.1 document into OpenAPI 3.0, for generators that predate 3.1
// (openapi-generator 4.x, which the Python recipe of docs/contracts.md uses):
//   node node_modules/print-preflight/docs/openapi-3.0.mjs openapi.json openapi30.json
// It needs @apiture/openapi-down-convert installed beside it (npm install @apiture/openapi-down-convert@0.14.2),
// which does most of the work; what that tool leaves is rewritten here, each as 3.0 says it:
// - `contentEncoding: binary` beside `format: binary` (a raw part: RFC 2045's "binary" means no
//   transfer encoding) is dropped before conversion — the converter knows only base64;
// - `anyOf: [X, { type: 'null' }]` → X with `nullable: true` (a `$ref` X as `allOf: [X]`);
// - `prefixItems` (the 4-number boxes also say `items: number`, `minItems`/`maxItems: 4`) dropped;
// - a `type` list wider than one type plus null (a finding's `details` values) → any type;
// - the `pattern` beside `format: date-time` dropped (the format says it; openapi-generator
//   4.3.1's Python generator rejects that pattern);
// - `info.summary` (3.1 only) dropped.
// test/clients/openapi-generator.test.ts runs the recipe, this script included, against a server.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The 3.0 document of a 3.1 one (not changed). */
export function toOpenApi30(doc31, Converter) {
  const walk = (x, pre) => {
    if (Array.isArray(x)) return x.forEach((v) => walk(v, pre));
    if (!x || typeof x !== 'object') return;
    if (pre) {
      if (x.contentEncoding === 'binary' && x.format === 'binary') delete x.contentEncoding;
    } else {
      const any = x.anyOf;
      if (Array.isArray(any) && any.length === 2 && any.some((s) => s.type === 'null')) {
        const other = any.find((s) => s.type !== 'null');
        delete x.anyOf;
        if ('$ref' in other) x.allOf = [other];
        else Object.assign(x, other);
        x.nullable = true;
      }
      delete x.prefixItems;
      if (x.format === 'date-time') delete x.pattern;
      if (Array.isArray(x.type)) delete x.type;
    }
    for (const v of Object.values(x)) walk(v, pre);
  };
  const doc = structuredClone(doc31);
  walk(doc, true);
  const doc30 = new Converter(doc).convert();
  walk(doc30, false);
  delete doc30.info.summary;
  return doc30;
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('usage: node openapi-3.0.mjs openapi.json openapi30.json\n');
    process.exit(2);
  }
  // Resolved from the project that runs it (where the recipe installed it).
  const require = createRequire(pathToFileURL(`${process.cwd()}/`).href);
  const { Converter } = require('@apiture/openapi-down-convert');
  writeFileSync(output, `${JSON.stringify(toOpenApi30(JSON.parse(readFileSync(input, 'utf8')), Converter), null, 2)}\n`);
}
