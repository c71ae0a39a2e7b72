import { FINDING_CODES, SEVERITY_RANK, type FindingCode, type SeveritySetting } from './codes.js';
import { checkColourSpace } from './check-colour-space.js';
import { checkDocument } from './check-document.js';
import { checkFileSize } from './check-file-size.js';
import { checkImageResolution } from './check-image-resolution.js';
import { checkImageSize } from './check-image-size.js';
import { checkPageBoxes } from './check-page-boxes.js';
import { checkPageCount } from './check-page-count.js';
import { checkPageRotate } from './check-page-rotate.js';
import { checkFontsEmbedded, checkFontsReadable } from './check-fonts.js';
import { checkPageBlank, checkPageEdgeGap, checkPageRender } from './check-page-pixels.js';
import { checkPageSize } from './check-page-size.js';
import { checkLineWidth, checkSeamZone, checkTextSize } from './check-marks.js';
import { checkJpegQuality, checkUpscaled } from './check-image-quality.js';
import { checkUnpainted } from './check-unpainted.js';
import type { Check, CheckContext } from './context.js';
import type { Draft, Finding } from './finding.js';
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
 * Runs every check and settles severities: the call's override, else the profile's, else the
 * case's own, else the code's default. `off` drops the finding. Findings come back in a stable
 * order: file-level first, then by page, severity, code and message.
 */
export function runChecks(ctx: CheckContext, overrides: Partial<Record<FindingCode, SeveritySetting>> = {}): Finding[] {
  return settle(
    CHECKS.flatMap((check) => check(ctx)),
    ctx.target.profile.severities,
    overrides,
  );
}

/** Gives drafts their severities (call override, profile, case, default), drops `off`, sorts. */
export function settle(
  drafts: readonly Draft[],
  profileSeverities: Partial<Record<FindingCode, SeveritySetting>>,
  overrides: Partial<Record<FindingCode, SeveritySetting>> = {},
): Finding[] {
  const findings: Finding[] = [];
  for (const draft of drafts) {
    const setting: SeveritySetting = overrides[draft.code] ?? profileSeverities[draft.code] ?? draft.severity ?? FINDING_CODES[draft.code].severity;
    if (setting === 'off') continue;
    const { severity: _ignored, ...rest } = draft;
    findings.push({ ...rest, severity: setting });
  }
  return findings.sort(compareFindings);
}

export function compareFindings(a: Finding, b: Finding): number {
  return (a.page ?? 0) - (b.page ?? 0) || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || ordinal(a.code, b.code) || ordinal(a.message, b.message);
}

export type { Check, CheckContext };
