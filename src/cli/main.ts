import { PreflightError } from '../errors.js';
import { closeDefaultPool } from '../pool/pool.js';
import { packageVersion } from '../util/package-root.js';
import { UsageError, type CliIO } from './args.js';
import { guardOutput } from './output.js';
import { didYouMean } from './suggest.js';
import { assembleCommand } from './assemble.js';
import { batchCommand } from './batch.js';
import { fixCommand } from './fix.js';
import { checkCommand } from './check.js';
import { orderCommand } from './order.js';
import { profilesCommand } from './profiles.js';
import { schemaCommand } from './schema.js';
import { safeForTerminal } from '../report/terminal.js';
import { serveCommand } from './serve.js';
import { workerCommand } from './worker.js';

const HELP = `Usage: print-preflight <command> [options]

Checks print files for the order service before an order is created.

Commands:
  check <file.pdf> (--product ID --variant ID | --sku SKU) [--json] [--html FILE]
                     preflight a PDF against a product profile
  fix <in.pdf> (--product … | --sku …) --out out.pdf [--rotate cw|ccw] [--fit …]
                     fix what can be fixed, then check again
  assemble (--product … | --sku …) --out out.pdf <image per layer…>
                     build a compliant PDF from one image or PDF per layer
  batch <dir> --out <dir> [--manifest FILE] [--watch] [--redis URL]
                     preflight every PDF of a folder (or a hot folder), resumable
  worker --redis URL --data DIR
                     take jobs from the fleet's queue on Redis (serve/batch --redis)
  order <draft.json> [--out payload.json] [--strict]
                     build a validated order body whose sources all passed
  profiles [--json]  list products, variants, layers and page sizes
  schema <profile|report|order>
                     print a JSON Schema
  serve [--port N] [--data DIR] [--api-key KEY]
                     run the HTTP API (uploads, URLs, callbacks, order façade)

Run \`print-preflight <command> --help\` for a command's options.
Exit status: 0 pass or warn, 1 fail (with --fail-on warning: warn too), 2 misuse. Output piped into a
reader that stops early (| head) ends quietly with the same status.`;

const COMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  assemble: assembleCommand,
  batch: batchCommand,
  fix: fixCommand,
  check: checkCommand,
  order: orderCommand,
  profiles: profilesCommand,
  schema: schemaCommand,
  serve: serveCommand,
  worker: workerCommand,
};

/** Runs the command line; resolves to the exit status. */
export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${HELP}\n`);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v') {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.stderr(`print-preflight: unknown command "${safeForTerminal(command)}"${didYouMean(command, Object.keys(COMMANDS))}. Commands: ${Object.keys(COMMANDS).join(', ')}.
`);
    return 2;
  }
  try {
    return await run(rest, io);
  } catch (error) {
    // Misuse (bad flags, unknown product, unreadable file, broken profiles): one line, exit 2.
    if (error instanceof UsageError || (error instanceof PreflightError && error.code !== 'ERR_WORKER_CRASHED' && error.code !== 'ERR_TIMEOUT')) {
      io.stderr(`print-preflight ${command}: ${safeForTerminal(error.message)}\n`);
      return 2;
    }
    throw error;
  } finally {
    await closeDefaultPool();
  }
}

/** The process's streams, guarded against a reader that goes away (EPIPE: `| head`), with terminal widths. */
function defaultIO(): CliIO {
  const out = guardOutput(process.stdout);
  const err = guardOutput(process.stderr);
  return {
    stdout: out.write,
    stderr: err.write,
    isTTY: !!process.stdout.isTTY,
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    stderrIsTTY: !!process.stderr.isTTY,
    ...(process.stderr.isTTY && process.stderr.columns ? { stderrColumns: process.stderr.columns } : {}),
  };
}
