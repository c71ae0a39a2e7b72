#!/usr/bin/env node
/**
 * Records the contracts of a release: `npm run contracts:release` (after raising the version in
 * package.json and writing its CHANGELOG section) copies schemas/*.schema.json and the OpenAPI
 * document a server with an API key serves into test/contracts/released/<version>/. The versions
 * test then holds every later change against them.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../dist/src/service/server.js';

const root = join(import.meta.dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(import.meta.dirname, 'released', version);
if (existsSync(out) && !process.argv.includes('--force')) {
  console.error(`${out} exists: version ${version} is recorded already (raise the version, or --force to rewrite it)`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
for (const f of readdirSync(join(root, 'schemas'))) copyFileSync(join(root, 'schemas', f), join(out, f));
const data = mkdtempSync(join(tmpdir(), 'pp-release-'));
const service = await startService({ port: 0, dataDir: data, logLevel: 'silent', apiKeys: ['release-snapshot-key'], workers: 1 });
try {
  const doc = await (await fetch(`${service.url}/openapi.json`)).json();
  doc.servers = [{ url: 'http://127.0.0.1:8080', description: 'A local server' }];
  writeFileSync(join(out, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
} finally {
  await service.close();
  rmSync(data, { recursive: true, force: true });
}
console.log(`recorded the contracts of ${version} in ${out}`);
