import { stat } from 'node:fs/promises';
import { numberFlag, parseFlags, poolLimitsFrom, UsageError, type CliIO } from './args.js';

export const WORKER_HELP = `Usage: print-preflight worker --redis URL --data DIR [--storage s3://BUCKET/PREFIX] [--workers N] [--concurrency N]

Takes preflight jobs from the fleet's queue on Redis (put there by "serve --redis" and
"batch --redis") and runs them on this machine's worker threads. Start any number, on any machine
that reaches Redis and the server's storage: with --storage s3://…, the same bucket and prefix as
the server (--data is then a scratch folder of this machine's own); without it, the server's data
folder mounted at the same path (and, for batches, the batch and output folders).
A batch over object storage (batch s3://… --out s3://… --redis) needs workers with --storage (its
endpoint and credentials reach the buckets the batch names): each file is downloaded to --data
while it is judged, its reports written under the batch's output prefix.
With --storage, a store that stops answering is waited for (each call tried again with backoff for
up to 90 s, a check's run for up to 5 minutes, then the job goes back to the queue with BullMQ's
backoff): an accepted check ends, once. A missing bucket or denied access stops the worker at
start-up with a message naming what to fix.

Logs one JSON object per line on stderr (job ids, outcomes, Redis outages).
A check carries its owner: past its tenant's --max-running (set on the server), fleet-wide, it goes
back on the queue for a few seconds, without counting an attempt, and other tenants' checks run.
SIGTERM or Ctrl-C: stop taking jobs, let the jobs in flight finish within --grace seconds, put the
rest back on the queue, exit; a second signal stops at once. With Redis unreachable it exits as soon
as no job runs (at most --grace): jobs it could not hand back go to another worker when their lock
expires, and a result already written is found in the data folder.

Options:
  --redis URL              redis://[user:password@]host[:port][/db], or rediss:// (required)
  --data DIR               the service's data folder, shared with the server; with --storage,
                           a local scratch folder (required)
  --storage s3://BUCKET/PREFIX  the server's object storage (credentials and region from the
                           standard AWS environment and files)
  --s3-endpoint URL        a non-AWS S3-compatible endpoint, path-style addressing
  --no-reuse               run every check, even one whose same file was checked before
  --workers N              worker threads (default: one per core)
  --concurrency N          jobs at once (default: one per thread)
  --queue NAME             queue name (default checks)
  --profiles DIR           product profiles folder (the server's must be the same)
  --allow-host HOST        a private/loopback host source URLs may reach (repeatable;
                           give the server's --allow-host list)
  --timeout S              time limit per file structure and per page, in seconds (default 60)
  --decode-budget-mb N     bytes all decoders may produce for one file, in MiB (default 1024)
  --max-rss-mb N           memory watchdog: past N MB of resident memory the task most likely to
                           blame is stopped and its file gets a finding (default 85 % of memory)
  --grace S                seconds in-flight jobs get to finish on SIGTERM (default 60)
  --crash-limit N          workers a file may take down before it ends as a poison file (default 2)
  --lock-duration S        a job's lock, renewed at half of it (default 30); a dead worker's
                           jobs go to another one after about this long
  --stalled-interval S     how often to look for jobs of dead workers (default 15)

Exit status: 0 after a graceful stop, 1 when jobs had to be put back, 2 misuse.`;

export async function workerCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    redis: { type: 'string' },
    data: { type: 'string' },
    storage: { type: 'string' },
    's3-endpoint': { type: 'string' },
    'no-reuse': { type: 'boolean' },
    workers: { type: 'string' },
    concurrency: { type: 'string' },
    queue: { type: 'string' },
    profiles: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    timeout: { type: 'string' },
    grace: { type: 'string' },
    'crash-limit': { type: 'string' },
    'lock-duration': { type: 'string' },
    'stalled-interval': { type: 'string' },
    'decode-budget-mb': { type: 'string' },
    'max-rss-mb': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${WORKER_HELP}\n`);
    return 0;
  }
  if (positionals.length) throw new UsageError('worker takes no file arguments');
  if (!values.redis) throw new UsageError('worker needs --redis URL');
  if (!values.data) throw new UsageError('worker needs --data DIR (the data folder shared with the server)');
  const workers = numberFlag(values.workers, 'workers', { min: 1, max: 256 });
  const concurrency = numberFlag(values.concurrency, 'concurrency', { min: 1, max: 256 });
  const timeout = numberFlag(values.timeout, 'timeout', { min: 1 });
  const grace = numberFlag(values.grace, 'grace', { min: 0, integer: false }) ?? 60;
  const crashLimit = numberFlag(values['crash-limit'], 'crash-limit', { min: 1, max: 20 });
  const lock = numberFlag(values['lock-duration'], 'lock-duration', { min: 0.5, integer: false });
  const stalled = numberFlag(values['stalled-interval'], 'stalled-interval', { min: 0.1, integer: false });
  if (values.storage !== undefined && !/^s3:\/\/[^/\s]+/.test(values.storage)) throw new UsageError(`--storage must be s3://BUCKET/PREFIX, got "${values.storage}"`);
  if (values['s3-endpoint'] !== undefined && !values.storage) throw new UsageError('--s3-endpoint needs --storage s3://BUCKET/PREFIX');
  try {
    if (!(await stat(values.data)).isDirectory()) throw new Error();
  } catch {
    throw new UsageError(`--data ${values.data} is not a folder`);
  }

  const { requireServerPackages, FLEET_PACKAGES } = await import('../util/server-packages.js');
  await requireServerPackages('print-preflight worker', FLEET_PACKAGES);
  const { PreflightPool } = await import('../pool/pool.js');
  const { FleetWorker } = await import('../fleet/worker.js');
  const { fleetHandlers } = await import('../fleet/handlers.js');
  const { jsonLogger } = await import('../fleet/log.js');
  const { parseRedisUrl } = await import('../fleet/connection.js');
  parseRedisUrl(values.redis);
  const storage = values.storage
    ? await (await import('../storage/open.js')).openStorage({ url: values.storage, ...(values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {}) }, 'print-preflight worker --storage')
    : undefined;

  const pool = new PreflightPool({ ...(workers ? { maxThreads: workers } : {}), ...(timeout ? { taskTimeoutMs: timeout * 1000 } : {}), ...poolLimitsFrom(values) });
  const name = `${(await import('node:os')).hostname()}:${process.pid}`;
  const log = jsonLogger(name, io.stderr);
  const worker = new FleetWorker(
    { url: values.redis, ...(values.queue ? { queue: values.queue } : {}) },
    pool,
    fleetHandlers({
      data: values.data,
      ...(storage ? { storage } : {}),
      ...(values['s3-endpoint'] ? { s3Endpoint: values['s3-endpoint'] } : {}),
      reuse: values['no-reuse'] !== true,
      profiles: values.profiles,
      network: { allowHosts: values['allow-host'] ?? [] },
    }),
    {
      name,
      ...(concurrency ? { concurrency } : {}),
      ...(lock ? { lockDurationMs: Math.round(lock * 1000) } : {}),
      ...(stalled ? { stalledIntervalMs: Math.round(stalled * 1000) } : {}),
      ...(crashLimit ? { policy: { crashLimit } } : {}),
    },
    log,
  );
  let signals = 0;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) resolve(signal);
      else worker.abortInFlight();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  const signal = await stopped;
  log('info', 'signal', { signal });
  const { graceful } = await worker.close(grace * 1000);
  await pool.destroy();
  const code = graceful ? 0 : 1;
  (await import('./output.js')).exitAfterShutdown(code);
  return code;
}
