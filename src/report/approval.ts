/**
 * The approval page: what a platform links its customer to when a check fixed their file and waits
 * for approval. Each part of the product with the ORIGINAL page that became it beside the page as
 * it will print (paired by design, through a reorder, a turn or a scaling), each change up close
 * where it happened, the design drawn on the product, and two buttons that post a plain form (no
 * script). Once decided, the outcome stands at the top. Everything is in the customer's language;
 * self-contained (images as data: URIs); every text from the file or the profile is escaped.
 */
import type { PreviewFormat } from '../model/preview.js';
import type { UiFormatter } from '../messages/catalogue.js';
import { escapeHtml as esc } from '../util/text.js';

/** An image on the page. */
export interface PageImage {
  bytes: Uint8Array;
  format: PreviewFormat;
  widthPx: number;
  heightPx: number;
}

/** One part of the product: the original page that became it, and the page as it will print. */
export interface ApprovalPart {
  /** The part's name in the locale. */
  name: string;
  /** Page of the fixed file, and the original page that became it. */
  afterPage: number;
  beforePage: number | null;
  before: PageImage | null;
  after: PageImage | null;
  beforeAlt: string;
  afterAlt: string;
  /** Said when the design came from another page of the file ("This design was on page 3…"). */
  moved: string | null;
  /** The changes made on this part, in the customer's words. */
  changes: string[];
  /** Each change up close: the same spot before and after. */
  closeUps: { before: PageImage; after: PageImage }[];
  mockup: PageImage | null;
  mockupAlt: string;
  /**
   * The bleed on each side of the page as it will print, as a share of its width (`x`) and height
   * (`y`), when this part's bleed was made by mirroring the design's edges (a page or an image made
   * at the trim size): marked over the picture, with the cut line, so the customer sees that the
   * mirrored strips are cut away.
   */
  bleed?: { x: number; y: number } | null;
}

export interface ApprovalPageInput {
  t: UiFormatter;
  /** A language asked for that the page is not in, said at the top (in the page's language). */
  notice: string | null;
  /** "T-shirt, size M". */
  productLine: string;
  /** Values for the intro: the product's forms (`product_…`). */
  productValues: Record<string, string>;
  /** Every change, in the customer's words (one line per distinct text). */
  changes: readonly string[];
  /** What the fixed file still has to note. */
  remaining: readonly { severity: 'error' | 'warning' | 'info'; title: string; text: string }[];
  parts: readonly ApprovalPart[];
  /** Where the forms post: `…/approve` and `…/reject` are appended. */
  action: string;
  /** A query the forms post with (`?locale=pt-BR`: the outcome comes in the language the page was read in). */
  actionQuery?: string;
  /** `pending` shows the buttons; the others the outcome, at the top. */
  state: 'pending' | 'approved' | 'rejected' | 'auto';
  /** When it was decided. */
  decidedAt: Date | null;
  /** The fixed file still fails: there was nothing to approve. */
  stillFails?: boolean;
}

const src = (p: PageImage) => `data:image/${p.format};base64,${Buffer.from(p.bytes).toString('base64')}`;
const img = (p: PageImage | null, alt: string, cls = '') =>
  p ? `<img${cls ? ` class="${cls}"` : ''} alt="${esc(alt)}" src="${src(p)}"${p.widthPx > 0 ? ` width="${p.widthPx}" height="${p.heightPx}"` : ''}>` : '';

/**
 * The approval page's HTML.
 * @example
 * const html = renderApproval({ t: await uiFormatter('pt-BR'), notice: null, productLine: 'Camiseta, tamanho M', productValues, changes, remaining: [], parts, action: '/v1/approvals/abc', state: 'pending', decidedAt: null });
 */
export function renderApproval(input: ApprovalPageInput): string {
  const { t } = input;
  const parts = input.parts.map((p) => partSection(input, p)).join('\n');
  const changes = input.changes.map((c) => `<li>${esc(c)}</li>`).join('');
  const remaining = input.remaining.map((f) => `<li class="${f.severity}"><strong>${esc(f.title)}</strong> ${esc(f.text)}</li>`).join('');
  const decided = input.state !== 'pending';
  return `<!doctype html>
<html lang="${t.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(t('approvalTitle'))} — ${esc(input.productLine)}</title>
<style>${CSS}</style></head>
<body><main>
${input.notice ? `<p class="notice" role="note">${esc(input.notice)}</p>` : ''}
${decided ? outcomeBlock(input) : ''}
<h1>${esc(t('approvalTitle'))}</h1>
<p class="product">${esc(input.productLine)}</p>
<p>${esc(t('approvalIntro', input.productValues))}</p>
<section class="summary" aria-labelledby="changes-title"><h2 id="changes-title">${esc(t('changes'))}</h2><ul class="changes">${changes}</ul>
${remaining ? `<h2>${esc(t('stillToNote'))}</h2><ul class="remaining">${remaining}</ul>` : ''}</section>
${parts}
${decided ? '' : actions(input)}
</main></body></html>
`;
}

function partSection(input: ApprovalPageInput, p: ApprovalPart): string {
  const { t } = input;
  const id = `part-${p.afterPage}`;
  const closeUps = p.closeUps.length
    ? `<figure class="closeups"><figcaption>${esc(t('whereChanged'))}</figcaption>${p.closeUps
        .map(
          (c) =>
            `<div class="closeup"><figure class="detail-before"><figcaption>${esc(t('before'))}</figcaption>${img(c.before, t('cropBeforeAlt'))}</figure><figure class="detail-after"><figcaption>${esc(t('after'))}</figcaption>${img(c.after, t('cropAfterAlt'))}</figure></div>`,
        )
        .join('')}</figure>`
    : '';
  return `<section class="layer" data-page="${p.afterPage}" data-before-page="${p.beforePage ?? ''}" aria-labelledby="${id}">
<h2 id="${id}">${esc(p.name)}</h2>
${p.moved ? `<p class="moved">${esc(p.moved)}</p>` : ''}
${p.changes.length ? `<ul class="part-changes">${p.changes.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>` : ''}
<div class="pair"><figure class="before"><figcaption><strong>${esc(t('before'))}</strong> · ${esc(p.beforePage !== null ? t('beforeCaption', { page: p.beforePage }) : t('noPreview'))}</figcaption>${img(p.before, p.beforeAlt) || `<p class="none">${esc(t('noPreview'))}</p>`}</figure><figure class="after"><figcaption><strong>${esc(t('after'))}</strong> · ${esc(t('afterCaption'))}</figcaption>${afterPicture(p, t)}</figure></div>
${closeUps}
${p.mockup ? `<figure class="mockup"><figcaption>${esc(t('onProduct'))}</figcaption>${img(p.mockup, p.mockupAlt)}</figure>` : ''}
</section>`;
}

/** The page as it will print; with its mirrored bleed marked (shaded, the cut line dashed) and said in a legend. */
function afterPicture(p: ApprovalPart, t: UiFormatter): string {
  const picture = img(p.after, p.afterAlt);
  if (!picture) return `<p class="none">${esc(t('noPreview'))}</p>`;
  if (!p.bleed || !(p.bleed.x > 0 || p.bleed.y > 0) || p.bleed.x >= 0.5 || p.bleed.y >= 0.5) return picture;
  const n = (v: number) => Math.round(v * 100000) / 100;
  const [bx, by] = [n(p.bleed.x), n(p.bleed.y)];
  const svg = `<svg class="bleed-marks" viewBox="0 0 1000 1000" preserveAspectRatio="none" aria-hidden="true" focusable="false"><path class="bleed" fill-rule="evenodd" d="M0 0H1000V1000H0Z M${bx} ${by}V${1000 - by}H${1000 - bx}V${by}Z"/><rect class="trim" x="${bx}" y="${by}" width="${1000 - 2 * bx}" height="${1000 - 2 * by}" vector-effect="non-scaling-stroke"/></svg>`;
  return `<div class="marked" data-bleed-x="${p.bleed.x}" data-bleed-y="${p.bleed.y}">${picture}${svg}</div><p class="legend"><span class="key bleed"></span> ${esc(t('legendBleed'))} · <span class="key trim"></span> ${esc(t('legendTrim'))}</p>`;
}

function actions(input: ApprovalPageInput): string {
  const { t } = input;
  return `<!--actions--><section class="actions" aria-label="${esc(t('approvalTitle'))}"><form method="post" action="${esc(`${input.action}/approve${input.actionQuery ?? ''}`)}"><button type="submit" class="approve">${esc(t('approve'))}</button></form><form method="post" action="${esc(`${input.action}/reject${input.actionQuery ?? ''}`)}"><label for="reason">${esc(t('reason'))}</label><input id="reason" name="reason" maxlength="1000" autocomplete="off"><button type="submit" class="reject">${esc(t('reject'))}</button></form></section><!--/actions-->`;
}

function outcomeBlock(input: ApprovalPageInput): string {
  const { t } = input;
  const date = input.decidedAt ?? new Date(0);
  // Nothing to approve: the fixed file still fails, and no one prints it.
  if (input.state === 'auto' && input.stillFails) return `<div class="outcome rejected" role="status"><p><strong>${esc(t('stateStillFailsLine'))}</strong></p></div>`;
  const key = input.state === 'rejected' ? 'decidedRejected' : input.state === 'auto' ? 'decidedAuto' : 'decidedApproved';
  return `<div class="outcome ${input.state}" role="status"><p><strong>${esc(t(key, { date }))}</strong></p><p>${esc(t('decidedNext'))}</p></div>`;
}

const CSS = `
:root{--ink:#1f2328;--muted:#555f6b;--line:#c9d1d9;--ok:#116329;--bad:#a40e26;--accent:#0550ae}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--ink);background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;line-height:1.25;margin:.25rem 0 .5rem}
h2{font-size:1.2rem;margin:1.25rem 0 .5rem}
.product{color:var(--muted);margin:0 0 .5rem}
.notice{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:.6rem .8rem}
.outcome{border-radius:8px;padding:.8rem 1rem;margin:0 0 1rem;border:2px solid var(--ok);background:#dafbe1}
.outcome.rejected{border-color:var(--bad);background:#ffebe9}
.outcome p{margin:.2rem 0}
.summary,.layer,.actions{background:#fff;border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:0 0 16px}
.summary h2:first-child,.layer h2{margin-top:0}
ul{padding-left:1.25rem}li{margin:.2rem 0}
.remaining .error strong{color:var(--bad)}
.moved{background:#ddf4ff;border-left:4px solid var(--accent);padding:.4rem .6rem;margin:.25rem 0 .75rem}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px}
@media (min-width:640px){.pair{gap:12px}}
figure{margin:0}
.pair figure,.mockup,.closeups{border:1px solid var(--line);border-radius:8px;padding:6px;background:#fff;min-width:0}
figcaption{font-size:.95rem;margin-bottom:6px}
img{max-width:100%;height:auto;display:block;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}
.none{color:var(--muted)}
.marked{position:relative}
.bleed-marks{position:absolute;inset:0;width:100%;height:100%}
.bleed-marks .bleed{fill:rgba(180,0,90,.28)}
.bleed-marks .trim{fill:none;stroke:#b4005a;stroke-width:2;stroke-dasharray:8 5}
.legend{font-size:.9rem;margin:.4rem 0 0}
.key{display:inline-block;width:1.1em;height:.8em;vertical-align:middle;margin-right:.2em}
.key.bleed{background:rgba(180,0,90,.28)}.key.trim{border:2px dashed #b4005a}
.closeups,.mockup{margin-top:12px}
.closeup{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-top:6px}
.closeup figure{border:0;padding:0}
.mockup img{max-height:560px;width:auto;margin:0 auto}
.actions{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-end}
.actions form{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}
label{display:block;width:100%;font-weight:600}
input{font:inherit;padding:.5rem;border:1px solid #6e7781;border-radius:6px;min-width:0;width:100%;max-width:22rem}
button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border-radius:6px;border:2px solid var(--ink);cursor:pointer;min-height:44px}
button:focus-visible,input:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.approve{background:var(--ok);border-color:var(--ok);color:#fff}
.reject{background:#fff;color:var(--bad);border-color:var(--bad)}
`;
