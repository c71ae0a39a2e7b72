import { z } from 'zod';
import { openEnum } from '../util/json-schema.js';

/**
 * The fixed list of finding codes. Stable: codes may be added, never renamed or removed (deprecate
 * instead). Each has a default severity (profiles and calls may override it) and a description of
 * the requirement it stands for, kept apart from the message that says what was found.
 * @example
 * import { FINDING_CODES } from 'print-preflight';
 * FINDING_CODES['image-low-resolution'].severity; // 'error' unless a profile or a call says otherwise
 */
export const FINDING_CODES = {
  'file-not-pdf': {
    severity: 'error',
    rule: 'Source file requirements 1',
    description: 'The source must be a PDF file: it has a %PDF- header in its first 1024 bytes and a page tree.',
  },
  'pdf-damaged': {
    severity: 'error',
    rule: 'Source file requirements 1',
    description: 'The PDF must be readable: its objects and pages can be parsed and it is not truncated.',
  },
  'pdf-encrypted': {
    severity: 'error',
    rule: 'Source file requirements 5',
    description: 'The file must open without a password. A file with only an owner password opens (warning); one that needs a user password cannot be printed.',
  },
  'pdf-too-complex': {
    severity: 'error',
    rule: 'Source file requirements 1',
    description: 'The PDF can be inspected within the limits: no decompression bombs, page trees or nested forms beyond the inspection limits.',
  },
  'pdf-repaired': {
    severity: 'warning',
    rule: 'Source file requirements 1',
    description: 'The PDF’s cross-reference table is intact: a broken or missing one must be rebuilt by the reader, and some production systems refuse such files.',
  },
  'pdf-active-content': {
    severity: 'warning',
    rule: 'Source file requirements 1',
    description: 'A print file holds no JavaScript, launch or other actions. print-preflight never runs them; some production systems refuse files that have them.',
  },
  'pdf-timeout': {
    severity: 'error',
    rule: 'Source file requirements 1',
    description: 'The PDF can be inspected within the time limit; one that cannot would stall production too.',
  },
  'file-too-large': {
    severity: 'error',
    rule: 'Source file requirements 9, Limits',
    description: 'A source file should not exceed 50 MB (50,000,000 bytes); larger files may be rejected or delay processing.',
  },
  'page-count-mismatch': {
    severity: 'error',
    rule: 'Source file requirements 2, 3',
    description: 'The PDF has one page per product layer, in the product’s layer order.',
  },
  'page-order-mismatch': {
    severity: 'error',
    rule: 'Source file requirements 3, 4',
    description:
      'Pages are matched to layers by position: page N is layer N. Pages whose sizes fit the layers only in another order are in the wrong order (layers of the same size cannot be told apart).',
  },
  'page-size-mismatch': {
    severity: 'error',
    rule: 'Source file requirements 4',
    description: 'Each page matches the size of its layer (trim + 2 × bleed) within the profile’s tolerance.',
  },
  'page-scale-mismatch': {
    severity: 'warning',
    rule: 'Source file requirements 4, 6',
    description: 'The page has its layer’s proportions but another size: the service will scale it.',
  },
  'page-bleed-missing': {
    severity: 'error',
    rule: 'Source file requirements 4',
    description:
      'The page includes its layer’s bleed: a page at the trim size (within 1 mm), or between the trim and the layer size, lacks bleed on each side. Its fix adds the bleed by mirroring the design’s edges into it, the design keeping its size and place; a page of the layer’s proportions is a warning (the service would scale it).',
  },
  'page-orientation-mismatch': {
    severity: 'error',
    rule: 'Source file requirements 4',
    description: 'The page has its layer’s orientation, top of the design at the top: width and height are not swapped.',
  },
  'page-rotate-set': {
    severity: 'warning',
    rule: 'Source file requirements 4',
    description: 'The page has no /Rotate: production may not honour it. The rotated size is what is compared.',
  },
  'page-boxes-differ': {
    severity: 'info',
    rule: 'Source file requirements 4',
    description: 'TrimBox and BleedBox, when present, equal the checked page box; otherwise the whole page is printed, crop marks included.',
  },
  'image-too-large': {
    severity: 'error',
    rule: 'Source file requirements 6, Limits',
    description: 'No image has more than 15,000 pixels on a side; larger images may be resized or rejected.',
  },
  'image-low-resolution': {
    severity: 'warning',
    rule: 'Source file requirements 6, 7',
    description:
      'Every image has at least the profile’s minimum effective resolution at the size it is printed (a page of its layer’s proportions at another size is first scaled to the layer): warning below minPpi (100), error below minPpiError (50).',
  },
  'colour-space-not-rgb': {
    severity: 'warning',
    rule: 'Source file requirements 8',
    description: 'Images and vector colours are RGB; other colour spaces (CMYK, Gray images, Lab, Separation, DeviceN, non-RGB ICC) are converted by the service and colours may shift.',
  },
  'page-blank': {
    severity: 'warning',
    rule: 'Source file requirements 2',
    description: 'Every layer page carries a design: a blank page prints an empty panel.',
  },
  'page-edge-gap': {
    severity: 'warning',
    rule: 'Source file requirements 4',
    description: 'The design reaches every sewn edge of the page: a white or empty band inside the bleed shows as a white seam on the product.',
  },
  'font-not-embedded': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description: 'Every font used for text is embedded; a missing font is replaced by a substitute in production and the text changes.',
  },
  'font-unusable': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description: 'Every embedded font can be drawn; text in a font whose program cannot be parsed prints in a substitute font, and glyphs that cannot be decoded print as nothing.',
  },
  'page-damaged': {
    severity: 'error',
    rule: 'Source file requirements 1',
    description:
      'Every page object can be read. A page whose object is missing or broken keeps its place in the page order (later pages keep their numbers) but has no content that can be checked or printed.',
  },
  'page-render-failed': {
    severity: 'warning',
    rule: 'Source file requirements 1',
    description: 'Every page can be rendered; the checks that need pixels (blank page, edge gaps) could not run on one that cannot.',
  },
  'image-upscaled': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description:
      'An image carries the detail its pixel count promises: one enlarged from a smaller picture (found from its pixels: the periodic traces interpolation leaves and the missing fine detail) passes a ppi check and still prints soft. Reported when the detail at the printed size is below minPpi; never an error, since the estimate comes from the pixels.',
  },
  'image-jpeg-quality': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description:
      'A JPEG image is compressed no harder than the profile allows (quality estimated from its quantisation tables, fitted to the standard tables’ scaling): blocking and ringing are enlarged with the print. Warning below minJpegQuality, info below infoJpegQuality.',
  },
  'content-in-seam-zone': {
    severity: 'warning',
    rule: 'Source file requirements 4',
    description:
      'Text, and objects that stop short of the trim, keep the layer’s safe margin inside the trim: what lies between the safe line and the trim is sewn into the seam or cut. Objects that run past the trim (backgrounds) are meant to be cut and are not reported.',
  },
  'line-too-thin': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description: 'Stroked lines inside the trim are at least minLineWidthPt wide at the printed size: ink spreads on fabric and thinner lines break up or vanish.',
  },
  'text-too-small': {
    severity: 'warning',
    rule: 'Source file requirements 7',
    description: 'Text inside the trim is at least minTextSizePt (its em height) at the printed size: smaller text fills in or becomes unreadable on fabric.',
  },
  'page-unpainted-area': {
    severity: 'warning',
    rule: 'Source file requirements 2',
    description:
      'Every part of the panel inside the trim is painted: an area left transparent (nothing drawn there, found by rendering on a transparent background) prints as the bare fabric colour. Reported above maxUnpaintedShare of the trim area.',
  },
  'image-transparent-area': {
    severity: 'warning',
    rule: 'Source file requirements 2',
    description:
      'An image a layer is assembled from has no transparent or semi-transparent area inside the trim: such an area prints as the bare fabric colour (no ink), unless a background colour is chosen to fill it. Reported with its share of the trim and where it is.',
  },
  'source-unreachable': {
    severity: 'error',
    rule: 'Source file requirements 5',
    description: 'The source URL can be downloaded: it resolves, connects, answers 2xx within the time limits and sends a complete body.',
  },
  'source-requires-auth': {
    severity: 'error',
    rule: 'Source file requirements 5',
    description: 'The source URL is a direct link that downloads without authentication (no 401/403, no login page, no credentials in the URL).',
  },
  'source-redirected': {
    severity: 'info',
    rule: 'Source file requirements 5',
    description: 'The source URL is a direct link; redirects are followed (up to a limit) but each one is another thing that can break.',
  },
  'source-url-expires': {
    severity: 'warning',
    rule: 'Source file requirements 5',
    description: 'The source URL stays reachable for the whole production process; a signed URL that expires may not.',
  },
  'source-address-blocked': {
    severity: 'error',
    rule: 'Source file requirements 5',
    description: 'The source URL points at a public address; loopback, private and link-local addresses are unreachable for the service (and refused as SSRF).',
  },
} as const satisfies Record<string, { severity: Severity; rule: string; description: string }>;

export type FindingCode = keyof typeof FINDING_CODES;
/**
 * Every finding code, in the order of {@link FINDING_CODES}.
 * @example
 * import { FINDING_CODE_LIST } from 'print-preflight';
 * for (const code of FINDING_CODE_LIST) console.log(code);
 */
export const FINDING_CODE_LIST = Object.keys(FINDING_CODES) as FindingCode[];
/**
 * A finding code. The library emits only these; the published schemas of what it writes declare the
 * list open (a string, these values as `examples`): codes are added within a schemaVersion.
 */
export const FindingCodeSchema = openEnum(z.enum(FINDING_CODE_LIST as [FindingCode, ...FindingCode[]]), 'A finding code (kebab-case)');

/**
 * Codes of the changes print-preflight makes that answer no finding: the fixed file's `changes`
 * carry the finding code a fix answers (`colour-space-not-rgb`…) or one of these. Stable like the
 * finding codes; never a finding, so no severity, policy or approval setting names them.
 * @example
 * import { CHANGE_CODES } from 'print-preflight/schemas';
 * CHANGE_CODES['layers-assembled'].description;
 */
export const CHANGE_CODES = {
  'layers-assembled': {
    description:
      'The print file was made from one image or one-page PDF per layer (`check` with a source per layer, `POST /v1/checks` with `layer.<id>` parts or `layers`): one change per layer, its action saying the source, the fill and any resampling. It always waits for approval under `fix: approve`.',
  },
} as const satisfies Record<string, { description: string }>;

/** A code of {@link CHANGE_CODES}: a change that answers no finding. */
export type OwnChangeCode = keyof typeof CHANGE_CODES;
/** What a change's `code` is: the finding code the fix answers, or a change code of its own. */
export type ChangeCode = FindingCode | OwnChangeCode;
/** Whether a change code is one of {@link CHANGE_CODES} (not a finding's). */
export const isOwnChangeCode = (code: string): code is OwnChangeCode => Object.hasOwn(CHANGE_CODES, code);
/**
 * A change's code: a finding code, or one of {@link CHANGE_CODES}; published as an open list like the finding codes.
 * @example
 * import { ChangeCodeSchema } from 'print-preflight/schemas';
 * ChangeCodeSchema.parse('layers-assembled');
 */
export const ChangeCodeSchema = openEnum(
  z.enum([...FINDING_CODE_LIST, ...(Object.keys(CHANGE_CODES) as OwnChangeCode[])] as [ChangeCode, ...ChangeCode[]]),
  'A change code (kebab-case): the finding code the change fixes, or a change of its own (layers-assembled)',
);

/**
 * The severities a finding may have, the gravest first.
 * @example
 * import { SEVERITIES } from 'print-preflight/schemas';
 * SEVERITIES.indexOf('warning') < SEVERITIES.indexOf('info'); // true
 */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const SeveritySchema = z.enum(SEVERITIES);
/**
 * A severity setting: one of the severities, or `off` to drop the finding.
 * @example
 * import { SeveritySettingSchema } from 'print-preflight/schemas';
 * SeveritySettingSchema.parse('off');
 */
export const SeveritySettingSchema = z.enum(['error', 'warning', 'info', 'off']);
export type SeveritySetting = z.infer<typeof SeveritySettingSchema>;

export const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
