#!/usr/bin/env node
/**
 * Checks every PDF in a folder and validates each report, as the bytes `check --json` prints, against
 * schemas/report.schema.json with ajv (strict, draft 2020-12): files nobody on the project has seen
 * (e.g. the real-world corpus, `node test/realworld/extract.mjs DIR`).
 *
 *   npm run contracts:reports -- DIR [--sku T-SHIRT-M] [--schema FILE]
 *
 * --schema validates against another report schema (e.g. a released one in test/contracts/released/).
 *
 * Prints one line per invalid report (its first three errors) and a summary; exits 1 when any report is invalid.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { PreflightPool, preflight } from '../../dist/src/index.js';

const args = process.argv.slice(2);
const dir = args.find((a, i) => !a.startsWith('--') && !['--sku', '--schema'].includes(args[i - 1] ?? ''));
const skuAt = args.indexOf('--sku');
const sku = skuAt >= 0 ? args[skuAt + 1] : 'T-SHIRT-M';
const schemaAt = args.indexOf('--schema');
const schemaFile = schemaAt >= 0 ? args[schemaAt + 1] : join(import.meta.dirname, '..', '..', 'schemas', 'report.schema.json');
if (!dir) {
  console.error('usage: npm run contracts:reports -- DIR [--sku SKU]');
  process.exit(2);
}
const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
const pool = new PreflightPool();
const files = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith('.pdf'))
  .sort();
let valid = 0;
const verdicts = {};
try {
  for (const file of files) {
    const report = await preflight(join(dir, file), { sku }, { pool, path: file });
    const bytes = JSON.stringify(report, null, 2);
    verdicts[report.verdict] = (verdicts[report.verdict] ?? 0) + 1;
    if (validate(JSON.parse(bytes))) valid++;
    else
      console.log(
        `${file}: ${validate.errors
          .slice(0, 3)
          .map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
          .join('; ')}`,
      );
  }
} finally {
  await pool.destroy();
}
console.log(`${valid} of ${files.length} reports valid against ${schemaFile} (verdicts: ${JSON.stringify(verdicts)})`);
process.exitCode = valid === files.length ? 0 : 1;
