/**
 * The worker pool runs the compiled worker (dist/workers/). Rebuild before the tests when any
 * source file is newer than it, so that a test never runs against stale compiled code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export default function setup() {
  const worker = 'dist/workers/preflight-worker.js';
  const stale = !existsSync(worker) || Math.max(newest('src'), newest('workers')) > statSync(worker).mtimeMs;
  if (stale) execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
