import type { ImageFacts } from '../pdf/facts.js';
import { allocatedSize } from '../pdf/allocated-size.js';
import { formatNumber, mmToPx, ptToMm } from '../pdf/units.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { wholePixels } from './threshold.js';
import { grouped } from '../util/text.js';

const CODED_FORMAT = { jpeg: 'JPEG', jpx: 'JPEG 2000', jbig2: 'JBIG2', ccitt: 'CCITT fax' } as const;

/** "image Im0 (12 0 R)", "an inline image", "image Fm1 › Im0 (12 0 R)" */
export function imageLabel(image: ImageFacts): string {
  if (image.inline) return `an inline image${image.via.length ? ` in ${image.via.join(' › ')}` : ''}`;
  const path = [...image.via, image.name ?? '?'].join(' › ');
  return `image ${path}${image.ref ? ` (${image.ref})` : ''}`;
}

/** Each distinct image of a page once (an image drawn twice is one image with one size). */
export function distinctImages(images: ImageFacts[]): ImageFacts[] {
  const seen = new Set<string>();
  return images.filter((img) => {
    if (img.inline || !img.ref) return true;
    if (seen.has(img.ref)) return false;
    seen.add(img.ref);
    return true;
  });
}

/**
 * image-too-large: more than 15,000 px (the profile's maxImagePixels) on a side — the image as
 * the PDF declares it, as its JPEG / JPEG 2000 data declares it, or its soft mask or mask image.
 */
export const checkImageSize: Check = (ctx) => {
  const max = ctx.limits.maxImagePixels;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    for (const image of distinctImages(page.images)) {
      const size = allocatedSize(image);
      const mask = image.mask ? allocatedSize(image.mask) : null;
      const longest = Math.max(size.widthPx, size.heightPx);
      const maskLongest = mask ? Math.max(mask.widthPx, mask.heightPx) : 0;
      // Whole pixels against a whole limit: no rounding to tolerate (threshold.ts).
      if (longest <= max && maskLongest <= max) continue;
      // What the service would produce at for this placement, capped at the limit.
      const targetW = Math.min(max, wholePixels(mmToPx(ptToMm(image.placedWidthPt), ctx.limits.productionPpi)));
      const targetH = Math.min(max, wholePixels(mmToPx(ptToMm(image.placedHeightPt), ctx.limits.productionPpi)));
      const advice = `Downsample it to at most ${grouped(max)} px on its longest side; at its placed size, ${formatNumber(ctx.limits.productionPpi)} ppi needs ${grouped(targetW)} × ${grouped(targetH)} px.`;
      let what: string;
      let actual: string;
      const c = image.coded;
      const codedLarger = !!c && (c.widthPx > image.widthPx || c.heightPx > image.heightPx);
      if (longest > max && !codedLarger) {
        what = `${imageLabel(image)} is ${grouped(image.widthPx)} × ${grouped(image.heightPx)} px`;
        actual = `${image.widthPx} × ${image.heightPx} px`;
      } else if (longest > max && c) {
        what = `${imageLabel(image)} is declared ${grouped(image.widthPx)} × ${grouped(image.heightPx)} px, but its ${CODED_FORMAT[c.format]} data is ${grouped(c.widthPx)} × ${grouped(c.heightPx)} px (a reader decodes that)`;
        actual = `${c.widthPx} × ${c.heightPx} px (${c.format} data)`;
      } else {
        const m = image.mask!;
        what = `the ${m.kind === 'SMask' ? 'soft mask' : 'mask image'}${m.ref ? ` (${m.ref})` : ''} of ${imageLabel(image)} is ${grouped(mask!.widthPx)} × ${grouped(mask!.heightPx)} px (decoded like an image whenever it is drawn)`;
        actual = `${mask!.widthPx} × ${mask!.heightPx} px (${m.kind})`;
      }
      out.push({
        code: 'image-too-large',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)}: ${what}, over the service's limit of ${grouped(max)} px per side: it may be resized or rejected. ${advice}`,
        expected: `≤ ${max} px per side`,
        actual,
        details: {
          widthPx: longest > max ? size.widthPx : mask!.widthPx,
          heightPx: longest > max ? size.heightPx : mask!.heightPx,
          maxPx: max,
          ref: image.ref,
          name: image.name,
          image: page.images.indexOf(image) + 1,
          ...(longest > max ? {} : { mask: image.mask!.kind }),
        },
      });
    }
  }
  return out;
};
