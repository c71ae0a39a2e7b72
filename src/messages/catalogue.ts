/**
 * The customer message catalogue: every finding code told to the end customer — title, problem,
 * what happens in production, what to do, and for a code print-preflight fixes, what the fix did —
 * and the words of the customer's pages, in English, European and Brazilian Portuguese, Spanish,
 * French, German and Italian, as ICU MessageFormat strings formatted by intl-messageformat.
 *
 * Part and product names are nouns with a grammatical gender: each locale says how its sentences
 * take them (with their article, after a preposition: `{layer_the}`, `{layer_on}`…), so a Spanish
 * sentence reads "el diseño de la espalda" and a German one "auf dem Ärmel links", never "the
 * design for Back" in another language. A locale's strings and the formatter are loaded on first
 * use (`import()`), so a check that asks for no customer messages loads neither.
 */
import { isOwnChangeCode, type ChangeCode } from '../model/codes.js';
import type { PageDifference } from '../model/difference.js';
import type { Finding, CustomerMessage } from '../model/finding.js';
import { languageName, messageLocale, type Locale, type MessageLocale, type NegotiatedLocale } from '../model/locales.js';
import type { Gender } from '../model/genders.js';
import type { Catalogue, Entry } from './language.js';
import type { UiKey } from './ui.js';

export type { Catalogue, Entry, Grammar } from './language.js';
export { GENDERS, type Gender } from '../model/genders.js';

/** A name in a locale: the text, or the text and its grammatical gender. */
export type LocalName = string | { name: string; gender: Gender };

/** Names of the product and its layers, by locale (a profile's `name`/`names`, a layer's `id`/`name`/`names`). */
export interface NamedTarget {
  name: string;
  names?: Partial<Record<Locale, LocalName>> | undefined;
  layers: readonly { id: string; name?: string | undefined; names?: Partial<Record<Locale, LocalName>> | undefined }[];
}

/** A noun as a sentence takes it. */
export interface Noun {
  name: string;
  gender: Gender | 'x' | 'p' | 'other';
}

export type Formatter = (message: string, values: Record<string, string | number | Date>) => string;

export interface LoadedCatalogue {
  locale: MessageLocale;
  catalogue: Catalogue;
  format: Formatter;
}

const loaded = new Map<MessageLocale, Promise<LoadedCatalogue>>();

/**
 * Loads a locale's catalogue and the formatter (once per process).
 * @example
 * const { catalogue } = await loadCatalogue('pt');
 * catalogue.codes['page-blank'].title;
 */
export function loadCatalogue(locale: Locale): Promise<LoadedCatalogue> {
  const l = messageLocale(locale);
  let hit = loaded.get(l);
  if (!hit) {
    hit = (async () => {
      const [{ IntlMessageFormat }, catalogue] = await Promise.all([import('intl-messageformat'), importLocale(l)]);
      const compiled = new Map<string, InstanceType<typeof IntlMessageFormat>>();
      const format: Formatter = (message, values) => {
        let mf = compiled.get(message);
        if (!mf) compiled.set(message, (mf = new IntlMessageFormat(message, l)));
        return String(mf.format(values));
      };
      return { locale: l, catalogue, format };
    })();
    loaded.set(l, hit);
  }
  return hit;
}

async function importLocale(locale: MessageLocale): Promise<Catalogue> {
  switch (locale) {
    case 'pt-PT':
      return (await import('./pt.js')).pt;
    case 'pt-BR':
      return (await import('./pt-BR.js')).ptBR;
    case 'es':
      return (await import('./es.js')).es;
    case 'fr':
      return (await import('./fr.js')).fr;
    case 'de':
      return (await import('./de.js')).de;
    case 'it':
      return (await import('./it.js')).it;
    default:
      return (await import('./en.js')).en;
  }
}

/**
 * A name in a locale, with its gender when the profile gives it: the locale's own name; for
 * Portuguese the other variant's before English (`pt` is `pt-PT`); else the English name.
 * @example
 * localNoun({ es: { name: 'Espalda', gender: 'f' } }, 'Back', 'es'); // { name: 'Espalda', gender: 'f' }
 */
export function localNoun(names: Partial<Record<Locale, LocalName>> | undefined, english: string, locale: Locale): Noun {
  const l = messageLocale(locale);
  const order: Locale[] = l === 'pt-PT' ? ['pt-PT', 'pt', 'pt-BR'] : l === 'pt-BR' ? ['pt-BR', 'pt-PT', 'pt'] : [l];
  for (const key of order) {
    const n = names?.[key];
    if (typeof n === 'string') return { name: n, gender: 'other' };
    if (n) return { name: n.name, gender: n.gender };
  }
  return { name: english, gender: 'other' };
}

/** The product's name in a locale. */
export function productName(target: NamedTarget, locale: Locale): string {
  return localNoun(target.names, target.name, locale).name;
}

/** A layer's name in a locale (its id when it has no name). */
export function layerName(target: NamedTarget, id: string, locale: Locale): string {
  const layer = target.layers.find((l) => l.id === id);
  return layer ? localNoun(layer.names, layer.name ?? layer.id, locale).name : id;
}

function layerNoun(target: NamedTarget, id: string, locale: Locale): Noun {
  const layer = target.layers.find((l) => l.id === id);
  return layer ? localNoun(layer.names, layer.name ?? layer.id, locale) : { name: id, gender: 'other' };
}

const lowerFirst = (s: string) => (/^\p{Lu}\p{Ll}/u.test(s) ? s[0]!.toLocaleLowerCase() + s.slice(1) : s);
const upperFirst = (s: string) => (s ? s[0]!.toLocaleUpperCase() + s.slice(1) : s);

/**
 * The values a noun gives a message: `<prefix>` (the name as a label), `<prefix>_gender`, and each
 * form of the locale's grammar, plain and capitalised.
 */
export function nounValues(prefix: 'layer' | 'product', noun: Noun, loaded: LoadedCatalogue): Record<string, string> {
  const { grammar } = loaded.catalogue;
  // A name of unknown gender stays as written (a label, without an article): "en Delantera", not "en el delantera".
  const inText = grammar.lowerInText && !(grammar.genderedArticles && noun.gender === 'other') ? lowerFirst(noun.name) : noun.name;
  const out: Record<string, string> = { [prefix]: noun.name, [`${prefix}_gender`]: noun.gender };
  for (const [form, template] of Object.entries(grammar[prefix])) {
    const value = loaded.format(template, { name: inText, gender: noun.gender });
    out[`${prefix}_${form}`] = value;
    out[`${prefix}_${upperFirst(form)}`] = upperFirst(value);
  }
  return out;
}

/**
 * Where the designs of a file in the wrong page order belong: page number → the layer whose design
 * it is, from the report's page-order-mismatch finding (`details.order`: the pages in layer order).
 * Empty when the pages are in order.
 */
export function designsByPage(findings: readonly Pick<Finding, 'code' | 'details'>[], layerIds: readonly string[]): Map<number, string> {
  const order = findings.find((f) => f.code === 'page-order-mismatch')?.details?.order;
  const out = new Map<number, string>();
  if (typeof order !== 'string') return out;
  order.split(',').forEach((p, i) => {
    const page = Number(p);
    const layer = layerIds[i];
    if (Number.isInteger(page) && page >= 1 && layer) out.set(page, layer);
  });
  return out;
}

/** What a report tells each message beyond the finding: where the designs of a wrong-order file belong. */
export interface MessageContext {
  designs?: ReadonlyMap<number, string>;
}

/** The noun a finding is about: its layer, the design that is really on its page, a page, or the whole design. */
export function findingNoun(finding: Pick<Finding, 'page' | 'layer'>, target: NamedTarget, loaded: LoadedCatalogue, context: MessageContext = {}): Noun {
  const { catalogue, format, locale } = loaded;
  const design = finding.page !== null ? context.designs?.get(finding.page) : undefined;
  if (design && design !== finding.layer) {
    // A design in another part's position is named by what it is: "the front (page 3 of your file)".
    const noun = layerNoun(target, design, locale);
    return { name: format(catalogue.placed, { name: noun.name, page: finding.page! }), gender: noun.gender };
  }
  if (finding.layer !== null) return layerNoun(target, finding.layer, locale);
  if (finding.page !== null) return { name: format(catalogue.grammar.pageName, { page: finding.page }), gender: 'p' };
  return { name: catalogue.grammar.designName, gender: 'x' };
}

/** Megabytes in a locale's words and digits ("61,2 Mo" in French). */
export const formatMegabytes = (bytes: number, locale: Locale): string =>
  new Intl.NumberFormat(messageLocale(locale), { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(bytes / 1_000_000);

/** The values a finding's messages are filled with. */
export function messageValues(
  finding: Pick<Finding, 'page' | 'layer' | 'details'> & { code: ChangeCode },
  target: NamedTarget,
  loaded: LoadedCatalogue,
  context: MessageContext = {},
): Record<string, string | number> {
  const { locale, catalogue, format } = loaded;
  const values: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(finding.details ?? {})) if (typeof v === 'number' || typeof v === 'string') values[k] = v;
  Object.assign(values, nounValues('product', localNoun(target.names, target.name, locale), loaded));
  Object.assign(values, nounValues('layer', findingNoun(finding, target, loaded, context), loaded));
  values.page = finding.page ?? 0;
  values.layers = typeof values.layers === 'number' ? values.layers : target.layers.length;
  if (typeof values.bytes === 'number') values.size = formatMegabytes(values.bytes, locale);
  if (typeof values.maxBytes === 'number') values.maxSize = formatMegabytes(values.maxBytes, locale);
  if (finding.code === 'page-order-mismatch') {
    const designs = designsByPage(
      [{ code: 'page-order-mismatch', details: finding.details }],
      target.layers.map((l) => l.id),
    );
    const items = [...designs].sort(([, a], [, b]) => target.layers.findIndex((l) => l.id === a) - target.layers.findIndex((l) => l.id === b));
    values.placement = new Intl.ListFormat(locale, { type: 'conjunction' }).format(
      items.map(([page, layer]) => format(catalogue.placedItem, { ...nounValues('layer', layerNoun(target, layer, locale), loaded), page })),
    );
  }
  return values;
}

/**
 * A finding in the customer's words, in a locale. A message whose values the finding lacks falls
 * back to the finding's technical message for that part, never an exception.
 * @example
 * const m = await customerMessage(finding, profile, 'es');
 * m.title; // 'El diseño de la parte delantera está de lado'
 */
export async function customerMessage(
  finding: Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>,
  target: NamedTarget,
  locale: Locale,
  extra: Record<string, string | number> = {},
  context: MessageContext = {},
): Promise<CustomerMessage> {
  return render(finding, target, await loadCatalogue(locale), extra, context);
}

function render(
  finding: Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>,
  target: NamedTarget,
  loaded: LoadedCatalogue,
  extra: Record<string, string | number>,
  context: MessageContext,
): CustomerMessage {
  const entry: Entry = loaded.catalogue.codes[finding.code];
  const values = { ...messageValues(finding, target, loaded, context), ...extra };
  const safe = (message: string) => {
    try {
      return loaded.format(message, values);
    } catch {
      return finding.message;
    }
  };
  return {
    title: safe(entry.title),
    problem: safe(entry.problem),
    production: safe(entry.production),
    advice: safe(entry.advice),
    ...(entry.fixed ? { fixed: safe(entry.fixed) } : {}),
  };
}

/**
 * The findings with their `customer` messages in a locale. The findings of a file whose pages are
 * in the wrong order name each design by the part it belongs to ("the front (page 3 of your file)").
 * @example
 * const findings = await withCustomerMessages(report.findings, profile, 'pt');
 */
export async function withCustomerMessages<F extends Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>>(
  findings: readonly F[],
  target: NamedTarget,
  locale: Locale,
): Promise<(F & { customer: CustomerMessage })[]> {
  if (!findings.length) return [];
  const loaded = await loadCatalogue(locale);
  const context: MessageContext = {
    designs: designsByPage(
      findings,
      target.layers.map((l) => l.id),
    ),
  };
  return findings.map((f) => ({ ...f, customer: render(f, target, loaded, {}, context) }));
}

/**
 * The report with its `locale` set and every finding's `customer` message filled in.
 * @example
 * const pt = await localizeReport(report, profile, 'pt');
 * pt.findings[0]?.customer?.advice;
 */
export async function localizeReport<R extends { findings: Finding[]; locale?: Locale | undefined }>(report: R, target: NamedTarget, locale: Locale): Promise<R> {
  const { locale: _old, findings, ...rest } = report;
  return { ...rest, locale, findings: await withCustomerMessages(findings, target, locale) } as unknown as R;
}

/**
 * A fix's change in the customer's words: the change's page is a page of the FIXED file, in layer
 * order, so its layer is that page's; the finding behind it is the original's on the page that
 * became it (`fromPage`).
 * @example
 * const text = await changeText(change, { before, after }, profile, 'pt-BR', { size: '1,2 MB' });
 */
export async function changeText(
  change: { code: ChangeCode; page: number | null; action: string; difference?: PageDifference | undefined },
  reports: { before: { findings: readonly Pick<Finding, 'code' | 'page' | 'details' | 'layer'>[] }; after: { pages: readonly { index: number; layer: string | null }[] } },
  target: NamedTarget,
  locale: Locale,
  extra: Record<string, string | number> = {},
): Promise<string> {
  const layer = change.page === null ? null : (reports.after.pages.find((p) => p.index === change.page)?.layer ?? null);
  if (isOwnChangeCode(change.code)) {
    // A change of its own answers no finding: its words are the catalogue's `changes`.
    const loaded = await loadCatalogue(locale);
    const values = { ...messageValues({ code: change.code, page: change.page, layer, details: undefined }, target, loaded), ...extra };
    try {
      return loaded.format(loaded.catalogue.changes[change.code], values);
    } catch {
      return change.action;
    }
  }
  const code = change.code;
  const designs = designsByPage(
    reports.before.findings,
    target.layers.map((l) => l.id),
  );
  const fromPage = change.page === null ? null : ([...designs].find(([, l]) => l === layer)?.[0] ?? change.page);
  const finding = reports.before.findings.find((f) => f.code === code && (change.page === null || f.page === fromPage));
  const m = await customerMessage({ code, page: change.page, layer, details: finding?.details, message: change.action }, target, locale, extra);
  const text = m.fixed ?? m.problem;
  // A colour change says what it measured (model/difference.ts): the ΔE00 most of the page stays within, in words.
  const d = change.difference;
  if (!d || change.code !== 'colour-space-not-rgb') return text;
  const loaded = await loadCatalogue(locale);
  const level = d.p95DeltaE00 <= 1 ? 'invisible' : d.p95DeltaE00 <= 2.5 ? 'slight' : 'other';
  const delta = new Intl.NumberFormat(loaded.locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(d.p95DeltaE00);
  return `${text} ${loaded.format(loaded.catalogue.ui.measuredColour, { delta, level })}`;
}

/**
 * A page's words: a UI message in the locale, its values filled in (dates and numbers by `Intl`).
 * @example
 * const t = await uiFormatter('de');
 * t('approve'); // 'Änderungen freigeben'
 */
export async function uiFormatter(locale: Locale): Promise<UiFormatter> {
  const loaded = await loadCatalogue(locale);
  const t = ((key: UiKey, values: Record<string, string | number | Date> = {}) => loaded.format(loaded.catalogue.ui[key], values)) as UiFormatter;
  t.loaded = loaded;
  t.locale = loaded.locale;
  return t;
}

export interface UiFormatter {
  (key: UiKey, values?: Record<string, string | number | Date>): string;
  loaded: LoadedCatalogue;
  locale: MessageLocale;
}

/**
 * What a page says when the reader asked for a language it is not in ("This page is not available
 * in Dutch. It is shown in English."), in the page's language; null when it is in the language asked.
 * @example
 * await localeNotice(negotiateLocale({ query: 'nl' })); // 'This page is not available in Dutch. It is shown in English.'
 */
export async function localeNotice(negotiated: NegotiatedLocale): Promise<string | null> {
  if (negotiated.unavailable === null) return null;
  const t = await uiFormatter(negotiated.locale);
  return t('fallback', { language: languageName(negotiated.unavailable, negotiated.locale), shown: languageName(negotiated.locale, negotiated.locale) });
}
