/**
 * Fix: check, fix what the product's policy says to fix, check again. The fixes themselves are
 * transforms (convert/) that run in the pool under the file's decode budget, never in this thread;
 * what they fix is decided here, from the check's findings, by the same rules as checkAndFix,
 * batch, the service and the fleet: the product's policy (or {@link DEFAULT_FIX_POLICY}) and the
 * call's, and the product's approval list — a fix that changes what prints and that the approval
 * list holds is made only when approved (`approve`), never silently.
 */
import { z } from 'zod';
import { parseOrThrow } from '../util/parse.js';
import type { PreflightOptions, Target } from './options.js';
import { TaskFailure } from '../pool/pool.js';
import { TimeBudget } from '../pool/budget.js';
import type { Limits } from '../profile/schema.js';
import type { ResolvedTarget } from '../profile/registry.js';
import type { Report } from '../report/schema.js';
import { FindingCodeSchema, type FindingCode } from '../model/codes.js';
import { FitSchema, InstructionWordsSchema, instructionWords, RotateSchema } from '../model/instructions.js';
import { DEFAULT_APPROVAL, DEFAULT_FIX_POLICY, FIXES, isFixable, type Policy } from '../model/policy.js';
import { actionOf } from '../rules/settle.js';
import { profileRules } from '../rules/index.js';
import { readSource, sha256Hex } from '../source/read.js';
import { assertPermutation, type FixPlan } from '../convert/plan.js';
import type { Change, Refusal } from '../model/change.js';
import { checkResolved } from './check-file.js';
import { resolveRun, type ResolvedRun } from './run.js';

export type { Change, Refusal };

/**
 * Options of `fix()`: which fixes to run (reorder, rotate, scale, colour…) and how.
 * @example
 * import { FixOptionsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const options = FixOptionsSchema.safeParse(json);
 */
export const FixOptionsSchema = z
  .object({
    /** Direction to turn sideways pages (page-orientation-mismatch, which it then fixes). Never guessed. */
    rotate: RotateSchema.optional(),
    /** How to fit a page whose proportions differ from its layer (page-size-mismatch, which it then fixes). Without it, refused. */
    fit: FitSchema.optional(),
    /** Put the pages in layer order when their sizes say they are in another order (the policy's default already does). */
    reorder: z.boolean().default(false),
    /** An explicit page order: `[3, 4, 1, 2]` makes page 3 the first. Overrides `reorder`. */
    pages: z.array(z.number().int().min(1)).min(1).optional(),
    /** The name the fixed file will be written under, for the report on it (default: the input's). */
    outPath: z.string().min(1).optional(),
    /**
     * Fix only findings of these codes; the others are left as they are. Default: the codes the
     * product's policy (and the call's `policy`) says to fix, and those `rotate`, `fit` and `pages`
     * ask for. `page-order-mismatch` in the list means `reorder`.
     */
    codes: z.array(FindingCodeSchema).optional(),
    /**
     * Fixes the product's approval list holds (changes to what prints: colour conversion, fitting,
     * downsampling…) that are approved here, so they are made: their codes, or `'all'`. Default
     * none: each held fix is refused with the reason, and the file keeps that finding. `rotate`,
     * `fit` and `pages` approve their own fix (they say exactly what to do).
     */
    approve: z.union([z.literal('all'), z.array(FindingCodeSchema)]).default([]),
    /** Check the fixed file again (`after`); `false` leaves that to the caller (`noteRemaining`). */
    recheck: z.boolean().default(true),
    /** JPEG quality of re-encoded images. */
    jpegQuality: z.number().int().min(30).max(100).default(92),
    /** Whose words a refusal uses to say which instruction it needs: the library's options (default), the command line's flags, the HTTP API's fields. */
    instructions: InstructionWordsSchema.default('library'),
  })
  .strict();
export type FixOptions = z.input<typeof FixOptionsSchema>;

export interface FixResult {
  /** The fixed file, or null when nothing was changed or nothing could be written. */
  bytes: Uint8Array | null;
  changes: Change[];
  refused: Refusal[];
  before: Report;
  after: Report | null;
}

const FATAL: FindingCode[] = ['file-not-pdf', 'pdf-damaged', 'pdf-encrypted', 'pdf-too-complex', 'pdf-timeout'];

/**
 * Fixes a print file for a product: what the policy says to fix (and the options ask for), with
 * the fixes the approval list holds made only when approved. The work is done in the pool.
 * @param input a path or the file's bytes
 * @param target `{ product, variant }` or `{ sku }`
 * @param options `rotate`, `fit`, `pages`, `approve`, `jpegQuality`…
 * @param preflightOptions options of the checks before and after (profiles, limits, policy, pool…)
 * @returns the new bytes, the changes, the fixes refused (or held for approval) and the reports before and after
 * @example
 * const { bytes, changes, after } = await fix('in.pdf', { sku: 'CURTAINS-140X260' }, { rotate: 'cw', approve: ['colour-space-not-rgb'] });
 * if (bytes && after?.verdict !== 'fail') await writeFile('out.pdf', bytes);
 */
export async function fix(input: string | Uint8Array, target: Target, options: FixOptions = {}, preflightOptions: PreflightOptions = {}): Promise<FixResult> {
  return fixKnown(input, target, options, preflightOptions);
}

/**
 * {@link fix} of a target the caller resolved already from `preflightOptions.profiles` (the
 * command line's typo check): it is not looked up again.
 */
export async function fixKnown(input: string | Uint8Array, target: Target, options: FixOptions, preflightOptions: PreflightOptions, known?: ResolvedTarget): Promise<FixResult> {
  const opts = parseFixOptions(options);
  // The instructions of the options are the call's policy too: `--rotate cw` asks for the turn.
  const policy: Policy = { ...instructed(opts), ...preflightOptions.policy };
  const run = await resolveRun(target, { ...preflightOptions, policy, defaultPolicy: preflightOptions.defaultPolicy ?? DEFAULT_FIX_POLICY }, known);
  const source = await readSource(input);
  const before = (await checkResolved(run, source.bytes, { keepPreviews: false, path: source.path, raster: false })).report;
  const made = await fixResolved(run, source.bytes, before, opts, source.path);
  if (!made.bytes || !opts.recheck) return { ...made, before, after: null };
  const after = (await checkResolved(run, made.bytes, { keepPreviews: false, path: opts.outPath ?? source.path })).report;
  noteRemaining(made.changes, made.refused, after);
  return { ...made, before, after };
}

/** What a fix made of a file: the new bytes (null when nothing changed or it cannot be fixed), the changes and the refusals. */
export interface FixMade {
  bytes: Uint8Array | null;
  changes: Change[];
  refused: Refusal[];
}

/** Parses fix options, or throws InvalidArgumentError naming each problem. */
export function parseFixOptions(options: FixOptions): z.output<typeof FixOptionsSchema> {
  return parseOrThrow(FixOptionsSchema, options, 'Invalid fix options');
}

/**
 * Fixes a file under a resolved run, from a check of it (`before`, any report of these bytes under
 * the run's rules): plans what to fix, reorders (and checks the reordered file without rasters),
 * and runs the transform — each in the pool. Refusals say what was not fixed and why.
 * @param path the name reports give the file
 * @example
 * const run = await resolveRun({ sku: 'T-SHIRT-M' });
 * const { report } = await checkResolved(run, bytes);
 * const made = await fixResolved(run, bytes, report, parseFixOptions({ approve: 'all' }), 'design.pdf');
 */
export async function fixResolved(run: ResolvedRun, input: Uint8Array, before: Report, opts: z.output<typeof FixOptionsSchema>, path: string | null): Promise<FixMade> {
  const { executor, decodeLimits, target: resolved, options: checkOptions } = run;
  const budget = new TimeBudget(checkOptions.fileBudgetMs);
  const changes: Change[] = [];
  const refused: Refusal[] = [];
  const nothing = (): FixMade => ({ bytes: null, changes: [], refused });
  const fatal = before.findings.find((f) => FATAL.includes(f.code) && f.severity === 'error');
  if (fatal || before.pdf.encrypted) {
    const f = fatal ?? before.findings.find((x) => x.code === 'pdf-encrypted')!;
    refused.push({ code: f.code, page: null, reason: `the file cannot be fixed: ${f.message}` });
    return nothing();
  }
  const wanted = wantedCodes(before, opts, resolved, refused);
  // A fix can make the file too large (a CMYK JPEG re-encoded): when the rules fix file-too-large
  // and it is approved, the output is kept under the cap even if the input had no such finding.
  const sizeRule = actionOf('file-too-large', profileRules(resolved.profile, checkOptions.defaultPolicy), { severities: checkOptions.severities, policy: checkOptions.policy });
  if (!opts.codes && sizeRule.action === 'fix' && approvedCode('file-too-large', opts, resolved)) wanted.add('file-too-large');
  const pooled = async <T>(task: () => Promise<T>): Promise<T | null> => {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof TaskFailure) || error.reason === 'aborted') throw error;
      refused.push({ code: error.reason === 'timeout' ? 'pdf-timeout' : 'pdf-too-complex', page: null, reason: `the file cannot be fixed: the fix ${error.message}` });
      return null;
    }
  };
  let inputSha: string | undefined;
  const originalSha256 = () => (inputSha ??= sha256Hex(input));
  const shared = (bytes: Uint8Array) => {
    const sab = new SharedArrayBuffer(bytes.length);
    new Uint8Array(sab).set(bytes);
    return sab;
  };

  // 0. Page order, first: every other fix is judged against the page's layer.
  let bytes = input;
  let reordered = false;
  let judged = before;
  const orderFinding = wanted.has('page-order-mismatch') ? before.findings.find((f) => f.code === 'page-order-mismatch') : undefined;
  const order = opts.pages ?? (orderFinding && typeof orderFinding.details?.order === 'string' ? orderFinding.details.order.split(',').map(Number) : null);
  if (order) {
    assertPermutation(order, before.pdf.pageCount ?? 0);
    if (order.some((n, i) => n !== i + 1)) {
      const ambiguous = orderFinding?.details?.ambiguous === true && !opts.pages;
      const reorder: Change = {
        code: 'page-order-mismatch',
        page: null,
        action: `put the pages in the order ${order.join(', ')}${ambiguous ? ' (layers of the same size keep the order they had: check which is which)' : ''}`,
      };
      const log = { originalSha256: originalSha256(), earlier: [reorder] };
      const answer = await pooled(() => executor.transform({ bytes: shared(bytes), op: { op: 'reorder', order, log }, limits: decodeLimits }, checkOptions.signal, checkOptions.timeoutMs, budget));
      if (!answer) return nothing();
      if (answer.op !== 'reorder') throw new Error('a worker answered another transform');
      if ('refused' in answer) {
        refused.push({ ...answer.refused, page: null });
        return nothing();
      }
      bytes = answer.bytes;
      reordered = true;
      changes.push(reorder);
      judged = (await checkResolved(run, bytes, { keepPreviews: false, path, raster: false })).report;
    }
  } else {
    const unordered = before.findings.find((f) => f.code === 'page-order-mismatch');
    if (unordered && !refused.some((r) => r.code === 'page-order-mismatch')) {
      refused.push({
        code: 'page-order-mismatch',
        page: null,
        reason: `the pages are in another order than the layers: ${instructionWords(opts.instructions).reorder(
          String(unordered.details?.order ?? '')
            .split(',')
            .join(', '),
        )}`,
      });
    }
  }

  // 1–4. Geometry, colour, pixels and size: one transform in the pool.
  const planned = planFix(judged, resolved, wanted, opts, run.limits, bytes.length);
  // The fixed file's edit log names the file as it came, and the reorder made before this step.
  const plan = planned && { ...planned, log: { originalSha256: originalSha256(), earlier: [...changes] } };
  if (plan) {
    const answer = await pooled(() => executor.transform({ bytes: shared(bytes), op: { op: 'fix', plan }, limits: decodeLimits }, checkOptions.signal, checkOptions.timeoutMs, budget));
    if (!answer) return reordered ? done() : nothing();
    if (answer.op !== 'fix') throw new Error('a worker answered another transform');
    changes.push(...answer.outcome.changes);
    refused.push(...answer.outcome.refused);
    if (answer.outcome.bytes) bytes = answer.outcome.bytes;
    else if (!reordered) return nothing();
  }
  return done();

  function done(): FixMade {
    // Nothing changed: nothing to write (a re-saved copy would only look like a fix).
    return changes.length ? { bytes, changes, refused } : { bytes: null, changes, refused };
  }
}

/** The call-level policy the fix options amount to: each instruction asks for its fix. */
function instructed(opts: z.output<typeof FixOptionsSchema>): Policy {
  return {
    ...(opts.rotate ? { 'page-orientation-mismatch': 'fix' as const } : {}),
    ...(opts.fit ? { 'page-size-mismatch': 'fix' as const } : {}),
    ...(opts.reorder || opts.pages ? { 'page-order-mismatch': 'fix' as const } : {}),
  };
}

/**
 * The codes to fix in this file: `codes` when given, else those the settled report marks `fix`;
 * less those the approval list holds and nobody approved (each said as a refusal, once per finding).
 */
function wantedCodes(report: Report, opts: z.output<typeof FixOptionsSchema>, resolved: ResolvedTarget, refused: Refusal[]): Set<FindingCode> {
  const asked = new Set<FindingCode>(opts.codes ?? report.findings.filter((f) => f.action === 'fix' && isFixable(f.code)).map((f) => f.code));
  if (opts.codes?.includes('page-order-mismatch') || opts.reorder || opts.pages) asked.add('page-order-mismatch');
  const approved = (code: FindingCode) => approvedCode(code, opts, resolved);
  const say = instructionWords(opts.instructions);
  // A fix that needs an instruction nobody gave says which one (whatever the policy).
  for (const f of report.findings) {
    if (f.code === 'page-orientation-mismatch' && !opts.rotate)
      refused.push({ code: f.code, page: f.page, reason: `the page is sideways, but which way the design should turn cannot be known: ${say.rotate}` });
    if (f.code === 'page-size-mismatch' && !opts.fit) refused.push({ code: f.code, page: f.page, reason: `the page has other proportions than its layer: ${say.fit}` });
  }
  for (const code of [...asked]) {
    if (approved(code)) continue;
    asked.delete(code);
    for (const f of report.findings.filter((x) => x.code === code)) {
      const what = isFixable(code) ? FIXES[code].what : 'fixes it';
      refused.push({ code, page: f.page, reason: `held for approval: the fix ${what}, which changes what prints; ${say.approve(code)}` });
    }
  }
  return asked;
}

/** Whether a fix of `code` may be made: not held by the approval list, or approved (by `approve` or the instruction that asks for it). */
function approvedCode(code: FindingCode, opts: z.output<typeof FixOptionsSchema>, resolved: ResolvedTarget): boolean {
  const holds = (resolved.profile.approval ?? DEFAULT_APPROVAL) as readonly FindingCode[];
  if (!holds.includes(code) || opts.approve === 'all' || opts.approve.includes(code)) return true;
  return (code === 'page-orientation-mismatch' && !!opts.rotate) || (code === 'page-size-mismatch' && !!opts.fit) || (code === 'page-order-mismatch' && !!opts.pages);
}

/** The transform's plan from a check of the file (after any reorder); null when nothing is to be done. */
function planFix(report: Report, resolved: ResolvedTarget, wanted: Set<FindingCode>, opts: z.output<typeof FixOptionsSchema>, limits: Limits, fileBytes: number): FixPlan | null {
  const has = (code: FindingCode) => wanted.has(code) && report.findings.some((f) => f.code === code);
  const pages = report.pages.map((p) => {
    const layer = resolved.layers[p.index - 1];
    return {
      index: p.index,
      rotate: p.rotate,
      layer: layer ? { widthMm: layer.pageWidthMm, heightMm: layer.pageHeightMm } : null,
      codes: [...new Set(report.findings.filter((f) => f.page === p.index && wanted.has(f.code)).map((f) => f.code))],
    };
  });
  const plan: FixPlan = {
    pages: pages.filter((p) => p.codes.length),
    ...(opts.rotate ? { rotate: opts.rotate } : {}),
    ...(opts.fit ? { fit: opts.fit } : {}),
    instructions: opts.instructions,
    jpegQuality: opts.jpegQuality,
    colour: has('colour-space-not-rgb'),
    maxImagePixels: has('image-too-large') ? limits.maxImagePixels : null,
    fileTooLarge: wanted.has('file-too-large'),
    maxFileBytes: limits.maxFileBytes,
  };
  return plan.pages.length || plan.colour || plan.maxImagePixels !== null || (plan.fileTooLarge && fileBytes > limits.maxFileBytes) ? plan : null;
}

/** Whatever a fix set out to remove and is still there in the check after it is said (a refusal), not hidden. */
export function noteRemaining(changes: readonly Change[], refused: Refusal[], after: Report): void {
  const attempted = new Set(changes.map((c) => c.code));
  for (const f of after.findings) {
    if (attempted.has(f.code) && !refused.some((r) => r.code === f.code && (r.page === f.page || r.page === null))) {
      refused.push({ code: f.code, page: f.page, reason: `still there after the fix: ${f.message}` });
    }
  }
}
