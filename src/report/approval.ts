/**
 * The approval page: what a platform links its customer to when a check fixed their file and waits
 * for approval. Each layer before and after, side by side; the changes and the remaining findings
 * in the customer's words; two buttons that post a plain form (no script). Self-contained: previews
 * are inlined as data: URIs, every text from the file or the profile is escaped.
 */
import type { Preview } from '../flow/preflight.js';
import type { Locale } from '../messages/locales.js';
import type { Report } from './schema.js';
import { escapeHtml as esc } from '../util/text.js';

const UI: Record<Locale, Record<'heading' | 'intro' | 'before' | 'after' | 'changes' | 'remaining' | 'approve' | 'reject' | 'reason' | 'approved' | 'rejected' | 'page', string>> = {
  en: {
    heading: 'Please check the changes to your design',
    intro: 'We changed your file so that it prints correctly. Compare each side before and after, then approve or reject the changes.',
    before: 'Before',
    after: 'After',
    changes: 'What we changed',
    remaining: 'Still to note',
    approve: 'Approve the changes',
    reject: 'Reject the changes',
    reason: 'Why (optional)',
    approved: 'You approved the changes. Thank you!',
    rejected: 'You rejected the changes. Your original file will not be printed as it is; please upload a new file.',
    page: 'Page',
  },
  pt: {
    heading: 'Verifique as alterações ao seu design',
    intro: 'Alterámos o seu ficheiro para que seja impresso corretamente. Compare cada lado antes e depois e aprove ou rejeite as alterações.',
    before: 'Antes',
    after: 'Depois',
    changes: 'O que alterámos',
    remaining: 'A ter em conta',
    approve: 'Aprovar as alterações',
    reject: 'Rejeitar as alterações',
    reason: 'Porquê (opcional)',
    approved: 'Aprovou as alterações. Obrigado!',
    rejected: 'Rejeitou as alterações. O ficheiro original não será impresso assim; envie um novo ficheiro.',
    page: 'Página',
  },
  es: {
    heading: 'Revise los cambios en su diseño',
    intro: 'Hemos cambiado su archivo para que se imprima correctamente. Compare cada cara antes y después, y apruebe o rechace los cambios.',
    before: 'Antes',
    after: 'Después',
    changes: 'Qué hemos cambiado',
    remaining: 'A tener en cuenta',
    approve: 'Aprobar los cambios',
    reject: 'Rechazar los cambios',
    reason: 'Por qué (opcional)',
    approved: 'Ha aprobado los cambios. ¡Gracias!',
    rejected: 'Ha rechazado los cambios. Su archivo original no se imprimirá así; suba un archivo nuevo.',
    page: 'Página',
  },
};

export interface ApprovalPageInput {
  locale: Locale;
  /** Product and layer names in the locale. */
  product: string;
  layerNames: ReadonlyMap<string, string>;
  before: Report;
  after: Report;
  beforePreviews: ReadonlyMap<number, Preview>;
  afterPreviews: ReadonlyMap<number, Preview>;
  /** The changes, in the customer's words (or technical when no locale was asked for). */
  changes: readonly { page: number | null; text: string }[];
  /** Where the form posts: `…/approve` and `…/reject` are appended. */
  action: string;
  /** `pending` shows the buttons; `approved`/`rejected` the outcome. */
  state: 'pending' | 'approved' | 'rejected' | 'auto';
}

const img = (p: Preview | undefined, alt: string) =>
  p ? `<img alt="${esc(alt)}" src="data:image/${p.format};base64,${Buffer.from(p.bytes).toString('base64')}"${p.widthPx > 0 ? ` width="${p.widthPx}" height="${p.heightPx}"` : ''}>` : `<div class="none">—</div>`;

/**
 * The approval page's HTML.
 * @example
 * const html = renderApproval({ locale: 'pt', product: 'T-shirt', layerNames, before, after, beforePreviews, afterPreviews, changes, action: '/v1/approvals/abc', state: 'pending' });
 */
export function renderApproval(input: ApprovalPageInput): string {
  const t = UI[input.locale];
  const pages = Math.max(input.before.pages.length, input.after.pages.length);
  const rows: string[] = [];
  for (let n = 1; n <= pages; n++) {
    const layer = input.after.pages[n - 1]?.layer ?? input.before.pages[n - 1]?.layer ?? null;
    const name = (layer && input.layerNames.get(layer)) ?? `${t.page} ${n}`;
    const beforePage = input.before.pages.find((p) => p.index === n);
    // Pages were reordered: show the original page that became this one, if the report knows it.
    rows.push(`<section class="layer" data-page="${n}"><h2>${esc(name)}</h2><div class="pair"><figure class="before"><figcaption>${esc(t.before)}</figcaption>${img(beforePage ? input.beforePreviews.get(n) : undefined, `${name} — ${t.before}`)}</figure><figure class="after"><figcaption>${esc(t.after)}</figcaption>${img(input.afterPreviews.get(n), `${name} — ${t.after}`)}</figure></div></section>`);
  }
  const changes = input.changes.map((c) => `<li>${esc(c.text)}</li>`).join('');
  const remaining = input.after.findings
    .map((f) => (f.customer ? `<li class="${esc(f.severity)}"><strong>${esc(f.customer.title)}</strong> ${esc(f.customer.production)} ${esc(f.customer.advice)}</li>` : `<li class="${esc(f.severity)}">${esc(f.message)}</li>`))
    .join('');
  const outcome =
    input.state === 'pending'
      ? `<!--actions--><div class="actions"><form method="post" action="${esc(input.action)}/approve"><button type="submit" class="approve">${esc(t.approve)}</button></form><form method="post" action="${esc(input.action)}/reject"><label>${esc(t.reason)} <input name="reason" maxlength="1000"></label><button type="submit" class="reject">${esc(t.reject)}</button></form></div><!--/actions-->`
      : outcomeBlock(input.state, input.locale);
  return `<!doctype html>
<html lang="${input.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(t.heading)} — ${esc(input.product)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem;color:#222}.pair{display:flex;gap:1rem;flex-wrap:wrap}figure{flex:1 1 300px;margin:0;border:1px solid #ccc;padding:.5rem}figure img{max-width:100%;height:auto;display:block;background:#eee}figcaption{font-weight:600}.actions{display:flex;gap:1rem;flex-wrap:wrap;margin:1.5rem 0}button{font:inherit;padding:.6rem 1.2rem;border-radius:4px;border:1px solid #555;cursor:pointer}.approve{background:#1a7f37;color:#fff}.reject{background:#fff}.error{color:#a40e26}.outcome{font-weight:600;padding:1rem;border:1px solid #999}</style></head>
<body><main><h1>${esc(t.heading)}</h1><p class="product">${esc(input.product)}</p><p>${esc(t.intro)}</p>
<h2>${esc(t.changes)}</h2><ul class="changes">${changes}</ul>
${remaining ? `<h2>${esc(t.remaining)}</h2><ul class="remaining">${remaining}</ul>` : ''}
${rows.join('\n')}
${outcome}</main></body></html>
`;
}

function outcomeBlock(state: 'approved' | 'rejected' | 'auto', locale: Locale): string {
  const t = UI[locale];
  return `<p class="outcome ${state}" role="status">${esc(state === 'rejected' ? t.rejected : t.approved)}</p>`;
}

/**
 * The page of a decided approval: the buttons replaced by the outcome (the page is rendered once,
 * while pending, with its previews; this only swaps the marked block).
 */
export function withOutcome(html: string, state: 'pending' | 'approved' | 'rejected' | 'auto', locale: Locale): string {
  if (state === 'pending') return html;
  return html.replace(/<!--actions-->[\s\S]*?<!--\/actions-->/, () => outcomeBlock(state, locale));
}
