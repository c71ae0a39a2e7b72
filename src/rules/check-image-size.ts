import type { ImageFacts } from '../pdf/facts.js';
import { formatNumber, mmToPx, ptToMm } from '../pdf/units.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from './finding.js';

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

/** image-too-large: more than 15,000 px (the profile's maxImagePixels) on a side. */
export const checkImageSize: Check = (ctx) => {
  const max = ctx.limits.maxImagePixels;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    for (const image of distinctImages(page.images)) {
      const longest = Math.max(image.widthPx, image.heightPx);
      if (longest <= max) continue;
      // What the service would produce at for this placement, capped at the limit.
      const targetW = Math.min(max, Math.ceil(mmToPx(ptToMm(image.placedWidthPt), ctx.limits.productionPpi)));
      const targetH = Math.min(max, Math.ceil(mmToPx(ptToMm(image.placedHeightPt), ctx.limits.productionPpi)));
      out.push({
        code: 'image-too-large',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)}: ${imageLabel(image)} is ${image.widthPx.toLocaleString('en-US')} × ${image.heightPx.toLocaleString('en-US')} px, over the service's limit of ${max.toLocaleString('en-US')} px per side: it may be resized or rejected. Downsample it to at most ${max.toLocaleString('en-US')} px on its longest side; at its placed size, ${formatNumber(ctx.limits.productionPpi)} ppi needs ${targetW.toLocaleString('en-US')} × ${targetH.toLocaleString('en-US')} px.`,
        expected: `≤ ${max} px per side`,
        actual: `${image.widthPx} × ${image.heightPx} px`,
        details: { widthPx: image.widthPx, heightPx: image.heightPx, maxPx: max, ref: image.ref, name: image.name, image: page.images.indexOf(image) + 1 },
      });
    }
  }
  return out;
};
