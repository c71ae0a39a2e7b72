/**
 * Image quality beyond the pixel count:
 * - image-jpeg-quality: a JPEG compressed hard (quality from its quantisation tables), with the
 *   size its 8 × 8 compression blocks print at;
 * - image-upscaled: an image enlarged from a smaller picture, from the detail its pixels carry
 *   (raster/detail.ts, measured in the worker), when the detail at the printed size is below the
 *   minimum resolution.
 */
import type { ImageFacts, PageFacts } from '../pdf/facts.js';
import { finite, formatMm, formatNumber, ptToMm, round } from '../pdf/units.js';
import { distinctImages, imageLabel } from './check-image-size.js';
import { formatPpi, ppiValue } from './check-image-resolution.js';
import { printScaleOf } from './check-page-size.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { isBelow } from './threshold.js';
import { grouped } from '../util/text.js';

/** The printed size and resolution of an image on a page printed at `scale`. */
function printed(image: ImageFacts, scale: number): { wMm: number; hMm: number; ppi: number | null } {
  const ppi = image.ppiX === null || image.ppiY === null ? null : finite(Math.min(image.ppiX, image.ppiY) / scale);
  return { wMm: finite(ptToMm(image.placedWidthPt) * scale), hMm: finite(ptToMm(image.placedHeightPt) * scale), ppi };
}

/** image-jpeg-quality */
export const checkJpegQuality: Check = (ctx) => {
  const { minJpegQuality, infoJpegQuality } = ctx.limits;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const scale = printScaleOf(page, layer, ctx.limits);
    for (const image of distinctImages(page.images)) {
      const q = image.jpegQuality;
      // Whole quality steps (1–100) against the limits: no rounding to tolerate (threshold.ts).
      if (!q || (q.quality >= minJpegQuality && q.quality >= infoJpegQuality)) continue;
      const warn = q.quality < minJpegQuality;
      const p = printed(image, scale);
      const blockMm = p.ppi ? finite((8 / p.ppi) * 25.4) : null;
      const about = q.exact ? '' : 'about ';
      out.push({
        code: 'image-jpeg-quality',
        page: page.index,
        layer: layer?.id ?? null,
        ...(warn ? {} : { severity: 'info' as const }),
        message: `${pageLabel(page, layer)}: ${imageLabel(image)} is a JPEG of quality ${about}${q.quality} (${q.exact ? `read from its quantisation tables, which are exactly ${q.tables === 'mozjpeg' ? 'mozjpeg’s' : 'libjpeg’s'} at that setting` : 'estimated from its quantisation tables: its encoder’s own tables, compared with libjpeg’s'}), printed at ${formatMm(p.wMm, p.hMm)}${p.ppi ? ` (${formatPpi(p.ppi)})` : ''}${blockMm ? `: its 8-pixel compression blocks print ${formatNumber(blockMm, 1)} mm wide` : ''}. ${warn ? 'Blocking and ringing will show on the product' : 'Compression artefacts may show at this size'}; export it at quality ${Math.max(infoJpegQuality, 85)} or more${warn ? '' : ' if you can'}.`,
        expected: `JPEG quality ≥ ${warn ? minJpegQuality : infoJpegQuality}`,
        actual: `quality ${about}${q.quality}`,
        details: {
          quality: q.quality,
          exact: q.exact,
          printedWidthMm: round(p.wMm, 1),
          printedHeightMm: round(p.hMm, 1),
          printedPpi: p.ppi === null ? null : ppiValue(p.ppi),
          blockMm: blockMm === null ? null : round(blockMm, 2),
          ref: image.ref,
          image: page.images.indexOf(image) + 1,
        },
      });
    }
  }
  return out;
};

/** The detail measurements of a page, by image reference (raster facts, when the page was rendered). */
function detailsOf(ctx: Parameters<Check>[0], page: PageFacts) {
  return ctx.raster?.get(page.index)?.imageDetail ?? [];
}

/** image-upscaled */
export const checkUpscaled: Check = (ctx) => {
  const { minPpi, minUpscaleFactor } = ctx.limits;
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const scale = printScaleOf(page, layer, ctx.limits);
    for (const d of detailsOf(ctx, page)) {
      // Judged on the largest factor the estimate allows (a bin of the scan either side, raster/detail.ts):
      // an enlargement by 1.5 read as 1.49 is one, not a cut exactly at the factor looked for.
      // The smallest enlargement reported is itself reported, within the stated tolerance (threshold.ts).
      // An enlargement is a factor above 1 (a measure of 0 or below is none, and divides by it).
      if (d.factor === null || !(d.factor > 1) || isBelow(d.factorHigh ?? d.factor, minUpscaleFactor, 1)) continue;
      const image = page.images.find((i) => i.ref === d.ref && !i.inline);
      if (!image) continue;
      const p = printed(image, scale);
      if (p.ppi === null) continue;
      const detailPpi = p.ppi / d.factor;
      if (!isBelow(detailPpi, minPpi, 1)) continue;
      // Judged on the largest factor the estimate allows: where the estimate itself shows below the
      // smallest enlargement reported, the message gives the range, never "about 1.4×" against 1.5.
      const high = d.factorHigh ?? d.factor;
      const factorText = isBelow(d.factor, minUpscaleFactor, 1) ? `${formatNumber(d.factor, 1)}–${formatNumber(high, 1)}` : formatNumber(d.factor, 1);
      const nativeW = Math.round(image.widthPx / d.factor);
      const nativeH = Math.round(image.heightPx / d.factor);
      out.push({
        code: 'image-upscaled',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)}: ${imageLabel(image)} was enlarged from a smaller picture${d.nearest ? ' by repeating its pixels (nearest neighbour)' : ''}: placed at ${formatPpi(p.ppi)}, it carries detail of about ${formatPpi(detailPpi)} (upscaled about ${factorText}×, as if from about ${grouped(nativeW)} × ${grouped(nativeH)} px). Its pixel count passes the resolution check, but it prints as ${d.nearest ? 'blocky' : 'soft'} as ${formatPpi(detailPpi)} would. Use the original at a higher resolution, or a real (AI or vector) enlargement.`,
        expected: `detail ≥ ${formatPpi(minPpi)} at the printed size`,
        actual: `about ${formatPpi(detailPpi)} (upscaled about ${factorText}×)`,
        details: {
          factor: round(d.factor, 2),
          factorX: d.factorX === null ? null : round(d.factorX, 2),
          factorY: d.factorY === null ? null : round(d.factorY, 2),
          printedPpi: ppiValue(p.ppi),
          detailPpi: ppiValue(detailPpi),
          evidence: round(d.evidence, 3),
          // How sure the detector is (raster/detail.ts): repeats clear both ways, or strong coherence in a picture that is not flat art.
          confidence: d.confidence ?? 'medium',
          nearestNeighbour: d.nearest ?? false,
          ref: image.ref,
          image: page.images.indexOf(image) + 1,
        },
      });
    }
  }
  return out;
};
