/**
 * The customer's pages of a stored check: what a run keeps for them (mockups, the HTML reports of
 * the fixed file and of its original), and the pages rendered from what is kept, in the locale a
 * reader asks for. The same in the embedded server and in a fleet (the data folder is shared).
 */
import type { Preview } from '../flow/preflight.js';
import { messageLocale, type Locale, type MessageLocale } from '../model/locales.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';
import type { PageImage } from '../report/approval.js';
import { approvalPage, customerReportPage, type FixRecord } from '../report/customer-pages.js';
import { renderHtml } from '../report/html.js';
import { layerMockups } from '../report/mockup.js';
import type { Report } from '../report/schema.js';
import type { CheckJob, CheckRecord } from './schema.js';
import type { JobStore } from './store.js';

/** A preview as a page shows it (its size read from the report, else from the image). */
async function pageImages(store: JobStore, files: ReadonlyMap<number, { file: string; format: string }>, report: Report | null): Promise<Map<number, PageImage>> {
  const sharp = (await import('sharp')).default;
  const out = new Map<number, PageImage>();
  for (const [n, f] of files) {
    const bytes = await store.readBytes(f.file).catch(() => null);
    if (!bytes) continue;
    const known = report?.pages.find((p) => p.index === n)?.preview;
    const size =
      known ??
      (await sharp(bytes)
        .metadata()
        .catch(() => ({ width: 0, height: 0 })));
    const widthPx = 'widthPx' in size ? size.widthPx : (size.width ?? 0);
    const heightPx = 'heightPx' in size ? size.heightPx : (size.height ?? 0);
    out.set(n, { bytes: new Uint8Array(bytes), format: f.format === 'png' || f.format === 'jpeg' ? f.format : 'webp', widthPx, heightPx });
  }
  return out;
}

async function mockupImages(store: JobStore, id: string, which: 'after' | 'before'): Promise<Map<number, PageImage>> {
  const files = await store.mockups(id, which);
  return pageImages(store, new Map([...files].map(([n, file]) => [n, { file, format: 'png' }])), null);
}

/** What a run keeps for its customer pages, in the check's locale (English without one). */
export interface RunPages {
  /** report.html of the fixed (or only) report. */
  html: string;
  /** report.html of the original, for a fixed file. */
  originalHtml: string | null;
}

/**
 * Makes and keeps what a finished run's customer pages need — each page's mockup (the original's
 * drawn on the part its design belongs to), the pictures report.html shows when the check keeps no
 * previews — and renders report.html of the fixed (or only) report and of the original.
 * @example
 * const { html, originalHtml } = await keepRunPages(store, job, resolved, record, { report, previews }, null);
 */
export async function keepRunPages(
  store: JobStore,
  job: CheckJob,
  resolved: Pick<ResolvedTarget, 'layers' | 'profile'>,
  record: FixRecord,
  after: { report: Report; previews: ReadonlyMap<number, Preview> },
  before: { report: Report; previews: ReadonlyMap<number, Preview> } | null,
): Promise<RunPages> {
  const locale = messageLocale(job.options.locale ?? 'en');
  const keep = async (which: 'after' | 'before', r: { report: Report; previews: ReadonlyMap<number, Preview> }) => {
    const mockups = await layerMockups(r.report, r.previews, resolved, { byDesign: which === 'before' });
    await store.writeCustomerImages(job.id, which, { mockups, ...(job.options.previews ? {} : { previews: r.previews }) });
    return customerReportPage({ report: r.report, which, original: before?.report ?? null, images: r.previews, mockups, record, profile: resolved.profile, locale });
  };
  const html = await keep('after', after);
  const originalHtml = before ? await keep('before', before) : null;
  return { html, originalHtml };
}

export interface ReportPageOptions {
  locale: Locale | MessageLocale;
  notice?: string | null;
  /** `prepress`: the full technical report (English), as `check --html` writes it. */
  view?: 'customer' | 'prepress';
  prepressHref?: string | null;
}

/**
 * A stored check's report.html in a locale: the fixed (or only) report, or the original of a
 * fixed file (`before`). Null when the check has no such report.
 * @example
 * const html = await storedReportPage(store, registry, record, job, 'after', { locale: 'de' });
 */
export async function storedReportPage(store: JobStore, registry: ProfileRegistry, record: CheckRecord, job: CheckJob, which: 'after' | 'before', options: ReportPageOptions): Promise<string | null> {
  const [after, before] = await Promise.all([store.readReport(record.id), record.fixed ? store.readBeforeReport(record.id) : Promise.resolve(null)]);
  const report = which === 'before' ? before : after;
  if (!report) return null;
  const images = await pageImages(store, await store.reportImages(record.id, which), report);
  if (options.view === 'prepress') return renderHtml(report, images);
  const { profile } = registry.resolve(job.target);
  return customerReportPage({
    report,
    which,
    original: before,
    images,
    mockups: await mockupImages(store, record.id, which),
    record: record as FixRecord,
    profile,
    locale: messageLocale(options.locale as Locale),
    notice: options.notice ?? null,
    prepressHref: options.prepressHref ?? null,
  });
}

/**
 * A stored fixed check's approval page in a locale. Null when the check fixed nothing.
 * @example
 * const html = await storedApprovalPage(store, registry, record, job, { locale: 'pt-BR', action: `/v1/approvals/${record.token}` });
 */
export async function storedApprovalPage(
  store: JobStore,
  registry: ProfileRegistry,
  record: CheckRecord,
  job: CheckJob,
  options: { locale: Locale | MessageLocale; notice?: string | null; action: string; actionQuery?: string },
): Promise<string | null> {
  const [before, after] = await Promise.all([store.readBeforeReport(record.id), store.readReport(record.id)]);
  if (!before || !after || !record.fixed) return null;
  const { profile } = registry.resolve(job.target);
  const [beforeImages, afterImages, mockups] = await Promise.all([
    store.reportImages(record.id, 'before').then((f) => pageImages(store, f, before)),
    store.reportImages(record.id, 'after').then((f) => pageImages(store, f, after)),
    mockupImages(store, record.id, 'after'),
  ]);
  return approvalPage({
    before,
    after,
    beforeImages,
    afterImages,
    mockups,
    record: { ...record, fixed: record.fixed },
    profile,
    locale: messageLocale(options.locale as Locale),
    notice: options.notice ?? null,
    action: options.action,
    ...(options.actionQuery ? { actionQuery: options.actionQuery } : {}),
  });
}
