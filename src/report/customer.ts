/**
 * The customer's report: `report.html` as the person who made the design reads it, entirely in
 * their language — the verdict and what it means, where a fix stands ("changed — awaiting your
 * approval"), each part of the product by its name with the design drawn on it (mockup) and the
 * print file with its cut, bleed and safe lines, each finding in the customer's words — and the
 * prepress detail in a closed technical section. One self-contained file: styles inline, images as
 * data: URIs, one small script (allowed by its hash) that only marks pictures that did not decode.
 */
import { designsByPage, formatMegabytes, layerName, localNoun, nounValues, productName, type NamedTarget, type Noun, type UiFormatter } from '../messages/catalogue.js';
import type { Finding } from '../model/finding.js';
import { escapeHtml as esc } from '../util/text.js';
import type { PageImage } from './approval.js';
import { pageStart, REPORT_SCRIPT } from './html.js';
import { partVerdictKey } from './customer-text.js';
import { pageSizeOff } from './page-size.js';
import type { Report, ReportPage } from './schema.js';

/** Where the fix of a fixed check stands. */
export interface FixState {
  state: 'pending' | 'approved' | 'rejected' | 'auto';
  /** When it was decided (or made, for `auto`). */
  at: Date | null;
  /** The changes, in the customer's words. */
  changes: readonly string[];
}

export interface CustomerReportInput {
  /** The report, its findings with `customer` messages in the page's locale. */
  report: Report;
  t: UiFormatter;
  /** The product and layer names. */
  target: NamedTarget;
  previews: ReadonlyMap<number, PageImage>;
  /** The design drawn on its part of the product, by page. */
  mockups?: ReadonlyMap<number, PageImage>;
  /** A language asked for that the page is not in, said at the top. */
  notice?: string | null;
  /** For the fixed file of a check: where the fix stands. */
  fix?: FixState | null;
  /** This is the report on the original of a file that was fixed. */
  original?: boolean;
  /** When the file was checked. */
  checkedAt?: Date | null;
  /** Where the full technical (prepress) report is. */
  prepressHref?: string | null;
}

const src = (p: PageImage) => `data:image/${p.format};base64,${Buffer.from(p.bytes).toString('base64')}`;
const SEVERITY_KEY = { error: 'severityError', warning: 'severityWarning', info: 'severityInfo' } as const;
const RANK = { error: 3, warning: 2, info: 1, ok: 0 } as const;

export { pageSizeOff };

/**
 * The customer's report as a self-contained HTML page, in the locale of `t`.
 * @example
 * const t = await uiFormatter('de');
 * const html = renderCustomerReport({ report: await localizeReport(report, profile, 'de'), t, target: profile, previews });
 */
export function renderCustomerReport(input: CustomerReportInput): string {
  const { report, t } = input;
  const locale = t.locale;
  const designs = designsByPage(
    report.findings,
    input.target.layers.map((l) => l.id),
  );
  const fileFindings = report.findings.filter((f) => f.page === null);
  const pending = input.fix?.state === 'pending';
  const verdictLabel = t(report.verdict === 'pass' ? 'verdictPass' : report.verdict === 'warn' ? 'verdictWarn' : 'verdictFail');
  const headline = pending ? t('statePendingTitle') : verdictLabel;
  const product = productName(input.target, locale);
  const productLine = t('productLine', { product, variant: report.variant });
  const counts = t('counts', { errors: report.counts.error, warnings: report.counts.warning });
  const title = `${headline} — ${report.file.path ?? 'PDF'}`;
  return `${pageStart(locale, title, report.tool.version, CSS)}
<header class="banner ${pending ? 'pending' : report.verdict}" data-verdict="${report.verdict}"${input.fix ? ` data-fix="${input.fix.state}"` : ''}>
  <p class="verdict">${esc(headline)}</p>
  <h1>${esc(report.file.path ?? 'PDF')}</h1>
  <p class="what">${esc(productLine)} · ${esc(counts)}</p>
  ${input.checkedAt ? `<p class="when">${esc(t('checkedOn', { date: input.checkedAt }))}</p>` : ''}
</header>
<main>
${input.notice ? `<p class="notice" role="note">${esc(input.notice)}</p>` : ''}
${input.fix ? fixBlock(input.fix, t, report.verdict === 'fail') : ''}
${input.original ? `<section class="state original"><h2>${esc(t('originalTitle'))}</h2><p>${esc(t('originalLine'))}</p></section>` : ''}
${pending || input.fix?.state === 'rejected' ? '' : `<p class="verdict-line">${esc(t(report.verdict === 'pass' ? 'verdictLinePass' : report.verdict === 'warn' ? 'verdictLineWarn' : 'verdictLineFail'))}</p>`}
${fileFindings.length ? `<section class="file-findings" aria-labelledby="file-findings"><h2 id="file-findings">${esc(t('fileFindings'))}</h2>${findingList(fileFindings, t)}</section>` : ''}
${report.pages.map((p) => partSection(input, p, designs)).join('\n')}
<section class="legend" aria-label="${esc(t('printFile'))}"><p><span class="key bleed"></span> ${esc(t('legendBleed'))}</p><p><span class="key trim"></span> ${esc(t('legendTrim'))}</p><p><span class="key safe"></span> ${esc(t('legendSafe'))}</p></section>
<details class="technical file-technical"><summary>${esc(t('technical'))}</summary><dl>
<div><dt>${esc(t('techChecksum'))}</dt><dd><code>${report.file.sha256}</code></dd></div>
<div><dt>PDF</dt><dd>${esc(report.pdf.version ?? '—')} · ${esc(formatMegabytes(report.file.bytes, locale))}</dd></div>
</dl>${input.prepressHref ? `<p><a href="${esc(input.prepressHref)}" hreflang="en">${esc(t('prepressLink'))}</a></p>` : ''}</details>
</main>
<footer>print-preflight ${esc(report.tool.version)}</footer>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}

function fixBlock(fix: FixState, t: UiFormatter, stillFails: boolean): string {
  const date = fix.at ?? new Date(0);
  const [title, line] =
    // A fixed file that still fails is printed by no one, whatever its approval says.
    stillFails && fix.state !== 'rejected'
      ? [t('changes'), t('stateStillFailsLine')]
      : fix.state === 'pending'
        ? [t('statePendingTitle'), t('statePendingLine')]
        : fix.state === 'approved'
          ? [t('stateApprovedTitle'), t('stateApprovedLine', { date })]
          : fix.state === 'rejected'
            ? [t('stateRejectedTitle'), t('stateRejectedLine', { date })]
            : [t('stateAutoTitle'), t('stateAutoLine')];
  const heading = stillFails && fix.state !== 'rejected' ? '' : `<h3>${esc(t('changes'))}</h3>`;
  return `<section class="state ${stillFails && fix.state !== 'rejected' ? 'rejected' : fix.state}" aria-labelledby="fix-state"><h2 id="fix-state">${esc(title)}</h2><p>${esc(line)}</p>${fix.changes.length ? `${heading}<ul class="changes">${fix.changes.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>` : ''}</section>`;
}

function findingList(findings: readonly Finding[], t: UiFormatter): string {
  return `<ul class="findings">${findings
    .map((f) => {
      const c = f.customer;
      const body = c ? `<h3>${esc(c.title)}</h3><p>${esc(c.problem)} ${esc(c.production)}</p><p><strong>${esc(t('whatToDo'))}</strong> ${esc(c.advice)}</p>` : `<p>${esc(f.message)}</p>`;
      return `<li class="finding ${f.severity}" data-code="${f.code}" data-severity="${f.severity}" data-page="${f.page ?? ''}"><p class="sev">${esc(t(SEVERITY_KEY[f.severity]))}</p>${body}</li>`;
    })
    .join('')}</ul>`;
}

function partSection(input: CustomerReportInput, page: ReportPage, designs: ReadonlyMap<number, string>): string {
  const { report, t, target } = input;
  const findings = report.findings.filter((f) => f.page === page.index);
  const design = designs.get(page.index);
  const misplaced = design !== undefined && design !== page.layer;
  const sizeOff = pageSizeOff(page, report.limits.toleranceMm);
  let worst: keyof typeof RANK = findings.reduce<keyof typeof RANK>((w, f) => (RANK[f.severity] > RANK[w] ? f.severity : w), 'ok');
  if (misplaced || sizeOff) worst = 'error';
  const ok = worst === 'ok' || worst === 'info';
  const partId = design ?? page.layer;
  const name = partId ? layerName(target, partId, t.locale) : t('pageWithoutPart', { page: page.index });
  const preview = input.previews.get(page.index);
  const mockup = input.mockups?.get(page.index);
  const W = page.widthMm;
  const H = page.heightMm;
  const forms = partForms(input, partId, page.index);
  const alt = (key: 'previewAlt' | 'mockupAlt') => t(key, forms);
  return `<section class="part ${worst}" id="page-${page.index}" data-page="${page.index}" aria-labelledby="part-${page.index}">
  <h2 id="part-${page.index}"><span class="status ${ok ? 'ok' : worst}" aria-hidden="true">${ok ? '✓' : '!'}</span>${esc(name)}</h2>
  <p class="sub">${esc(t('pageOfFile', { page: page.index }))} · <span class="${ok ? 't-ok' : 't-bad'}">${esc(t(partVerdictKey(worst)))}</span></p>
  <div class="figs">
    ${mockup ? `<figure class="mockup"><img alt="${esc(alt('mockupAlt'))}" src="${src(mockup)}" width="${mockup.widthPx}" height="${mockup.heightPx}"><figcaption>${esc(t('onProduct'))}</figcaption></figure>` : ''}
    <figure class="print"><div class="frame" style="aspect-ratio: ${W} / ${H}; max-width: ${Math.round((520 * W) / H)}px">${
      preview ? `<img class="preview" alt="${esc(alt('previewAlt'))}" src="${src(preview)}">` : `<p class="no-preview">${esc(t('noPreview'))}</p>`
    }${overlay(report, page)}</div><figcaption>${esc(t('printFile'))}</figcaption></figure>
  </div>
  ${findings.length ? findingList(findings, t) : ''}
  ${technical(page, t, sizeOff || misplaced)}
</section>`;
}

/** The forms of a part's name (or of a page without a part) that the page's sentences take. */
function partForms(input: CustomerReportInput, layer: string | null, page: number): Record<string, string> {
  const { target, t } = input;
  const entry = layer ? target.layers.find((l) => l.id === layer) : undefined;
  const noun: Noun = entry ? localNoun(entry.names, entry.name ?? entry.id, t.locale) : { name: t.loaded.format(t.loaded.catalogue.grammar.pageName, { page }), gender: 'p' };
  return nounValues('layer', noun, t.loaded);
}

function technical(page: ReportPage, t: UiFormatter, sizeOff: boolean): string {
  const nf = new Intl.NumberFormat(t.locale, { maximumFractionDigits: 1 });
  const mm = (w: number, h: number) => `${nf.format(w)} × ${nf.format(h)} mm`;
  const rows = [
    [t('techPageSize'), `<span class="${sizeOff ? 't-bad' : ''}">${mm(page.widthMm, page.heightMm)}</span>`],
    ...(page.expectedWidthMm !== null ? [[t('techExpectedSize'), mm(page.expectedWidthMm, page.expectedHeightMm!)]] : []),
    ...(page.rotate ? [[t('techTurned', { degrees: page.rotate }), '']] : []),
  ];
  const images = page.images
    .map(
      (i) =>
        `<li>${esc(t('techPicture', { width: nf.format(i.widthPx), height: nf.format(i.heightPx), ppi: i.printedPpi === null ? '—' : nf.format(Math.round(i.printedPpi)) }))} · ${esc(i.colourSpace)}</li>`,
    )
    .join('');
  const colours = [...new Set([...page.colours.map((c) => c.family), ...page.images.map((i) => i.colourFamily)])];
  return `<details class="technical"><summary>${esc(t('technical'))}</summary><dl>${rows.map(([k, v]) => `<div><dt>${esc(k!)}</dt><dd>${v}</dd></div>`).join('')}${
    colours.length ? `<div><dt>${esc(t('techColours'))}</dt><dd>${esc(colours.join(', '))}</dd></div>` : ''
  }</dl>${images ? `<p>${esc(t('techPictures'))}</p><ul>${images}</ul>` : ''}</details>`;
}

/** The bleed, cut and safe lines over the print file (and the white bands and unpainted areas findings name). */
function overlay(report: Report, page: ReportPage): string {
  const W = page.widthMm;
  const H = page.heightMm;
  const parts: string[] = [];
  if (page.expectedWidthMm !== null && page.expectedHeightMm !== null) {
    const bx = (report.limits.bleedMm * W) / page.expectedWidthMm;
    const by = (report.limits.bleedMm * H) / page.expectedHeightMm;
    parts.push(
      `<path class="bleed" fill-rule="evenodd" d="M0 0H${W}V${H}H0Z M${bx} ${by}V${H - by}H${W - bx}V${by}Z"/>`,
      `<rect class="trim" x="${bx}" y="${by}" width="${W - 2 * bx}" height="${H - 2 * by}"/>`,
    );
    const safe = page.safeMarginMm ?? report.limits.safeMarginMm;
    if (safe !== null) {
      const sx = bx + (safe * W) / page.expectedWidthMm;
      const sy = by + (safe * H) / page.expectedHeightMm;
      if (sx * 2 < W && sy * 2 < H) parts.push(`<rect class="safe" x="${sx}" y="${sy}" width="${W - 2 * sx}" height="${H - 2 * sy}"/>`);
    }
  }
  const codes = new Set(report.findings.filter((f) => f.page === page.index).map((f) => f.code));
  if (page.raster && codes.has('page-edge-gap')) {
    const g = page.raster.edgeGapMm;
    if (g.top) parts.push(`<rect class="gap" x="0" y="0" width="${W}" height="${g.top}"/>`);
    if (g.bottom) parts.push(`<rect class="gap" x="0" y="${H - g.bottom}" width="${W}" height="${g.bottom}"/>`);
    if (g.left) parts.push(`<rect class="gap" x="0" y="0" width="${g.left}" height="${H}"/>`);
    if (g.right) parts.push(`<rect class="gap" x="${W - g.right}" y="0" width="${g.right}" height="${H}"/>`);
  }
  if (page.raster && codes.has('page-unpainted-area'))
    for (const [x0, y0, x1, y1] of page.raster.unpaintedAreasMm) parts.push(`<rect class="gap" x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}"/>`);
  const stroke = Math.max(W, H) / 300;
  return `<svg class="overlay" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" style="--sw:${stroke}" aria-hidden="true" focusable="false">${parts.join('')}</svg>`;
}

const CSS = `
:root{--ink:#1f2328;--muted:#555f6b;--line:#c9d1d9;--ok:#116329;--bad:#a40e26;--warn:#7d4e00;--accent:#0550ae;--bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--ink);background:var(--bg)}
code{font:13px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.banner{padding:16px 20px;color:#fff;background:var(--ok)}
.banner.warn{background:#7d4e00}.banner.fail{background:var(--bad)}.banner.pending{background:var(--accent)}
.banner p{margin:0}.banner .verdict{font-size:1.6rem;font-weight:700;line-height:1.2}
.banner h1{font-size:1.05rem;font-weight:600;margin:.3rem 0 0;overflow-wrap:anywhere}
main{max-width:1100px;margin:0 auto;padding:16px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;margin:0 0 16px;padding:12px 16px}
h2{font-size:1.2rem;margin:0 0 .3rem;display:flex;align-items:center;gap:8px}
h3{font-size:1rem;margin:0 0 .2rem}
.notice{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:.6rem .8rem}
.state{border-width:2px;border-color:var(--accent);background:#ddf4ff}
.state.approved,.state.auto{border-color:var(--ok);background:#dafbe1}.state.rejected{border-color:var(--bad);background:#ffebe9}
.state.original{border-color:var(--line);background:#fff}
.verdict-line{font-weight:600;margin:0 0 16px}
.sub{margin:0 0 10px;color:var(--muted)}
.status{display:inline-flex;align-items:center;justify-content:center;width:1.5rem;height:1.5rem;border-radius:50%;color:#fff;font-size:.9rem;background:var(--ok)}
.status.error{background:var(--bad)}.status.warning{background:var(--warn)}
.t-ok{color:var(--ok)}.t-bad{color:var(--bad);font-weight:600}
.figs{display:grid;grid-template-columns:1fr;gap:12px;margin-bottom:10px}
@media (min-width:700px){.figs{grid-template-columns:1fr 1fr}}
figure{margin:0}
figcaption{font-size:.9rem;color:var(--muted);margin-top:4px}
.mockup img{max-width:100%;height:auto;max-height:520px;display:block;margin:0 auto}
.frame{position:relative;width:100%;margin:0 auto;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px;border:1px solid var(--line)}
.frame img,.no-preview{position:absolute;inset:0;width:100%;height:100%;display:block;margin:0}
.no-preview{display:flex;align-items:center;justify-content:center;color:var(--muted)}
.overlay{position:absolute;inset:0;width:100%;height:100%;overflow:visible}
.overlay .bleed{fill:rgba(180,0,90,.16)}
.overlay .trim{fill:none;stroke:#b4005a;stroke-width:var(--sw);stroke-dasharray:calc(var(--sw)*4) calc(var(--sw)*2.5)}
.overlay .safe{fill:none;stroke:#0550ae;stroke-width:var(--sw);stroke-dasharray:calc(var(--sw)*1) calc(var(--sw)*2)}
.overlay .gap{fill:rgba(164,14,38,.4);stroke:var(--bad);stroke-width:calc(var(--sw)*.6)}
figure.broken .frame::after{content:"⚠";position:absolute;inset:45% 0 auto;text-align:center;color:var(--bad);font-size:2rem}
.findings{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.finding{border-left:5px solid var(--muted);background:var(--bg);border-radius:6px;padding:8px 12px}
.finding.error{border-color:var(--bad);background:#ffebe9}.finding.warning{border-color:#bf8700;background:#fff8c5}
.finding p{margin:.2rem 0}
.sev{font-weight:700;font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
.finding.error .sev{color:var(--bad)}.finding.warning .sev{color:var(--warn)}
.legend p{margin:.2rem 0;display:flex;gap:8px;align-items:center}
.key{display:inline-block;flex:none;width:24px;height:14px;border-radius:2px}
.key.bleed{background:rgba(180,0,90,.16)}.key.trim{border:2px dashed #b4005a}.key.safe{border:2px dotted #0550ae}
details.technical{margin-top:10px;font-size:.95rem}
details.technical summary{cursor:pointer;color:var(--accent);font-weight:600}
summary:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
a{color:var(--accent)}
dl{margin:.5rem 0}dl div{display:flex;flex-wrap:wrap;gap:4px 12px}dt{color:var(--muted);min-width:9rem}dd{margin:0;overflow-wrap:anywhere}
footer{text-align:center;color:var(--muted);font-size:.8rem;padding:8px 0 24px}
`;
