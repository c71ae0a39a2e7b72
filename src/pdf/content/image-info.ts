/**
 * What the scan tells of an image without decoding it: its dictionary's size, colour space and
 * filters, the size its data's header declares (JPEG, JPEG 2000, JBIG2, CCITT), its mask, JPEG
 * quality; for inline images, their data's exact length and whether their filtered data decodes.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import { unknownColourSpace } from '../colour-space.js';
import type { ColourSpaceFacts, MaskFacts } from '../facts.js';
import { isName, isNum, type Operand } from '../lexer.js';
import { PDFArray, PDFName, PDFRawStream, PDFRef, dictOf, get, getBool, getNumber, items, nameOf, refLabel, resolve } from '../objects.js';
import { codedImageSize, codedJpegQuality } from '../image-header.js';
import { BudgetExceededError } from '../decode-budget.js';
import { IMAGE_FILTERS, StreamDecodeError, StreamTooLargeError, decodeFilters, filterParamsOf, filtersOf, fullFilterName } from '../streams.js';
import { jpxColourSpace } from '../jpx.js';
import type { PageScan } from './page-scan.js';
import { intOrNull } from './state.js';

/** An image's facts as the scan reads them (an image draw adds where it is placed). */
export type ImageInfo = ReturnType<ImageInfoReader['xobjectInfo']>;

export class ImageInfoReader {
  private readonly jpxSpaces = new Map<PDFDict, ColourSpaceFacts>();
  /** Image XObject dictionaries → their streams, for the JPEG 2000 header. */
  readonly streamOf = new Map<PDFDict, PDFRawStream>();

  constructor(private readonly scan: PageScan) {}

  /** An image XObject's facts from its dictionary and its data's header (the renderer screen sees its colour space and data). */
  xobjectInfo(dict: PDFDict, resources: PDFDict | undefined, stream: PDFObject | undefined) {
    const ctx = this.scan.context;
    const imageMask = getBool(ctx, dict, 'ImageMask') === true;
    const filters = filtersOf(ctx, dict).map(fullFilterName);
    const csObj = get(ctx, dict, 'ColorSpace');
    let colourSpace: ColourSpaceFacts | null = null;
    if (!imageMask && csObj) {
      const reason = this.scan.screen.colourSpace(csObj);
      if (reason) this.scan.refuse(reason);
      // A DeviceN image's tint transform is evaluated at each of its pixels, once per page.
      const steps = this.scan.screen.pixelSteps(csObj);
      if (steps) this.scan.cost.evaluated(steps * Math.max(0, getNumber(ctx, dict, 'Width') ?? 0) * Math.max(0, getNumber(ctx, dict, 'Height') ?? 0));
    }
    if (!imageMask) {
      colourSpace = csObj ? this.scan.colourSpaces.describe(csObj, resources) : filters.includes('JPXDecode') ? this.jpxColourSpace(dict) : unknownColourSpace('no /ColorSpace');
    }
    return {
      widthPx: Math.max(0, Math.trunc(getNumber(ctx, dict, 'Width') ?? 0)),
      heightPx: Math.max(0, Math.trunc(getNumber(ctx, dict, 'Height') ?? 0)),
      bitsPerComponent: imageMask ? 1 : intOrNull(getNumber(ctx, dict, 'BitsPerComponent')),
      filters,
      colourSpace,
      imageMask,
      hasSMask: !!get(ctx, dict, 'SMask') && !nameOf(get(ctx, dict, 'SMask')),
      coded: stream instanceof PDFRawStream ? this.codedSize(stream) : null,
      mask: this.maskOf(dict),
      jpegQuality: stream instanceof PDFRawStream ? codedJpegQuality(stream.contents, filters, this.scan.budget) : null,
    };
  }

  /** An image's /SMask or /Mask stream: its declared and coded size (it is decoded like an image). */
  private maskOf(dict: PDFDict): MaskFacts | null {
    const ctx = this.scan.context;
    for (const kind of ['SMask', 'Mask'] as const) {
      const raw = dict.get(PDFName.of(kind));
      const mask = resolve(ctx, raw);
      if (!(mask instanceof PDFRawStream)) continue; // a name (/None) or a colour-key array
      return {
        kind,
        ref: refLabel(raw instanceof PDFRef ? raw : undefined),
        widthPx: Math.max(0, Math.trunc(getNumber(ctx, mask.dict, 'Width') ?? 0)),
        heightPx: Math.max(0, Math.trunc(getNumber(ctx, mask.dict, 'Height') ?? 0)),
        coded: this.codedSize(mask),
      };
    }
    return null;
  }

  /**
   * The size an image's data declares (JPEG, JPEG 2000, JBIG2 headers; CCITT /Columns), its
   * header read through any wrapping filters under the file's budget.
   */
  private codedSize(stream: PDFRawStream) {
    const ctx = this.scan.context;
    const filters = filtersOf(ctx, stream.dict).map(fullFilterName);
    if (filters.at(-1) === 'JBIG2Decode') {
      // Every segment counts, in the globals too: the whole data is read, not a header.
      const { claims, reason } = this.scan.screen.jbig2(stream, this.jbig2Globals(stream.dict));
      if (reason) this.scan.refuse(reason);
      return claims?.widthPx && claims.heightPx ? { format: 'jbig2' as const, widthPx: claims.widthPx, heightPx: claims.heightPx, components: 1, progressive: false } : null;
    }
    const params = filterParamsOf(ctx, stream.dict, filters.length).at(-1);
    const height = getNumber(ctx, stream.dict, 'Height');
    const coded = codedImageSize(stream.contents, filters, this.scan.budget, { columns: params?.columns, rows: params?.rows, height });
    if (filters.at(-1) === 'DCTDecode') {
      // Every scan counts: a decoder goes over the whole image at each (jpeg-scans.ts).
      const declared = Math.max(0, getNumber(ctx, stream.dict, 'Width') ?? 0) * Math.max(0, height ?? 0);
      const reason = this.scan.screen.jpeg(stream, Math.max(declared, coded ? coded.widthPx * coded.heightPx : 0));
      if (reason) this.scan.refuse(reason);
    }
    return coded;
  }

  /** A JBIG2 image's /JBIG2Globals entry (in the JBIG2Decode filter's parameters). */
  private jbig2Globals(dict: PDFDict): PDFObject | undefined {
    const ctx = this.scan.context;
    const filters = filtersOf(ctx, dict).map(fullFilterName);
    const parms = get(ctx, dict, 'DecodeParms') ?? get(ctx, dict, 'DP');
    const own = parms instanceof PDFArray ? dictOf(items(ctx, parms)[filters.indexOf('JBIG2Decode')]) : dictOf(parms);
    return own?.get(PDFName.of('JBIG2Globals'));
  }

  /** A JPEG 2000 image without /ColorSpace carries its space in its own header (colr box or SIZ). */
  private jpxColourSpace(dict: PDFDict): ColourSpaceFacts {
    let cs = this.jpxSpaces.get(dict);
    if (!cs) {
      const stream = this.streamOf.get(dict);
      let header: Uint8Array | undefined;
      try {
        header = stream ? this.scan.readStream(stream, { untilImageFilter: true }) : undefined;
      } catch (error) {
        if (!(error instanceof StreamDecodeError)) throw error;
      }
      cs = (header && jpxColourSpace(header)) ?? unknownColourSpace('the JPEG 2000 header cannot be read');
      this.jpxSpaces.set(dict, cs);
    }
    return cs;
  }

  /** An inline image's facts from its dictionary (abbreviations allowed) and, when given, its data. */
  inlineInfo(dict: Map<string, Operand>, resources: PDFDict | undefined, data?: Uint8Array) {
    const v = (long: string, short: string) => dict.get(long) ?? dict.get(short);
    const imageMask = v('ImageMask', 'IM') === true;
    const f = v('Filter', 'F');
    const filters = (Array.isArray(f) ? f : f === undefined ? [] : [f]).map((x) => (isName(x) ? fullFilterName(x.name) : '?'));
    const cs = v('ColorSpace', 'CS');
    let colourSpace: ColourSpaceFacts | null = null;
    if (!imageMask) colourSpace = this.inlineColourSpace(cs, resources);
    const num = (x: Operand | undefined) => (isNum(x) ? Math.max(0, Math.trunc(x)) : 0);
    return {
      widthPx: num(v('Width', 'W')),
      heightPx: num(v('Height', 'H')),
      bitsPerComponent: imageMask ? 1 : isNum(v('BitsPerComponent', 'BPC')) ? Math.trunc(v('BitsPerComponent', 'BPC') as number) : null,
      filters,
      colourSpace,
      imageMask,
      hasSMask: false,
      coded: data ? this.inlineCoded(data, filters, dict) : null,
      mask: null,
      jpegQuality: data ? codedJpegQuality(data, filters, this.scan.budget) : null,
    };
  }

  private inlineCoded(data: Uint8Array, filters: string[], dict: Map<string, Operand>) {
    const parms = dict.get('DecodeParms') ?? dict.get('DP');
    const own = Array.isArray(parms) ? parms[parms.length - 1] : parms;
    const num = (key: string) => {
      const v = own && typeof own === 'object' && 'dict' in own ? own.dict.get(key) : undefined;
      return isNum(v) ? v : undefined;
    };
    const height = dict.get('Height') ?? dict.get('H');
    return codedImageSize(data, filters, this.scan.budget, { columns: num('Columns'), rows: num('Rows'), height: isNum(height) ? height : undefined });
  }

  private inlineColourSpace(cs: Operand | undefined, resources: PDFDict | undefined): ColourSpaceFacts {
    if (isName(cs)) return this.scan.colourSpaces.describe(cs.name, resources, true);
    if (Array.isArray(cs) && isName(cs[0])) {
      // [/I /RGB 255 <…>] or [/Indexed /DeviceCMYK …]
      const family = cs[0].name;
      if ((family === 'I' || family === 'Indexed') && cs[1] !== undefined) {
        const base = this.inlineColourSpace(cs[1], resources);
        return { family: 'Indexed', model: base.model, components: 1, label: `Indexed over ${base.label}`, base };
      }
      return this.scan.colourSpaces.describe(family, resources, true);
    }
    return unknownColourSpace('no /ColorSpace');
  }

  /**
   * Whether an inline image's filtered data is corrupt (its Flate or LZW data does not decode): a
   * reader that finds the image's end by decoding it (PDFium) then reads the rest of the content
   * stream from inside the image data and loses what follows (qpdf damaged-inline-image.pdf);
   * readers that look for `EI` (pdf.js, Ghostscript, MuPDF) draw on. Only the image's own bytes
   * are decoded, up to its size (at most 4 MiB), under the file's budget; images with image filters
   * (JPEG…) or decode parameters are not judged.
   */
  inlineDataDamaged(dict: Map<string, Operand>, resources: PDFDict | undefined, data: Uint8Array): boolean {
    const f = dict.get('Filter') ?? dict.get('F');
    const filters = (Array.isArray(f) ? f : f === undefined ? [] : [f]).map((x) => (isName(x) ? fullFilterName(x.name) : '?'));
    if (!filters.length || filters.some((x) => x === '?' || IMAGE_FILTERS.has(x)) || dict.has('DecodeParms') || dict.has('DP')) return false;
    const num = (long: string, short: string) => {
      const v = dict.get(long) ?? dict.get(short);
      return isNum(v) && v > 0 ? Math.trunc(v) : 0;
    };
    const info = this.inlineInfo(dict, resources);
    const components = info.imageMask ? 1 : Math.max(1, info.colourSpace?.components ?? 1);
    const bpc = info.imageMask ? 1 : num('BitsPerComponent', 'BPC') || 8;
    const expected = Math.ceil((num('Width', 'W') * components * bpc) / 8) * num('Height', 'H');
    // Inline images are small by intent (the standard suggests 4 KB); a large one is left unjudged
    // rather than decoded whole a second time (renderers decode it under the screen's bounds).
    if (expected <= 0 || expected > MAX_CHECKED_INLINE_BYTES) return false;
    try {
      decodeFilters(data, filters, [], { maxBytes: expected, prefix: expected, budget: this.scan.budget, what: 'an inline image' });
      return false;
    } catch (error) {
      if (error instanceof BudgetExceededError) throw error;
      return error instanceof StreamDecodeError && !(error instanceof StreamTooLargeError);
    }
  }

  /** Exact data length of an unfiltered inline image, so binary data containing "EI" is skipped. */
  inlineDataLength(dict: Map<string, Operand>, resources: PDFDict | undefined): number | null {
    const v = (long: string, short: string) => dict.get(long) ?? dict.get(short);
    const filter = v('Filter', 'F');
    if (filter !== undefined && !(Array.isArray(filter) && filter.length === 0)) {
      const explicit = v('Length', 'L');
      return isNum(explicit) ? explicit : null;
    }
    const info = this.inlineInfo(dict, resources);
    const comps = info.imageMask ? 1 : (info.colourSpace?.components ?? 0);
    const bpc = info.bitsPerComponent ?? 8;
    if (!comps || !info.widthPx || !info.heightPx) return null;
    return Math.ceil((info.widthPx * comps * bpc) / 8) * info.heightPx;
  }
}

/** Inline images decoded to check their data (inlineDataDamaged): at most this many bytes. */
const MAX_CHECKED_INLINE_BYTES = 4 * 1024 * 1024;
