/**
 * Check, fix, check again: the flow a platform puts in front of its uploads. The policy names the
 * codes to fix (`fix`); the file is checked, those findings fixed, the fixed file checked again
 * under the same rules, and the outcome says whether a person must approve the changes before the
 * file is used (`fix: 'approve'` and a change to a code of the product's `approval` list). Used
 * alike by the library, CLI, batch, service and fleet: {@link check} (flow/check.ts) with a mode.
 */
import { InvalidArgumentError } from '../errors.js';
import type { CheckOptions, Target } from './options.js';
import { DEFAULT_APPROVAL, DEFAULT_FIX_POLICY, FixModeSchema, type FixMode } from '../model/policy.js';
import { check, fixedFileName, type CheckResult, type FixedFile, type FlowChange } from './check.js';

export { FixModeSchema, type FixMode };

export { DEFAULT_APPROVAL, DEFAULT_FIX_POLICY };

export type { FlowChange, FixedFile };

/** What {@link checkAndFix} answers (the result of {@link check} with a fix mode). */
export type CheckAndFixResult = CheckResult;

/** Options of {@link checkAndFix}: those of {@link check}, with its `fix` mode required. */
export type CheckAndFixOptions = CheckOptions & { fix: FixMode };

export { fixedFileName };

/**
 * Checks a file, fixes what the policy says to fix, checks the fixed file again: {@link check}
 * with a fix mode.
 * @example
 * const out = await checkAndFix('design.pdf', { sku: 'TSHIRT-M' }, { fix: 'approve', locale: 'pt' });
 * if (out.status === 'needs-approval') console.log(out.fixed?.changes.map((c) => c.customer));
 * else if (out.report.verdict !== 'fail' && out.fixed) await writeFile('fixed.pdf', out.fixed.bytes);
 */
export async function checkAndFix(input: string | Uint8Array, target: Target, options: CheckAndFixOptions): Promise<CheckAndFixResult> {
  if (!FixModeSchema.safeParse(options.fix).success) throw new InvalidArgumentError(`fix must be "auto" or "approve", not ${JSON.stringify(options.fix)}`);
  return check(input, target, options);
}

/** Options of {@link checkAndFixUrl}: those of {@link checkAndFix}, `network` included. */
export type CheckAndFixUrlOptions = CheckAndFixOptions;

/**
 * {@link checkAndFix} on a source URL: downloaded the way the order service will (within the
 * target's file-size limit and the network options, SSRF-guarded), then checked, fixed and checked
 * again. Both reports carry what the download found (`source`, `source-*` findings); a download that
 * gives no file ends `done` with the report saying why, and no fixed file.
 * @example
 * const out = await checkAndFixUrl('https://cdn.example.com/a.pdf', { sku: 'T-SHIRT-M' }, { fix: 'auto' });
 * if (out.fixed) await writeFile('fixed.pdf', out.fixed.bytes);
 */
export async function checkAndFixUrl(url: string, target: Target, options: CheckAndFixUrlOptions): Promise<CheckAndFixResult> {
  if (!FixModeSchema.safeParse(options.fix).success) throw new InvalidArgumentError(`fix must be "auto" or "approve", not ${JSON.stringify(options.fix)}`);
  return check({ url }, target, options);
}
