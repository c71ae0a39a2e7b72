import { writeFile } from 'node:fs/promises';
import { PREVIEW_FORMATS } from '../model/preview.js';
import {
  choiceFlag,
  FAIL_ON_HELP,
  failOnFlag,
  fails,
  localeFlag,
  numberFlag,
  parseFlags,
  policyFrom,
  POOL_LIMITS_HELP,
  poolLimitsFrom,
  lookUpTarget,
  severitiesFrom,
  UsageError,
  type CliIO,
  type FlagSpec,
  type FlagValues,
} from './args.js';
import type { PreflightPool } from '../pool/pool.js';
import { say } from './output.js';
import type { Locale } from '../model/locales.js';
import type { Preview } from '../flow/preflight.js';
import type { Report } from '../report/schema.js';
import type { StructureRead } from '../flow/structure-read.js';
import type { ResolvedTarget } from '../profile/registry.js';

export const CHECK_HELP = `Usage: print-preflight check <file.pdf> (--product ID --variant ID | --sku SKU) [options]

Checks a print file against a product profile and prints what breaks the order service's rules.

Options:
  --product ID        product id (see \`print-preflight profiles\`)
  --variant ID        variant id, e.g. 200x200 or M
  --sku SKU           or the variant's SKU, e.g. DUVET-COVER-200X200
  --profiles DIR      load product profiles from DIR instead of the built-in ones
  --json              print the report as JSON
  --severity CODE=LEVEL  override a finding's severity (error, warning, info, off); repeatable
  --policy CODE=ACTION   a finding's action: reject, warn, fix (marked; \`fix\` and \`batch --fix\` fix it) or off; repeatable
  --locale L          the customer's language (en, pt-PT, pt-BR, es, fr, de, it; pt is pt-PT;
                      a BCP 47 tag such as es-MX takes its language): every finding gets its
                      customer message (--json), the text and --html report are the customer's,
                      in that language
${FAIL_ON_HELP}
  --min-ppi N         effective resolution at the printed size below which an image is a warning
                      (default from the profile: 100)
  --min-ppi-error N   ... below which it is an error (default from the profile: 50)
  --tolerance MM      page size tolerance per side (default from the profile: 2)
  --html FILE         write the visual report: every page shown as its layer, with findings
  --previews DIR      write each page's preview image into DIR (the JSON report names them)
  --preview-size PX   preview size, longest side (default 1200)
  --preview-format F  png, webp or jpeg (default webp; jpeg: only with --html)
  --no-raster         structure only: no rendering, no blank-page or edge checks (fastest)
  --workers N         worker threads (default: one per core)
  --timeout S         time limit per file structure and per page render, in seconds, from when a
                      worker takes it (default 60)
  --file-budget S     worker time the whole file may use, in seconds (default 300)
${POOL_LIMITS_HELP}
  --no-colour         plain text even on a terminal

Written files (--html, --previews) are named on stderr. Text is wrapped to a terminal's width; piped,
it is one line per item.
Exit status: 0 pass or warn, 1 fail (or warn with --fail-on warning), 2 misuse (unknown product,
missing file, bad flag). A closed output (| head) ends quietly with the same status.`;

const CHECK_FLAGS = {
  product: { type: 'string' },
  variant: { type: 'string' },
  sku: { type: 'string' },
  profiles: { type: 'string' },
  json: { type: 'boolean' },
  severity: { type: 'string', multiple: true },
  policy: { type: 'string', multiple: true },
  locale: { type: 'string' },
  'fail-on': { type: 'string' },
  'min-ppi': { type: 'string' },
  'min-ppi-error': { type: 'string' },
  tolerance: { type: 'string' },
  'no-colour': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  html: { type: 'string' },
  previews: { type: 'string' },
  'preview-size': { type: 'string' },
  'preview-format': { type: 'string' },
  'no-raster': { type: 'boolean' },
  workers: { type: 'string' },
  timeout: { type: 'string' },
  'file-budget': { type: 'string' },
  'decode-budget-mb': { type: 'string' },
  'max-rss-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

type CheckFlags = FlagValues<typeof CHECK_FLAGS>;

export async function checkCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, CHECK_FLAGS);
  if (values.help) {
    io.stdout(`${CHECK_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `check takes one file, got ${positionals.length}` : 'check needs a file');
  // Every byte of the file is decoded in the pool: its first worker starts now, while this thread
  // reads the profiles and loads the checks, so its start-up is off the critical path.
  const int = (flag: 'preview-size' | 'workers' | 'timeout', min: number, max: number) => numberFlag(values[flag], flag, { min, max });
  const workers = int('workers', 1, 256);
  const timeout = int('timeout', 1, 86_400);
  const poolLimits = poolLimitsFrom(values);
  const fileBudget = numberFlag(values['file-budget'], 'file-budget', { min: 1, max: 86_400 });
  const { PreflightPool, defaultPool } = await import('../pool/pool.js');
  const pool =
    workers !== undefined || timeout !== undefined || Object.keys(poolLimits).length
      ? new PreflightPool({ maxThreads: workers, taskTimeoutMs: timeout !== undefined ? timeout * 1000 : undefined, ...poolLimits })
      : undefined;
  const executor = pool ?? defaultPool();
  executor.warm(1);
  // The file's structure is read by that worker as soon as it is up, under the settings the check
  // will resolve (the check reads it again if they differ): the profiles and the checks load
  // meanwhile. A file that cannot be read says so when the check takes the read over, after any
  // mistake in the flags or the target.
  const path = positionals[0]!;
  const structure = startEarly(path, executor, fileBudget !== undefined ? fileBudget * 1000 : undefined);
  structure.catch(() => undefined);
  try {
    return await checkWith(values, path, pool, io, { fileBudget, structure });
  } finally {
    await pool?.destroy();
  }
}

/** The file read and its structure read started in the pool, with what a check of it resolves by default. */
async function startEarly(path: string, executor: PreflightPool, fileBudgetMs: number | undefined): Promise<StructureRead> {
  const [{ readSourceBytes }, { inspectOptionsOf, startStructureRead }, { MAX_RENDER_IMAGE_PIXELS }, { DEFAULT_FILE_BUDGET_MS }] = await Promise.all([
    import('../source/read.js'),
    import('../flow/structure-read.js'),
    import('../raster/budget.js'),
    import('../pool/budget.js'),
  ]);
  const { bytes } = await readSourceBytes(path);
  return startStructureRead(bytes, { executor, options: inspectOptionsOf(executor.decodeLimits, MAX_RENDER_IMAGE_PIXELS), fileBudgetMs: fileBudgetMs ?? DEFAULT_FILE_BUDGET_MS });
}

async function checkWith(values: CheckFlags, path: string, pool: PreflightPool | undefined, io: CliIO, early: { fileBudget: number | undefined; structure: Promise<StructureRead> }): Promise<number> {
  // The profiles read once and the target resolved once, here: the check is given both.
  const { target, registry, resolved } = await lookUpTarget(values);
  const severities = severitiesFrom(values.severity);
  const policy = policyFrom(values.policy);
  const locale = localeFlag(values.locale);
  const failOn = failOnFlag(values['fail-on']);
  const limits: Record<string, number> = {};
  for (const [flag, key] of [
    ['min-ppi', 'minPpi'],
    ['min-ppi-error', 'minPpiError'],
    ['tolerance', 'toleranceMm'],
  ] as const) {
    const n = numberFlag(values[flag], flag, { min: 0, integer: false });
    if (n !== undefined) limits[key] = n;
  }
  const previewSize = numberFlag(values['preview-size'], 'preview-size', { min: 64, max: 10_000 });
  const format = choiceFlag(values['preview-format'], 'preview-format', PREVIEW_FORMATS);
  if (format === 'jpeg' && values.previews) throw new UsageError('--preview-format jpeg is for the --html report; --previews writes png or webp');
  if (values['no-raster'] && (values.html || values.previews)) {
    // The HTML report still works without previews; previews need rendering.
    if (values.previews) throw new UsageError('--previews needs rendering: drop --no-raster');
  }
  const { fileBudget } = early;
  const [{ checkRun }, { resolveRun }, { renderHtml }, { renderText }] = await Promise.all([
    import('../flow/check.js'),
    import('../flow/run.js'),
    import('../report/html.js'),
    import('../report/text.js'),
  ]);
  const run = await resolveRun(
    target,
    {
      path,
      profiles: registry,
      severities,
      policy,
      ...(locale ? { locale } : {}),
      limits,
      raster: !values['no-raster'],
      previewDir: values.previews ?? null,
      ...(previewSize !== undefined ? { previewSize } : {}),
      ...(format !== undefined ? { previewFormat: format } : {}),
      ...(pool ? { pool } : {}),
      ...(fileBudget !== undefined ? { fileBudgetMs: fileBudget * 1000 } : {}),
      keepPreviews: values.html !== undefined,
    },
    resolved,
  );
  const { report, previews } = await checkRun(path, run, early.structure);
  // With --locale, the customer's pages: report.html and the text in their language.
  const customer = locale ? await customerOutput(resolved, locale) : null;
  if (values.html) {
    try {
      await writeFile(values.html, customer ? await customer.html(report, previews) : renderHtml(report, previews));
    } catch (error) {
      throw new UsageError(`cannot write ${values.html} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    say(io, `Wrote ${values.html} (the visual report)`);
  }
  if (values.previews) {
    const written = report.pages.filter((p) => p.preview?.file).length;
    say(io, `Wrote ${written} preview${written === 1 ? '' : 's'} into ${values.previews}`);
  }
  if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else if (customer) io.stdout(customer.text(report, { colour: io.isTTY && !values['no-colour'] && !values['no-color'] && !process.env.NO_COLOR, ...(io.columns ? { width: io.columns } : {}) }));
  else io.stdout(renderText(report, { colour: io.isTTY && !values['no-colour'] && !values['no-color'] && !process.env.NO_COLOR, ...(io.columns ? { width: io.columns } : {}) }));
  return fails(report.verdict, failOn) ? 1 : 0;
}

/** The customer's report in a locale: its text, and report.html with each part's mockup. */
async function customerOutput(resolved: ResolvedTarget, locale: Locale) {
  const [{ uiFormatter }, { renderCustomerText }, { customerReportPage }, { layerMockups }] = await Promise.all([
    import('../messages/catalogue.js'),
    import('../report/customer-text.js'),
    import('../report/customer-pages.js'),
    import('../report/mockup.js'),
  ]);
  const t = await uiFormatter(locale);
  return {
    text: (report: Report, options: { colour?: boolean; width?: number }) => renderCustomerText(report, t, resolved.profile, options),
    html: async (report: Report, previews: ReadonlyMap<number, Preview>) =>
      customerReportPage({ report, which: 'after', images: previews, mockups: await layerMockups(report, previews, resolved), record: {}, profile: resolved.profile, locale }),
  };
}
