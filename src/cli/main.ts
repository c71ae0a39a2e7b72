import { PreflightError } from '../errors.js';
import { packageVersion } from '../util/package-root.js';
import { UsageError, type CliIO } from './io.js';
import { guardOutput } from './output.js';
import { didYouMean } from './suggest.js';
import { safeForTerminal } from '../report/terminal.js';

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
  schema <profile|report|fixed-report|batch-summary|batch-error|order>
                     print a JSON Schema
  serve [--port N] [--data DIR] [--api-key KEY]
                     run the HTTP API (uploads, URLs, callbacks, order façade)

Run \`print-preflight <command> --help\` for a command's options.
Exit status: 0 pass or warn, 1 fail (with --fail-on warning: warn too), 2 misuse. Output piped into a
reader that stops early (| head) ends quietly with the same status.`;

export type Command = (args: string[], io: CliIO) => Promise<number>;

/**
 * Each command's module is imported only when that command runs: `--help`, `profiles` and
 * `schema` never pay for pdf.js, pdf-lib, sharp or the worker pool.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  assemble: async () => (await import('./assemble.js')).assembleCommand,
  batch: async () => (await import('./batch.js')).batchCommand,
  fix: async () => (await import('./fix.js')).fixCommand,
  check: async () => (await import('./check.js')).checkCommand,
  order: async () => (await import('./order.js')).orderCommand,
  profiles: async () => (await import('./profiles.js')).profilesCommand,
  schema: async () => (await import('./schema.js')).schemaCommand,
  serve: async () => (await import('./serve.js')).serveCommand,
  worker: async () => (await import('./worker.js')).workerCommand,
};
/** Commands that never start the worker pool: no need to load the pool module to stop it. */
const POOL_FREE = new Set(['profiles', 'schema']);
/** Commands that check files with the pool's workers, so start the first one at once. */
const EARLY_WORKER = new Set(['check', 'fix', 'assemble', 'batch']);

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
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) {
    io.stderr(`print-preflight: unknown command "${safeForTerminal(command)}"${didYouMean(command, Object.keys(COMMANDS))}. Commands: ${Object.keys(COMMANDS).join(', ')}.\n`);
    return 2;
  }
  try {
    // A command that checks files starts its first worker before it loads anything else: the
    // worker's start-up then overlaps this thread's loading of the checks (pool/threads.ts).
    if (EARLY_WORKER.has(command) && !rest.some((a) => a === '--help' || a === '-h')) (await import('../pool/threads.js')).startThreadsEarly();
    const run = await load();
    return await run(rest, io);
  } catch (error) {
    // Misuse (bad flags, unknown product, unreadable file, broken profiles): one line, exit 2.
    if (error instanceof UsageError || (error instanceof PreflightError && error.code !== 'ERR_WORKER_CRASHED' && error.code !== 'ERR_TIMEOUT')) {
      io.stderr(`print-preflight ${command}: ${safeForTerminal(error.message)}\n`);
      return 2;
    }
    throw error;
  } finally {
    if (!POOL_FREE.has(command)) await (await import('../pool/pool.js')).closeDefaultPool();
    if (EARLY_WORKER.has(command)) await (await import('../pool/threads.js')).stopEarlyThreads();
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
