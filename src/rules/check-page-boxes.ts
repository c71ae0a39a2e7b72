import type { Rect } from '../model/geometry.js';
import { formatMm, ptToMm, round } from '../pdf/units.js';
import { maxOf } from '../util/array.js';
import { isAbove } from './threshold.js';
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
      if (!Number.isFinite(w) || !Number.isFinite(h)) return 'a size too large to measure';
      return turned ? formatMm(h, w) : formatMm(w, h);
    };
    for (const [name, box] of [
      ['TrimBox', page.boxes.trim],
      ['BleedBox', page.boxes.bleed],
    ] as const) {
      if (!box) continue;
      // The farthest edge from the page's, past boxEpsilonMm within the stated tolerance and as the
      // message writes it (hundredths of a millimetre).
      const offset = maxOf(box.map((v, i) => Math.abs(ptToMm((v - checked[i]!) * page.userUnit))));
      if (!(offset > eps) || (Number.isFinite(offset) && !isAbove(offset, eps, 2))) continue;
      const far = Number.isFinite(offset) ? `up to ${round(offset, 2)} mm` : 'further than can be measured';
      out.push({
        code: 'page-boxes-differ',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${pageLabel(page, layer)} has a ${name} of ${size(box)} that differs from the ${size(checked)} page that is checked and printed (its edges lie ${far} from the page's, more than the ${round(eps, 2)} mm counted as equal): the service prints the whole page, so anything outside the ${name} (crop marks, slug, colour bars) is printed too. Remove such marks, or crop the page to the design with its bleed.`,
        expected: `${name} equal to the page box`,
        actual: `${name} ${size(box)}`,
        details: { box: name },
      });
    }
  }
  return out;
};
