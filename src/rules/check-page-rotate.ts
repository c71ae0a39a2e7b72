import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';

/** page-rotate-set: /Rotate is not 0. */
export const checkPageRotate: Check = (ctx) =>
  pagesWithLayers(ctx)
    .filter(({ page }) => page.rotate !== 0)
    .map(({ page, layer }) => ({
      code: 'page-rotate-set' as const,
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)} has /Rotate ${page.rotate}: viewers show it turned ${page.rotate}° clockwise, but production may ignore /Rotate and print the design ${page.rotate === 180 ? 'upside down' : 'sideways'}. Bake the rotation into the page content (print-preflight fix) or export the page upright. The size checks use the turned page.`,
      expected: '/Rotate 0',
      actual: `/Rotate ${page.rotate}`,
      details: { rotate: page.rotate },
    }));
