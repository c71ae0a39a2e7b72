/**
 * The customer message catalogue: every finding code told to the end customer — title, problem,
 * what happens in production, what to do, and for a code print-preflight fixes, what the fix did —
 * in English, Portuguese and Spanish, as ICU MessageFormat strings formatted by intl-messageformat.
 * A locale's strings and the formatter are loaded on first use (`import()`), so a check that asks
 * for no customer messages loads neither.
 */
import type { FindingCode } from '../rules/codes.js';
import type { Finding, CustomerMessage } from '../rules/finding.js';
import type { FixableCode } from '../rules/policy.js';
import type { Locale } from './locales.js';

/** One code's entry: ICU MessageFormat strings. */
export interface Entry {
  title: string;
  problem: string;
  production: string;
  advice: string;
  fixed?: string;
}

/** A locale's catalogue: every code, and `fixed` for every code print-preflight fixes. */
export interface Catalogue {
  /** `design`: the whole file ("your design"); `page`: a page with no layer ("page {page}"). */
  words: { design: string; page: string };
  codes: { [C in FindingCode]: C extends FixableCode ? Entry & { fixed: string } : Entry };
}

/** Names of the product and its layers, by locale (a profile's `name`/`names`, a layer's `id`/`name`/`names`). */
export interface NamedTarget {
  name: string;
  names?: Partial<Record<Locale, string>> | undefined;
  layers: readonly { id: string; name?: string | undefined; names?: Partial<Record<Locale, string>> | undefined }[];
}

type Formatter = (message: string, values: Record<string, string | number>) => string;

interface Loaded {
  catalogue: Catalogue;
  format: Formatter;
}

const loaded = new Map<Locale, Promise<Loaded>>();

/**
 * Loads a locale's catalogue and the formatter (once per process).
 * @example
 * const { catalogue } = await loadCatalogue('pt');
 * catalogue.codes['page-blank'].title; // '{layer} está vazio'
 */
export function loadCatalogue(locale: Locale): Promise<Loaded> {
  let hit = loaded.get(locale);
  if (!hit) {
    hit = (async () => {
      const [{ IntlMessageFormat }, catalogue] = await Promise.all([import('intl-messageformat'), importLocale(locale)]);
      const compiled = new Map<string, InstanceType<typeof IntlMessageFormat>>();
      const format: Formatter = (message, values) => {
        let mf = compiled.get(message);
        if (!mf) compiled.set(message, (mf = new IntlMessageFormat(message, locale)));
        return String(mf.format(values));
      };
      return { catalogue, format };
    })();
    loaded.set(locale, hit);
  }
  return hit;
}

async function importLocale(locale: Locale): Promise<Catalogue> {
  switch (locale) {
    case 'pt':
      return (await import('./pt.js')).pt;
    case 'es':
      return (await import('./es.js')).es;
    default:
      return (await import('./en.js')).en;
  }
}

const mb = (bytes: number, locale: Locale) => `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(bytes / 1_000_000)} MB`;

/** The values a finding's messages are filled with. */
export function messageValues(finding: Pick<Finding, 'page' | 'layer' | 'details'>, target: NamedTarget, locale: Locale, words: Catalogue['words'], format: Formatter): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(finding.details ?? {})) if (typeof v === 'number' || typeof v === 'string') values[k] = v;
  const layer = finding.layer === null ? undefined : target.layers.find((l) => l.id === finding.layer);
  values.product = target.names?.[locale] ?? target.name;
  values.layer = layer ? (layer.names?.[locale] ?? layer.name ?? layer.id) : finding.page !== null ? format(words.page, { page: finding.page }) : words.design;
  values.page = finding.page ?? 0;
  values.layers = typeof values.layers === 'number' ? values.layers : target.layers.length;
  if (typeof values.bytes === 'number') values.size = mb(values.bytes, locale);
  if (typeof values.maxBytes === 'number') values.maxSize = mb(values.maxBytes, locale);
  return values;
}

/**
 * A finding in the customer's words, in a locale. A message whose values the finding lacks falls
 * back to the finding's technical message for that part, never an exception.
 * @example
 * const m = await customerMessage(finding, profile, 'es');
 * m.title; // 'El diseño de Frente está de lado'
 */
export async function customerMessage(finding: Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>, target: NamedTarget, locale: Locale, extra: Record<string, string | number> = {}): Promise<CustomerMessage> {
  const { catalogue, format } = await loadCatalogue(locale);
  return render(finding, target, locale, catalogue, format, extra);
}

function render(finding: Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>, target: NamedTarget, locale: Locale, catalogue: Catalogue, format: Formatter, extra: Record<string, string | number>): CustomerMessage {
  const entry: Entry = catalogue.codes[finding.code];
  const values = { ...messageValues(finding, target, locale, catalogue.words, format), ...extra };
  const safe = (message: string) => {
    try {
      return format(message, values);
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
 * The findings with their `customer` messages in a locale.
 * @example
 * const findings = await withCustomerMessages(report.findings, profile, 'pt');
 */
export async function withCustomerMessages<F extends Pick<Finding, 'code' | 'page' | 'layer' | 'details' | 'message'>>(findings: readonly F[], target: NamedTarget, locale: Locale): Promise<(F & { customer: CustomerMessage })[]> {
  if (!findings.length) return [];
  const { catalogue, format } = await loadCatalogue(locale);
  return findings.map((f) => ({ ...f, customer: render(f, target, locale, catalogue, format, {}) }));
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
