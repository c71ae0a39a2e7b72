import { classifyWarning } from '../raster/pdfjs.js';
import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from './finding.js';


/** font-not-embedded: text set in a font the file does not carry. */
export const checkFontsEmbedded: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const missing = page.fonts.filter((f) => !f.embedded);
    if (!missing.length) continue;
    const names = missing.map((f) => `${f.baseFont ?? f.name}${f.subtype ? ` (${f.subtype})` : ''}`);
    out.push({
      code: 'font-not-embedded',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)}: text uses ${names.length === 1 ? 'a font that is' : `${names.length} fonts that are`} not embedded: ${names.join(', ')}. Production substitutes ${names.length === 1 ? 'it' : 'them'}, so the text may change shape, width or characters. Export with fonts embedded, or convert the text to outlines.`,
      expected: 'embedded fonts',
      actual: `not embedded: ${names.join(', ')}`,
      details: { fonts: names.join(', ') },
    });
  }
  return out;
};

/** font-unusable: an embedded font the renderer could not read (it fell back to a substitute). */
export const checkFontsReadable: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const warnings = ctx.raster?.get(page.index)?.warnings.filter((w) => classifyWarning(w) === 'font') ?? [];
    if (!warnings.length) continue;
    out.push({
      code: 'font-unusable',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)}: a font on the page cannot be read (${warnings.slice(0, 2).join('; ')}), so its text is drawn with a substitute font. Embed a sound copy of the font, or convert the text to outlines.`,
      expected: 'readable fonts',
      actual: warnings.join('; '),
    });
  }
  return out;
};
