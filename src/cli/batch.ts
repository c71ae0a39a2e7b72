import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProgressView } from '../batch/progress.js';
import { preflightFolder, type BatchProgress } from '../batch/run.js';
import { watchFolder } from '../batch/watch.js';
import { PreflightPool } from '../pool/pool.js';
import { FAIL_ON_HELP, failOnFlag, fails, fixFlag, localeFlag, numberFlag, policyFrom, UsageError, type CliIO, POOL_LIMITS_HELP, poolLimitsFrom } from './args.js';
import { safeForTerminal } from '../report/terminal.js';
import { print, say } from './output.js';
import { parseFlags } from './args.js';
import { ordinal } from '../util/text.js';

export const BATCH_HELP = `Usage: print-preflight batch <dir> --out <dir> [--manifest FILE] [--concurrency N] [--watch]
       print-preflight batch s3://BUCKET/PREFIX --out s3://BUCKET/PREFIX [--redis URL] [--s3-endpoint URL]

Preflights every PDF under <dir> (recursively). The product of each file comes from, in order: the
manifest (CSV with header "file,sku" or "file,product,variant", or the same as JSON), a file name
starting with a SKU and "__" (T-SHIRT-M__order-1234.pdf), or a parent folder named after a SKU.

Writes <out>/reports/<file>.json (the same report as check --json) and <out>/reports/<file>.html,
<out>/summary.json and <out>/index.html. A rerun keeps the reports of files whose bytes and rules
are unchanged, so an interrupted run resumes where it stopped.

Over object storage: <dir> and --out may be s3://BUCKET/PREFIX (either or both). The PDFs are the
objects under the prefix (every page of the listing); each is downloaded to a scratch folder while
it is judged, then removed; the outputs are objects under the --out prefix with the same names.
With --redis the jobs name the objects, and the workers (started with --storage and, for a
non-AWS store, --s3-endpoint) fetch and write them: no folder is shared. Credentials and region
come from the standard AWS environment and files.

Options:
  --out DIR           output folder (required)
  --manifest FILE     CSV or JSON manifest
  --concurrency N     files at once (default: two per worker)
  --workers N         worker threads (default: one per core)
  --timeout S         time limit per file structure and per page, in seconds, from when a
                      worker takes it (default 60)
  --file-budget S     worker time one file may use in all, in seconds (default 300): a heavy
                      file stops there (pdf-timeout) instead of holding the pool
${POOL_LIMITS_HELP}
  --profiles DIR      product profiles folder
  --no-html           no visual report per file
  --previews          previews of every page in the visual reports (default: of the pages that print
                      as the product's layers; other pages are not drawn)
  --no-raster         structure checks only
  --fix auto|approve  fix what the policy says to fix (the profile's policy — shipped products: page
                      order, /Rotate, scale, CMYK, oversized images and files), check again, and
                      write the fixed file and its report to <out>/fixed/ (originals kept);
                      approve: the summary marks fixed files whose changes alter what prints;
                      with --redis the workers fix, into the shared <out>/fixed/
  --policy CODE=ACTION
                      action for a finding code in this run: reject, warn, fix or off (repeatable)
  --locale L          add customer messages in this language to every finding (en, pt-PT,
                      pt-BR, es, fr, de, it; pt is pt-PT)
  --watch             hot folder: judge new files once complete and move them to
                      <out>/pass/, <out>/warn/ or <out>/fail/ with their reports
  --redis URL         judge the files on the fleet's workers (print-preflight worker) through
                      Redis instead of this machine; a folder and --out must be visible to
                      every worker at the same absolute path (shared mount); an s3:// prefix
                      needs nothing shared
  --s3-endpoint URL   a non-AWS S3-compatible endpoint (path-style addressing) for s3:// paths
  --queue NAME        with --redis: the queue name (default checks)
  --stable S          with --watch: seconds a file must stay unchanged (default 2)
  --interval S        with --watch: seconds between looks at the folder (default 1)
${FAIL_ON_HELP}

Ctrl-C (SIGINT) or SIGTERM: the files in flight finish, the summary is written, exit 130 or 143;
a second Ctrl-C aborts the files in flight.
A terminal shows one progress line that fits its width; a log gets one line per file. The run ends
with the list of files that failed.
Exit status: 0 no file failed, 1 a file failed (or warned, with --fail-on warning) or could not be
judged, 2 misuse, 3 an output could not be written (a full disk…): every file judged is still in
the summary printed, and stderr says which reports (or the summary itself) are missing.`;

export async function batchCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    out: { type: 'string' },
    manifest: { type: 'string' },
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    timeout: { type: 'string' },
    'file-budget': { type: 'string' },
    'decode-budget-mb': { type: 'string' },
    'max-rss-mb': { type: 'string' },
    profiles: { type: 'string' },
    'no-html': { type: 'boolean' },
    previews: { type: 'boolean' },
    'no-raster': { type: 'boolean' },
    fix: { type: 'string' },
    policy: { type: 'string', multiple: true },
    locale: { type: 'string' },
    watch: { type: 'boolean' },
    stable: { type: 'string' },
    interval: { type: 'string' },
    'fail-on': { type: 'string' },
    redis: { type: 'string' },
    queue: { type: 'string' },
    's3-endpoint': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${BATCH_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('batch needs one folder');
  if (!values.out) throw new UsageError('batch needs --out DIR');
  const num = (flag: 'concurrency' | 'workers' | 'timeout' | 'file-budget' | 'stable' | 'interval', min: number, integer = true) => numberFlag(values[flag], flag, { min, integer });
  const concurrency = num('concurrency', 1);
  const workers = num('workers', 1);
  const timeout = num('timeout', 1);
  const fileBudget = num('file-budget', 1);
  const stable = num('stable', 0, false);
  const interval = num('interval', 0.05, false);
  const failOn = failOnFlag(values['fail-on']);
  const storedIn = positionals[0]!.startsWith('s3://');
  const storedOut = values.out.startsWith('s3://');
  if (values['s3-endpoint'] !== undefined && !storedIn && !storedOut) throw new UsageError('--s3-endpoint needs an s3:// folder or --out');
  if ((storedIn || storedOut) && values.watch) throw new UsageError('--watch watches a local folder; an s3:// prefix is judged once');
  if (!storedIn) {
    const { stat } = await import('node:fs/promises');
    try {
      if (!(await stat(positionals[0]!)).isDirectory()) throw new UsageError(`${positionals[0]} is not a folder`);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`no such folder: ${positionals[0]}`);
    }
  }
  if (values.previews && values['no-raster']) throw new UsageError('--previews needs rendering: drop --no-raster');
  if (values.redis && values.watch) throw new UsageError('--watch runs on this machine; leave out --redis');
  if (values.queue && !values.redis) throw new UsageError('--queue needs --redis');
  if (values.redis) {
    const { requireServerPackages, FLEET_PACKAGES } = await import('../util/server-packages.js');
    await requireServerPackages('print-preflight batch --redis', FLEET_PACKAGES);
    (await import('../fleet/connection.js')).parseRedisUrl(values.redis);
  }
  // Opened before any file is judged: a wrong bucket or key is an error with a code here, not per file.
  const endpoint = values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {};
  const open = async (url: string, verify: boolean) => (await import('../storage/open.js')).openStorage({ url, verify, ...endpoint }, 'print-preflight batch s3://');
  const out = storedOut ? await open(values.out, true) : values.out;
  const scratch = storedIn ? await mkdtemp(join(tmpdir(), 'print-preflight-batch-')) : null;
  const input = storedIn ? { storage: await open(positionals[0]!, false), url: positionals[0]!, scratch: scratch! } : positionals[0]!;
  const pool = new PreflightPool({ ...(workers ? { maxThreads: workers } : {}), ...(timeout ? { taskTimeoutMs: timeout * 1000 } : {}), ...poolLimitsFrom(values) });
  const fix = fixFlag(values.fix);
  const policy = policyFrom(values.policy);
  const locale = localeFlag(values.locale);
  const preflight = {
    profiles: values.profiles,
    raster: !values['no-raster'],
    pool,
    policy,
    ...(values.previews ? { previewPages: 'all' as const } : {}),
    ...(locale ? { locale } : {}),
    ...(fileBudget ? { fileBudgetMs: fileBudget * 1000 } : {}),
  };
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
        ...(fix ? { fix } : {}),
        hardSignal: hard.signal,
        ...(stable !== undefined ? { stableMs: stable * 1000 } : {}),
        ...(interval !== undefined ? { intervalMs: interval * 1000 } : {}),
        onResult: (r) => io.stderr(`${safeForTerminal(`${r.verdict.toUpperCase()} ${r.file} → ${r.movedTo}${r.reason ? `: ${r.reason}` : ''}`)}\n`),
        onError: (file, e) => io.stderr(`${safeForTerminal(`print-preflight batch: ${file}: ${(e as Error).message}`)}\n`),
      });
      io.stderr(`Watching ${safeForTerminal(positionals[0]!)} (Ctrl-C to stop)…\n`);
      await new Promise<void>((resolve) => soft.signal.addEventListener('abort', () => resolve(), { once: true }));
      await hot.close();
      return signalName === 'SIGTERM' ? 143 : 130;
    }
    const view = new ProgressView((s) => io.stderr(s), io.stderrIsTTY ?? io.isTTY, io.stderrColumns ?? 80);
    const folder = {
      out,
      manifest: values.manifest,
      ...(concurrency !== undefined ? { concurrency } : {}),
      html: !values['no-html'],
      preflight,
      ...(fix ? { fix } : {}),
      signal: soft.signal,
      hardSignal: hard.signal,
      onProgress: ({ done, total, result }: BatchProgress) => view.update(done, total, result),
    };
    const summary = values.redis
      ? await (await import('../fleet/batch.js')).preflightFolderOnFleet(input, {
          ...folder,
          connection: { url: values.redis, ...(values.queue ? { queue: values.queue } : {}) },
          ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
        })
      : await preflightFolder(input, folder);
    view.end();
    say(io, `Wrote ${summary.files - summary.reused} report${summary.files - summary.reused === 1 ? '' : 's'} into ${values.out}/reports/, ${values.out}/summary.json and ${values.out}/index.html`);
    print(
      io,
      `${summary.files} file${summary.files === 1 ? '' : 's'}: ${summary.pass} pass, ${summary.warn} warn, ${summary.fail} fail, ${summary.error} error` +
        `${summary.reused ? ` (${summary.reused} kept from an earlier run)` : ''}${summary.interrupted ? `, ${summary.pending.length} not judged (interrupted)` : ''} → ${values.out}/index.html`,
    );
    const rank = { error: 0, fail: 1, warn: 2, pass: 3 } as const;
    const failed = summary.results.filter((r) => fails(r.verdict, failOn)).sort((a, b) => rank[a.verdict] - rank[b.verdict] || ordinal(a.file, b.file));
    if (failed.length) {
      io.stdout(`${failOn === 'warning' ? 'Failed or warned' : 'Failed'} (${failed.length}):\n`);
      const shown = failed.slice(0, 50);
      for (const r of shown) print(io, `  ${r.verdict.toUpperCase()} ${r.file}${r.reason ? `: ${r.reason}` : Object.keys(r.rules).length ? `: ${Object.keys(r.rules).join(', ')}` : ''}`, '    ');
      if (failed.length > shown.length) io.stdout(`  … ${failed.length - shown.length} more (${values.out}/summary.json lists every file)\n`);
    }
    const unwritten = summary.results.filter((r) => r.outputError);
    for (const r of unwritten) io.stderr(`${safeForTerminal(`print-preflight batch: ${r.file}: judged ${r.verdict}, but ${r.outputError}`)}\n`);
    if (summary.summaryError) io.stderr(`${safeForTerminal(`print-preflight batch: ${summary.summaryError}`)}\n`);
    if (summary.interrupted) return signalName === 'SIGTERM' ? 143 : 130;
    if (unwritten.length || summary.summaryError) return 3;
    return failed.length > 0 ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await pool.destroy();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
