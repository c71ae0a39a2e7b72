import type { Check } from './context.js';
import { pageLabel, pagesWithLayers } from './context.js';
import type { Draft } from '../model/finding.js';
import { grouped } from '../util/text.js';

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

/**
 * font-unusable: a font on the page cannot be drawn — its program cannot be parsed, or glyphs the
 * page needs fail to decode — judged from the font itself (src/pdf/font/), whichever renderer draws
 * the preview. Warnings of a renderer's hinting interpreter are not failures: hinting changes how a
 * glyph is fitted to pixels, not whether it prints.
 */
export const checkFontsReadable: Check = (ctx) => {
  const out: Draft[] = [];
  for (const { page, layer } of pagesWithLayers(ctx)) {
    const broken = page.fonts.flatMap((f) => {
      const p = f.program;
      if (!p) return [];
      const label = `${f.baseFont ?? f.name}${f.subtype ? ` (${f.subtype})` : ''}`;
      if (p.problem) return [`${label}: ${p.problem}`];
      if (p.failedGlyphs > 0) {
        const of = p.format === 'Type3' ? `${p.failedGlyphs} glyph${p.failedGlyphs === 1 ? '' : 's'} the page shows` : `${p.failedGlyphs} of its ${grouped(p.glyphs)} glyphs`;
        return [`${label}: ${of} cannot be drawn (${p.firstFailure})`];
      }
      return [];
    });
    if (!broken.length) continue;
    out.push({
      code: 'font-unusable',
      page: page.index,
      layer: layer?.id ?? null,
      message: `${pageLabel(page, layer)}: ${broken.length === 1 ? 'a font' : `${broken.length} fonts`} on the page cannot be drawn — ${broken.slice(0, 3).join('; ')}${broken.length > 3 ? '; …' : ''}. Its text prints with a substitute font or with glyphs missing. Embed a sound copy of the font, or convert the text to outlines.`,
      expected: 'embedded fonts that can be drawn',
      actual: broken.join('; '),
    });
  }
  return out;
};
