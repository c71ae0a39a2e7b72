/**
 * The image collector: every image drawn (XObjects and inline images) with where it is placed and
 * its effective resolution, the marks and ink it adds; and the images a renderer decodes that the
 * page's list does not show (drawn by Type 3 glyphs and in soft-mask groups), whose pixels count.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { ImageFacts } from '../facts.js';
import type { Matrix } from '../../model/geometry.js';
import type { Operand } from '../lexer.js';
import { unitSquareBox } from '../matrix.js';
import { clipBox } from '../marks.js';
import { allocatedSize } from '../allocated-size.js';
import { ppiOf } from '../units.js';
import { grouped } from '../../util/text.js';
import type { ColourCollector } from './colours.js';
import { ImageInfoReader, type ImageInfo } from './image-info.js';
import { LimitReached } from './limits.js';
import type { PageScan } from './page-scan.js';
import type { GState } from './state.js';

export class ImageCollector {
  readonly images: ImageFacts[] = [];
  readonly info: ImageInfoReader;
  private readonly imageInfo = new Map<PDFObject, ImageInfo>();
  /** Images drawn by glyphs and soft-mask groups, each once, and their pixels together. */
  private readonly hiddenImages = new Set<PDFObject | Map<string, Operand>>();
  private hiddenPixels = 0;

  constructor(
    private readonly scan: PageScan,
    private readonly colours: ColourCollector,
  ) {
    this.info = new ImageInfoReader(scan);
  }

  /** `BI … ID … EI`: an operator (counted), an image drawn, and whether its data is damaged. */
  inlineImage(dict: Map<string, Operand>, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>, data: Uint8Array) {
    this.scan.countOperator(false);
    this.addImage(dict, null, null, true, resources, gs, via, active, undefined, data);
    if (this.info.inlineDataDamaged(dict, resources, data)) this.scan.hazards.damagedInlineImages++;
  }

  /**
   * An image drawn at the CTM: listed with its placement and resolution (while screening, only its
   * pixels count), its marks and ink; a stencil mask paints the fill colour or pattern.
   */
  addImage(
    dict: PDFDict | Map<string, Operand>,
    ref: string | null,
    name: string | null,
    inline: boolean,
    resources: PDFDict | undefined,
    gs: GState,
    via: string[],
    active: Set<PDFObject>,
    stream?: PDFObject,
    inlineData?: Uint8Array,
  ) {
    if (this.scan.screening) {
      this.hiddenImage(dict, resources, stream, inlineData);
      return;
    }
    if (this.images.length >= this.scan.limits.maxImageDraws) {
      this.scan.tooComplex = true;
      this.scan.notes.add(`the page draws images more than ${grouped(this.scan.limits.maxImageDraws)} times: inspection stopped, the page is not rendered`);
      throw new LimitReached();
    }
    const info = inline ? this.info.inlineInfo(dict as Map<string, Operand>, resources, inlineData) : this.cachedInfo(dict as PDFDict, resources, stream);
    this.scan.cost.image(unitSquareBox(gs.ctm), gs.clip);
    if (!this.scan.inPattern) {
      if (!info.imageMask) this.scan.ink.image(unitSquareBox(gs.ctm), gs.clip);
      else if (gs.fillInk && gs.fillAlpha > 0 && !gs.masked) this.scan.ink.fill(unitSquareBox(gs.ctm), gs.clip, 0.5);
    }
    if (info.imageMask) {
      // A stencil mask paints the fill colour; a pattern fill paints the pattern's colours.
      if (gs.fill.family !== 'Pattern') this.colours.record('stencil', gs.fill, via);
      else if (gs.fillPattern) this.colours.usePattern(gs.fillPattern, gs.fill, 'stencil', resources, via, active);
      else this.colours.record('stencil', gs.fill.base ?? gs.fill, via);
    }
    if (!this.scan.inPattern) {
      const shown = clipBox(unitSquareBox(gs.ctm), gs.clip);
      if (shown) this.scan.marks.shape({ box: shown, kind: 'image' });
    }
    const [a, b, c, d] = gs.ctm;
    const placedWidthPt = Math.hypot(a, b) * this.scan.userUnit;
    const placedHeightPt = Math.hypot(c, d) * this.scan.userUnit;
    const ppi = (px: number, pt: number) => (pt > 1e-9 ? ppiOf(px, pt) : null);
    this.images.push({
      ref,
      name,
      inline,
      via: [...via],
      ...info,
      ctm: [...gs.ctm] as Matrix,
      bbox: unitSquareBox(gs.ctm),
      placedWidthPt,
      placedHeightPt,
      ppiX: ppi(info.widthPx, placedWidthPt),
      ppiY: ppi(info.heightPx, placedHeightPt),
    });
  }

  /** An image drawn by a glyph or in a soft-mask group: its pixels count against the page's render budget. */
  private hiddenImage(dict: PDFDict | Map<string, Operand>, resources: PDFDict | undefined, stream?: PDFObject, inlineData?: Uint8Array) {
    const key = stream ?? dict;
    if (this.hiddenImages.has(key)) return;
    this.hiddenImages.add(key);
    const info = dict instanceof Map ? this.info.inlineInfo(dict, resources, inlineData) : this.cachedInfo(dict, resources, stream);
    const own = allocatedSize(info);
    const mask = info.mask ? allocatedSize(info.mask) : { widthPx: 0, heightPx: 0 };
    this.hiddenPixels += own.widthPx * own.heightPx + mask.widthPx * mask.heightPx;
    if (this.hiddenPixels > this.scan.limits.maxHiddenImagePixels) {
      this.scan.refuse(
        `Type 3 glyphs or soft-mask groups draw images of ${grouped(this.hiddenPixels)} pixels (a renderer decodes them whole; more than ${grouped(this.scan.limits.maxHiddenImagePixels)})`,
      );
      throw new LimitReached();
    }
  }

  private cachedInfo(dict: PDFDict, resources: PDFDict | undefined, stream: PDFObject | undefined) {
    let info = this.imageInfo.get(dict);
    if (!info) {
      info = this.info.xobjectInfo(dict, resources, stream);
      this.imageInfo.set(dict, info);
    }
    return info;
  }
}
