/**
 * The visual report: one self-contained HTML file (styles inline, previews as data URIs, no
 * network). Each page is shown as its layer — preview, bleed band, trim line, safe area, white
 * edge bands and problem images marked — with its findings beside it, colour-coded by severity.
 */
import { formatPpi } from '../rules/check-image-resolution.js';
import { isBelow } from '../rules/threshold.js';
import { FINDING_CODES } from '../model/codes.js';
import type { Finding } from '../model/finding.js';
import { finite, formatMm, formatNumber } from '../pdf/units.js';
import { PREVIEW_MIME } from '../raster/preview.js';
import type { Preview } from '../model/preview.js';
import { formatBytes } from '../pdf/units.js';
import type { Report, ReportPage } from './schema.js';
import { escapeHtml, grouped } from '../util/text.js';
import { pageSizeOff } from './page-size.js';

/** A preview as the HTML report embeds it. */
export type HtmlPreview = Pick<Preview, 'bytes' | 'format'>;

const esc = escapeHtml;
const VERDICT_TEXT = { pass: 'Pass', warn: 'Pass with warnings', fail: 'Fail' } as const;
const VERDICT_LINE = {
  pass: 'The file meets every rule checked: it can be ordered.',
  warn: 'The file can be ordered, but production will change or may not match it: read the warnings.',
  fail: 'The file breaks the order service’s rules: fix the errors before ordering.',
} as const;
const SEVERITY_LABEL = { error: 'Error', warning: 'Warning', info: 'Info' } as const;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The report page's only script (marks previews that did not decode). It never depends on the
 * report, so a server can allow exactly it by its hash (`Content-Security-Policy: script-src
 * 'sha256-…'`) and no other inline script.
 */
export const REPORT_SCRIPT = `
for (const img of document.querySelectorAll('img.preview')) {
  const mark = () => {
    img.dataset.naturalWidth = String(img.naturalWidth);
    if (!img.naturalWidth) img.closest('figure').classList.add('broken');
  };
  if (img.complete) mark(); else { img.addEventListener('load', mark); img.addEventListener('error', mark); }
}
`;

/**
 * The start of every report page, up to and including `<body>`: doctype, language, viewport, the
 * generating version, the escaped title and the page's style.
 * @example
 * const html = `${pageStart('de', 'Bestanden — a.pdf', '1.4.0', CSS)}<main>…</main></body></html>`;
 */
export function pageStart(lang: string, title: string, version: string, css: string): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="print-preflight ${esc(version)}">
<title>${esc(title)}</title>
<style>${css}</style>
</head>
<body>`;
}

/**
 * Renders a report as a self-contained HTML page.
 * @param report the report from {@link preflight}
 * @param previews page previews from {@link preflightWithPreviews}, by page number
 * @example
 * const { report, previews } = await preflightWithPreviews('a.pdf', { sku: 'T-SHIRT-M' });
 * await writeFile('report.html', renderHtml(report, previews));
 */
export function renderHtml(report: Report, previews: ReadonlyMap<number, HtmlPreview> = new Map()): string {
  const fileFindings = report.findings.filter((f) => f.page === null);
  const title = `${VERDICT_TEXT[report.verdict]} — ${report.file.path ?? 'PDF'} — print-preflight`;
  return `${pageStart('en', title, report.tool.version, CSS)}
<header class="banner ${report.verdict}" data-verdict="${report.verdict}">
  <div class="verdict">${VERDICT_TEXT[report.verdict]}</div>
  <div class="what">
    <h1>${esc(report.file.path ?? 'PDF from memory')}</h1>
    <p>${esc(report.product)} ${esc(report.variant)} · SKU ${esc(report.sku)} · ${esc(VERDICT_LINE[report.verdict])}</p>
  </div>
  <ul class="counts">
    <li class="error">${plural(report.counts.error, 'error')}</li>
    <li class="warning">${plural(report.counts.warning, 'warning')}</li>
    <li class="info">${report.counts.info} info</li>
  </ul>
</header>
<main>
<section class="facts">
  <dl>
    <div><dt>File</dt><dd>${formatBytes(report.file.bytes)} (${grouped(report.file.bytes)} bytes)</dd></div>
    <div><dt>PDF</dt><dd>${report.pdf.version ? `version ${esc(report.pdf.version)}` : 'not a readable PDF'}${report.pdf.encrypted ? ', encrypted' : ''}</dd></div>
    <div><dt>Pages</dt><dd>${report.pdf.pageCount ?? '—'} (layers: ${report.pages.length ? '' : '—'}${esc(layerList(report))})</dd></div>
    <div><dt>Product</dt><dd>${esc(report.product)} ${esc(report.variant)}, profile ${esc(report.profileVersion)}, bleed ${formatNumber(report.limits.bleedMm)} mm, tolerance ±${formatNumber(report.limits.toleranceMm)} mm</dd></div>
    <div><dt>Checksum</dt><dd><code title="SHA-256">${report.file.sha256}</code></dd></div>
  </dl>
</section>
${fileFindings.length ? `<section class="file-findings"><h2>The file</h2>${findingList(fileFindings)}</section>` : ''}
${report.pages.map((p) => pageSection(report, p, previews.get(p.index))).join('\n')}
${legend(report)}
</main>
<footer>print-preflight ${esc(report.tool.version)} · same input, same report · codes are stable and documented</footer>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}

/** With page-order-mismatch: the layer(s) this page's size belongs to. */
function looksLike(report: Report, page: ReportPage): string {
  const order = report.findings.find((f) => f.code === 'page-order-mismatch');
  const candidates = order?.actual?.split(', ')[page.index - 1];
  if (!order || !candidates) return '';
  const fits = candidates.split('|');
  const ok = page.layer !== null && fits.includes(page.layer);
  return `<div class="order"><dt>Looks like</dt><dd class="${ok ? 't-ok' : 't-bad'}">${esc(fits.join(' or '))}${ok ? '' : ` (in position of ${esc(page.layer ?? 'no layer')})`}</dd></div>`;
}

function layerList(report: Report): string {
  return report.pages.map((p) => p.layer ?? '—').join(', ');
}

function findingList(findings: Finding[]): string {
  return `<ul class="findings">${findings
    .map(
      (f) => `<li class="finding ${f.severity}" data-code="${f.code}" data-severity="${f.severity}" data-page="${f.page ?? ''}">
  <span class="sev">${SEVERITY_LABEL[f.severity]}</span> <code>${f.code}</code>
  <p>${esc(f.message)}</p>
  ${f.expected || f.actual ? `<p class="ea">${f.expected ? `expected <b>${esc(f.expected)}</b>` : ''}${f.expected && f.actual ? ' · ' : ''}${f.actual ? `found <b>${esc(f.actual)}</b>` : ''}</p>` : ''}
</li>`,
    )
    .join('')}</ul>`;
}

function pageSection(report: Report, page: ReportPage, preview: HtmlPreview | undefined): string {
  const findings = report.findings.filter((f) => f.page === page.index);
  // A page off its layer's size (in another part's position) is never shown as fine.
  const off = pageSizeOff(page, report.limits.toleranceMm);
  const worst = findings[0]?.severity ?? (off ? 'error' : 'ok');
  const W = page.widthMm;
  const H = page.heightMm;
  const sizeFinding = findings.find((f) => f.code.startsWith('page-') && f.code.endsWith('-mismatch'));
  const sizeOk = !sizeFinding && !off;
  const sizeClass = sizeOk ? 't-ok' : sizeFinding?.severity === 'warning' ? 't-warn' : 't-bad';
  const expected = page.expectedWidthMm !== null ? formatMm(page.expectedWidthMm, page.expectedHeightMm!) : null;
  const img = preview
    ? `<img class="preview" alt="Page ${page.index} preview" src="data:${PREVIEW_MIME[preview.format]};base64,${Buffer.from(preview.bytes).toString('base64')}">`
    : `<div class="no-preview">${page.raster !== null ? 'No preview' : page.layer === null ? 'Not drawn: this page is no layer of the product and does not print' : 'Not rendered (structure-only check)'}</div>`;
  return `<section class="page ${worst}" id="page-${page.index}" data-page="${page.index}">
  <h2><span class="status ${worst}"></span>Page ${page.index}${page.layer ? ` · <span class="layer">${esc(page.layer)}</span>` : ' · <span class="layer none">no layer</span>'}</h2>
  <div class="page-body">
    <figure style="aspect-ratio: ${W} / ${H}">
      ${img}
      ${overlay(report, page, findings)}
      <figcaption>${formatMm(W, H)}${page.rotate ? `, shown turned by /Rotate ${page.rotate}` : ''}</figcaption>
    </figure>
    <div class="details">
      <dl>
        ${looksLike(report, page)}
        <div><dt>Size</dt><dd class="${sizeClass}">${formatMm(W, H)}${expected ? ` ${sizeOk ? '✓' : '✗'} layer ${expected}` : ''}</dd></div>
        ${page.printScale !== 1 ? `<div><dt>Printed at</dt><dd class="t-warn">${formatNumber(page.printScale * 100, 0)} % (scaled to its layer)</dd></div>` : ''}
        ${page.rotate ? `<div><dt>/Rotate</dt><dd class="t-bad">${page.rotate}°</dd></div>` : ''}
        ${page.userUnit !== 1 ? `<div><dt>/UserUnit</dt><dd>${page.userUnit}</dd></div>` : ''}
        ${page.raster ? `<div><dt>Ink</dt><dd>${formatNumber(page.raster.inkCoverage * 100, 1)} % of the page${page.raster.method === 'image' ? ' (from its image)' : ''}</dd></div>` : ''}
        ${page.raster?.approximate ? `<div><dt>Preview</dt><dd class="t-warn">approximate: ${esc(page.raster.approximate)}</dd></div>` : ''}
      </dl>
      ${imageTable(page, report)}
      ${findings.length ? findingList(findings) : off ? '<p class="off">✗ Its size is not its position’s layer size: see the file’s findings.</p>' : '<p class="clean">✓ No findings on this page.</p>'}
    </div>
  </div>
</section>`;
}

const formatPpiNumber = (ppi: number) => formatPpi(ppi).replace(/ ppi$/, '');

function imageTable(page: ReportPage, report: Report): string {
  if (!page.images.length) return '';
  const rows = page.images
    .map((i, n) => {
      // As image-low-resolution judges (threshold.ts): the cell's colour never disagrees with the finding.
      const low = i.printedPpi !== null && isBelow(i.printedPpi, report.limits.minPpi, 1);
      const bad = i.printedPpi !== null && isBelow(i.printedPpi, report.limits.minPpiError, 1);
      const big = Math.max(i.widthPx, i.heightPx) > report.limits.maxImagePixels;
      const rgb = /RGB/.test(i.colourSpace) && !/over Device(CMYK|Gray)|over ICCBased (CMYK|Gray)/.test(i.colourSpace);
      return `<tr><td>${n + 1}</td><td class="${big ? 't-bad' : ''}">${grouped(i.widthPx)} × ${grouped(i.heightPx)}</td><td class="${bad ? 't-bad' : low ? 't-warn' : ''}">${i.printedPpi === null ? '—' : formatPpiNumber(i.printedPpi)}${i.ppi !== null && i.printedPpi !== i.ppi ? ` <small>(${formatPpiNumber(i.ppi)} as placed)</small>` : ''}</td><td class="${rgb ? '' : 't-warn'}">${esc(i.colourSpace)}</td><td>${esc(i.filters.join(', ') || 'none')}${i.jpegQuality !== null ? ` <small class="${i.jpegQuality < (report.limits.minJpegQuality ?? 0) ? 't-warn' : ''}">(quality ${i.jpegQuality})</small>` : ''}${i.upscaleFactor ? ` <small class="t-warn">upscaled ≈ ${formatNumber(i.upscaleFactor, 1)}×</small>` : ''}</td></tr>`;
    })
    .join('');
  return `<table class="images"><caption>${plural(page.images.length, 'image')}</caption><thead><tr><th>#</th><th>pixels</th><th title="effective resolution at the printed size; warning below ${formatNumber(report.limits.minPpi)}, error below ${formatNumber(report.limits.minPpiError)}">ppi printed</th><th>colour space</th><th>encoding</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function overlay(report: Report, page: ReportPage, findings: Finding[]): string {
  const W = page.widthMm;
  const H = page.heightMm;
  // A page with no area to draw on (or one whose area overflows a double) gets no overlay: its
  // viewBox could not be written. Every number below is held within the doubles (finite): a box
  // 1e308 mm across minus one at -1e308 is Infinity, which no SVG reads.
  if (!(W > 0 && H > 0) || !Number.isFinite(W * H)) return '';
  const parts: string[] = [];
  if (page.expectedWidthMm !== null && page.expectedHeightMm !== null) {
    // The layer's bleed, scaled as production would scale the page onto the layer.
    const swapped = findings.some((f) => f.code === 'page-orientation-mismatch');
    const lw = swapped ? page.expectedHeightMm : page.expectedWidthMm;
    const lh = swapped ? page.expectedWidthMm : page.expectedHeightMm;
    const bx = (report.limits.bleedMm * W) / lw;
    const by = (report.limits.bleedMm * H) / lh;
    parts.push(
      `<path class="bleed" fill-rule="evenodd" d="M0 0H${finite(W)}V${finite(H)}H0Z M${finite(bx)} ${finite(by)}V${finite(H - by)}H${finite(W - bx)}V${finite(by)}Z"/>`,
      `<rect class="trim" x="${finite(bx)}" y="${finite(by)}" width="${finite(W - 2 * bx)}" height="${finite(H - 2 * by)}"/>`,
    );
    const safe = page.safeMarginMm ?? report.limits.safeMarginMm;
    if (safe !== null) {
      const sx = bx + (safe * W) / lw;
      const sy = by + (safe * H) / lh;
      parts.push(`<rect class="safe" x="${finite(sx)}" y="${finite(sy)}" width="${finite(W - 2 * sx)}" height="${finite(H - 2 * sy)}"/>`);
    }
  }
  if (page.raster && findings.some((f) => f.code === 'page-edge-gap')) {
    const g = page.raster.edgeGapMm;
    if (g.top) parts.push(`<rect class="gap" x="0" y="0" width="${finite(W)}" height="${finite(g.top)}"/>`);
    if (g.bottom) parts.push(`<rect class="gap" x="0" y="${finite(H - g.bottom)}" width="${finite(W)}" height="${finite(g.bottom)}"/>`);
    if (g.left) parts.push(`<rect class="gap" x="0" y="0" width="${finite(g.left)}" height="${finite(H)}"/>`);
    if (g.right) parts.push(`<rect class="gap" x="${finite(W - g.right)}" y="0" width="${finite(g.right)}" height="${finite(H)}"/>`);
  }
  // Unpainted regions inside the trim (page-unpainted-area), hatched.
  if (page.raster && findings.some((f) => f.code === 'page-unpainted-area')) {
    for (const [x0, y0, x1, y1] of page.raster.unpaintedAreasMm) parts.push(`<rect class="unpainted" x="${finite(x0)}" y="${finite(y0)}" width="${finite(x1 - x0)}" height="${finite(y1 - y0)}"/>`);
  }
  // Objects in the seam zone, too-thin lines and too-small text, each box titled with what it is.
  const shown = new Set(findings.map((f) => f.code));
  for (const m of page.marked) {
    if (!shown.has(m.code)) continue;
    const [x0, y0, x1, y1] = m.bboxMm;
    const pad = Math.max(W, H) / 400;
    const label = `${m.code}: ${m.kind}${m.text ? ` “${m.text}”` : ''}${m.printedPt !== null ? ` (${formatNumber(m.printedPt, 2)} pt printed)` : ''}`;
    parts.push(
      `<rect class="mark ${m.code}" x="${finite(x0 - pad)}" y="${finite(y0 - pad)}" width="${finite(x1 - x0 + 2 * pad)}" height="${finite(y1 - y0 + 2 * pad)}"><title>${esc(label)}</title></rect>`,
    );
  }
  // Images named by a finding (details.image is the 1-based row of the page's image table).
  const flagged = new Map<number, string>();
  for (const f of findings) {
    const n = f.details?.image;
    if (typeof n === 'number' && (!flagged.has(n) || f.severity === 'error')) flagged.set(n, f.severity);
  }
  page.images.forEach((i, n) => {
    if (!flagged.has(n + 1)) return;
    const [x0, y0, x1, y1] = i.bboxMm;
    parts.push(
      `<rect class="img ${flagged.get(n + 1)}" x="${finite(x0)}" y="${finite(y0)}" width="${finite(x1 - x0)}" height="${finite(y1 - y0)}"/>`,
      `<text class="img-label" x="${finite(Math.max(0, x0) + W * 0.01)}" y="${finite(Math.max(0, y0) + H * 0.045)}" font-size="${finite(Math.max(W, H) * 0.035)}">${n + 1}</text>`,
    );
  });
  const stroke = Math.max(W, H) / 300;
  return `<svg class="overlay" viewBox="0 0 ${finite(W)} ${finite(H)}" preserveAspectRatio="none" style="--sw:${finite(stroke)}" aria-hidden="true">${parts.join('')}</svg>`;
}

function legend(report: Report): string {
  const codes = [...new Set(report.findings.map((f) => f.code))];
  return `<section class="legend">
  <h2>How to read this report</h2>
  <p class="keys"><span class="key bleed"></span> bleed (${formatNumber(report.limits.bleedMm)} mm, cut or sewn away) <span class="key trim"></span> trim line${report.limits.safeMarginMm !== null || report.pages.some((p) => p.safeMarginMm !== null) ? ' <span class="key safe"></span> safe line' : ''} <span class="key gap"></span> white band at a sewn edge <span class="key img"></span> image with a problem <span class="key seam"></span> in the seam zone <span class="key fine"></span> line or text too fine <span class="key unpainted"></span> unpainted</p>
  ${codes.length ? `<dl class="rules">${codes.map((c) => `<div><dt><code>${c}</code></dt><dd>${esc(FINDING_CODES[c].description)} <i>(${esc(FINDING_CODES[c].rule)})</i></dd></div>`).join('')}</dl>` : ''}
</section>`;
}

const CSS = `
:root{--err:#cf222e;--warn:#9a6700;--info:#57606a;--ok:#1a7f37;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.banner{display:flex;gap:24px;align-items:center;padding:20px 32px;color:#fff}
.banner.pass{background:#116329}.banner.warn{background:#7d4e00}.banner.fail{background:#a40e26}
.verdict{font-size:30px;font-weight:700;padding:6px 18px;border:3px solid rgba(255,255,255,.85);border-radius:10px;white-space:nowrap}
.what{flex:1;min-width:0}.what h1{margin:0;font-size:20px;word-break:break-all}.what p{margin:2px 0 0;opacity:.95}
.counts{list-style:none;margin:0;padding:0;display:flex;gap:8px}
.counts li{background:rgba(0,0,0,.22);border-radius:999px;padding:4px 12px;font-weight:600;white-space:nowrap}
main{max-width:1280px;margin:0 auto;padding:20px 24px}
section{background:#fff;border:1px solid var(--line);border-radius:10px;margin:0 0 18px;padding:16px 20px}
h2{margin:0 0 12px;font-size:18px;display:flex;align-items:center;gap:8px}
.layer{font-weight:700}.layer.none{color:var(--muted);font-weight:400}
.facts dl{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:6px 24px;margin:0}
dl div{display:flex;gap:10px}dt{color:var(--muted);min-width:80px}dd{margin:0;min-width:0;overflow-wrap:anywhere}
.status{width:14px;height:14px;border-radius:50%;display:inline-block;background:var(--ok)}
.status.error{background:var(--err)}.status.warning{background:#d4a72c}.status.info{background:var(--info)}
.page-body{display:grid;grid-template-columns:minmax(220px,440px) 1fr;gap:24px;align-items:start}
@media (max-width:820px){.page-body{grid-template-columns:1fr}}
figure{position:relative;margin:0;max-height:560px;width:100%;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px;border:1px solid var(--line)}
figure img,.no-preview{position:absolute;inset:0;width:100%;height:100%;display:block}
.no-preview{display:flex;align-items:center;justify-content:center;color:var(--muted);font-size:13px;text-align:center;padding:8px}
figure.broken::after{content:"Preview could not be displayed";position:absolute;inset:40% 0 auto;text-align:center;color:var(--err);font-weight:600}
figcaption{position:absolute;top:100%;left:0;font-size:12px;color:var(--muted);padding-top:4px}
.overlay{position:absolute;inset:0;width:100%;height:100%;overflow:visible}
.overlay .bleed{fill:rgba(230,0,110,.16)}
.overlay .trim{fill:none;stroke:#e6006e;stroke-width:var(--sw);stroke-dasharray:calc(var(--sw)*4) calc(var(--sw)*2.5)}
.overlay .safe{fill:none;stroke:#0969da;stroke-width:var(--sw);stroke-dasharray:calc(var(--sw)*1) calc(var(--sw)*2)}
.overlay .gap{fill:rgba(207,34,46,.45);stroke:var(--err);stroke-width:calc(var(--sw)*.6)}
.overlay .img{fill:none;stroke-width:calc(var(--sw)*2)}.overlay .img.warning{stroke:#d4a72c}.overlay .img.error{stroke:var(--err)}
.overlay .unpainted{fill:rgba(130,80,255,.28);stroke:#8250df;stroke-width:calc(var(--sw)*.5)}
.overlay .mark{fill:none;stroke-width:calc(var(--sw)*1.2)}.overlay .mark.content-in-seam-zone{stroke:#e16f24}.overlay .mark.line-too-thin,.overlay .mark.text-too-small{stroke:#bf3989;stroke-dasharray:calc(var(--sw)*2) calc(var(--sw)*1)}
.overlay .img-label{fill:#fff;stroke:#000;stroke-width:calc(var(--sw)*.5);paint-order:stroke;font-weight:700}
.details{min-width:0;padding-top:2px}.details dl{margin:0 0 10px}
.t-ok{color:var(--ok)}.t-bad{color:var(--err);font-weight:600}.t-warn{color:var(--warn)}
.findings{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.finding{border-left:5px solid var(--info);background:var(--bg);border-radius:6px;padding:8px 12px}
.finding.error{border-color:var(--err);background:#ffebe9}.finding.warning{border-color:#d4a72c;background:#fff8c5}
.finding p{margin:4px 0 0}.finding .ea{color:var(--muted);font-size:13px}
.sev{font-weight:700;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.finding.error .sev{color:var(--err)}.finding.warning .sev{color:var(--warn)}.finding.info .sev{color:var(--info)}
.clean{color:var(--ok);font-weight:600;margin:8px 0}.off{color:var(--err);font-weight:600;margin:8px 0}
table.images{border-collapse:collapse;width:100%;margin:0 0 12px;font-size:13px}
table.images caption{text-align:left;color:var(--muted);padding-bottom:4px}
table.images th,table.images td{border-bottom:1px solid var(--line);padding:3px 8px 3px 0;text-align:left}
.legend .keys{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}
.key{display:inline-block;width:22px;height:14px;vertical-align:middle;border-radius:2px}
.key.bleed{background:rgba(230,0,110,.16)}.key.trim{border:2px dashed #e6006e}.key.safe{border:2px dotted #0969da}
.key.gap{background:rgba(207,34,46,.45)}.key.img{border:3px solid #d4a72c}
.key.seam{border:2px solid #e16f24}.key.fine{border:2px dashed #bf3989}.key.unpainted{background:rgba(130,80,255,.28);border:1px solid #8250df}
.rules div{display:block;margin:4px 0}.rules dt{display:inline;margin-right:8px}.rules dd{display:inline}
footer{text-align:center;color:var(--muted);font-size:12px;padding:8px 0 24px}
`;
