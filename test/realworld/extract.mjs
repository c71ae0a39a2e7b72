#!/usr/bin/env node
/**
 * Extracts the real-world corpus listed in test/realworld/manifest.json from bare git mirrors of
 * its repositories into DIR, checking each file's SHA-256. The files stay outside the repository.
 *
 *   node test/realworld/extract.mjs [--second] DIR [MIRROR_DIR]   (mirrors: default /work/.mirror,
 *   laid out as OWNER+NAME/repo, as the `fetch` tool leaves them; --second: manifest-second.json)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const second = process.argv.includes('--second');
const [dir, mirror = process.env.REALWORLD_MIRROR ?? '/work/.mirror'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!dir) {
  console.error('usage: node test/realworld/extract.mjs [--second] DIR [MIRROR_DIR]');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(new URL(second ? './manifest-second.json' : './manifest.json', import.meta.url), 'utf8'));
let written = 0;
let failed = 0;
for (const f of manifest.files) {
  const repo = join(mirror, f.repo.replace('/', '+'), 'repo');
  try {
    const bytes = execFileSync('git', ['-C', repo, 'show', `${f.commit}:${f.path}`], { maxBuffer: 64 * 1024 * 1024 });
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== f.sha256) throw new Error(`sha256 ${sha} differs from the manifest`);
    const out = join(dir, fileName(f.id));
    mkdirSync(dir, { recursive: true });
    writeFileSync(out, bytes);
    written++;
  } catch (error) {
    failed++;
    console.error(`${f.id}: ${error.message.split('\n')[0]}`);
  }
}
console.log(`${written} files written to ${dir}${failed ? `, ${failed} failed` : ''}`);
process.exit(failed ? 1 : 0);

/** The manifest id as a flat file name ("pdf.js/test/pdfs/a.pdf" → "pdf.js__test__pdfs__a.pdf"). */
function fileName(id) {
  return id.replaceAll('/', '__');
}
