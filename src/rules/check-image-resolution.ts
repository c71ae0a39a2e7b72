import { finite, formatMm, formatNumber, mmToPx, ptToMm, round } from '../pdf/units.js';
import { distinctImages, imageLabel } from './check-image-size.js';
import { printScaleOf } from './check-page-size.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { isBelow, wholePixels } from './threshold.js';
import { grouped } from '../util/text.js';

/**
 * A resolution as it is compared and printed: one decimal. Comparing the unrounded value and
 * printing a rounded one would say "100 ppi; the minimum is 100 ppi" for 99.95 ppi.
 */
export const ppiValue = (ppi: number): number => round(ppi, 1);
/** "12.5 ppi", "300 ppi" — the one way a resolution is written. */
export const formatPpi = (ppi: number): string => `${formatNumber(ppiValue(ppi), 1)} ppi`;

/**
 * image-low-resolution: an image below the profile's minimum effective resolution *at the size the
 * service prints it*: a page of the layer's proportions at another size is scaled to the layer
 * first (a half-size page prints at 200 %, its images at half their placed ppi). Warning below
 * `minPpi`, error below `minPpiError`.
 */
export const checkImageResolution: Check = (ctx) => {
  const { minPpi, minPpiError, productionPpi, maxImagePixels } = ctx.limits;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const scale = printScaleOf(page, layer, ctx.limits);
    // The same image may be drawn at several sizes: judge each placement, report the worst once.
    const worst = new Map<string, { image: (typeof page.images)[number]; ppi: number; exact: number }>();
    page.images.forEach((image, i) => {
      if (image.ppiX === null || image.ppiY === null) return;
      const exact = finite(Math.min(image.ppiX, image.ppiY) / scale);
      // As the message shows resolutions (formatPpi: one decimal), within the stated tolerance.
      if (!isBelow(exact, minPpi, 1)) return;
      const ppi = ppiValue(exact);
      const key = image.ref ?? `inline-${i}`;
      const hit = worst.get(key);
      if (!hit || exact < hit.exact) worst.set(key, { image, ppi, exact });
    });
    const order = distinctImages(page.images);
    for (const { image, ppi, exact } of [...worst.values()].sort((a, b) => order.indexOf(a.image) - order.indexOf(b.image))) {
      const placedW = ptToMm(image.placedWidthPt);
      const placedH = ptToMm(image.placedHeightPt);
      const wMm = finite(placedW * scale);
      const hMm = finite(placedH * scale);
      const needW = wholePixels(mmToPx(wMm, minPpi));
      const needH = wholePixels(mmToPx(hMm, minPpi));
      const goodW = Math.min(maxImagePixels, wholePixels(mmToPx(wMm, productionPpi)));
      const goodH = Math.min(maxImagePixels, wholePixels(mmToPx(hMm, productionPpi)));
      const isError = isBelow(exact, minPpiError, 1);
      const scaled = scale !== 1;
      const where = scaled
        ? `placed at ${formatMm(placedW, placedH)} on a page the service scales to ${formatNumber(scale * 100, 0)} %, so it prints at ${formatMm(wMm, hMm)}`
        : `printed at ${formatMm(wMm, hMm)}`;
      const verdict = isError ? `below ${formatPpi(minPpiError)} it prints visibly pixelated` : `the minimum is ${formatPpi(minPpi)}, so it will print soft or pixelated`;
      out.push({
        code: 'image-low-resolution',
        page: page.index,
        layer: layer?.id ?? null,
        ...(isError ? { severity: 'error' as const } : {}),
        message: `${pageLabel(page, layer)}: ${imageLabel(image)} is ${grouped(image.widthPx)} × ${grouped(image.heightPx)} px ${where}: ${formatPpi(ppi)}; ${verdict}. Supply at least ${grouped(needW)} × ${grouped(needH)} px for that printed size (${grouped(goodW)} × ${grouped(goodH)} px for ${formatPpi(productionPpi)}).`,
        expected: `≥ ${formatPpi(minPpi)}`,
        actual: formatPpi(ppi),
        details: {
          ppi,
          placedPpi: ppiValue(Math.min(image.ppiX!, image.ppiY!)),
          printScale: round(scale, 4),
          printedWidthMm: round(wMm, 1),
          printedHeightMm: round(hMm, 1),
          minPpi,
          minPpiError,
          neededWidthPx: needW,
          neededHeightPx: needH,
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
