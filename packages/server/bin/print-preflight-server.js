#!/usr/bin/env node
// The print-preflight command line, installed with the server packages: `serve` (the HTTP API) and
// `worker` (a Redis fleet worker) find fastify, BullMQ, ioredis and prom-client beside it. Every
// other command (check, fix, batch, …) works as `print-preflight <command>` does.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('print-preflight/cli');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`print-preflight-server: ${error?.message ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
