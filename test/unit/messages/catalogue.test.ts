import { readdirSync, readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { changeText, customerMessage, designsByPage, loadCatalogue, localNoun, nounValues, uiFormatter, withCustomerMessages, type NamedTarget } from '../../../src/messages/catalogue.js';
import { GENDERS } from '../../../src/model/genders.js';
import { LOCALES, MESSAGE_LOCALES } from '../../../src/model/locales.js';
import { UI_KEYS } from '../../../src/messages/ui.js';
import { ProfileSchema } from '../../../src/profile/schema.js';
import { FINDING_CODES, type FindingCode } from '../../../src/model/codes.js';
import { FIXABLE_CODES } from '../../../src/model/policy.js';

const CODES = Object.keys(FINDING_CODES) as FindingCode[];
const FIELDS = ['title', 'problem', 'production', 'advice'] as const;
/** The values messageValues() always gives (besides the name forms), and the details the codes that name them carry. */
const VALUES = new Set([
  'product',
  'product_gender',
  'layer',
  'layer_gender',
  'page',
  'layers',
  'pages',
  'size',
  'maxSize',
  'ppi',
  'minPpi',
  'neededWidthPx',
  'neededHeightPx',
  'placement',
  'bleedMm',
  'percent',
  'region',
]);
/** Values the pages give the UI strings. */
const UI_VALUES = new Set(['errors', 'warnings', 'product', 'variant', 'date', 'page', 'from', 'width', 'height', 'ppi', 'degrees', 'language', 'shown', 'fill', 'delta', 'level']);
/** Words of the file format's insides, which the customer does not know. */
const PDF_WORDS = /\/Rotate|\bCMYK\b|\bICC\b|MediaBox|TrimBox|BleedBox|CropBox|XObject|\bembedded\b|DeviceN|colou?r space|\bxref\b|\bstreams?\b|DCTDecode|DeviceRGB/i;
/** Every gender a name form meets: the profile's, the whole design (x), a page (p), and a name without one. */
const ALL_GENDERS = [...GENDERS, 'x', 'p', 'other'] as const;

const target: NamedTarget = {
  name: 'T-shirt',
  names: { 'pt-PT': { name: 'T-shirt', gender: 'f' }, es: { name: 'Camiseta', gender: 'f' }, de: { name: 'T-Shirt', gender: 'n' } },
  layers: [
    { id: 'front', name: 'Front', names: { pt: { name: 'Frente', gender: 'f' }, es: { name: 'Parte delantera', gender: 'f' }, de: { name: 'Vorderseite', gender: 'f' } } },
    { id: 'back', name: 'Back', names: { pt: { name: 'Costas', gender: 'fp' }, es: { name: 'Espalda', gender: 'f' }, de: { name: 'Rückseite', gender: 'f' } } },
    { id: 'left-sleeve', name: 'Left sleeve', names: { de: { name: 'Ärmel links', gender: 'm' } } },
  ],
};
const details = {
  ppi: 96.4,
  minPpi: 150,
  neededWidthPx: 2362,
  neededHeightPx: 3150,
  bytes: 61_234_567,
  maxBytes: 50_000_000,
  pages: 3,
  layers: 2,
  order: '3,1,2',
  bleedMm: 10,
  percent: 9.2,
  region: 'topLeft',
};

function argumentsOf(ast: unknown[], out = new Set<string>()): Set<string> {
  for (const el of ast as { type: number; value?: string; options?: Record<string, { value: unknown[] }> }[]) {
    if (typeof el.value === 'string' && el.type !== 0 && el.type !== 7) out.add(el.value);
    for (const option of Object.values(el.options ?? {})) argumentsOf(option.value, out);
  }
  return out;
}

describe('customer message catalogue', () => {
  it('has a catalogue for every locale, pt being pt-PT', async () => {
    expect([...MESSAGE_LOCALES].sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'pt-BR', 'pt-PT']);
    expect((await loadCatalogue('pt')).catalogue).toBe((await loadCatalogue('pt-PT')).catalogue);
    expect((await loadCatalogue('pt-BR')).catalogue).not.toBe((await loadCatalogue('pt-PT')).catalogue);
  });

  for (const locale of MESSAGE_LOCALES) {
    it(`${locale}: every code has every field, each parses, names only known values, and no PDF words`, async () => {
      const { catalogue } = await loadCatalogue(locale);
      const forms = new Set([...VALUES]);
      for (const prefix of ['layer', 'product'] as const) {
        for (const form of Object.keys(catalogue.grammar[prefix])) forms.add(`${prefix}_${form}`).add(`${prefix}_${form[0]!.toUpperCase()}${form.slice(1)}`);
      }
      expect(Object.keys(catalogue.codes).sort()).toEqual([...CODES].sort());
      for (const code of CODES) {
        const entry = catalogue.codes[code] as unknown as Record<string, string | undefined>;
        const fields = FIXABLE_CODES.includes(code as never) ? [...FIELDS, 'fixed'] : FIELDS;
        for (const field of fields) {
          const message = entry[field];
          expect(message, `${locale} ${code}.${field}`).toMatch(/\S/);
          for (const name of argumentsOf(new IntlMessageFormat(message!, locale).getAst())) expect(forms.has(name), `${locale} ${code}.${field} names {${name}}`).toBe(true);
          expect(message, `${locale} ${code}.${field}`).not.toMatch(PDF_WORDS);
        }
      }
    });

    it(`${locale}: every page word is there and formats`, async () => {
      const { catalogue } = await loadCatalogue(locale);
      expect(Object.keys(catalogue.ui).sort()).toEqual([...UI_KEYS].sort());
      const forms = new Set([
        ...UI_VALUES,
        ...Object.keys(catalogue.grammar.layer).flatMap((f) => [`layer_${f}`, `layer_${f[0]!.toUpperCase()}${f.slice(1)}`]),
        ...Object.keys(catalogue.grammar.product).flatMap((f) => [`product_${f}`, `product_${f[0]!.toUpperCase()}${f.slice(1)}`]),
      ]);
      const t = await uiFormatter(locale);
      const values = {
        errors: 2,
        warnings: 1,
        product: 'X',
        variant: 'M',
        date: new Date(Date.UTC(2026, 4, 5, 9, 30)),
        page: 3,
        from: 1,
        width: '10',
        height: '20',
        ppi: '300',
        degrees: 90,
        language: 'nl',
        shown: 'en',
        fill: 'tile',
        delta: '1.8',
        level: 'slight',
        ...nounValues('layer', { name: 'Front', gender: 'f' }, t.loaded),
        ...nounValues('product', { name: 'T-shirt', gender: 'f' }, t.loaded),
      };
      for (const key of UI_KEYS) {
        const message = catalogue.ui[key];
        expect(message, `${locale} ui.${key}`).toMatch(/\S/);
        for (const name of argumentsOf(new IntlMessageFormat(message, locale).getAst())) expect(forms.has(name), `${locale} ui.${key} names {${name}}`).toBe(true);
        expect(t(key, values), `${locale} ui.${key}`).not.toMatch(/[{}]/);
      }
      // Dates and numbers by Intl, in the locale's own forms.
      expect(t('checkedOn', values)).toContain(new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(values.date));
    });

    it(`${locale}: every code formats for a part of every gender, a page, the whole file and a misplaced design`, async () => {
      const loaded = await loadCatalogue(locale);
      for (const gender of ALL_GENDERS) {
        const forms = nounValues('layer', { name: 'Front', gender }, loaded);
        for (const [k, v] of Object.entries(forms)) expect(v, `${locale} ${gender} ${k}`).not.toMatch(/[{}]/);
      }
      for (const code of CODES) {
        for (const where of [
          { page: 2, layer: 'back' },
          { page: 3, layer: null },
          { page: null, layer: null },
          { page: 3, layer: 'left-sleeve' },
        ] as const) {
          const technical = `technical message of ${code}`;
          const m = await customerMessage({ code, ...where, details, message: technical }, target, locale, {}, { designs: new Map([[3, 'front']]) });
          for (const field of FIELDS) {
            expect(m[field], `${locale} ${code}.${field}`).not.toBe(technical);
            expect(m[field]).not.toMatch(/[{}]/);
          }
          if (FIXABLE_CODES.includes(code as never)) expect(m.fixed).toMatch(/\S/);
        }
      }
    });
  }

  it('says where a moved design belongs in each language grammar (German: not "gehört auf der"; Spanish: no "a el")', async () => {
    const moved = async (locale: 'de' | 'es' | 'en' | 'fr' | 'it' | 'pt' | 'pt-BR', noun: { name: string; gender: 'f' | 'm' }) => {
      const t = await uiFormatter(locale);
      return t('moved', { from: 3, ...nounValues('layer', noun, t.loaded) });
    };
    expect(await moved('de', { name: 'Vorderseite', gender: 'f' })).toBe('Dieses Design war auf Seite 3 Ihrer Datei. Es ist das Design für die Vorderseite, deshalb haben wir es dorthin gesetzt.');
    expect(await moved('de', { name: 'Ärmel links', gender: 'm' })).toContain('Es ist das Design für den Ärmel links,');
    expect(await moved('es', { name: 'delantero', gender: 'm' })).toContain('Va en el delantero,');
    for (const locale of ['de', 'es', 'en', 'fr', 'it', 'pt', 'pt-BR'] as const) {
      for (const gender of ['f', 'm'] as const) {
        const text = await moved(locale, { name: 'X', gender });
        expect(text, `${locale} ${gender}`).not.toMatch(/gehört auf der|gehört auf dem|\ba el\b|\bde el\b|\bà le\b|\bde le\b|\bem o\b|\bem a\b|\ba o\b|\bdi il\b|\bsu il\b/);
      }
    }
  });

  it('names parts and products with their articles and agreement, numbers in the locale', async () => {
    const es = await customerMessage({ code: 'image-low-resolution', page: 1, layer: 'front', details, message: 'x' }, target, 'es');
    expect(es.title).toBe('Una imagen en la parte delantera se verá borrosa');
    expect(es.problem).toContain('96,4 ppi');
    expect(es.advice).toContain('2362 × 3150');
    expect((await customerMessage({ code: 'page-blank', page: 2, layer: 'back', message: 'x' }, target, 'es')).title).toBe('La espalda está vacía');
    expect((await customerMessage({ code: 'page-blank', page: 2, layer: 'back', message: 'x' }, target, 'pt')).title).toBe('As costas estão vazias');
    const pt = await customerMessage({ code: 'file-too-large', page: null, layer: null, details, message: 'x' }, target, 'pt');
    expect(pt.problem).toBe('O ficheiro tem 61,2 MB; o limite é 50 MB.');
    const en = await customerMessage({ code: 'page-count-mismatch', page: null, layer: null, details: { pages: 1, layers: 2 }, message: 'x' }, target, 'en');
    expect(en.problem).toBe('2 parts are printed on your T-shirt, and your file has 1 page.');
    expect((await customerMessage({ code: 'page-blank', page: 3, layer: null, message: 'x' }, target, 'pt')).title).toBe('A página 3 está vazia');
    expect((await customerMessage({ code: 'colour-space-not-rgb', page: 3, layer: 'left-sleeve', message: 'x' }, target, 'de')).title).toBe('Die Farben auf dem Ärmel links werden umgewandelt');
    expect((await customerMessage({ code: 'file-too-large', page: null, layer: null, details, message: 'x' }, target, 'fr')).problem).toBe(
      'Le fichier pèse 61,2\u202fMo\u202f; la limite est de 50\u202fMo.',
    );
  });

  it('a name of unknown gender stays a label without an article; English lower-cases it in a sentence', async () => {
    const bare: NamedTarget = { name: 'Mug', layers: [{ id: 'side', name: 'Side', names: { es: 'Lateral' } }] };
    expect((await customerMessage({ code: 'page-blank', page: 1, layer: 'side', message: 'x' }, bare, 'es')).production).toBe('Lateral se imprimirá sin diseño.');
    expect((await customerMessage({ code: 'page-blank', page: 1, layer: 'side', message: 'x' }, bare, 'en')).title).toBe('The side is empty');
  });

  it("a design in another part's position is named by what it is, and the page order says where each is", async () => {
    const findings = await withCustomerMessages(
      [
        { code: 'page-order-mismatch' as const, page: null, layer: null, message: 'm', details: { order: '3,1,2' } },
        { code: 'page-rotate-set' as const, page: 3, layer: 'left-sleeve', message: 'm' },
      ],
      target,
      'en',
    );
    expect(findings[0]!.customer.problem).toBe('Going by their sizes, your designs belong in another order: the front on page 3, the back on page 1, and the left sleeve on page 2.');
    expect(findings[1]!.customer.title).toBe('The design for the front (page 3 of your file) is turned');
    expect(designsByPage(findings, ['front', 'back', 'left-sleeve'])).toEqual(
      new Map([
        [3, 'front'],
        [1, 'back'],
        [2, 'left-sleeve'],
      ]),
    );
  });

  it('a change is named by the part of the fixed page it was made on, never "page 1"', async () => {
    const before = {
      findings: [
        { code: 'page-order-mismatch' as const, page: null, layer: null, details: { order: '3,1,2' } as Record<string, string> },
        { code: 'colour-space-not-rgb' as const, page: 3, layer: 'left-sleeve', details: {} as Record<string, string> },
      ],
    };
    const after = {
      pages: [
        { index: 1, layer: 'front' },
        { index: 2, layer: 'back' },
        { index: 3, layer: 'left-sleeve' },
      ],
    };
    const text = await changeText({ code: 'colour-space-not-rgb', page: 1, action: 'rewrote 1 vector colour operator as sRGB' }, { before, after }, target, 'pt-BR');
    expect(text).toBe('Convertemos as cores da frente para as cores usadas na produção. Confira na imagem se elas estão boas.');
  });

  it('falls back to the technical message when a value is missing, never throws', async () => {
    const m = await customerMessage({ code: 'image-low-resolution', page: 1, layer: 'front', message: 'technical' }, target, 'en');
    expect(m.problem).toBe('technical');
    expect(m.title).toBe('A picture on the front will look blurry');
  });

  it('adds customer messages to findings, keeping the rest', async () => {
    const findings = await withCustomerMessages([{ code: 'page-blank' as const, page: 2, layer: 'back', message: 'm', severity: 'warning' as const }], target, 'en');
    expect(findings[0]).toMatchObject({ code: 'page-blank', severity: 'warning', customer: { title: 'The back is empty' } });
  });
});

describe('shipped profiles: names in every language', () => {
  const files = readdirSync('profiles').filter((f) => f.endsWith('.json'));
  it('there are the 8 products', () => expect(files).toHaveLength(8));
  for (const file of files) {
    it(`${file}: the product and every layer have a name and gender in each language, a panel shape, and read in sentences`, async () => {
      const profile = ProfileSchema.parse(JSON.parse(readFileSync(`profiles/${file}`, 'utf8')));
      for (const locale of MESSAGE_LOCALES.filter((l) => l !== 'en')) {
        for (const [what, names] of [['product', profile.names], ...profile.layers.map((l) => [l.id, l.names] as const)] as const) {
          const n = names?.[locale];
          expect(n, `${file} ${what} ${locale}`).toMatchObject({ name: expect.stringMatching(/\S/), gender: expect.stringMatching(/^(m|f|n|mp|fp|np)$/) });
        }
      }
      for (const layer of profile.layers) {
        expect(layer.shape, `${file} ${layer.id}`).toBeDefined();
        expect(typeof layer.names?.en === 'string' || typeof layer.names?.en === 'object', `${file} ${layer.id} en`).toBe(true);
      }
      for (const locale of LOCALES) {
        const loaded = await loadCatalogue(locale);
        const layer = profile.layers[0]!;
        const m = await customerMessage({ code: 'colour-space-not-rgb', page: 1, layer: layer.id, message: 'x' }, profile, locale);
        const name = localNoun(layer.names, layer.name ?? layer.id, locale).name;
        expect(m.title.toLocaleLowerCase(loaded.locale), `${file} ${locale}`).toContain(name.toLocaleLowerCase(loaded.locale));
        expect(m.title).not.toMatch(/[{}]/);
      }
    });
  }
});
