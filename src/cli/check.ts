import { PreflightError } from '../errors.js';
import { preflight } from '../preflight.js';
import { renderText } from '../report/text.js';
import { FINDING_CODE_LIST, SeveritySettingSchema, type FindingCode, type SeveritySetting } from '../rules/codes.js';
import { parseArgs } from 'node:util';
import { usage, targetFrom, UsageError, type CliIO } from './args.js';

export const CHECK_HELP = `Usage: print-preflight check <file.pdf> (--product ID --variant ID | --sku SKU) [options]

Checks a print file against a product profile and prints what breaks the order service's rules.

Options:
  --product ID        product id (see \`print-preflight profiles\`)
  --variant ID        variant id, e.g. 200x200 or M
  --sku SKU           or the variant's SKU, e.g. DUVET-COVER-200X200
  --profiles DIR      load product profiles from DIR instead of the built-in ones
  --json              print the report as JSON
  --severity CODE=LEVEL  override a finding's severity (error, warning, info, off); repeatable
  --min-ppi N         minimum effective image resolution (default from the profile: 100)
  --tolerance MM      page size tolerance per side (default from the profile: 2)
  --no-colour         plain text even on a terminal

Exit status: 0 pass or warn, 1 fail, 2 misuse (unknown product, missing file, bad flag).`;

export async function checkCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, allowPositionals: true, strict: true, options: {
    product: { type: 'string' },
    variant: { type: 'string' },
    sku: { type: 'string' },
    profiles: { type: 'string' },
    json: { type: 'boolean' },
    severity: { type: 'string', multiple: true },
    'min-ppi': { type: 'string' },
    tolerance: { type: 'string' },
    'no-colour': { type: 'boolean' },
    'no-color': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } }));
  if (values.help) {
    io.stdout(`${CHECK_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `check takes one file, got ${positionals.length}` : 'check needs a file');
  const target = targetFrom(values);
  const severities: Partial<Record<FindingCode, SeveritySetting>> = {};
  for (const item of values.severity ?? []) {
    const [code, level] = item.split('=');
    if (!FINDING_CODE_LIST.includes(code as FindingCode)) throw new UsageError(`--severity: unknown finding code "${code}"`);
    const parsed = SeveritySettingSchema.safeParse(level);
    if (!parsed.success) throw new UsageError(`--severity ${code}: level must be error, warning, info or off`);
    severities[code as FindingCode] = parsed.data;
  }
  const limits: Record<string, number> = {};
  for (const [flag, key] of [
    ['min-ppi', 'minPpi'],
    ['tolerance', 'toleranceMm'],
  ] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${flag} needs a non-negative number, got "${raw}"`);
    limits[key] = n;
  }
  let report;
  try {
    report = await preflight(positionals[0]!, target, { profiles: values.profiles, severities, limits });
  } catch (error) {
    if (error instanceof PreflightError && error.code !== 'ERR_WORKER_CRASHED' && error.code !== 'ERR_TIMEOUT') {
      throw new UsageError(error.message);
    }
    throw error;
  }
  if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(renderText(report, { colour: io.isTTY && !values['no-colour'] && !values['no-color'] && !process.env.NO_COLOR }));
  return report.verdict === 'fail' ? 1 : 0;
}
