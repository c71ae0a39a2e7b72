#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the package's prepare script).
import module from 'node:module';

// Node ≥ 22.1 keeps V8's compiled code of every module loaded after this on disk (in os.tmpdir(),
// or NODE_COMPILE_CACHE), so the next run skips compiling it. Where Node has no such call, the
// optional call skips it.
module.enableCompileCache?.();
const { main } = await import('../dist/src/cli/main.js');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`print-preflight: ${error?.message ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
