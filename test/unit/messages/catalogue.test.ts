import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { customerMessage, loadCatalogue, withCustomerMessages, type NamedTarget } from '../../../src/messages/catalogue.js';
import { LOCALES } from '../../../src/messages/locales.js';
import { FINDING_CODES, type FindingCode } from '../../../src/rules/codes.js';
import { FIXABLE_CODES } from '../../../src/rules/policy.js';

const CODES = Object.keys(FINDING_CODES) as FindingCode[];
const FIELDS = ['title', 'problem', 'production', 'advice'] as const;
/** The values messageValues() always gives, and the details the codes that name them carry. */
const ARGUMENTS = new Set(['product', 'layer', 'page', 'layers', 'pages', 'size', 'maxSize', 'ppi', 'minPpi', 'neededWidthPx', 'neededHeightPx']);
/** Words of the file format's insides, which the customer does not know. */
const PDF_WORDS = /\/Rotate|\bCMYK\b|\bICC\b|MediaBox|TrimBox|BleedBox|CropBox|XObject|\bembedded\b|DeviceN|colou?r space|\bxref\b|\bstreams?\b/i;

const target: NamedTarget = {
  name: 'T-shirt',
  names: { pt: 'T-shirt', es: 'Camiseta' },
  layers: [
    { id: 'front', name: 'Front', names: { pt: 'Frente', es: 'Delantera' } },
    { id: 'back', name: 'Back', names: { pt: 'Costas', es: 'Espalda' } },
  ],
};
const details = { ppi: 96.4, minPpi: 150, neededWidthPx: 2362, neededHeightPx: 3150, bytes: 61_234_567, maxBytes: 50_000_000, pages: 3, layers: 2 };

function argumentsOf(ast: unknown[], out = new Set<string>()): Set<string> {
  for (const el of ast as { type: number; value?: string; options?: Record<string, { value: unknown[] }> }[]) {
    if (typeof el.value === 'string' && el.type !== 0 && el.type !== 7) out.add(el.value);
    for (const option of Object.values(el.options ?? {})) argumentsOf(option.value, out);
  }
  return out;
}

describe('customer message catalogue', () => {
  for (const locale of LOCALES) {
    it(`${locale}: every code has every field, and each parses and names only known values`, async () => {
      const { catalogue } = await loadCatalogue(locale);
      expect(Object.keys(catalogue.codes).sort()).toEqual([...CODES].sort());
      for (const code of CODES) {
        const entry = catalogue.codes[code] as unknown as Record<string, string | undefined>;
        const fields = FIXABLE_CODES.includes(code as never) ? [...FIELDS, 'fixed'] : FIELDS;
        for (const field of fields) {
          const message = entry[field];
          expect(message, `${locale} ${code}.${field}`).toMatch(/\S/);
          const names = argumentsOf(new IntlMessageFormat(message!, locale).getAst());
          for (const name of names) expect(ARGUMENTS.has(name), `${locale} ${code}.${field} names {${name}}`).toBe(true);
          expect(message, `${locale} ${code}.${field}`).not.toMatch(PDF_WORDS);
        }
      }
    });

    it(`${locale}: every code formats with its values filled in, on a layer and on the whole file`, async () => {
      for (const code of CODES) {
        for (const where of [{ page: 2, layer: 'back' }, { page: null, layer: null }] as const) {
          const technical = `technical message of ${code}`;
          const m = await customerMessage({ code, ...where, details, message: technical }, target, locale);
          for (const field of FIELDS) {
            expect(m[field], `${locale} ${code}.${field}`).not.toBe(technical);
            expect(m[field]).not.toMatch(/[{}]/);
          }
          if (FIXABLE_CODES.includes(code as never)) expect(m.fixed).toMatch(/\S/);
        }
      }
    });
  }

  it('fills in the product and layer by their names in the language, numbers in its format', async () => {
    const es = await customerMessage({ code: 'image-low-resolution', page: 1, layer: 'front', details, message: 'x' }, target, 'es');
    expect(es.title).toBe('Una imagen en Delantera se verá borrosa');
    expect(es.problem).toContain('96,4 ppi');
    expect(es.advice).toContain('2362 × 3150');
    const pt = await customerMessage({ code: 'file-too-large', page: null, layer: null, details, message: 'x' }, target, 'pt');
    expect(pt.problem).toBe('O ficheiro tem 61,2 MB; o limite é 50 MB.');
    const en = await customerMessage({ code: 'page-count-mismatch', page: null, layer: null, details: { pages: 1, layers: 2 }, message: 'x' }, target, 'en');
    expect(en.problem).toBe('Your T-shirt has 2 printed sides, and your file has 1 page.');
    const noName = await customerMessage({ code: 'page-blank', page: 3, layer: null, message: 'x' }, target, 'pt');
    expect(noName.title).toBe('página 3 está vazio');
  });

  it('falls back to the technical message when a value is missing, never throws', async () => {
    const m = await customerMessage({ code: 'image-low-resolution', page: 1, layer: 'front', message: 'technical' }, target, 'en');
    expect(m.problem).toBe('technical');
    expect(m.title).toBe('A picture on Front will look blurry');
  });

  it('adds customer messages to findings, keeping the rest', async () => {
    const findings = await withCustomerMessages([{ code: 'page-blank' as const, page: 2, layer: 'back', message: 'm', severity: 'warning' as const }], target, 'en');
    expect(findings[0]).toMatchObject({ code: 'page-blank', severity: 'warning', customer: { title: 'Back is empty' } });
  });
});
