/**
 * The policy: what happens to a file for each finding code — `reject` it, let it through with a
 * warning (`warn`), `fix` it (then check it again), or ignore the finding (`off`). Profiles set a
 * product's defaults, a call may set its own; severities stay the finer tool underneath (a finding
 * whose fix is not run, or fails, is judged by its severity).
 *
 * This is the policy's vocabulary (schemas and types every floor speaks); how a finding is settled
 * under it is rules/settle.ts.
 */
import { z } from 'zod';
import { FindingCodeSchema, type FindingCode, type SeveritySetting } from './codes.js';

/**
 * `auto`: apply the policy's fixes and use the fixed file; `approve`: apply them, then wait for approval.
 * @example
 * import { FixModeSchema } from 'print-preflight/schemas';
 * FixModeSchema.parse('approve');
 */
export const FixModeSchema = z.enum(['auto', 'approve']);
export type FixMode = z.infer<typeof FixModeSchema>;

export const POLICY_ACTIONS = ['reject', 'warn', 'fix', 'off'] as const;
/**
 * `reject`: the finding is an error; `warn`: a warning; `fix`: fixed when fixes run, else judged by its severity; `off`: dropped.
 * @example
 * import { PolicyActionSchema } from 'print-preflight/schemas';
 * PolicyActionSchema.parse('fix');
 */
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
 * @example
 * import { FIXES } from 'print-preflight/schemas';
 * FIXES['page-order-mismatch'].changesPrint; // false: reordering pages changes no pixel
 */
export const FIXES = {
  'page-order-mismatch': { changesPrint: false, what: 'puts the pages in layer order (layers of the same size keep the order they had)' },
  'page-rotate-set': { changesPrint: false, what: 'bakes /Rotate into the page content (/Rotate 0); the page prints as it showed' },
  'page-scale-mismatch': { changesPrint: false, what: 'scales the page uniformly to its layer, as the service would' },
  'page-bleed-missing': { changesPrint: true, what: 'adds the missing bleed by mirroring the design’s edges into it (vector stays vector); the design keeps its size and place' },
  'page-orientation-mismatch': { changesPrint: true, needs: 'rotate', what: 'turns the content 90° in the direction given (`rotate`), never guessed' },
  'page-size-mismatch': { changesPrint: true, needs: 'fit', what: 'fits the page to its layer as asked (`fit`: contain, cover or stretch)' },
  'colour-space-not-rgb': { changesPrint: true, what: 'converts images and vector colours to sRGB through lcms (ICC profiles honoured)' },
  'image-too-large': { changesPrint: true, what: 'downsamples images to the pixel cap' },
  'file-too-large': { changesPrint: true, what: 'recompresses JPEG images until the file is under the size cap' },
} as const satisfies Partial<Record<FindingCode, { changesPrint: boolean; needs?: 'rotate' | 'fit'; what: string }>>;
export type FixableCode = keyof typeof FIXES;
/**
 * The finding codes print-preflight can fix (a policy may say `fix` only for these).
 * @example
 * import { FIXABLE_CODES } from 'print-preflight';
 * FIXABLE_CODES.includes('page-order-mismatch'); // true
 */
export const FIXABLE_CODES = Object.keys(FIXES) as FixableCode[];
export const isFixable = (code: FindingCode): code is FixableCode => Object.hasOwn(FIXES, code);

/**
 * A policy: an action per finding code. `fix` is refused for a code print-preflight cannot fix.
 * @example
 * import { PolicySchema } from 'print-preflight';
 * const policy = PolicySchema.parse({ 'page-order-mismatch': 'fix', 'image-low-resolution': 'warn' });
 */
export const PolicySchema = z.partialRecord(FindingCodeSchema, PolicyActionSchema).superRefine((policy, ctx) => {
  for (const [code, action] of Object.entries(policy)) {
    if (action === 'fix' && !isFixable(code as FindingCode)) {
      ctx.addIssue({ code: 'custom', path: [code], message: `${code} has no automatic fix (fixable: ${FIXABLE_CODES.join(', ')})` });
    }
  }
});
export type Policy = z.infer<typeof PolicySchema>;

/** Codes whose fixes the customer approves (when a check asks for approval): a subset of the fixable codes. */
export const ApprovalSchema = z.array(FindingCodeSchema.refine((code) => isFixable(code), { message: 'is not a code print-preflight fixes' }));

type Severities = Readonly<Partial<Record<FindingCode, SeveritySetting>>>;

/** One level of rules (a profile's, or a call's): severities and the policy. */
export interface Rules {
  severities?: Severities | undefined;
  policy?: Policy | undefined;
}

/**
 * The policy a product has when its profile sets none and fixes are asked for: page order, /Rotate,
 * uniform scaling, CMYK, oversized images and oversized files are fixed; everything else is judged
 * by its severity (low resolution, wrong sizes, missing fonts reject or warn as before).
 * @example
 * import { checkAndFix, DEFAULT_FIX_POLICY } from 'print-preflight';
 * // The default, with low resolution fixed too where the profile sets no policy of its own:
 * await checkAndFix('design.pdf', { sku: 'T-SHIRT-M' }, { fix: 'auto', policy: { ...DEFAULT_FIX_POLICY, 'image-low-resolution': 'warn' } });
 */
export const DEFAULT_FIX_POLICY: Policy = {
  'page-order-mismatch': 'fix',
  'page-rotate-set': 'fix',
  'page-scale-mismatch': 'fix',
  'page-bleed-missing': 'fix',
  'colour-space-not-rgb': 'fix',
  'image-too-large': 'fix',
  'file-too-large': 'fix',
};

/**
 * The codes whose fixes need approval when a profile names none: the fixes that change what prints.
 * @example
 * import { DEFAULT_APPROVAL } from 'print-preflight';
 * DEFAULT_APPROVAL.includes('colour-space-not-rgb'); // true: a colour conversion changes what prints
 */
export const DEFAULT_APPROVAL: FixableCode[] = (Object.keys(FIXES) as FixableCode[]).filter((code) => FIXES[code].changesPrint);
