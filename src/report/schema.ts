import { z } from 'zod';
import { LocaleSchema } from '../model/locales.js';
import { ColourSpaceFactsSchema } from '../pdf/facts.js';
import { FindingCodeSchema } from '../model/codes.js';
import { FindingSchema } from '../model/finding.js';
import { RectSchema } from '../model/geometry.js';
import { AssembledLayerSchema } from '../model/assembly.js';
import { WrittenPreviewFormatSchema } from '../model/preview.js';

export const REPORT_SCHEMA_VERSION = 1;

/** A box on the page as shown: [left, top, right, bottom] in mm from its top-left corner. */
const BoxMm = RectSchema;

/**
 * An image placed on a page of the report: its pixels, colour space, filter and effective resolution.
 * @example
 * import { ReportImageSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const image = ReportImageSchema.parse(json);
 */
export const ReportImageSchema = z.strictObject({
  ref: z.string().nullable(),
  name: z.string().nullable(),
  inline: z.boolean(),
  via: z.array(z.string()),
  widthPx: z.number().int(),
  heightPx: z.number().int(),
  /** e.g. "DeviceCMYK", "ICCBased RGB", "Separation “Gold” (alternate DeviceCMYK)"; "ImageMask" for stencil masks. */
  colourSpace: z.string(),
  colourFamily: z.string(),
  components: z.number().int(),
  bitsPerComponent: z.number().int().nullable(),
  filters: z.array(z.string()),
  /** Placed size in millimetres. */
  placedWidthMm: z.number(),
  placedHeightMm: z.number(),
  /** Where the image lies on the page as shown (after /Rotate): [left, top, right, bottom] in mm from the top-left corner. */
  bboxMm: BoxMm,
  /** Effective resolution where the image is placed: the lower of the two directions; null when placed at zero size. */
  ppi: z.number().nullable(),
  /** Effective resolution at the size the service prints it (after scaling the page to its layer); what image-low-resolution judges. */
  printedPpi: z.number().nullable(),
  ppiX: z.number().nullable(),
  ppiY: z.number().nullable(),
  /** JPEG images: the quality setting their quantisation tables fit (1–100), else null. */
  jpegQuality: z.number().int().nullable(),
  /** When the page was rendered and the image measured: the enlargement found (image-upscaled), null for none; absent when not measured. */
  upscaleFactor: z.number().nullable().optional(),
});

/**
 * A page of the report: its size and boxes, the layer it is matched to, its images, fonts and raster facts.
 * @example
 * import { ReportPageSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const page = ReportPageSchema.parse(json);
 */
export const ReportPageSchema = z.strictObject({
  index: z.number().int().min(1),
  layer: z.string().nullable(),
  widthMm: z.number(),
  heightMm: z.number(),
  /** The layer's page size, when the page has a layer. */
  expectedWidthMm: z.number().nullable(),
  expectedHeightMm: z.number().nullable(),
  rotate: z.number().int(),
  userUnit: z.number(),
  /** The scale the service applies to print the page on its layer: 2 for a half-size page of the right proportions, else 1. */
  printScale: z.number(),
  /** Page boxes in PDF points, [x0, y0, x1, y1]. */
  boxes: z.strictObject({ media: RectSchema, crop: RectSchema.nullable(), trim: RectSchema.nullable(), bleed: RectSchema.nullable(), art: RectSchema.nullable() }),
  images: z.array(ReportImageSchema),
  /** Fonts the page selects for text. */
  fonts: z.array(
    z.strictObject({
      /** Resource name (/F1). */
      name: z.string(),
      /** "12 0 R" when the font dictionary is an indirect object, else null. */
      ref: z.string().nullable(),
      baseFont: z.string().nullable(),
      subtype: z.string().nullable(),
      embedded: z.boolean(),
    }),
  ),
  /** Vector colour use: fills, strokes, shadings and stencil masks, per colour space. */
  colours: z.array(z.strictObject({ use: z.string(), colourSpace: z.string(), family: z.string(), count: z.number().int() })),
  notes: z.array(z.string()),
  /** The layer's safe margin inside the trim (content-in-seam-zone), null when none is set. */
  safeMarginMm: z.number().nullable(),
  /** Objects findings point at (text in the seam zone, too-thin lines, too-small text), at most 50 per code, for the visual report. */
  marked: z.array(
    z.strictObject({
      code: FindingCodeSchema,
      kind: z.enum(['text', 'line', 'path', 'image', 'shading']),
      bboxMm: BoxMm,
      text: z.string(),
      /** Line width or text size at the printed size, in points; null for the seam zone. */
      printedPt: z.number().nullable(),
    }),
  ),
  /** What the page's raster showed; null when it was not rasterised (--no-raster) or could not be. */
  raster: z
    .strictObject({
      /** The renderer that drew the page: image (its one JPEG, through sharp), pdfium or pdfjs. */
      method: z.enum(['pdfjs', 'image', 'pdfium']),
      widthPx: z.number().int(),
      heightPx: z.number().int(),
      inkCoverage: z.number(),
      edgeGapMm: z.strictObject({ top: z.number(), right: z.number(), bottom: z.number(), left: z.number() }),
      /** What the renderer warned about on this page. */
      warnings: z.array(z.string()),
      /** Why the preview may differ from the printed page; absent when it shows the page as it prints. */
      approximate: z.string().optional(),
      /** Share of the trim area left unpainted (transparent), and the mostly unpainted regions (page-unpainted-area). */
      unpaintedShare: z.number(),
      unpaintedAreasMm: z.array(BoxMm),
    })
    .nullable(),
  /** The preview written for this page (--previews), by file name. */
  preview: z.strictObject({ file: z.string().nullable(), format: WrittenPreviewFormatSchema, widthPx: z.number().int(), heightPx: z.number().int() }).nullable(),
});

/**
 * A report's verdict: `fail` when a finding is an error, `warn` when one is a warning, else `pass`.
 * @example
 * import { VerdictSchema } from 'print-preflight/schemas';
 * VerdictSchema.options; // ['pass', 'warn', 'fail']
 */
export const VerdictSchema = z.enum(['pass', 'warn', 'fail']);

/**
 * The report of a check (`check --json`, `preflight()`, the service's `report`): published as
 * schemas/report.schema.json.
 * @example
 * import { ReportSchema } from 'print-preflight';
 * const report = ReportSchema.parse(JSON.parse(text)); // a report read back from disk or the wire
 */
export const ReportSchema = z.strictObject({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  tool: z.strictObject({ name: z.literal('print-preflight'), version: z.string() }),
  file: z.strictObject({ path: z.string().nullable(), bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  product: z.string(),
  variant: z.string(),
  sku: z.string(),
  profileVersion: z.string(),
  /** SHA-256 of the rules the file was judged by (profile, limits and severities in force): equal digests, equal rules. */
  profileDigest: z.string().regex(/^[0-9a-f]{64}$/),
  /** The thresholds in force for this run (the profile's, with per-call overrides). */
  limits: z.strictObject({
    bleedMm: z.number(),
    toleranceMm: z.number(),
    /** Below this effective ppi at the printed size: image-low-resolution as a warning. */
    minPpi: z.number(),
    /** Below this: image-low-resolution as an error. */
    minPpiError: z.number(),
    maxImagePixels: z.number(),
    maxFileBytes: z.number(),
    /** The profile's default safe margin (layers may set their own: pages[].safeMarginMm). */
    safeMarginMm: z.number().nullable(),
    /** Thresholds of the print-quality checks (always written; optional for reports of earlier versions). */
    minLineWidthPt: z.number().optional(),
    minTextSizePt: z.number().optional(),
    minJpegQuality: z.number().optional(),
    infoJpegQuality: z.number().optional(),
    minUpscaleFactor: z.number().optional(),
    maxUnpaintedShare: z.number().optional(),
  }),
  /** The language of the findings' `customer` messages, when a locale was asked for (`en`, `pt`, `es`). */
  locale: LocaleSchema.optional(),
  /** fail when any finding is an error, warn when any is a warning, else pass. */
  verdict: VerdictSchema,
  counts: z.strictObject({ error: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  /** Findings per code. */
  rules: z.partialRecord(FindingCodeSchema, z.number().int()),
  /** How the file was downloaded, for a report on a URL. */
  source: z
    .strictObject({
      url: z.string(),
      finalUrl: z.string(),
      status: z.number().int().nullable(),
      contentType: z.string().nullable(),
      redirects: z.array(z.strictObject({ from: z.string(), to: z.string(), status: z.number().int() })),
      signed: z.strictObject({ provider: z.string(), expires: z.string().nullable() }).nullable(),
    })
    .optional(),
  pdf: z.strictObject({
    version: z.string().nullable(),
    pageCount: z.number().int().nullable(),
    encrypted: z.boolean(),
    /** JavaScript, Launch and similar actions found (never run). */
    activeContent: z.array(z.string()),
  }),
  pages: z.array(ReportPageSchema),
  /** For a file assembled from one image or PDF per layer: how each layer was made (its fill; a tile's size and resolution). */
  assembly: z.strictObject({ layers: z.array(AssembledLayerSchema) }).optional(),
  findings: z.array(FindingSchema),
  /** Milliseconds spent; the only part of a report that differs between two runs on the same input. */
  timings: z.strictObject({ totalMs: z.number(), pages: z.array(z.strictObject({ index: z.number().int(), rasterMs: z.number() })).optional() }).optional(),
});

export type Report = z.infer<typeof ReportSchema>;
export type ReportPage = z.infer<typeof ReportPageSchema>;
export type ReportImage = z.infer<typeof ReportImageSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;
export { ColourSpaceFactsSchema };
