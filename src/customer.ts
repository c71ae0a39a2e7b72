/**
 * What a customer reads (`import … from 'print-preflight/customer'`): each finding's message in the
 * customer's language (en, de, fr, es, it, pt-PT, pt-BR), the language negotiated from a query,
 * a check's own locale and `Accept-Language`, and the pages the service shows them — the customer
 * report, the approval page of a fix, the product mockups and the before/after pairs.
 * @example
 * import { loadProfiles, preflight } from 'print-preflight';
 * import { localizeReport, negotiateLocale } from 'print-preflight/customer';
 * const report = await preflight('design.pdf', { sku: 'T-SHIRT-M' });
 * const { profile } = (await loadProfiles()).resolve({ sku: 'T-SHIRT-M' });
 * const { locale } = negotiateLocale({ acceptLanguage: 'de-CH, de;q=0.9' });
 * const localized = await localizeReport(report, profile, locale);
 * for (const f of localized.findings) console.log(f.customer?.title);
 * @packageDocumentation
 */
export { LOCALES, MESSAGE_LOCALES, matchLocale, negotiateLocale, type Locale, type MessageLocale, type NegotiatedLocale } from './model/locales.js';
export {
  customerMessage,
  localizeReport,
  loadCatalogue,
  localeNotice,
  uiFormatter,
  type Catalogue,
  type Entry as CatalogueEntry,
  type NamedTarget,
  type UiFormatter,
  type Grammar,
  type LocalName,
  type LoadedCatalogue,
  type MessageContext,
  type Formatter as MessageFormatter,
} from './messages/catalogue.js';
export { UI_KEYS, type UiMessages, type UiKey } from './messages/ui.js';
export { GENDERS, type Gender } from './model/genders.js';
export { PANEL_SHAPES, type PanelShape } from './profile/shapes.js';
export { renderCustomerReport, type CustomerReportInput, type FixState } from './report/customer.js';
export { renderCustomerText, type CustomerTextOptions } from './report/customer-text.js';
export { customerReportPage, approvalPage, type CustomerReportPageInput, type ApprovalPageDataInput, type FixRecord } from './report/customer-pages.js';
export { renderApproval, type ApprovalPageInput, type ApprovalPart, type PageImage } from './report/approval.js';
export { renderMockup, layerMockups, type MockupPreview, type MockupLayer } from './report/mockup.js';
export { pairLayers, type LayerPair, type PairChange, type ChangeSpot, type UnitBox } from './report/before-after.js';
export type { CustomerMessage } from './model/finding.js';
