/**
 * The batch index's charts: the verdicts, the findings by code and the findings by page, as inline
 * SVG bar charts beside the table — drawn here, so the page needs no script and no network. Each
 * chart is an image to assistive technology (role="img", a <title> and a <desc> that say its
 * numbers in words), and every bar carries its label and count as text, so nothing is told by
 * colour alone. Every text is escaped: codes of an earlier summary are read back from disk.
 */
import { escapeHtml } from '../util/text.js';

const esc = escapeHtml;

type Verdict = 'pass' | 'warn' | 'fail' | 'error';

/** What the charts read of a batch summary. */
export interface ChartSummary {
  files: number;
  pass: number;
  warn: number;
  fail: number;
  error: number;
  results: readonly { rules: Partial<Record<string, number>>; pages?: Partial<Record<string, number>> | undefined }[];
}

/** One bar: its label, its count, and a class for its colour. */
export interface Bar {
  label: string;
  count: number;
  tone: string;
}

/** The label of findings that belong to the whole file, not to a page. */
export const DOCUMENT_BAR = 'file';
/** Pages past this one are counted in one last bar, so that a 500-page file keeps the chart readable. */
export const MAX_PAGE_BARS = 30;

const VERDICTS: readonly Verdict[] = ['pass', 'warn', 'fail', 'error'];
const WIDTH = 360;
const ROW = 22;
const LABEL_WIDTH = 150;
const COUNT_WIDTH = 44;
/** Characters of a label that fit its column at the chart's font size; longer ones are cut with "…" (the full text is in the bar's <title>). */
const LABEL_CHARS = 22;

/** A result's findings by page: its number, or {@link DOCUMENT_BAR} for the whole file's. */
export function findingsByPage(findings: readonly { page: number | null }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of findings) {
    const key = f.page === null ? DOCUMENT_BAR : String(f.page);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** How many files got each verdict. */
export function verdictBars(summary: ChartSummary): Bar[] {
  return VERDICTS.map((v) => ({ label: v, count: summary[v], tone: v }));
}

/** Findings of every file by code, the most frequent first (codes of equal count in code order). */
export function codeBars(summary: ChartSummary): Bar[] {
  const byCode = new Map<string, number>();
  for (const r of summary.results) for (const [code, n = 0] of Object.entries(r.rules)) byCode.set(code, (byCode.get(code) ?? 0) + n);
  return [...byCode]
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, count]) => ({ label, count, tone: 'code' }));
}

/**
 * Findings of every file by page number, in page order: the whole file's findings first, then page
 * 1, 2, …; pages past {@link MAX_PAGE_BARS} in one bar. Results written before summaries counted
 * pages have none, and add nothing here.
 */
export function pageBars(summary: ChartSummary): Bar[] {
  const byPage = new Map<number, number>();
  for (const r of summary.results) {
    for (const [page, n = 0] of Object.entries(r.pages ?? {})) {
      const key = page === DOCUMENT_BAR ? 0 : Math.min(Number(page), MAX_PAGE_BARS + 1);
      if (Number.isInteger(key) && key >= 0) byPage.set(key, (byPage.get(key) ?? 0) + n);
    }
  }
  return [...byPage]
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a - b)
    .map(([page, count]) => ({
      label: page === 0 ? 'whole file' : page > MAX_PAGE_BARS ? `page ${MAX_PAGE_BARS + 1}+` : `page ${page}`,
      count,
      tone: 'page',
    }));
}

/** A horizontal bar chart: one row per bar, label left, bar, count right; scaled to the largest count. */
export function barChart(id: string, title: string, description: string, bars: readonly Bar[]): string {
  const max = Math.max(1, ...bars.map((b) => b.count));
  const span = WIDTH - LABEL_WIDTH - COUNT_WIDTH;
  const height = Math.max(1, bars.length) * ROW + 4;
  const rows = bars.map((b, i) => {
    const y = 2 + i * ROW;
    const w = b.count === 0 ? 0 : Math.max(2, Math.round((b.count / max) * span));
    const label = b.label.length > LABEL_CHARS ? `${b.label.slice(0, LABEL_CHARS - 1)}…` : b.label;
    return (
      `<g class="bar ${esc(b.tone)}"><title>${esc(b.label)}: ${b.count}</title>` +
      `<text x="${LABEL_WIDTH - 6}" y="${y + 15}" text-anchor="end">${esc(label)}</text>` +
      `<rect x="${LABEL_WIDTH}" y="${y + 3}" width="${w}" height="${ROW - 6}" rx="3"/>` +
      `<text x="${LABEL_WIDTH + w + 6}" y="${y + 15}">${b.count}</text></g>`
    );
  });
  const empty = bars.length ? '' : `<text x="${WIDTH / 2}" y="16" text-anchor="middle">none</text>`;
  return (
    `<figure class="chart"><figcaption id="${id}-caption">${esc(title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">` +
    `<title id="${id}-title">${esc(title)}</title><desc id="${id}-desc">${esc(description)}</desc>` +
    `${rows.join('')}${empty}</svg></figure>`
  );
}

/** The three charts of the batch index, and their stylesheet's rules. */
export function batchCharts(summary: ChartSummary): string {
  const say = (bars: readonly Bar[], none: string) => (bars.length ? `${bars.map((b) => `${b.label} ${b.count}`).join(', ')}.` : none);
  const verdicts = verdictBars(summary);
  const codes = codeBars(summary);
  const pages = pageBars(summary);
  return [
    barChart('chart-verdicts', 'Files by verdict', `${summary.files} files: ${say(verdicts, '')}`, verdicts),
    barChart('chart-codes', 'Findings by code', `Findings of all files by code: ${say(codes, 'no findings.')}`, codes),
    barChart('chart-pages', 'Findings by page', `Findings of all files by page: ${say(pages, 'no findings on a page.')}`, pages),
  ].join('\n');
}

/** The charts' CSS: colours of the verdict cards, text dark enough on white (WCAG AA). */
export const CHART_CSS = `.layout{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:18px;align-items:start}
@media (max-width:960px){.layout{grid-template-columns:minmax(0,1fr)}}
.charts{display:flex;flex-direction:column;gap:12px}
.chart{margin:0;background:#fff;border:1px solid #d1d9e0;border-radius:10px;padding:10px}
.chart figcaption{font-size:13px;font-weight:600;color:#59636e;margin:0 0 6px}
.chart svg{display:block;max-width:100%;height:auto}
.chart text{font:12px ui-monospace,Menlo,Consolas,monospace;fill:#1f2328}
.bar.pass rect{fill:#1a7f37}.bar.warn rect{fill:#bf8700}.bar.fail rect{fill:#cf222e}.bar.error rect{fill:#8250df}
.bar.code rect{fill:#0969da}.bar.page rect{fill:#57606a}`;
