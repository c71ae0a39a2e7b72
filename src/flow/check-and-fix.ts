/**
 * Check, fix, check again: the flow a platform puts in front of its uploads. The policy names the
 * codes to fix (`fix`); the file is checked, those findings fixed ({@link fix}), the fixed file
 * checked again under the same rules, and the outcome says whether a person must approve the
 * changes before the file is used (`fix: 'approve'` and a change to a code of the product's
 * `approval` list). Used alike by the library, CLI, batch, service and fleet.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from '../options.js';
import { FixOptionsSchema, fix, noteRemaining, type Change, type Refusal } from './fix.js';
import { formatPath, registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import type { FindingCode } from '../model/codes.js';
import { DEFAULT_APPROVAL, DEFAULT_FIX_POLICY, FixModeSchema, isFixable, type FixMode } from '../model/policy.js';
import { readSource } from '../source/read.js';
import { changeText, formatMegabytes } from '../messages/catalogue.js';
import { preflightWithPreviews, type Preview } from './preflight.js';
import { downloadSource, type NetworkOptions } from './preflight-url.js';

export { FixModeSchema, type FixMode };

export { DEFAULT_APPROVAL, DEFAULT_FIX_POLICY };

/** One change, with what it means to the customer when a locale was asked for. */
export interface FlowChange extends Change {
  /** The customer's words for the change (`fixed` of the catalogue). */
  customer?: string;
  /** Whether this change waits for approval under `fix: 'approve'`. */
  needsApproval: boolean;
}

export interface FixedFile {
  bytes: Uint8Array;
  sha256: string;
  changes: FlowChange[];
  refused: Refusal[];
}

export interface CheckAndFixResult {
  /** `done`: use `report` (and the fixed file when there is one); `needs-approval`: a person approves the changes first. */
  status: 'done' | 'needs-approval';
  /** The report the file is judged by: the fixed file's when a fix was made, else the original's. */
  report: Report;
  previews: Map<number, Preview>;
  /** The original file's report and previews (the "before"). */
  before: Report;
  beforePreviews: Map<number, Preview>;
  /** The fixed file, or null when the policy fixes nothing in this file or no fix could be made. */
  fixed: FixedFile | null;
  /** With no fixed file: the fixes the policy asked for that could not be made, and why (a file over the limits, an image that cannot be decoded…). */
  refused?: Refusal[];
}

export type CheckAndFixOptions = PreflightOptions & {
  /** Apply the policy's fixes (`auto`) or apply them and wait for approval (`approve`). */
  fix: FixMode;
  /** Direction to turn sideways pages, when the policy fixes page-orientation-mismatch. */
  rotate?: 'cw' | 'ccw';
  /** How to fit pages of other proportions, when the policy fixes page-size-mismatch. */
  fit?: 'contain' | 'cover' | 'stretch';
  /** The name the fixed file's report gives it (default: the input's name with `.fixed.pdf`, `fixedFileName`). */
  fixedPath?: string;
};

/**
 * The name of a fixed file, for its report: the input's name with `.fixed` before `.pdf`
 * (`order-12/design.pdf` → `order-12/design.fixed.pdf`; a URL gives its last segment, as the
 * fixed file is served elsewhere). Null stays null (bytes from memory).
 * @example
 * fixedFileName('apparel.pdf'); // 'apparel.fixed.pdf'
 */
export function fixedFileName(path: string | null): string | null {
  if (path === null) return null;
  let name = path;
  if (/^https?:\/\//i.test(path)) {
    try {
      name = decodeURIComponent(new URL(path).pathname.split('/').pop() ?? '') || 'download.pdf';
    } catch {
      name = 'download.pdf';
    }
  }
  return /\.pdf$/i.test(name) ? name.replace(/\.pdf$/i, '.fixed.pdf') : `${name}.fixed.pdf`;
}

/**
 * Checks a file, fixes what the policy says to fix, checks the fixed file again.
 * @example
 * const out = await checkAndFix('design.pdf', { sku: 'TSHIRT-M' }, { fix: 'approve', locale: 'pt' });
 * if (out.status === 'needs-approval') console.log(out.fixed?.changes.map((c) => c.customer));
 * else if (out.report.verdict !== 'fail' && out.fixed) await writeFile('fixed.pdf', out.fixed.bytes);
 */
export async function checkAndFix(input: string | Uint8Array, target: Target, options: CheckAndFixOptions): Promise<CheckAndFixResult> {
  const { fix: mode, rotate, fit, fixedPath: _fixedPath, ...preflightOptions } = options;
  if (!FixModeSchema.safeParse(mode).success) throw new InvalidArgumentError(`fix must be "auto" or "approve", not ${JSON.stringify(mode)}`);
  const registry = await registryFrom(preflightOptions.profiles);
  const resolved = registry.resolve(target);
  const approval = new Set<FindingCode>(resolved.profile.approval ?? DEFAULT_APPROVAL);
  const fixOptions = FixOptionsSchema.safeParse({ rotate, fit });
  if (!fixOptions.success) throw new InvalidArgumentError(`Invalid fix options: ${fixOptions.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  const source = await readSource(input);
  // The profile's policy (DEFAULT_FIX_POLICY when it has none) at the profile's level, the call's
  // severities and policy over it: a client's tightening is kept, and a bounded call stays bounded.
  const opts: PreflightOptions = { ...preflightOptions, profiles: registry, defaultPolicy: preflightOptions.defaultPolicy ?? DEFAULT_FIX_POLICY, path: preflightOptions.path ?? source.path };
  const first = await preflightWithPreviews(source.bytes, target, opts);
  const codes = [...new Set(first.report.findings.filter((f) => f.action === 'fix' && isFixable(f.code)).map((f) => f.code))];
  const unchanged: CheckAndFixResult = { status: 'done', report: first.report, previews: first.previews, before: first.report, beforePreviews: first.previews, fixed: null };
  if (!codes.length) return unchanged;
  // This flow asks for approval itself (status needs-approval): every fix the policy names is made.
  const made = await fix(source.bytes, target, { ...fixOptions.data, codes, approve: 'all', recheck: false }, { ...opts, locale: undefined });
  // No fixed file: the fixes the policy asked for and why each was not made stay with the result.
  if (!made.bytes) return { ...unchanged, fixed: null, ...(made.refused.length ? { refused: made.refused } : {}) };
  // The fixed file's report names it as the fixed file (its checksum is the fixed file's).
  const after = await preflightWithPreviews(made.bytes, target, { ...opts, path: options.fixedPath ?? fixedFileName(opts.path ?? null) });
  const refused = [...made.refused];
  noteRemaining(made.changes, refused, after.report);
  const changes: FlowChange[] = await Promise.all(
    made.changes.map(async (change) => {
      const needsApproval = approval.has(change.code);
      if (!opts.locale) return { ...change, needsApproval };
      // A change's page is a page of the fixed file: its layer is that page's, the finding behind it the original page's that became it.
      const customer = await changeText(change, { before: first.report, after: after.report }, resolved.profile, opts.locale, { size: formatMegabytes(made.bytes!.length, opts.locale) });
      return { ...change, needsApproval, customer };
    }),
  );
  const sha256 = createHash('sha256').update(made.bytes).digest('hex');
  // A fixed file that still fails is not put to anyone: there is nothing to approve.
  const status = mode === 'approve' && after.report.verdict !== 'fail' && changes.some((c) => c.needsApproval) ? 'needs-approval' : 'done';
  return { status, report: after.report, previews: after.previews, before: first.report, beforePreviews: first.previews, fixed: { bytes: made.bytes, sha256, changes, refused } };
}

export type CheckAndFixUrlOptions = CheckAndFixOptions & { network?: NetworkOptions };

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
  const { network, ...rest } = options;
  if (!FixModeSchema.safeParse(rest.fix).success) throw new InvalidArgumentError(`fix must be "auto" or "approve", not ${JSON.stringify(rest.fix)}`);
  const got = await downloadSource(url, target, { ...rest, ...(network ? { network } : {}) });
  if (!got.ok) return { status: 'done', report: got.report, previews: new Map(), before: got.report, beforePreviews: new Map(), fixed: null };
  const out = await checkAndFix(got.bytes, target, { ...rest, profiles: got.options.profiles, path: url });
  const [report, before] = await Promise.all([got.finish(out.report), out.before === out.report ? null : got.finish(out.before)]);
  // A download finding that fails the file (a login page) leaves nothing to approve.
  const status = out.status === 'needs-approval' && report.verdict === 'fail' ? 'done' : out.status;
  return { ...out, status, report, before: before ?? report };
}
