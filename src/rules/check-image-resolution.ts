import { formatMm, formatNumber, mmToPx, ptToMm, round } from '../pdf/units.js';
import { distinctImages, imageLabel } from './check-image-size.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from './finding.js';

/** Decimals of effective resolution, compared and printed alike. */
const PPI_DIGITS = 1;

/** image-low-resolution: an image placed below the profile's minimum effective ppi. */
export const checkImageResolution: Check = (ctx) => {
  const min = ctx.limits.minPpi;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    // The same image may be drawn at several sizes: judge each placement, report the worst once.
    const worst = new Map<string, { image: (typeof page.images)[number]; ppi: number }>();
    page.images.forEach((image, i) => {
      if (image.ppiX === null || image.ppiY === null) return;
      // Compared at the precision it is printed with: "100 ppi; the minimum is 100" never appears.
      const ppi = round(Math.min(image.ppiX, image.ppiY), PPI_DIGITS);
      if (ppi >= min) return;
      const key = image.ref ?? `inline-${i}`;
      const hit = worst.get(key);
      if (!hit || ppi < hit.ppi) worst.set(key, { image, ppi });
    });
    const order = distinctImages(page.images);
    for (const { image, ppi } of [...worst.values()].sort((a, b) => order.indexOf(a.image) - order.indexOf(b.image))) {
      const wMm = ptToMm(image.placedWidthPt);
      const hMm = ptToMm(image.placedHeightPt);
      const needW = Math.ceil(mmToPx(wMm, min));
      const needH = Math.ceil(mmToPx(hMm, min));
      const goodW = Math.min(ctx.limits.maxImagePixels, Math.ceil(mmToPx(wMm, ctx.limits.productionPpi)));
      const goodH = Math.min(ctx.limits.maxImagePixels, Math.ceil(mmToPx(hMm, ctx.limits.productionPpi)));
      out.push({
        code: 'image-low-resolution',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)}: ${imageLabel(image)} is ${image.widthPx.toLocaleString('en-US')} × ${image.heightPx.toLocaleString('en-US')} px placed at ${formatMm(wMm, hMm)}, ${formatNumber(ppi, PPI_DIGITS)} ppi; the minimum is ${formatNumber(min)} ppi, so it will print soft or pixelated. Supply at least ${needW.toLocaleString('en-US')} × ${needH.toLocaleString('en-US')} px for this placement (${goodW.toLocaleString('en-US')} × ${goodH.toLocaleString('en-US')} px for ${formatNumber(ctx.limits.productionPpi)} ppi).`,
        expected: `≥ ${min} ppi`,
        actual: `${formatNumber(ppi, PPI_DIGITS)} ppi`,
        details: {
          ppi,
          minPpi: min,
          widthPx: image.widthPx,
          heightPx: image.heightPx,
          ref: image.ref,
          name: image.name,
          image: page.images.indexOf(image) + 1,
        },
      });
    }
  }
  return out;
};
