import { parseArgs } from 'node:util';
import { ProgressView } from '../batch/progress.js';
import { preflightFolder } from '../batch/run.js';
import { watchFolder } from '../batch/watch.js';
import { PreflightPool } from '../pool/pool.js';
import { numberFlag, usage, UsageError, type CliIO } from './args.js';
import { safeForTerminal } from '../report/terminal.js';

export const BATCH_HELP = `Usage: print-preflight batch <dir> --out <dir> [--manifest FILE] [--concurrency N] [--watch]

Preflights every PDF under <dir> (recursively). The product of each file comes from, in order: the
manifest (CSV with header "file,sku" or "file,product,variant", or the same as JSON), a file name
starting with a SKU and "__" (T-SHIRT-M__order-1234.pdf), or a parent folder named after a SKU.

Writes <out>/reports/<file>.json (the same report as check --json) and <out>/reports/<file>.html,
<out>/summary.json and <out>/index.html. A rerun keeps the reports of files whose bytes and rules
are unchanged, so an interrupted run resumes where it stopped.

Options:
  --out DIR           output folder (required)
  --manifest FILE     CSV or JSON manifest
  --concurrency N     files at once (default: two per worker)
  --workers N         worker threads (default: one per core)
  --timeout S         time limit per file structure and per page, in seconds, from when a
                      worker takes it (default 60)
  --file-budget S     worker time one file may use in all, in seconds (default 300): a heavy
                      file stops there (pdf-timeout) instead of holding the pool
  --profiles DIR      product profiles folder
  --no-html           no visual report per file
  --no-raster         structure checks only
  --watch             hot folder: judge new files once complete and move them to
                      <out>/pass/, <out>/warn/ or <out>/fail/ with their reports
  --stable S          with --watch: seconds a file must stay unchanged (default 2)
  --interval S        with --watch: seconds between looks at the folder (default 1)

Ctrl-C (SIGINT) or SIGTERM: the files in flight finish, the summary is written, exit 130 or 143;
a second Ctrl-C aborts the files in flight.
Exit status: 0 no file failed, 1 a file failed or could not be judged, 2 misuse, 3 an output
could not be written (a full disk…): every file judged is still in the summary printed, and
stderr says which reports (or the summary itself) are missing.`;

export async function batchCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: 'string' },
        manifest: { type: 'string' },
        concurrency: { type: 'string' },
        workers: { type: 'string' },
        timeout: { type: 'string' },
        'file-budget': { type: 'string' },
        profiles: { type: 'string' },
        'no-html': { type: 'boolean' },
        'no-raster': { type: 'boolean' },
        watch: { type: 'boolean' },
        stable: { type: 'string' },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${BATCH_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('batch needs one folder');
  if (!values.out) throw new UsageError('batch needs --out DIR');
  const num = (flag: 'concurrency' | 'workers' | 'timeout' | 'file-budget' | 'stable' | 'interval', min: number, integer = true) =>
    numberFlag(values[flag], flag, { min, integer });
  const concurrency = num('concurrency', 1);
  const workers = num('workers', 1);
  const timeout = num('timeout', 1);
  const fileBudget = num('file-budget', 1);
  const stable = num('stable', 0, false);
  const interval = num('interval', 0.05, false);
  const { stat } = await import('node:fs/promises');
  try {
    if (!(await stat(positionals[0]!)).isDirectory()) throw new UsageError(`${positionals[0]} is not a folder`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`no such folder: ${positionals[0]}`);
  }
  const pool = new PreflightPool({ ...(workers ? { maxThreads: workers } : {}), ...(timeout ? { taskTimeoutMs: timeout * 1000 } : {}) });
  const preflight = { profiles: values.profiles, raster: !values['no-raster'], pool, ...(fileBudget ? { fileBudgetMs: fileBudget * 1000 } : {}) };
  const soft = new AbortController();
  const hard = new AbortController();
  let signalName: NodeJS.Signals | null = null;
  const onSignal = (name: NodeJS.Signals) => {
    if (signalName) {
      hard.abort();
      return;
    }
    signalName = name;
    io.stderr(`\nprint-preflight batch: ${name}: finishing the files in flight (again to abort them)…\n`);
    soft.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (values.watch) {
      const hot = await watchFolder(positionals[0]!, {
        out: values.out,
        manifest: values.manifest,
        concurrency: concurrency ?? pool.threads,
        html: !values['no-html'],
        preflight,
        hardSignal: hard.signal,
        ...(stable !== undefined ? { stableMs: stable * 1000 } : {}),
        ...(interval !== undefined ? { intervalMs: interval * 1000 } : {}),
        onResult: (r) => io.stderr(safeForTerminal(`${r.verdict.toUpperCase()} ${r.file} → ${r.movedTo}${r.reason ? `: ${r.reason}` : ''}`) + '\n'),
        onError: (file, e) => io.stderr(safeForTerminal(`print-preflight batch: ${file}: ${(e as Error).message}`) + '\n'),
      });
      io.stderr(`Watching ${safeForTerminal(positionals[0]!)} (Ctrl-C to stop)…\n`);
      await new Promise<void>((resolve) => soft.signal.addEventListener('abort', () => resolve(), { once: true }));
      await hot.close();
      return signalName === 'SIGTERM' ? 143 : 130;
    }
    const view = new ProgressView((s) => io.stderr(s), io.isTTY);
    const summary = await preflightFolder(positionals[0]!, {
      out: values.out,
      manifest: values.manifest,
      ...(concurrency !== undefined ? { concurrency } : {}),
      html: !values['no-html'],
      preflight,
      signal: soft.signal,
      hardSignal: hard.signal,
      onProgress: ({ done, total, result }) => view.update(done, total, result),
    });
    view.end();
    io.stdout(
      `${summary.files} file${summary.files === 1 ? '' : 's'}: ${summary.pass} pass, ${summary.warn} warn, ${summary.fail} fail, ${summary.error} error` +
        `${summary.reused ? ` (${summary.reused} kept from an earlier run)` : ''}${summary.interrupted ? `, ${summary.pending.length} not judged (interrupted)` : ''} → ${values.out}/index.html\n`,
    );
    const unwritten = summary.results.filter((r) => r.outputError);
    for (const r of unwritten) io.stderr(safeForTerminal(`print-preflight batch: ${r.file}: judged ${r.verdict}, but ${r.outputError}`) + '\n');
    if (summary.summaryError) io.stderr(safeForTerminal(`print-preflight batch: ${summary.summaryError}`) + '\n');
    if (summary.interrupted) return signalName === 'SIGTERM' ? 143 : 130;
    if (unwritten.length || summary.summaryError) return 3;
    return summary.fail + summary.error > 0 ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await pool.destroy();
  }
}
