import { SEVERITY_RANK, type FindingCode, type SeveritySetting } from '../model/codes.js';
import type { Policy, Rules } from '../model/policy.js';
import { settleBounded, settleFinding } from './settle.js';
import { checkColourSpace } from './check-colour-space.js';
import { checkDocument } from './check-document.js';
import { checkFileSize } from './check-file-size.js';
import { checkImageResolution } from './check-image-resolution.js';
import { checkImageSize } from './check-image-size.js';
import { checkPageBoxes } from './check-page-boxes.js';
import { checkPageCount } from './check-page-count.js';
import { checkPageRotate } from './check-page-rotate.js';
import { checkFontsEmbedded, checkFontsReadable } from './check-fonts.js';
import { checkPageBlank, checkPageDamaged, checkPageEdgeGap, checkPageRender } from './check-page-pixels.js';
import { checkPageSize } from './check-page-size.js';
import { checkLineWidth, checkSeamZone, checkTextSize } from './check-marks.js';
import { checkJpegQuality, checkUpscaled } from './check-image-quality.js';
import { checkUnpainted } from './check-unpainted.js';
import type { Check, CheckContext } from './context.js';
import type { Draft, Finding } from '../model/finding.js';
import { ordinal } from '../util/text.js';

/** Every check, in the order their findings are produced (the report sorts them afterwards). */
export const CHECKS: readonly Check[] = [
  checkDocument,
  checkFileSize,
  checkPageCount,
  checkPageSize,
  checkPageRotate,
  checkPageBoxes,
  checkImageSize,
  checkImageResolution,
  checkColourSpace,
  checkFontsEmbedded,
  checkFontsReadable,
  checkPageDamaged,
  checkPageBlank,
  checkPageEdgeGap,
  checkPageRender,
  checkSeamZone,
  checkLineWidth,
  checkTextSize,
  checkJpegQuality,
  checkUpscaled,
  checkUnpainted,
];

/**
 * Runs every check and settles each finding's action and severity by the profile's and the call's
 * rules ({@link settleFinding}): `off` drops it. Findings come back in a stable order: file-level
 * first, then by page, severity, code and message.
 */
export function runChecks(ctx: CheckContext, overrides: Partial<Record<FindingCode, SeveritySetting>> = {}, policy: Policy = {}, how: SettleOptions = {}): Finding[] {
  return settle(
    CHECKS.flatMap((check) => check(ctx)),
    profileRules(ctx.target.profile, how.defaultPolicy),
    { severities: overrides, policy },
    how,
  );
}

/**
 * How a call's rules meet the profile's: `tightenOnly` for a service's clients (finding by finding,
 * never looser than the operator: `settleBounded`); `defaultPolicy` for a profile that sets no
 * policy (checkAndFix's DEFAULT_FIX_POLICY), at the profile's level.
 */
export interface SettleOptions {
  tightenOnly?: boolean | undefined;
  defaultPolicy?: Policy | undefined;
}

/** A profile's level of rules (its policy, else `defaultPolicy`). */
export function profileRules(profile: { severities?: Rules['severities']; policy?: Rules['policy'] }, defaultPolicy?: Policy): Rules {
  return { severities: profile.severities, policy: profile.policy ?? defaultPolicy };
}

/** Gives drafts their action and severity (call, profile, case, default), drops `off`, sorts. */
export function settle(drafts: readonly Draft[], profile: Rules, call: Rules = {}, how: SettleOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const decide = how.tightenOnly ? settleBounded : settleFinding;
  for (const draft of drafts) {
    const { action, severity } = decide(draft.code, draft.severity, profile, call);
    if (action === 'off' || severity === 'off') continue;
    const { severity: _ignored, ...rest } = draft;
    findings.push({ ...rest, severity, ...(action === 'fix' ? { action } : {}) });
  }
  return findings.sort(compareFindings);
}

export function compareFindings(a: Finding, b: Finding): number {
  return (a.page ?? 0) - (b.page ?? 0) || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || ordinal(a.code, b.code) || ordinal(a.message, b.message);
}

export type { Check, CheckContext };
