import type { ColourSpaceFacts, DocumentFacts, ImageFacts, PageFacts } from '../../src/pdf/facts.js';
import { mmToPt } from '../../src/pdf/units.js';
import { loadProfiles } from '../../src/profile/load.js';
import type { Target } from '../../src/profile/registry.js';
import type { CheckContext } from '../../src/rules/context.js';

export const CS: Record<string, ColourSpaceFacts> = {
  rgb: { family: 'DeviceRGB', model: 'rgb', components: 3, label: 'DeviceRGB' },
  cmyk: { family: 'DeviceCMYK', model: 'cmyk', components: 4, label: 'DeviceCMYK' },
  gray: { family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' },
  calgray: { family: 'CalGray', model: 'gray', components: 1, label: 'CalGray' },
  iccRgb: { family: 'ICCBased', model: 'rgb', components: 3, label: 'ICCBased RGB' },
  iccCmyk: { family: 'ICCBased', model: 'cmyk', components: 4, label: 'ICCBased CMYK' },
  iccGray: { family: 'ICCBased', model: 'gray', components: 1, label: 'ICCBased Gray' },
  lab: { family: 'Lab', model: 'lab', components: 3, label: 'Lab' },
  sep: { family: 'Separation', model: 'spot', components: 1, label: 'Separation “Gold”', colorants: ['Gold'] },
  devn: { family: 'DeviceN', model: 'spot', components: 2, label: 'DeviceN “Cyan” “Gold”', colorants: ['Cyan', 'Gold'] },
  idxRgb: { family: 'Indexed', model: 'rgb', components: 1, label: 'Indexed over DeviceRGB' },
  idxCmyk: { family: 'Indexed', model: 'cmyk', components: 1, label: 'Indexed over DeviceCMYK' },
  jpx: { family: 'Unknown', model: 'unknown', components: 0, label: 'JPEG 2000 embedded colour space' },
};

/** An image of w x h px placed over wMm x hMm. */
export function image(w: number, h: number, wMm: number, hMm: number, extra: Partial<ImageFacts> = {}): ImageFacts {
  const wPt = mmToPt(wMm);
  const hPt = mmToPt(hMm);
  return {
    ref: '10 0 R',
    name: 'Im1',
    inline: false,
    via: [],
    widthPx: w,
    heightPx: h,
    bitsPerComponent: 8,
    filters: ['DCTDecode'],
    colourSpace: CS.rgb!,
    imageMask: false,
    hasSMask: false,
    ctm: [wPt, 0, 0, hPt, 0, 0],
    bbox: [0, 0, wPt, hPt],
    placedWidthPt: wPt,
    placedHeightPt: hPt,
    ppiX: (w * 72) / wPt,
    ppiY: (h * 72) / hPt,
    ...extra,
  };
}

export function page(index: number, widthMm: number, heightMm: number, extra: Partial<PageFacts> = {}): PageFacts {
  const box: [number, number, number, number] = [0, 0, mmToPt(widthMm), mmToPt(heightMm)];
  return {
    index,
    ref: null,
    boxes: { media: box, crop: null, trim: null, bleed: null, art: null },
    checkedBox: box,
    rotate: 0,
    userUnit: 1,
    widthMm,
    heightMm,
    images: [],
    colours: [],
    fonts: [],
    notes: [],
    tooComplex: false,
    ...extra,
  };
}

export function doc(pages: PageFacts[], extra: Partial<DocumentFacts> = {}): DocumentFacts {
  return { bytes: 1000, pdfVersion: '1.7', encryption: null, problems: [], activeContent: [], pageCount: pages.length, pages, ...extra };
}

const registry = loadProfiles();

export async function context(facts: DocumentFacts, target: Target = { product: 'duvet-cover', variant: '200x200' }): Promise<CheckContext> {
  const resolved = (await registry).resolve(target);
  return { facts, target: resolved, limits: resolved.limits };
}
