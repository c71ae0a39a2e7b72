/**
 * The customer's pages of a check, from what the check keeps: `report.html` (the fixed or only
 * report, or the original of a fixed file) and the approval page, in one locale. Reports arrive
 * as `check --json` wrote them; the findings are told in the locale here, the changes named by
 * the part they were made on, and each part of the fixed file paired with the original page that
 * became it, its changes shown up close.
 */
import { changeText, localizeReport, localNoun, nounValues, productName, uiFormatter, formatMegabytes, type UiFormatter } from '../messages/catalogue.js';
import type { Locale } from '../model/locales.js';
import type { Profile } from '../profile/schema.js';

import type { PageImage } from './approval.js';
import { renderApproval, type ApprovalPart } from './approval.js';
import { beforeBox, crop, findChangedArea, padded, pairLayers, type LayerPair, type PairChange, type UnitBox } from './before-after.js';
import { renderCustomerReport, type FixState } from './customer.js';
import type { Report } from './schema.js';

/** Where a check's fix stands, as its record says. */
export interface FixRecord {
  fixed?: { bytes: number; changes: PairChange[] } | undefined;
  approval?: { state: 'pending' | 'approved' | 'rejected' | 'auto'; at?: string | undefined } | undefined;
  finishedAt?: string | undefined;
}

export interface CustomerReportPageInput {
  /** The report shown, as `check --json` wrote it. */
  report: Report;
  /** `after`: the fixed (or only) report; `before`: the original of a fixed file. */
  which: 'after' | 'before';
  /** The original's report of a fixed check (to name the changes). */
  original?: Report | null;
  images: ReadonlyMap<number, PageImage>;
  mockups: ReadonlyMap<number, PageImage>;
  record: FixRecord;
  profile: Profile;
  locale: Locale;
  notice?: string | null;
  prepressHref?: string | null;
}

/** The changes of a fixed check in the customer's words, one line per distinct text (a change made on every page reads once). */
export async function changeTexts(record: FixRecord, original: Report, fixed: Report, profile: Profile, locale: Locale): Promise<{ change: PairChange; text: string }[]> {
  const size = formatMegabytes(record.fixed?.bytes ?? fixed.file.bytes, locale);
  return Promise.all((record.fixed?.changes ?? []).map(async (change) => ({ change, text: await changeText(change, { before: original, after: fixed }, profile, locale, { size }) })));
}

const distinct = (texts: readonly string[]) => [...new Set(texts)];

/**
 * `report.html` of a check in a locale.
 * @example
 * const html = await customerReportPage({ report, which: 'after', original, images, mockups, record, profile, locale: 'de' });
 */
export async function customerReportPage(input: CustomerReportPageInput): Promise<string> {
  const t = await uiFormatter(input.locale);
  const report = await localizeReport(input.report, input.profile, t.locale);
  let fix: FixState | null = null;
  if (input.which === 'after' && input.record.fixed) {
    const texts = input.original ? (await changeTexts(input.record, input.original, input.report, input.profile, t.locale)).map((c) => c.text) : [];
    const state = input.record.approval?.state ?? 'auto';
    fix = { state, at: input.record.approval?.at ? new Date(input.record.approval.at) : null, changes: distinct(texts) };
  }
  return renderCustomerReport({
    report,
    t,
    target: input.profile,
    previews: input.images,
    mockups: input.mockups,
    notice: input.notice ?? null,
    fix,
    original: input.which === 'before',
    checkedAt: input.record.finishedAt ? new Date(input.record.finishedAt) : null,
    prepressHref: input.prepressHref ?? null,
  });
}

export interface ApprovalPageDataInput {
  before: Report;
  after: Report;
  beforeImages: ReadonlyMap<number, PageImage>;
  afterImages: ReadonlyMap<number, PageImage>;
  /** The fixed file's mockups, by page. */
  mockups: ReadonlyMap<number, PageImage>;
  record: FixRecord & { fixed: NonNullable<FixRecord['fixed']> };
  profile: Profile;
  locale: Locale;
  notice?: string | null;
  action: string;
  actionQuery?: string;
}

/**
 * The approval page of a fixed check in a locale: each part of the fixed file with the original
 * page that became it, the changes on it up close, the design on the product.
 * @example
 * const html = await approvalPage({ before, after, beforeImages, afterImages, mockups, record, profile, locale: 'pt-BR', action: '/v1/approvals/…' });
 */
export async function approvalPage(input: ApprovalPageDataInput): Promise<string> {
  const t = await uiFormatter(input.locale);
  const [_before, after] = await Promise.all([localizeReport(input.before, input.profile, t.locale), localizeReport(input.after, input.profile, t.locale)]);
  const texts = await changeTexts(input.record, input.before, input.after, input.profile, t.locale);
  const pairs = pairLayers(input.before, input.after, input.record.fixed.changes);
  const parts: ApprovalPart[] = [];
  for (const pair of pairs) parts.push(await partOf(pair, input, t, texts));
  const state = input.record.approval?.state ?? 'auto';
  return renderApproval({
    t,
    notice: input.notice ?? null,
    productLine: t('productLine', { product: productName(input.profile, t.locale), variant: after.variant }),
    productValues: nounValues('product', localNoun(input.profile.names, input.profile.name, t.locale), t.loaded),
    changes: distinct(texts.map((c) => c.text)),
    remaining: after.findings.map((f) => ({ severity: f.severity, title: f.customer?.title ?? f.code, text: f.customer ? `${f.customer.production} ${f.customer.advice}` : f.message })),
    parts,
    action: input.action,
    ...(input.actionQuery ? { actionQuery: input.actionQuery } : {}),
    state,
    decidedAt: input.record.approval?.at ? new Date(input.record.approval.at) : null,
    stillFails: after.verdict === 'fail',
  });
}

/**
 * The bleed of a part whose bleed was made by mirroring — an image or a one-page PDF assembled with
 * the `bleed` fill, or a page given its bleed by the fix of page-bleed-missing — as a share of the
 * page on each side; null for any other part.
 */
function mirroredBleed(report: Report, pair: LayerPair): { x: number; y: number } | null {
  const page = report.pages[pair.afterPage - 1];
  if (!page || page.expectedWidthMm === null || page.expectedHeightMm === null) return null;
  const made = report.assembly?.layers.find((l) => l.layer === pair.layer);
  if (made?.fill !== 'bleed' && !pair.changes.some((c) => c.code === 'page-bleed-missing')) return null;
  return { x: report.limits.bleedMm / page.expectedWidthMm, y: report.limits.bleedMm / page.expectedHeightMm };
}

/** How an assembled part's image fills it, in the customer's words (nothing for a file not assembled here). */
function fillText(report: Report, layer: string | null, t: UiFormatter): string[] {
  const made = report.assembly?.layers.find((l) => l.layer === layer);
  if (!made) return [];
  const mm = (n: number | undefined) => Math.round((n ?? 0) * 10) / 10;
  return [t('fill', { fill: made.fill, width: mm(made.tile?.widthMm), height: mm(made.tile?.heightMm), ppi: Math.round(made.tile?.ppi ?? 0) })];
}

async function partOf(pair: LayerPair, input: ApprovalPageDataInput, t: UiFormatter, texts: readonly { change: PairChange; text: string }[]): Promise<ApprovalPart> {
  const layer = pair.layer ? input.profile.layers.find((l) => l.id === pair.layer) : undefined;
  const noun = layer ? localNoun(layer.names, layer.name ?? layer.id, t.locale) : { name: t.loaded.format(t.loaded.catalogue.grammar.pageName, { page: pair.afterPage }), gender: 'p' as const };
  const forms = nounValues('layer', noun, t.loaded);
  const before = pair.beforePage !== null ? (input.beforeImages.get(pair.beforePage) ?? null) : null;
  const after = input.afterImages.get(pair.afterPage) ?? null;
  const closeUps: ApprovalPart['closeUps'] = [];
  if (before && after) {
    const seen: UnitBox[] = [];
    for (const spot of pair.spots) {
      closeUps.push(await closeUp(before, after, padded(spot.before), padded(spot.after), 0));
      seen.push(spot.after);
    }
    // Changes the reports place nowhere (vector colours): where the two pictures differ.
    const unplaced = pair.changes.some((c) => c.code === 'colour-space-not-rgb' && !/^image /.test(c.action));
    if (unplaced && !pair.resized) {
      const area = await findChangedArea(before.bytes, after.bytes, pair.turn);
      if (area && !seen.some((b) => overlaps(b, area))) {
        const box = padded(area);
        closeUps.push(await closeUp(before, after, beforeBox(box, pair.turn), box, pair.turn));
      }
    }
  }
  return {
    name: noun.name,
    afterPage: pair.afterPage,
    beforePage: pair.beforePage,
    before,
    after,
    beforeAlt: `${t('before')}: ${t('beforeCaption', { page: pair.beforePage ?? pair.afterPage })}`,
    afterAlt: t('previewAlt', forms),
    moved: pair.beforePage !== null && pair.beforePage !== pair.afterPage ? t('moved', { from: pair.beforePage, ...forms }) : null,
    changes: distinct([...fillText(input.after, pair.layer, t), ...texts.filter((c) => c.change.page === pair.afterPage).map((c) => c.text)]),
    closeUps,
    mockup: input.mockups.get(pair.afterPage) ?? null,
    mockupAlt: t('mockupAlt', forms),
    bleed: mirroredBleed(input.after, pair),
  };
}

const overlaps = (a: UnitBox, b: UnitBox) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

async function closeUp(before: PageImage, after: PageImage, beforeBoxUnit: UnitBox, afterBoxUnit: UnitBox, turn: LayerPair['turn']): Promise<{ before: PageImage; after: PageImage }> {
  const [b, a] = await Promise.all([crop(before.bytes, beforeBoxUnit, 360, turn), crop(after.bytes, afterBoxUnit, 360, 0)]);
  return { before: { ...b, format: 'webp' }, after: { ...a, format: 'webp' } };
}
