/**
 * Annotations that print (ISO 32000-2 §12.5): a stamp, a FreeText box or a form field with the
 * Print flag is drawn on paper from its normal appearance stream, so its images, fonts and colours
 * are judged like the page's own. Annotations without the Print flag, hidden ones and ones in
 * hidden optional content print nothing and stay out, as they stay out of the print raster.
 */
import type { PDFContext, PDFDict } from 'pdf-lib';
import type { Matrix, Rect } from '../model/geometry.js';
import { IDENTITY, isFiniteMatrix, transformedBox } from './matrix.js';
import { N, PDFArray, PDFRawStream, dictOf, get, getDict, getName, getNumber, items, numberOf, rectOf } from './objects.js';
import type { OptionalContent } from './optional-content.js';

/** Annotation flags (Table 167). */
const HIDDEN = 1 << 1;
const PRINT = 1 << 2;
/** Most annotations read per page; a page with more is a parser attack, not a design. */
const MAX_ANNOTATIONS = 10_000;

/**
 * The page's annotations that print: the Print flag set, not hidden, not in hidden optional
 * content — in /Annots order, at most MAX_ANNOTATIONS of them read. Every question below asks it.
 */
function* printableAnnotations(context: PDFContext, page: PDFDict, oc: OptionalContent): Generator<PDFDict> {
  const annots = get(context, page, 'Annots');
  if (!(annots instanceof PDFArray)) return;
  for (const annot of items(context, annots).slice(0, MAX_ANNOTATIONS)) {
    const dict = dictOf(annot);
    if (!dict) continue;
    const flags = getNumber(context, dict, 'F') ?? 0;
    if (flags & PRINT && !(flags & HIDDEN) && !oc.isHidden(dict.get(N('OC')))) yield dict;
  }
}

const isWidget = (context: PDFContext, annot: PDFDict) => getName(context, annot, 'Subtype') === 'Widget';

export interface Appearance {
  /** The appearance stream (a Form XObject). */
  stream: PDFRawStream;
  /**
   * Where the form is drawn (§12.5.5, matrix A): its /Matrix, applied first as for any form, then
   * this matrix fit the transformed BBox onto the annotation's /Rect.
   */
  placement: Matrix;
  /** "annotation Stamp", for the `via` path of what it draws. */
  label: string;
}

/**
 * The normal appearances of the page's printable annotations, in /Annots order.
 * @example
 * for (const a of printableAppearances(context, pageDict, oc)) scanner.scanAppearance(a);
 */
export function printableAppearances(context: PDFContext, page: PDFDict, oc: OptionalContent): Appearance[] {
  const out: Appearance[] = [];
  for (const dict of printableAnnotations(context, page, oc)) {
    const stream = normalAppearance(context, dict);
    const rect = rectOf(context, dict.get(N('Rect')));
    if (!stream || !rect) continue;
    const placement = appearancePlacement(context, stream.dict, rect);
    if (!placement) continue;
    out.push({ stream, placement, label: `annotation ${getName(context, dict, 'Subtype') ?? '(no subtype)'}` });
  }
  return out;
}

/**
 * Form fields that print: widget annotations with the Print flag, not hidden, not in hidden
 * optional content — with or without an appearance stream (a reader builds one for a field that
 * has none when the form asks it to, /NeedAppearances).
 */
export function printableWidgetCount(context: PDFContext, page: PDFDict, oc: OptionalContent): number {
  let n = 0;
  for (const dict of printableAnnotations(context, page, oc)) if (isWidget(context, dict)) n++;
  return n;
}

/** Steps up the field tree counted per page, at most (the walk stops there: the page is over any bound by then). */
const MAX_FIELD_STEPS = 1_000_000;

/**
 * How far up the form's field tree pdf.js walks for the page's form fields: the /Parent chain of
 * each widget annotation of the page (printable or not: pdf.js reads them all), each chain ended
 * where it loops back; their lengths together, and the longest. pdf.js walks a widget's chain again
 * for its name and for every property it inherits, building the name by prepending: a widget 3,000
 * fields deep took it 16 s, 20,000 deep more than a minute. Forms in use nest a few.
 */
export function widgetFieldChains(context: PDFContext, page: PDFDict): { total: number; deepest: number } {
  const annots = get(context, page, 'Annots');
  let total = 0;
  let deepest = 0;
  if (!(annots instanceof PDFArray)) return { total, deepest };
  for (const annot of items(context, annots).slice(0, MAX_ANNOTATIONS)) {
    const dict = dictOf(annot);
    if (!dict || !isWidget(context, dict)) continue;
    const seen = new Set<PDFDict>([dict]);
    let depth = 0;
    for (let parent = getDict(context, dict, 'Parent'); parent && !seen.has(parent) && total < MAX_FIELD_STEPS; parent = getDict(context, parent, 'Parent')) {
      seen.add(parent);
      depth++;
      total++;
    }
    if (depth > deepest) deepest = depth;
    if (total >= MAX_FIELD_STEPS) break;
  }
  return { total, deepest };
}

/** /AP /N: a stream, or a dictionary of states of which /AS names the one shown. */
function normalAppearance(context: PDFContext, annot: PDFDict): PDFRawStream | undefined {
  const n = get(context, getDict(context, annot, 'AP'), 'N');
  if (n instanceof PDFRawStream) return n;
  const states = dictOf(n);
  const state = getName(context, annot, 'AS');
  if (!states || !state) return undefined;
  const chosen = get(context, states, state);
  return chosen instanceof PDFRawStream ? chosen : undefined;
}

/**
 * Algorithm 8.1: the form's BBox, transformed by its /Matrix, is fitted onto the annotation's
 * /Rect by scaling and translating. Returns that fit (matrix A), or undefined when either box is
 * empty.
 */
export function appearancePlacement(context: PDFContext, form: PDFDict, rect: Rect): Matrix | undefined {
  const bbox = rectOf(context, form.get(N('BBox')));
  if (!bbox) return undefined;
  const m = get(context, form, 'Matrix');
  const values = m instanceof PDFArray && m.size() === 6 ? items(context, m).map(numberOf) : [];
  const matrix: Matrix = values.length === 6 && isFiniteMatrix(values as number[]) ? (values as Matrix) : IDENTITY;
  const [x0, y0, x1, y1] = transformedBox(matrix, bbox);
  if (x1 - x0 <= 0 || y1 - y0 <= 0 || rect[2] - rect[0] <= 0 || rect[3] - rect[1] <= 0) return undefined;
  const sx = (rect[2] - rect[0]) / (x1 - x0);
  const sy = (rect[3] - rect[1]) / (y1 - y0);
  return [sx, 0, 0, sy, rect[0] - x0 * sx, rect[1] - y0 * sy];
}

/**
 * Annotation types that print from an appearance a renderer makes when the file has none (PDFium
 * and MuPDF generate one from the annotation's own entries: its text, colour and geometry).
 */
const GENERATED_APPEARANCE = new Set(['FreeText', 'Square', 'Circle', 'Line', 'Polygon', 'PolyLine', 'Ink', 'Highlight', 'Underline', 'Squiggly', 'StrikeOut', 'Text']);

/**
 * Printable annotations without a normal appearance stream, of the types renderers draw from their
 * entries instead (a FreeText box with /Contents and /DA but no /AP): they print, though the
 * content scan has no stream of theirs to read.
 */
export function printableWithoutAppearance(context: PDFContext, page: PDFDict, oc: OptionalContent): number {
  let count = 0;
  for (const dict of printableAnnotations(context, page, oc)) {
    if (!GENERATED_APPEARANCE.has(getName(context, dict, 'Subtype') ?? '') || normalAppearance(context, dict) || !rectOf(context, dict.get(N('Rect')))) continue;
    count++;
  }
  return count;
}

/**
 * Form fields that print but have no appearance stream, with a background or border colour in
 * their /MK entries that prints: Ghostscript, MuPDF and poppler draw that box (a push button
 * without /AP in veraPDF 6-3-3-t01-fail-s.pdf), pdf.js and PDFium draw nothing. The preview then
 * lacks them, and says so; the page is never called blank for it.
 */
export function undrawnPrintableFields(context: PDFContext, page: PDFDict, oc: OptionalContent): number {
  let n = 0;
  for (const dict of printableAnnotations(context, page, oc)) {
    if (!isWidget(context, dict)) continue;
    if (normalAppearance(context, dict) || !rectOf(context, dict.get(N('Rect')))) continue;
    const mk = getDict(context, dict, 'MK');
    if (printsColour(context, get(context, mk, 'BG')) || printsColour(context, get(context, mk, 'BC'))) n++;
  }
  return n;
}

/** An /MK colour array (gray, RGB or CMYK by its length) that is not paper white. */
function printsColour(context: PDFContext, value: unknown): boolean {
  if (!(value instanceof PDFArray)) return false;
  const c = items(context, value).map(numberOf);
  if (c.some((v) => v === undefined || !Number.isFinite(v))) return false;
  const v = c as number[];
  if (v.length === 1) return v[0]! < 0.98;
  if (v.length === 3) return v.some((x) => x < 0.98);
  if (v.length === 4) return v.some((x) => x > 0.02);
  return false;
}
