/**
 * Facts about a PDF, as structural inspection finds them. Facts are what workers return; checks
 * judge them on the main thread. They are zod schemas because they cross the worker boundary.
 */
import { z } from 'zod';
import { MatrixSchema, RectSchema } from '../model/geometry.js';

export const COLOUR_FAMILIES = ['DeviceGray', 'DeviceRGB', 'DeviceCMYK', 'CalGray', 'CalRGB', 'Lab', 'ICCBased', 'Indexed', 'Separation', 'DeviceN', 'Pattern', 'Unknown'] as const;

/** What the colour values mean, whatever the space is called. */
export const COLOUR_MODELS = ['rgb', 'gray', 'cmyk', 'lab', 'spot', 'unknown'] as const;

export interface ColourSpaceFacts {
  family: (typeof COLOUR_FAMILIES)[number];
  model: (typeof COLOUR_MODELS)[number];
  /** Components per pixel / colour value (Indexed: 1). */
  components: number;
  /** Human label: "ICCBased CMYK (N 4)", "Separation “PANTONE 185 C”", "Indexed over DeviceCMYK". */
  label: string;
  /** Indexed: the base space. Separation/DeviceN: the alternate space. ICCBased: /Alternate when given. */
  base?: ColourSpaceFacts | undefined;
  /** Separation/DeviceN colorant names. */
  colorants?: string[] | undefined;
}

export const ColourSpaceFactsSchema: z.ZodType<ColourSpaceFacts> = z.lazy(() =>
  z.object({
    family: z.enum(COLOUR_FAMILIES),
    model: z.enum(COLOUR_MODELS),
    components: z.number().int().min(0),
    label: z.string(),
    base: ColourSpaceFactsSchema.optional(),
    colorants: z.array(z.string()).optional(),
  }),
);

/** True when colour values in this space are RGB (Indexed over RGB included). */
export function isRgb(cs: ColourSpaceFacts): boolean {
  return cs.model === 'rgb' && cs.family !== 'Unknown';
}

/** The pixel size an image's own data declares (JPEG SOF, JPEG 2000 header, JBIG2 page, CCITT /Columns); decoders allocate for it. */
export const CodedSizeSchema = z.object({
  format: z.enum(['jpeg', 'jpx', 'jbig2', 'ccitt']),
  widthPx: z.number().int().min(0),
  heightPx: z.number().int().min(0),
  components: z.number().int().min(0),
  progressive: z.boolean(),
});

/** An image's soft mask (/SMask) or mask image (/Mask stream): decoded like an image when drawn. */
export const MaskFactsSchema = z.object({
  kind: z.enum(['SMask', 'Mask']),
  ref: z.string().nullable(),
  widthPx: z.number().int().min(0),
  heightPx: z.number().int().min(0),
  coded: CodedSizeSchema.nullable(),
});
export type MaskFacts = z.infer<typeof MaskFactsSchema>;

/**
 * An image of a page as its structure states it: pixels, bits, filter, colour space and placement.
 * @example
 * import { ImageFactsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const image = ImageFactsSchema.parse(json);
 */
export const ImageFactsSchema = z.object({
  /** "12 0 R" for an image XObject; "inline" for an inline image. */
  ref: z.string().nullable(),
  /** Resource name (/Im1) for XObjects; null for inline images. */
  name: z.string().nullable(),
  inline: z.boolean(),
  /** Names of the Form XObjects the image is drawn through, outermost first. */
  via: z.array(z.string()),
  widthPx: z.number().int().min(0),
  heightPx: z.number().int().min(0),
  bitsPerComponent: z.number().int().nullable(),
  filters: z.array(z.string()),
  /** null for stencil masks (/ImageMask true), which paint the fill colour. */
  colourSpace: ColourSpaceFactsSchema.nullable(),
  imageMask: z.boolean(),
  hasSMask: z.boolean(),
  /** The size the image data itself declares, when it can be read without decoding (JPEG, JPEG 2000). */
  coded: CodedSizeSchema.nullable().optional(),
  /** Its soft mask or mask image, when it has one. */
  mask: MaskFactsSchema.nullable().optional(),
  /** JPEG: the quality setting its quantisation tables fit (exact for libjpeg and mozjpeg, whose scaling is known; the nearest libjpeg setting otherwise). */
  jpegQuality: z
    .object({
      quality: z.number().int().min(1).max(100),
      exact: z.boolean(),
      /** Whose tables they are when exact: libjpeg's (Annex K) or mozjpeg's (its own bases, scaled the same way). */
      tables: z.enum(['libjpeg', 'mozjpeg']).optional(),
    })
    .nullable()
    .optional(),
  /** Image space → default user space of the page (before /Rotate and /UserUnit). */
  ctm: MatrixSchema,
  /** Bounding box of the placed image in default user space. */
  bbox: RectSchema,
  /** Placed size of the image's width and height edges, in points × UserUnit. */
  placedWidthPt: z.number(),
  placedHeightPt: z.number(),
  /** Effective resolution along the image's width and height; null when the image is placed at zero size. */
  ppiX: z.number().nullable(),
  ppiY: z.number().nullable(),
});
export type ImageFacts = z.infer<typeof ImageFactsSchema>;

export const ColourUseSchema = z.object({
  /** fill, stroke, shading (sh / shading patterns) or stencil (an image mask painted in the fill colour). */
  use: z.enum(['fill', 'stroke', 'shading', 'stencil']),
  colourSpace: ColourSpaceFactsSchema,
  /** How many painting operators used it. */
  count: z.number().int().min(1),
  via: z.array(z.string()),
});
export type ColourUse = z.infer<typeof ColourUseSchema>;

/**
 * What an embedded font's own program allows (src/pdf/font/): read once per document, without
 * drawing a page, by what its bytes are rather than the key it hangs from.
 */
export const FontProgramSchema = z.object({
  /** What the bytes are; `unknown` when they could not be read as any font. */
  format: z.enum(['TrueType', 'OpenType', 'CFF', 'Type1', 'Type3', 'unknown']),
  glyphs: z.number().int().min(0),
  /** Glyphs (other than glyph 0, .notdef) whose outline or procedure cannot be drawn. */
  failedGlyphs: z.number().int().min(0),
  /** Why no glyph of the font can be drawn (the program cannot be parsed…); null when it can. */
  problem: z.string().nullable(),
  /** The first glyph that cannot be drawn, and why. */
  firstFailure: z.string().nullable(),
  /** Why the program was not checked (over the size or work limit); no judgement is made then. */
  unchecked: z.string().nullable(),
  /** A TrueType program without a cmap table: renderers find a simple font's glyphs by other means (post names, codes as glyph ids). */
  noCmap: z.literal(true).optional(),
  /** Why no renderer may be given the font: drawing one of its glyphs would take it minutes (components or subroutines used again and again). */
  hazard: z.string().optional(),
});
export type FontProgram = z.infer<typeof FontProgramSchema>;

export const FontUseSchema = z.object({
  /** Resource name (/F1). */
  name: z.string(),
  /** "12 0 R" when the font dictionary is an indirect object. */
  ref: z.string().nullable().optional(),
  baseFont: z.string().nullable(),
  subtype: z.string().nullable(),
  embedded: z.boolean(),
  /** Not embedded, and sets Chinese, Japanese or Korean text (pdf/font-script.ts): the previewers have no substitute for it. */
  cjk: z.literal(true).optional(),
  /** The font's program as checked (null: nothing to check — not embedded, and not a Type 0 font missing its descendant). */
  program: FontProgramSchema.nullable().optional(),
});
export type FontUse = z.infer<typeof FontUseSchema>;

/** Transparency features renderers draw differently (raster/renderer.ts decides by them). */
export const TransparencySchema = z.object({
  /** Blend modes other than Normal/Compatible set by the ExtGStates the content uses. */
  blendModes: z.array(z.string()),
  /** Transparency groups drawn with /K true (knockout). */
  knockoutGroups: z.number().int().min(0),
});
export type Transparency = z.infer<typeof TransparencySchema>;

/** Where a page paints, and how much it inks: marks.ts tells how the content scanner collects them. */
export const TextMarkSchema = z.object({
  /** Glyph boxes of the run (ascent to descent, origin to advance), default user space. */
  box: RectSchema,
  /** Em height (font size through the text matrix and CTM), in points × UserUnit. */
  sizePt: z.number(),
  /** The run's text when the font's codes are plain ASCII, else ''. */
  text: z.string(),
});
export type TextMark = z.infer<typeof TextMarkSchema>;

export const StrokeMarkSchema = z.object({
  /** The stroked path's box, widened by half the line width. */
  box: RectSchema,
  /** Line width after the CTM, the thinnest way it is drawn, in points × UserUnit (0: a hairline). */
  widthPt: z.number(),
});
export type StrokeMark = z.infer<typeof StrokeMarkSchema>;

export const ShapeMarkSchema = z.object({
  box: RectSchema,
  kind: z.enum(['path', 'image', 'shading']),
});
export type ShapeMark = z.infer<typeof ShapeMarkSchema>;

export const PageMarksSchema = z.object({
  texts: z.array(TextMarkSchema),
  strokes: z.array(StrokeMarkSchema),
  shapes: z.array(ShapeMarkSchema),
  /** Marks left out because the page painted more than the lists keep. */
  dropped: z.number().int().min(0),
  /** Share (0–1) of the visible page covered by vector painting in a colour that prints: fills, strokes, shadings, stencil masks (text not counted). */
  ink: z.number().min(0).max(1),
  /** Share (0–1) of the visible page covered by images (which may themselves be white). */
  images: z.number().min(0).max(1),
});
export type PageMarks = z.infer<typeof PageMarksSchema>;

/**
 * What a page's structure says: its size and boxes, rotation, images, fonts and marks.
 * @example
 * import { PageFactsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const page = PageFactsSchema.parse(json);
 */
export const PageFactsSchema = z.object({
  /** 1-based page number. */
  index: z.number().int().min(1),
  ref: z.string().nullable(),
  boxes: z.object({
    media: RectSchema,
    crop: RectSchema.nullable(),
    trim: RectSchema.nullable(),
    bleed: RectSchema.nullable(),
    art: RectSchema.nullable(),
  }),
  /** The box compared with the layer: CropBox (MediaBox when absent) clipped to the MediaBox. */
  checkedBox: RectSchema,
  /** /Rotate normalised to 0, 90, 180 or 270. */
  rotate: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]),
  userUnit: z.number().positive(),
  /** Size of the checked box as shown (after /Rotate, with /UserUnit), in millimetres. */
  widthMm: z.number(),
  heightMm: z.number(),
  images: z.array(ImageFactsSchema),
  colours: z.array(ColourUseSchema),
  /** Fonts the page selects for text (Tf), forms included. */
  fonts: z.array(FontUseSchema),
  /** Printable annotations drawn from an appearance stream (form fields, stamps…): they print on top of the page. */
  printableAnnotations: z.number().int().min(0).optional(),
  /** Printable annotations with no appearance stream, which renderers draw from their entries (a FreeText box's text). */
  generatedAnnotations: z.number().int().min(0).optional(),
  /** Parts of the page that could not be inspected (undecodable stream, depth limit…). */
  notes: z.array(z.string()),
  /** A limit stopped the inspection of this page: it is not handed to the renderer either. */
  tooComplex: z.boolean(),
  /**
   * Tiling patterns the page paints: how many cells they take to cover the page (each drawn by
   * some renderers), and the smallest cell step on the page in points (far below a pixel, others
   * never finish). Absent when it paints none.
   */
  tiling: z.object({ cells: z.number().min(0), smallestStepPt: z.number().min(0) }).optional(),
  /**
   * Why the page's object cannot be read (it is missing, or broken beyond reading). The page keeps
   * its place in the page order, so later pages keep their numbers, but it has no content.
   */
  unreadable: z.string().nullable().optional(),
  /**
   * Where text, stroked lines, shapes and images are painted, and how much of the visible page the
   * content inks (marks.ts): for the seam, line and text-size checks and the blank-page check.
   */
  marks: PageMarksSchema.optional(),
  transparency: TransparencySchema.optional(),
  /** Form fields (widget annotations) that print: the Print flag, not hidden. */
  printableWidgets: z.number().int().min(0).optional(),
  /**
   * Printable form fields without an appearance stream whose /MK background or border prints:
   * Ghostscript, MuPDF and poppler draw them, neither of our engines does. Absent when none.
   */
  undrawnFields: z.number().int().min(1).optional(),
  /**
   * What readers draw differently, counted (content-scan.ts): colours outside their Indexed
   * palette, inline images whose filtered data is corrupt. Absent when there is none.
   */
  hazards: z.object({ indexedOutOfRange: z.number().int().min(0), damagedInlineImages: z.number().int().min(0) }).optional(),
  /**
   * What drawing the page costs a renderer (render-cost.ts): the operators, path points and glyphs
   * it builds and keeps (pdf.js keeps ~1.6 KB each), its estimated time at the preview size, and
   * the transparency groups it composites.
   */
  renderWork: z
    .object({
      operations: z.number().int().min(0),
      estimatedMs: z.number().min(0),
      /** How many times transparency groups and soft masks cover the page (pdf.js keeps a buffer for each until the page is done). */
      groups: z.number().min(0).optional(),
    })
    .optional(),
});
export type PageFacts = z.infer<typeof PageFactsSchema>;

export const EncryptionFactsSchema = z.object({
  filter: z.string(),
  version: z.number(),
  revision: z.number(),
  method: z.string(),
  /** True when the file does not open with an empty user password. */
  needsPassword: z.boolean(),
  /** True when the content could be decrypted and inspected. */
  decrypted: z.boolean(),
});
export type EncryptionFacts = z.infer<typeof EncryptionFactsSchema>;

export const DocumentProblemSchema = z.object({
  kind: z.enum(['not-pdf', 'damaged', 'too-complex', 'timeout', 'repaired']),
  detail: z.string(),
});
export type DocumentProblem = z.infer<typeof DocumentProblemSchema>;

/**
 * What a file's structure says, read without drawing it: its pages, images, fonts, colour and
 * encryption (`inspectPdf()`).
 * @example
 * import { DocumentFactsSchema } from 'print-preflight/schemas';
 * declare const json: unknown;
 * const facts = DocumentFactsSchema.parse(json);
 */
export const DocumentFactsSchema = z.object({
  bytes: z.number().int().min(0),
  pdfVersion: z.string().nullable(),
  encryption: EncryptionFactsSchema.nullable(),
  problems: z.array(DocumentProblemSchema),
  /** Actions that run code or programs (JavaScript, Launch…), where they are. Never executed. */
  activeContent: z.array(z.string()),
  /** Page count as found in the page tree (null when the tree cannot be read). */
  pageCount: z.number().int().min(0).nullable(),
  pages: z.array(PageFactsSchema),
  /**
   * The file itself, not one page, went past a bound (its decode budget, an object or
   * cross-reference stream, a parser limit): a renderer would read the same bytes, so no page is
   * handed to one.
   */
  unrenderable: z.boolean().optional(),
});
export type DocumentFacts = z.infer<typeof DocumentFactsSchema>;
