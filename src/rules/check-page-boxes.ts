import type { Rect } from '../model/geometry.js';
import { formatMm, ptToMm } from '../pdf/units.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';

/** page-boxes-differ: TrimBox or BleedBox differ from the checked page box. */
export const checkPageBoxes: Check = (ctx) => {
  const out: Draft[] = [];
  const eps = ctx.limits.boxEpsilonMm;
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const checked = page.checkedBox;
    const size = (r: Rect) => {
      const turned = page.rotate === 90 || page.rotate === 270;
      const w = ptToMm((r[2] - r[0]) * page.userUnit);
      const h = ptToMm((r[3] - r[1]) * page.userUnit);
      return turned ? formatMm(h, w) : formatMm(w, h);
    };
    for (const [name, box] of [
      ['TrimBox', page.boxes.trim],
      ['BleedBox', page.boxes.bleed],
    ] as const) {
      if (!box) continue;
      const differs = box.some((v, i) => Math.abs(ptToMm((v - checked[i]!) * page.userUnit)) > eps);
      if (!differs) continue;
      out.push({
        code: 'page-boxes-differ',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)} has a ${name} of ${size(box)} that differs from the ${size(checked)} page that is checked and printed: the service prints the whole page, so anything outside the ${name} (crop marks, slug, colour bars) is printed too. Remove such marks, or crop the page to the design with its bleed.`,
        expected: `${name} equal to the page box`,
        actual: `${name} ${size(box)}`,
        details: { box: name },
      });
    }
  }
  return out;
};
