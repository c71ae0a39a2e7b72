import { realpath, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fixKnown } from '../flow/fix.js';
import { formatBytes } from '../pdf/units.js';
import { renderText } from '../report/text.js';
import { FitSchema, RotateSchema } from '../model/instructions.js';
import { choiceFlag, FAIL_ON_HELP, failOnFlag, fails, numberFlag, parseFlags, policyFrom, POOL_LIMITS_HELP, poolLimitsFrom, lookUpTarget, severitiesFrom, UsageError, type CliIO } from './args.js';
import { FINDING_CODE_LIST, type FindingCode } from '../model/codes.js';
import { say } from './output.js';

export const FIX_HELP = `Usage: print-preflight fix <in.pdf> (--product ID --variant ID | --sku SKU) --out out.pdf [options]

Fixes what the product's policy says to fix, each fix a separate step, then checks the output
again — by the same rules as batch --fix, the service and the fleet:
  page-order-mismatch        puts the pages in layer order (or the order --pages gives)
  page-rotate-set            bakes /Rotate into the content (/Rotate 0)
  page-orientation-mismatch  turns the content 90° (--rotate: the direction is never guessed)
  page-scale-mismatch        scales the page uniformly to the layer size
  page-size-mismatch         fits the page to the layer (--fit)
  colour-space-not-rgb       images and vector colours to sRGB through lcms (ICC profiles honoured)
  image-too-large            downsamples images to at most 15,000 px per side
  file-too-large             recompresses JPEG images until under 50 MB
A fix the product's approval list holds (it changes what prints: colour conversion, fitting…) is
made only with --approve; otherwise it is listed as held, and the file keeps that finding.
The fixes run in worker threads under the file's decode budget and time limit: a file that cannot be
fixed within them is refused with the reason. When nothing could be fixed, nothing is written. The
input is never overwritten unless --force.

Options:
  --out FILE          where to write the fixed PDF (required; not the input, unless --force)
  --force             allow --out to be the input file (replacing it)
  --approve CODE[,CODE]|all
                      make the fixes the approval list holds for these codes (repeatable)
  --reorder           put pages in layer order (the shipped products' policy already does)
  --pages 3,4,1,2     or give the order: page 3 first, then 4, 1, 2
  --rotate cw|ccw     direction to turn sideways pages (asks for and approves that fix)
  --fit contain|cover|stretch
                      how to fit pages of other proportions than their layer (asks for and
                      approves that fix)
  --policy CODE=ACTION  a finding's action for this run: reject, warn, fix or off (repeatable)
  --jpeg-quality Q    quality of re-encoded JPEG images (default 92)
  --severity CODE=LEVEL  override a finding's severity (as check); repeatable
${FAIL_ON_HELP}
${POOL_LIMITS_HELP}
  --profiles DIR      product profiles folder
  --json              print the changes, refusals and the new report as JSON

The file written is named on stderr.
Exit status: 0 written and the output does not fail (or nothing needed fixing and the input does not
fail), 1 it still fails (or warns, with --fail-on warning) or a needed fix was refused or held for
approval, 2 misuse.`;

export async function fixCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    product: { type: 'string' },
    variant: { type: 'string' },
    sku: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    rotate: { type: 'string' },
    reorder: { type: 'boolean' },
    pages: { type: 'string' },
    fit: { type: 'string' },
    'jpeg-quality': { type: 'string' },
    severity: { type: 'string', multiple: true },
    policy: { type: 'string', multiple: true },
    approve: { type: 'string', multiple: true },
    'decode-budget-mb': { type: 'string' },
    'max-rss-mb': { type: 'string' },
    'fail-on': { type: 'string' },
    profiles: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${FIX_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `fix takes one PDF, got ${positionals.length}` : 'fix needs one PDF');
  if (!values.out) throw new UsageError('fix needs --out FILE');
  const input = positionals[0]!;
  if (!values.force && (await samePath(input, values.out))) throw new UsageError(`--out ${values.out} is the input file: write elsewhere, or add --force to replace it`);
  const rotate = choiceFlag(values.rotate, 'rotate', RotateSchema.options);
  const fit = choiceFlag(values.fit, 'fit', FitSchema.options);
  const quality = numberFlag(values['jpeg-quality'], 'jpeg-quality', { min: 30, max: 100 });
  const severities = severitiesFrom(values.severity);
  const failOn = failOnFlag(values['fail-on']);
  let pages: number[] | undefined;
  if (values.pages !== undefined) {
    if (!/^\d+(,\d+)*$/.test(values.pages)) throw new UsageError(`--pages needs page numbers separated by commas, e.g. 3,4,1,2, got "${values.pages}"`);
    pages = values.pages.split(',').map(Number);
  }
  const policy = policyFrom(values.policy);
  const approve = approveFrom(values.approve);
  // The profiles read once, here: the fix is given the registry.
  const { target, registry, resolved } = await lookUpTarget(values);
  const poolLimits = poolLimitsFrom(values);
  const { PreflightPool } = await import('../pool/pool.js');
  const pool = Object.keys(poolLimits).length ? new PreflightPool(poolLimits) : undefined;
  const result = await fixKnown(
    input,
    target,
    {
      reorder: values.reorder ?? false,
      ...(pages ? { pages } : {}),
      outPath: values.out,
      rotate,
      fit,
      ...(quality ? { jpegQuality: quality } : {}),
      approve,
      instructions: 'cli',
    },
    { profiles: registry, severities, policy, ...(pool ? { pool } : {}) },
    resolved,
  ).finally(() => pool?.destroy());
  if (result.bytes) {
    try {
      await writeFile(values.out, result.bytes);
    } catch (error) {
      throw new UsageError(`cannot write ${values.out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    say(io, `Wrote ${values.out} (${formatBytes(result.bytes.length)})`);
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ written: result.bytes ? values.out : null, changes: result.changes, refused: result.refused, report: result.after }, null, 2)}\n`);
  } else {
    const nothing = result.changes.length === 0;
    const held = result.refused.filter((r) => r.reason.startsWith('held for approval'));
    const notFixed = result.refused.filter((r) => !held.includes(r));
    const lines = [
      result.bytes ? `Fixed ${input} → ${values.out}.` : nothing ? `Nothing to fix in ${input} that can be fixed: nothing was written.` : 'Nothing was written.',
      ...(result.changes.length ? ['', 'Changes:', ...result.changes.map((c) => `  ✓ ${c.page ? `page ${c.page}: ` : ''}${c.action} [${c.code}]`)] : []),
      ...(notFixed.length ? ['', 'Not fixed:', ...notFixed.map((r) => `  ✗ ${r.page ? `page ${r.page}: ` : ''}${r.reason} [${r.code}]`)] : []),
      ...(held.length
        ? [
            '',
            'Held for approval (not made; add --approve CODE to make them):',
            ...held.map((r) => `  ⏸ ${r.page ? `page ${r.page}: ` : ''}${r.reason.replace(/^held for approval: /, '')} [${r.code}]`),
          ]
        : []),
      '',
    ];
    io.stdout(lines.join('\n'));
    if (result.after) io.stdout(`\n${renderText(result.after, { colour: io.isTTY && !process.env.NO_COLOR, ...(io.columns ? { width: io.columns } : {}) })}`);
  }
  // Nothing fixed: the input's own verdict (structure checks) decides; nothing written after a refusal is a failure.
  if (!result.bytes) return result.changes.length === 0 && !result.refused.length ? (fails(result.before.verdict, failOn) ? 1 : 0) : 1;
  return result.after && !fails(result.after.verdict, failOn) ? 0 : 1;
}

/** Whether two paths name the same file (after symlinks), or the same path when `out` does not exist yet. */
async function samePath(a: string, b: string): Promise<boolean> {
  const real = async (p: string) => realpath(p).catch(() => resolve(p));
  return (await real(a)) === (await real(b));
}

/** --approve CODE[,CODE] (repeatable) or `all`: the fixes the approval list holds that are approved here. */
function approveFrom(items: readonly string[] | undefined): 'all' | FindingCode[] {
  const codes = (items ?? [])
    .flatMap((i) => i.split(','))
    .map((c) => c.trim())
    .filter(Boolean);
  if (codes.includes('all')) return 'all';
  for (const code of codes) if (!FINDING_CODE_LIST.includes(code as FindingCode)) throw new UsageError(`--approve: unknown finding code "${code}"`);
  return codes as FindingCode[];
}
