/**
 * Which engine draws a page. There is one way in for callers — a render task — and three
 * engines behind it; the report names the one that drew each page (`raster.method`). Every rule
 * of renderer choice is here (the worker only follows the plan: first engine, fallback):
 * - `image`: the page is one JPEG covering it (fast-path.ts): sharp decodes it with shrink-on-load.
 * - `pdfium`: every other page — vector art, text in embedded fonts or not, small images. PDFium
 *   (WebAssembly) draws them ~6× faster than pdf.js, and as close to MuPDF (bench/RENDERERS.md).
 * - `pdfjs`: the classes PDFium draws measurably worse on the real-world corpus (printable
 *   annotations and form fields, blend modes, JBIG2, JPEG 2000 with a soft mask, ICC-based and
 *   Indexed-over-ICC images), pages with large images, very many paths or tiling cells, which PDFium
 *   would hold in a WebAssembly heap that the worker's heap cap does not bound, and whatever PDFium
 *   fails on or draws empty. (One-JPEG pages, the usual ICC-based ones, go to the image fast path
 *   first.) Which fonts can be drawn is judged from the fonts themselves (pdf/font/), whichever
 *   engine draws the page.
 */
import type { ColourSpaceFacts, ImageFacts, PageFacts } from '../pdf/facts.js';
import { type CjkFace, describeFace } from './cjk-face.js';

export type Renderer = 'image' | 'pdfium' | 'pdfjs';

/** Pages drawing an image with more pixels than this stay with pdf.js (4,000 × 4,000). */
export const PDFIUM_MAX_IMAGE_PIXELS = 16_000_000;
/**
 * Pages with more painting operators than this stay with pdf.js, whose memory the worker's heap
 * cap bounds (a page too heavy for it gets `pdf-too-complex`). PDFium keeps ~330 bytes per path
 * in a WebAssembly heap outside that cap: a million paths is ~330 MB.
 */
export const PDFIUM_MAX_PAINT_OPERATORS = 1_000_000;
/**
 * Pages whose tiling patterns take more cells than this to cover them stay with pdf.js: PDFium
 * draws every cell (16 million cells of 0.1 pt took 6.5 s of CPU on a loaded 2-core machine), pdf.js
 * draws one and repeats it.
 */
export const PDFIUM_MAX_TILING_CELLS = 1_000_000;

/**
 * Pages with more operators, path points and glyphs than this never go to pdf.js: it keeps about
 * 1.6 KB for each and takes 10–50 µs over each (PDFium 1–8 µs): 150,000 is about 250 MB and 7 s on
 * a loaded 2-core machine. PDFium draws them, whatever pdf.js would draw better.
 */
export const PDFJS_MAX_OPERATIONS = 150_000;
/**
 * Pages whose transparency groups and soft masks cover them more than this many times never go to
 * pdf.js: it keeps a buffer of each until the page is done (5.8 MB for one covering a 1,200-px
 * preview: 2,000 of them took it to 11.8 GB); PDFium frees each.
 */
export const PDFJS_MAX_GROUP_PAGES = 30;
/**
 * Pages drawing more distinct images than this never go to pdf.js: it keeps ~160 KB for each,
 * however small (9,000 images of 1 × 1 px took it to 1.4 GB); PDFium drew them in 0.4 s.
 */
export const PDFJS_MAX_IMAGES = 2_000;

type RendererFacts = Pick<PageFacts, 'images' | 'colours' | 'printableWidgets' | 'printableAnnotations' | 'transparency' | 'tiling' | 'hazards'> &
  Partial<Pick<PageFacts, 'fonts' | 'undrawnFields' | 'renderWork'>>;

/**
 * The engine for a page that the image fast path does not take (or gives back). PDFium, unless the
 * page has what it draws measurably worse than pdf.js on the real-world corpus (bench/RENDERERS.md)
 * or what would escape the worker's memory cap.
 */
export function pageRenderer(page: RendererFacts, { cjkFace = false }: { cjkFace?: boolean } = {}): 'pdfium' | 'pdfjs' {
  if (!pdfjsCanTake(page)) return 'pdfium';
  if ((page.tiling?.cells ?? 0) > PDFIUM_MAX_TILING_CELLS) return 'pdfjs';
  // Text in CJK fonts that are not embedded: PDFium has no face with those characters (empty
  // boxes); pdf.js draws it with the system CJK face when one is installed (cjk-face.ts), as
  // Ghostscript does.
  if (cjkFace && (page.fonts ?? []).some((f) => !f.embedded && f.cjk)) return 'pdfjs';
  // Form fields print from their appearance streams; PDFium's page renderer leaves widgets to its
  // interactive form layer, which ignores the Print flag. pdf.js draws them as printed.
  if ((page.printableWidgets ?? 0) > 0) return 'pdfjs';
  // This PDFium build blends only Normal, Multiply and Darken as the spec says (Difference, Screen,
  // Hue… come out in other colours: pdf.js transparency_group.pdf, bench/RENDERERS.md); pdf.js
  // draws all sixteen modes as Ghostscript does — but draws no text at all in a simple TrueType font
  // whose program has no cmap table (pdf.js issue14297.pdf: a header and a whole table, 1 % of the
  // page), which PDFium draws as MuPDF does: there the text wins, and the blend is said approximate.
  if (page.transparency?.blendModes.length && !hasCmaplessSimpleTrueType(page)) return 'pdfjs';
  // PDFium paints nothing for a colour outside its Indexed palette (pdf.js
  // IndexedCS_negative_and_high.pdf: 2 of 11 squares missing); pdf.js clamps to the palette as
  // Ghostscript and MuPDF do.
  if (page.hazards?.indexedOutOfRange) return 'pdfjs';
  // PDFium finds the end of an inline image by decoding it: after corrupt data it reads the rest of
  // the content stream from inside the image and draws nothing more (qpdf damaged-inline-image.pdf);
  // pdf.js looks for EI and draws on, as Ghostscript and MuPDF do.
  if (page.hazards?.damagedInlineImages) return 'pdfjs';
  if (!pdfiumCanHold(page)) return 'pdfjs';
  // PDFium builds an lcms transform in WebAssembly for an ICC-based image: 0.4–2 s for a 400-px
  // image in bench/renderers.mjs, where pdf.js takes 0.1–1 s; and an Indexed image over an ICC
  // base comes out in other colours than MuPDF and pdf.js draw (pikepdf pink-palette-icc.pdf).
  if (page.images.some((i) => isIccBased(i.colourSpace))) return 'pdfjs';
  // Printable annotations (form fields, stamps): PDFium draws widgets only through a form-filling
  // environment and other annotations as a viewer shows them, not as they print (renderWithPdfium
  // draws none); pdf.js draws exactly the printable ones, as MuPDF does.
  if (page.printableAnnotations) return 'pdfjs';
  // JBIG2 halftone regions with a skipped grid come out wrong (pdf.js bitmap-halftone-skip-grid-
  // template2.pdf: 40 % of pixels off, pdf.js 0 %), and JPEG 2000 images with a soft mask lose
  // detail (pypdf Seige_of_Vicksburg: 3 % of pixels off, pdf.js 0 %).
  if (page.images.some((i) => i.filters.includes('JBIG2Decode') || (i.filters.includes('JPXDecode') && i.hasSMask))) return 'pdfjs';
  return 'pdfium';
}

/**
 * Pages PDFium may draw: its memory is a WebAssembly heap the worker's heap cap does not bound,
 * so pages with large images or very many paths stay with pdf.js.
 */
function pdfiumCanHold(page: Pick<PageFacts, 'images' | 'colours'>): boolean {
  if (page.images.some((i) => i.widthPx * i.heightPx > PDFIUM_MAX_IMAGE_PIXELS)) return false;
  return page.colours.reduce((n, c) => n + c.count, 0) <= PDFIUM_MAX_PAINT_OPERATORS;
}

/**
 * The engine that gets a second look at a page the first engine failed on, drew empty although
 * its content paints, or drew with an image missing; null when none may.
 */
export function fallbackRenderer(page: RendererFacts, first: 'pdfium' | 'pdfjs'): 'pdfium' | 'pdfjs' | null {
  if (first === 'pdfium') return pdfjsCanTake(page) ? 'pdfjs' : null;
  return pdfiumCanHold(page) ? 'pdfium' : null;
}

/** Pages pdf.js may draw: not so many operators, transparency groups or images that it outgrows the memory and time bounds. */
function pdfjsCanTake(page: Pick<RendererFacts, 'renderWork' | 'images'>): boolean {
  if ((page.renderWork?.operations ?? 0) > PDFJS_MAX_OPERATIONS || (page.renderWork?.groups ?? 0) > PDFJS_MAX_GROUP_PAGES) return false;
  if (page.images.length <= PDFJS_MAX_IMAGES) return true;
  return new Set(page.images.map((i, n) => (i.ref && !i.inline ? i.ref : `#${n}`))).size <= PDFJS_MAX_IMAGES;
}

/**
 * What the engine that drew the page is known to draw otherwise than print, said on the page
 * (report `raster.approximate`); null when nothing is known.
 */
export function knownApproximation(page: RendererFacts, engine: 'pdfium' | 'pdfjs' | 'image', cjkFace: CjkFace | null = null): string | null {
  const reasons: string[] = [];
  // Neither pdf.js nor PDFium implements knockout: objects inside such a group show through each other.
  if (page.transparency?.knockoutGroups && engine !== 'image') reasons.push('a knockout transparency group is drawn as an ordinary group (its objects show through each other)');
  if (engine === 'pdfium' && (page.printableWidgets ?? 0) > 0) reasons.push('form fields are not drawn');
  if (engine === 'pdfium' && page.transparency?.blendModes.length) reasons.push(`blend modes (${page.transparency.blendModes.join(', ')}) are drawn approximately`);
  if (engine === 'image') return reasons.length ? reasons.join('; ') : null;
  const damaged = page.hazards?.damagedInlineImages ?? 0;
  if (damaged) reasons.push(`${damaged === 1 ? 'an inline image has' : `${damaged} inline images have`} corrupt data, which readers draw differently (in part, black, or not at all)`);
  const fields = page.undrawnFields ?? 0;
  if (fields)
    reasons.push(
      `${fields === 1 ? 'a form field' : `${fields} form fields`} without an appearance stream ${fields === 1 ? 'is' : 'are'} not drawn (printers draw ${fields === 1 ? 'its' : 'their'} background or border from the field's entries)`,
    );
  // The glyphs of a font that is not embedded are a substitute's (pdf.js and PDFium have their own
  // metric-compatible faces, Ghostscript, MuPDF and poppler URW's): the words sit where they print,
  // but their shapes are the previewer's, as they will be production's (font-not-embedded).
  const names = (fonts: NonNullable<RendererFacts['fonts']>) => [...new Set(fonts.map((f) => f.baseFont ?? f.name))];
  const list = (n: string[]) => `${n.slice(0, 3).join(', ')}${n.length > 3 ? ', …' : ''}`;
  const substituted = names((page.fonts ?? []).filter((f) => !f.embedded && !f.cjk));
  if (substituted.length) reasons.push(`text in ${substituted.length === 1 ? 'a font' : 'fonts'} not embedded (${list(substituted)}) is drawn with a substitute font`);
  // Chinese, Japanese or Korean text in a font that is not embedded: pdf.js draws it with the system
  // CJK face when one is installed, as Ghostscript does (cjk-face.ts); otherwise no previewer here
  // has a face with those characters (pdf.js and PDFium draw empty boxes; MuPDF its own CJK faces).
  const cjk = names((page.fonts ?? []).filter((f) => !f.embedded && f.cjk));
  const fonts = `text in CJK ${cjk.length === 1 ? 'font' : 'fonts'} not embedded (${list(cjk)})`;
  if (cjk.length && engine === 'pdfjs' && cjkFace)
    reasons.push(
      `${fonts} is drawn with the system face ${describeFace(cjkFace)}, as Ghostscript draws it (characters the face lacks show as empty boxes); production sets it in its own substitute font`,
    );
  else if (cjk.length) reasons.push(`${fonts} is not drawn (no face with its characters here: at most empty boxes); production sets it in a substitute font`);
  return reasons.length ? reasons.join('; ') : null;
}

/**
 * Whether PDFium draws the page's annotations too: only when it has printable ones without an
 * appearance stream (a FreeText box), which PDFium draws from their entries as MuPDF does and
 * pdf.js in Node cannot. Otherwise none: PDFium shows annotations as a viewer does, the
 * non-printing ones included (and pages with printable appearance streams go to pdf.js).
 */
export function pdfiumDrawsAnnotations(page: Pick<PageFacts, 'generatedAnnotations'>): boolean {
  return (page.generatedAnnotations ?? 0) > 0;
}

/**
 * Whether the page draws DeviceCMYK (as such, or as the base of Indexed or the alternate of
 * Separation and DeviceN), in vector colour or images: PDFium then draws it from the file's chain
 * copy (convert/chain-copy.ts), its CMYK converted through the chain's profile rather than its own formula.
 */
export function drawsDeviceCmyk(page: Pick<PageFacts, 'images' | 'colours'>): boolean {
  // An ICC profile of Lab data is drawn from the copy too, as a Lab space (PDFium takes its values for RGB).
  const cmyk = (cs: ColourSpaceFacts | null | undefined): boolean => !!cs && (cs.family === 'DeviceCMYK' || (cs.family === 'ICCBased' && cs.model === 'lab') || cmyk(cs.base));
  return page.colours.some((c) => cmyk(c.colourSpace)) || page.images.some((i) => cmyk(i.colourSpace));
}

/** A simple (not CID-keyed) TrueType font whose embedded program has no cmap table. */
function hasCmaplessSimpleTrueType(page: Partial<Pick<PageFacts, 'fonts'>>): boolean {
  return (page.fonts ?? []).some((f) => f.subtype === 'TrueType' && f.program?.noCmap === true);
}

function isIccBased(cs: ImageFacts['colourSpace'] | undefined): boolean {
  return cs?.family === 'ICCBased' || (cs?.family === 'Indexed' && cs.base?.family === 'ICCBased');
}
