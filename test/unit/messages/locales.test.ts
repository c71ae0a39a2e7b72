import { describe, expect, it } from 'vitest';
import { localeNotice } from '../../../src/messages/catalogue.js';
import { acceptedLanguages, languageName, matchLocale, messageLocale, negotiateLocale } from '../../../src/model/locales.js';

describe('BCP 47 matching', () => {
  it.each([
    ['en', 'en'],
    ['en-GB', 'en'],
    ['pt', 'pt-PT'],
    ['pt-PT', 'pt-PT'],
    ['PT-br', 'pt-BR'],
    ['pt_BR', 'pt-BR'],
    ['pt-AO', 'pt-PT'],
    ['es-419', 'es'],
    ['es-MX', 'es'],
    ['fr-CA', 'fr'],
    ['de-CH', 'de'],
    ['de-Latn-AT', 'de'],
    ['it-CH', 'it'],
    ['nl', null],
    ['zh-Hant-TW', null],
    ['', null],
    ['<script>', null],
    ['x'.repeat(100), null],
  ])('%s → %s', (tag, locale) => expect(matchLocale(tag)).toBe(locale));

  it('pt is pt-PT', () => expect(messageLocale('pt')).toBe('pt-PT'));
});

describe('Accept-Language', () => {
  it('most wanted first, q=0 and * dropped, ties in order', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(acceptedLanguages('de;q=0.2, nl, es;q=0')).toEqual(['nl', 'de']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(acceptedLanguages('garbage;;;q=x,')).toEqual(['garbage']);
  });
});

describe("negotiation: ?locale=, the check's locale, Accept-Language, English", () => {
  it('an explicit ?locale= wins', () => {
    expect(negotiateLocale({ query: 'de', check: 'pt', acceptLanguage: 'fr' })).toEqual({ locale: 'de', unavailable: null, from: 'query' });
  });
  it('a language we do not have: the next choice, and what was asked is said', () => {
    expect(negotiateLocale({ query: 'nl' })).toEqual({ locale: 'en', unavailable: 'nl', from: 'default' });
    expect(negotiateLocale({ query: 'nl', check: 'es' })).toEqual({ locale: 'es', unavailable: 'nl', from: 'check' });
    expect(negotiateLocale({ acceptLanguage: 'nl-BE, nl;q=0.9' })).toEqual({ locale: 'en', unavailable: 'nl-BE', from: 'default' });
  });
  it('a browser that also accepts one of ours gets it, without a notice', () => {
    expect(negotiateLocale({ acceptLanguage: 'nl, de;q=0.5' })).toEqual({ locale: 'de', unavailable: null, from: 'accept-language' });
  });
  it("the check's bare pt becomes Brazilian for a browser that prefers pt-BR; pt-PT stays European", () => {
    expect(negotiateLocale({ check: 'pt', acceptLanguage: 'pt-BR,pt;q=0.9,en;q=0.5' }).locale).toBe('pt-BR');
    expect(negotiateLocale({ check: 'pt', acceptLanguage: 'en' }).locale).toBe('pt-PT');
    expect(negotiateLocale({ check: 'pt-PT', acceptLanguage: 'pt-BR' }).locale).toBe('pt-PT');
  });
  it('nothing asked: English', () => expect(negotiateLocale({})).toEqual({ locale: 'en', unavailable: null, from: 'default' }));
});

describe('the notice', () => {
  it("names the language asked for and the one shown, in the page's language", async () => {
    expect(languageName('nl', 'de')).toBe('Niederländisch');
    expect(await localeNotice(negotiateLocale({ query: 'nl' }))).toBe('This page is not available in Dutch. It is shown in English.');
    expect(await localeNotice(negotiateLocale({ query: 'nl', check: 'de' }))).toBe('Diese Seite ist nicht auf Niederländisch verfügbar. Sie wird auf Deutsch angezeigt.');
    expect(await localeNotice(negotiateLocale({ query: 'xx-<b>' }))).toBe('This page is not available in xx-<b>. It is shown in English.');
    expect(await localeNotice(negotiateLocale({ query: 'de' }))).toBeNull();
  });
});
