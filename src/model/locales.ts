import { z } from 'zod';

/**
 * The languages of customer messages, reports and the approval page: English, Portuguese (`pt-PT`
 * European, `pt-BR` Brazilian; `pt` alone means `pt-PT`, as it always has), Spanish, French,
 * German and Italian. Kept apart from the catalogue so that naming a locale loads no
 * message-format code.
 * @example
 * import { LOCALES } from 'print-preflight/customer';
 * LOCALES.includes('de'); // true
 */
export const LOCALES = ['en', 'pt', 'pt-PT', 'pt-BR', 'es', 'fr', 'de', 'it'] as const;
/**
 * A locale a check, a report or a page may be in: one of {@link LOCALES}.
 * @example
 * import { LocaleSchema } from 'print-preflight/schemas';
 * LocaleSchema.parse('pt-BR');
 */
export const LocaleSchema = z.enum(LOCALES);
export type Locale = z.infer<typeof LocaleSchema>;

/**
 * The locales messages are written in: every {@link Locale} but the alias `pt`.
 * @example
 * import { MESSAGE_LOCALES, loadCatalogue } from 'print-preflight/customer';
 * for (const locale of MESSAGE_LOCALES) await loadCatalogue(locale);
 */
export const MESSAGE_LOCALES = ['en', 'pt-PT', 'pt-BR', 'es', 'fr', 'de', 'it'] as const;
export type MessageLocale = (typeof MESSAGE_LOCALES)[number];

/**
 * The catalogue a locale reads: `pt` is `pt-PT`.
 * @example
 * messageLocale('pt'); // 'pt-PT'
 */
export function messageLocale(locale: Locale): MessageLocale {
  return locale === 'pt' ? 'pt-PT' : locale;
}

/** Longest language tag looked at (BCP 47 tags in use are far shorter; anything longer is not one). */
const MAX_TAG = 64;

/** A BCP 47 tag in its canonical case (`PT-br` → `pt-BR`), or null when it is not a well-formed tag. */
export function canonicalTag(tag: string): string | null {
  const t = tag.trim().replaceAll('_', '-');
  if (!t || t.length > MAX_TAG) return null;
  try {
    return Intl.getCanonicalLocales(t)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The message locale a BCP 47 tag asks for, by lookup: the tag itself, then its language
 * (`es-MX` → `es`, `de-CH` → `de`, `en-GB` → `en`). Portuguese follows its region: `pt-BR` is
 * Brazilian; `pt`, `pt-PT` and every other region (Angola, Mozambique…) European. Null when the
 * language is not one of ours, or the tag is not well formed.
 * @example
 * matchLocale('pt-br'); // 'pt-BR'
 * matchLocale('fr-CA'); // 'fr'
 * matchLocale('nl');    // null
 */
export function matchLocale(tag: string): MessageLocale | null {
  const canonical = canonicalTag(tag);
  if (!canonical) return null;
  let parsed: Intl.Locale;
  try {
    parsed = new Intl.Locale(canonical);
  } catch {
    return null;
  }
  const language = parsed.language;
  if (language === 'pt') return parsed.region === 'BR' ? 'pt-BR' : 'pt-PT';
  return (MESSAGE_LOCALES as readonly string[]).includes(language) ? (language as MessageLocale) : null;
}

/** The languages of an `Accept-Language` header, most wanted first (q=0 and `*` dropped; at most 32 read). */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  const entries: { tag: string; q: number; n: number }[] = [];
  for (const [n, part] of header.split(',').slice(0, 32).entries()) {
    const [tag = '', ...params] = part.trim().split(';');
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (tag && tag !== '*' && q > 0) entries.push({ tag: tag.trim(), q, n });
  }
  return entries.sort((a, b) => b.q - a.q || a.n - b.n).map((e) => e.tag);
}

/** The outcome of {@link negotiateLocale}. */
export interface NegotiatedLocale {
  /** The language the page is written in. */
  locale: MessageLocale;
  /**
   * What the reader asked for and cannot have (a `?locale=` of another language, or a browser
   * that accepts none of ours), as asked (at most 64 characters): the page says so. Null otherwise.
   */
  unavailable: string | null;
  /** Where the locale came from. */
  from: 'query' | 'check' | 'accept-language' | 'default';
}

/**
 * Chooses the language of a page a customer opens, BCP 47 lookup at each step: an explicit
 * `?locale=` first; then the check's `locale` (what the platform knows of its customer — a bare
 * `pt` becomes Brazilian when the browser prefers `pt-BR`); then the browser's `Accept-Language`;
 * then English. A language asked for that we do not have is never an error: the page comes in the
 * next choice and says what was asked ({@link NegotiatedLocale.unavailable}).
 * @example
 * negotiateLocale({ query: 'de' });                                        // { locale: 'de', from: 'query', unavailable: null }
 * negotiateLocale({ query: 'nl' });                                        // { locale: 'en', from: 'default', unavailable: 'nl' }
 * negotiateLocale({ check: 'pt', acceptLanguage: 'pt-BR,pt;q=0.9' });     // { locale: 'pt-BR', from: 'check', unavailable: null }
 */
export function negotiateLocale(input: { query?: string | undefined; check?: Locale | undefined; acceptLanguage?: string | undefined }): NegotiatedLocale {
  let unavailable: string | null = null;
  const query = input.query?.trim();
  if (query) {
    const m = matchLocale(query);
    if (m) return { locale: m, unavailable: null, from: 'query' };
    unavailable = query.slice(0, MAX_TAG);
  }
  const accepted = acceptedLanguages(input.acceptLanguage);
  if (input.check) {
    let locale = messageLocale(input.check);
    if (input.check === 'pt') {
      const portuguese = accepted.map(matchLocale).find((l) => l === 'pt-BR' || l === 'pt-PT');
      if (portuguese) locale = portuguese;
    }
    return { locale, unavailable, from: 'check' };
  }
  for (const tag of accepted) {
    const m = matchLocale(tag);
    if (m) return { locale: m, unavailable, from: 'accept-language' };
  }
  if (!unavailable && accepted.length) unavailable = accepted[0]!.slice(0, MAX_TAG);
  return { locale: 'en', unavailable, from: 'default' };
}

/**
 * The name of a language asked for, in the language of the page (`nl` on a German page:
 * "Niederländisch"), or the tag as asked when it names no language we can name.
 */
export function languageName(tag: string, inLocale: MessageLocale): string {
  const canonical = canonicalTag(tag);
  if (canonical) {
    try {
      const name = new Intl.DisplayNames([inLocale], { type: 'language', fallback: 'none' }).of(canonical);
      if (name) return name;
    } catch {
      // not a language Intl can name
    }
  }
  return tag.slice(0, MAX_TAG);
}
