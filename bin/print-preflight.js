#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the package's prepare script).
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => {
    process.stderr.write(`print-preflight: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
