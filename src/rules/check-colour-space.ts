import { isRgb } from '../pdf/facts.js';
import type { ColourSpaceFacts } from '../pdf/facts.js';
import { imageLabel } from './check-image-size.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';

/**
 * One rule for gray, whatever names it: vector colour in a gray space (DeviceGray, CalGray, an ICC
 * gray profile) is a neutral that converts to R = G = B, so it is not flagged; gray *images* are
 * (they go through the service's image conversion like any non-RGB image).
 */
const GRAY_FAMILIES = new Set(['DeviceGray', 'CalGray', 'ICCBased']);
const exactForVector = (cs: ColourSpaceFacts) => cs.model === 'gray' && GRAY_FAMILIES.has(cs.family);
/** Unknown spaces (a JPEG 2000 image's own) cannot be judged from the structure. */
const judgeable = (cs: ColourSpaceFacts) => cs.family !== 'Unknown';

const USE_WORDS: Record<string, string> = { fill: 'fills', stroke: 'strokes', shading: 'shadings', stencil: 'stencil masks' };

/** colour-space-not-rgb: images or vector colours that the service will convert to RGB. */
export const checkColourSpace: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const where = pageLabel(page, layer);
    // Images, grouped by colour space so that one page of 40 CMYK tiles is one finding.
    const byImageSpace = new Map<string, { cs: ColourSpaceFacts; labels: string[] }>();
    const seen = new Set<string>();
    for (const image of page.images) {
      const cs = image.colourSpace;
      if (!cs || isRgb(cs) || !judgeable(cs)) continue;
      const id = image.ref ?? `${image.name}-${page.images.indexOf(image)}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const group = byImageSpace.get(cs.label) ?? { cs, labels: [] };
      group.labels.push(imageLabel(image));
      byImageSpace.set(cs.label, group);
    }
    for (const { cs, labels } of byImageSpace.values()) {
      const list = labels.length > 3 ? `${labels.slice(0, 3).join(', ')} and ${labels.length - 3} more` : labels.join(', ');
      out.push({
        code: 'colour-space-not-rgb',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${where}: ${labels.length === 1 ? `${list} is` : `${labels.length} images (${list}) are`} in ${cs.label}; the service converts images to RGB and colours may shift. Convert ${labels.length === 1 ? 'it' : 'them'} to sRGB with colour management before upload (print-preflight fix does this).`,
        expected: 'RGB images',
        actual: `${labels.length} image${labels.length === 1 ? '' : 's'} in ${cs.label}`,
        details: { kind: 'image', colourSpace: cs.label, family: cs.family, images: labels.length },
      });
    }
    // Vector colour: fills, strokes, text, shadings, stencil masks, grouped by colour space.
    const byVectorSpace = new Map<string, { cs: ColourSpaceFacts; uses: Set<string>; count: number }>();
    for (const use of page.colours) {
      const cs = use.colourSpace;
      if (isRgb(cs) || exactForVector(cs) || !judgeable(cs)) continue;
      const group = byVectorSpace.get(cs.label) ?? { cs, uses: new Set<string>(), count: 0 };
      group.uses.add(USE_WORDS[use.use]!);
      group.count += use.count;
      byVectorSpace.set(cs.label, group);
    }
    for (const { cs, uses, count } of byVectorSpace.values()) {
      const what = [...uses].join(' and ');
      const spot = cs.family === 'Separation' || cs.family === 'DeviceN';
      out.push({
        code: 'colour-space-not-rgb',
        page: page.index,
        layer: layer?.id ?? null,
        message: `${where}: vector ${what} use ${cs.label} (${count} painting operation${count === 1 ? '' : 's'}); the service converts them to RGB and colours may shift${spot ? ' — a spot colour is printed from its alternate, not as an ink' : ''}. Define these colours in sRGB in the design, or convert the page (print-preflight fix).`,
        expected: 'RGB vector colours (gray is exact)',
        actual: `${what} in ${cs.label}`,
        details: { kind: 'vector', colourSpace: cs.label, family: cs.family, operations: count },
      });
    }
  }
  return out;
};
