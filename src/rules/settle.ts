/**
 * Settles findings under the policy (model/policy.ts) and the severities: what each finding leads
 * to, for a caller that owns the rules or one that may only tighten an operator's.
 *
 * Pure: no disk, no pool. The same rules decide in the library, the CLI, batch, the service and the
 * fleet.
 */
import { FINDING_CODES, type FindingCode, type Severity, type SeveritySetting } from '../model/codes.js';
import type { FindingAction, Policy, PolicyAction, Rules } from '../model/policy.js';

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
  const decide = (action: PolicyAction): Settled =>
    action === 'fix' ? { action: fallback === 'off' ? 'off' : 'fix', severity: fallback } : { action: action === 'off' ? 'off' : action, severity: toSeverity(action) };
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
      if (RANK[theirs.severity] > RANK.warning)
        out.push({ path, message: `may not be "warn": this server ${theirs.action === 'fix' ? 'fixes it, and without the fix it is an error' : 'rejects it'}` });
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
