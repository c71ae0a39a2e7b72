/**
 * The policy: what happens to a file for each finding code — `reject` it, let it through with a
 * warning (`warn`), `fix` it (then check it again), or ignore the finding (`off`). Profiles set a
 * product's defaults, a call may set its own; severities stay the finer tool underneath (a finding
 * whose fix is not run, or fails, is judged by its severity).
 *
 * Pure: no disk, no pool. The same rules decide in the library, the CLI, batch, the service and the
 * fleet.
 */
import { z } from 'zod';
import { FINDING_CODES, FindingCodeSchema, type FindingCode, type Severity, type SeveritySetting } from './codes.js';

/** `auto`: apply the policy's fixes and use the fixed file; `approve`: apply them, then wait for approval. */
export const FixModeSchema = z.enum(['auto', 'approve']);
export type FixMode = z.infer<typeof FixModeSchema>;

/** One change a fix made, as the API shows it. */
export const FixChangeSchema = z
  .object({
    code: FindingCodeSchema,
    page: z.number().int().min(1).nullable(),
    /** What was done, technically. */
    action: z.string(),
    /** Whether the change waits for approval (`fix: approve`). */
    needsApproval: z.boolean(),
    /** The change told to the customer, in the check's locale. */
    customer: z.string().optional(),
  })
  .strict();

/** A fix the policy asked for that was not made, and why. */
export const RefusedFixSchema = z.strictObject({ code: FindingCodeSchema, page: z.number().int().min(1).nullable(), reason: z.string() });

export const POLICY_ACTIONS = ['reject', 'warn', 'fix', 'off'] as const;
/** `reject`: the finding is an error; `warn`: a warning; `fix`: fixed when fixes run, else judged by its severity; `off`: dropped. */
export const PolicyActionSchema = z.enum(POLICY_ACTIONS);
export type PolicyAction = z.infer<typeof PolicyActionSchema>;
/** What a finding in a report leads to (`off` findings are not in it). */
export const FindingActionSchema = z.enum(['reject', 'warn', 'fix']);
export type FindingAction = z.infer<typeof FindingActionSchema>;

/**
 * The codes print-preflight can fix, and what the fix does to what prints. `needs`: an option the fix
 * cannot guess (the direction to turn, how to fit). `changesPrint`: false when the printed product
 * looks exactly as it would have without the fix (pages reordered, /Rotate baked in, a page scaled
 * the way the service would scale it anyway).
 */
export const FIXES = {
  'page-order-mismatch': { changesPrint: false, what: 'puts the pages in layer order (layers of the same size keep the order they had)' },
  'page-rotate-set': { changesPrint: false, what: 'bakes /Rotate into the page content (/Rotate 0); the page prints as it showed' },
  'page-scale-mismatch': { changesPrint: false, what: 'scales the page uniformly to its layer, as the service would' },
  'page-orientation-mismatch': { changesPrint: true, needs: 'rotate', what: 'turns the content 90° in the direction given (`rotate`), never guessed' },
  'page-size-mismatch': { changesPrint: true, needs: 'fit', what: 'fits the page to its layer as asked (`fit`: contain, cover or stretch)' },
  'colour-space-not-rgb': { changesPrint: true, what: 'converts images and vector colours to sRGB through lcms (ICC profiles honoured)' },
  'image-too-large': { changesPrint: true, what: 'downsamples images to the pixel cap' },
  'file-too-large': { changesPrint: true, what: 'recompresses JPEG images until the file is under the size cap' },
} as const satisfies Partial<Record<FindingCode, { changesPrint: boolean; needs?: 'rotate' | 'fit'; what: string }>>;
export type FixableCode = keyof typeof FIXES;
export const FIXABLE_CODES = Object.keys(FIXES) as FixableCode[];
export const isFixable = (code: FindingCode): code is FixableCode => Object.hasOwn(FIXES, code);

/** A policy: an action per finding code. `fix` is refused for a code print-preflight cannot fix. */
export const PolicySchema = z.partialRecord(FindingCodeSchema, PolicyActionSchema).superRefine((policy, ctx) => {
  for (const [code, action] of Object.entries(policy)) {
    if (action === 'fix' && !isFixable(code as FindingCode)) {
      ctx.addIssue({ code: 'custom', path: [code], message: `${code} has no automatic fix (fixable: ${FIXABLE_CODES.join(', ')})` });
    }
  }
});
export type Policy = z.infer<typeof PolicySchema>;

/** Codes whose fixes the customer approves (when a check asks for approval): a subset of the fixable codes. */
export const ApprovalSchema = z.array(
  FindingCodeSchema.refine((code) => isFixable(code), { message: 'is not a code print-preflight fixes' }),
);

type Severities = Readonly<Partial<Record<FindingCode, SeveritySetting>>>;

/** One level of rules (a profile's, or a call's): severities and the policy. */
export interface Rules {
  severities?: Severities | undefined;
  policy?: Policy | undefined;
}

/** What a finding leads to, and the severity it gets (`off`: dropped). */
export interface Settled {
  action: FindingAction | 'off';
  severity: SeveritySetting;
}

const fromSeverity = (severity: SeveritySetting): FindingAction | 'off' => (severity === 'off' ? 'off' : severity === 'error' ? 'reject' : 'warn');
const toSeverity = (action: Exclude<PolicyAction, 'fix'>): SeveritySetting => (action === 'reject' ? 'error' : action === 'warn' ? 'warning' : 'off');

/**
 * Settles one finding: the call's policy, else a profile's `fix` (whose fallback severity the call's
 * severities may set), else the call's severity, else the profile's policy, else its severity, else
 * the case's own severity, else the code's default. `reject` makes it an error, `warn` a warning,
 * `off` drops it; `fix` keeps the severity it would have without the policy (what it is judged by
 * when no fix runs, or when the fix fails).
 * @example
 * settleFinding('colour-space-not-rgb', undefined, { policy: { 'colour-space-not-rgb': 'fix' } }, {});
 * // { action: 'fix', severity: 'warning' }
 */
export function settleFinding(code: FindingCode, caseSeverity: Severity | undefined, profile: Rules, call: Rules): Settled {
  const fallback: SeveritySetting = call.severities?.[code] ?? profile.severities?.[code] ?? caseSeverity ?? FINDING_CODES[code].severity;
  const decide = (action: PolicyAction): Settled => (action === 'fix' ? { action: fallback === 'off' ? 'off' : 'fix', severity: fallback } : { action: action === 'off' ? 'off' : action, severity: toSeverity(action) });
  const callAction = call.policy?.[code];
  if (callAction) return decide(callAction);
  const profileAction = profile.policy?.[code];
  if (profileAction === 'fix') return decide('fix');
  if (call.severities?.[code] !== undefined) return { action: fromSeverity(fallback), severity: fallback };
  if (profileAction) return decide(profileAction);
  return { action: fromSeverity(fallback), severity: fallback };
}

/** The action a level of rules (profile, or profile and call) leads to for a code, as `settleFinding` decides it for a finding of its default case. */
export function actionOf(code: FindingCode, profile: Rules, call: Rules = {}): Settled {
  return settleFinding(code, undefined, profile, call);
}

/** Strictness of an outcome, least to most strict. */
const RANK: Record<SeveritySetting, number> = { off: 0, info: 1, warning: 2, error: 3 };

/**
 * Settles one finding for a call that may only tighten the operator's rules (a service's client):
 * the operator's outcome for this very finding — its case severity included, so an image below
 * `minPpiError` stays an error whatever the call says of `image-low-resolution` — and the call's,
 * and the stricter of the two. A call may ask for a fix unless the operator's policy rejects the code
 * (the fix keeps the severity it is judged by when it does not run or fails, never a looser one).
 * @example
 * settleBounded('image-low-resolution', 'error', {}, { severities: { 'image-low-resolution': 'warning' } });
 * // { action: 'reject', severity: 'error' }
 */
export function settleBounded(code: FindingCode, caseSeverity: Severity | undefined, profile: Rules, call: Rules): Settled {
  const operator = settleFinding(code, caseSeverity, profile, {});
  const asked = settleFinding(code, caseSeverity, profile, call);
  const severity = RANK[asked.severity] >= RANK[operator.severity] ? asked.severity : operator.severity;
  if (severity === 'off') return { action: 'off', severity };
  const fix = asked.action === 'fix' && profile.policy?.[code] !== 'reject';
  return { action: fix ? 'fix' : fromSeverity(severity), severity };
}

/**
 * The policy a product has when its profile sets none and fixes are asked for: page order, /Rotate,
 * uniform scaling, CMYK, oversized images and oversized files are fixed; everything else is judged
 * by its severity (low resolution, wrong sizes, missing fonts reject or warn as before).
 */
export const DEFAULT_FIX_POLICY: Policy = {
  'page-order-mismatch': 'fix',
  'page-rotate-set': 'fix',
  'page-scale-mismatch': 'fix',
  'colour-space-not-rgb': 'fix',
  'image-too-large': 'fix',
  'file-too-large': 'fix',
};

/** The codes whose fixes need approval when a profile names none: the fixes that change what prints. */
export const DEFAULT_APPROVAL: FixableCode[] = (Object.keys(FIXES) as FixableCode[]).filter((code) => FIXES[code].changesPrint);

export interface PolicyLoosening {
  path: string;
  message: string;
}

/**
 * The entries of a call's policy that would loosen what the operator's rules decide — `[]` when the
 * call asks only for as strict or stricter. What "stricter" means for a policy:
 * - `reject` is always allowed;
 * - `fix` is allowed unless the operator's policy says `reject` for the code (it wants a new file,
 *   not a fixed one). A fix never lets a bad file through: the fixed file is checked again under the
 *   operator's rules, and a finding whose fix fails keeps the operator's severity;
 * - `warn` is allowed unless the operator's outcome is an error — so a call may turn a fix off when
 *   the finding would only warn without it, not when it would fail;
 * - `off` only where the operator has it off.
 * Not asking for fixes at all (no `fix` mode) is always allowed: unfixed findings keep their severity.
 * @example
 * policyLoosenings({ policy: { 'page-order-mismatch': 'fix' } }, { 'page-order-mismatch': 'warn' });
 * // [{ path: 'policy.page-order-mismatch', message: 'may not be "warn": this server ... error ...' }]
 */
export function policyLoosenings(operator: Rules, policy: Policy | undefined): PolicyLoosening[] {
  const out: PolicyLoosening[] = [];
  for (const [code, action] of Object.entries(policy ?? {}) as [FindingCode, PolicyAction | undefined][]) {
    if (action === undefined || action === 'reject') continue;
    const theirs = actionOf(code, operator);
    const path = `policy.${code}`;
    if (action === 'fix') {
      if (operator.policy?.[code] === 'reject') out.push({ path, message: `may not be "fix": this server's policy rejects files with ${code} instead of fixing them` });
    } else if (action === 'warn') {
      if (RANK[theirs.severity] > RANK.warning) out.push({ path, message: `may not be "warn": this server ${theirs.action === 'fix' ? 'fixes it, and without the fix it is an error' : 'rejects it'}` });
    } else if (theirs.action !== 'off') {
      out.push({ path, message: `may not be "off": this server ${theirs.action === 'reject' ? 'rejects' : theirs.action === 'fix' ? 'fixes' : 'warns about'} it` });
    }
  }
  return out;
}

/**
 * The severity the operator's rules give a code (profile severities and policy together), the bound a
 * call's severities are held against.
 */
export function operatorSeverity(code: FindingCode, operator: Rules): SeveritySetting {
  return actionOf(code, operator).severity;
}
