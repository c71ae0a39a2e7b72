/**
 * The customer's report as text, in their language: what `print-preflight check --locale xx`
 * prints without `--json` — the verdict and what it means, then the file's findings and each
 * part's, every finding in the customer's words (title, what happens, what to do). Text from the
 * file is made safe for a terminal.
 */
import { designsByPage, layerName, productName, type NamedTarget, type UiFormatter } from '../messages/catalogue.js';
import type { Finding } from '../model/finding.js';
import { pageSizeOff } from './page-size.js';
import type { Report } from './schema.js';
import { safeForTerminal } from './terminal.js';
import { wrap } from './wrap.js';

export interface CustomerTextOptions {
  colour?: boolean;
  /** Wrap to this many columns. Default: one line per paragraph. */
  width?: number;
}

const MARK = { error: '✖', warning: '⚠', info: 'ℹ' } as const;
/** Parts listed one by one; a longer file's pages are counted after them (--json lists every page). */
const MAX_PARTS = 50;

/**
 * The report (its findings told in the locale of `t`) as the customer's text.
 * @example
 * const t = await uiFormatter('pt-BR');
 * process.stdout.write(renderCustomerText(await localizeReport(report, profile, 'pt-BR'), t, profile));
 */
export function renderCustomerText(report: Report, t: UiFormatter, target: NamedTarget, options: CustomerTextOptions = {}): string {
  const on = options.colour ?? false;
  const paint = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[39;22m` : s);
  const red = paint('31');
  const yellow = paint('33');
  const green = paint('32');
  const bold = (s: string) => (on ? `\x1b[1m${s}\x1b[22m` : s);
  const width = options.width && options.width >= 40 ? options.width : undefined;
  const lines: string[] = [];
  const push = (text: string, indent: string) => lines.push(...(width ? wrap(text, width, indent) : [text]));
  const verdict = t(report.verdict === 'pass' ? 'verdictPass' : report.verdict === 'warn' ? 'verdictWarn' : 'verdictFail');
  const colourOf = report.verdict === 'pass' ? green : report.verdict === 'warn' ? yellow : red;
  push(`${colourOf(bold(verdict))} — ${bold(safeForTerminal(report.file.path ?? 'PDF'))}`, '  ');
  push(`  ${t('productLine', { product: productName(target, t.locale), variant: report.variant })} · ${t('counts', { errors: report.counts.error, warnings: report.counts.warning })}`, '  ');
  push(`  ${t(report.verdict === 'pass' ? 'verdictLinePass' : report.verdict === 'warn' ? 'verdictLineWarn' : 'verdictLineFail')}`, '  ');
  const mark = (f: Pick<Finding, 'severity'>) => (f.severity === 'error' ? red(MARK.error) : f.severity === 'warning' ? yellow(MARK.warning) : MARK.info);
  const findings = (list: readonly Finding[]) => {
    for (const f of list) {
      const c = f.customer;
      if (!c) {
        push(`    ${mark(f)} ${safeForTerminal(f.message)}`, '      ');
        continue;
      }
      push(`    ${mark(f)} ${bold(c.title)}`, '      ');
      push(`      ${c.problem} ${c.production}`, '      ');
      push(`      ${t('whatToDo')} ${c.advice}`, '      ');
    }
  };
  const fileFindings = report.findings.filter((f) => f.page === null);
  if (fileFindings.length) {
    lines.push('', `  ${bold(t('fileFindings'))}`);
    findings(fileFindings);
  }
  const designs = designsByPage(
    report.findings,
    target.layers.map((l) => l.id),
  );
  const rank = { info: 1, warning: 2, error: 3 } as const;
  for (const page of report.pages.slice(0, MAX_PARTS)) {
    const own = report.findings.filter((f) => f.page === page.index);
    const design = designs.get(page.index) ?? page.layer;
    const name = design ? layerName(target, design, t.locale) : t('pageWithoutPart', { page: page.index });
    // A page off its layer's size (a design in another part's position) never gets a ✓.
    const off = pageSizeOff(page, report.limits.toleranceMm) || (designs.has(page.index) && designs.get(page.index) !== page.layer);
    const worst = off ? 'error' : own.reduce<Finding['severity'] | null>((w, f) => (w === null || rank[f.severity] > rank[w] ? f.severity : w), null);
    const ok = worst === null || worst === 'info';
    lines.push('');
    push(`  ${ok ? green('✓') : mark({ severity: worst })} ${bold(safeForTerminal(name))} · ${t('pageOfFile', { page: page.index })} · ${t(partVerdictKey(worst))}`, '    ');
    findings(own);
  }
  if (report.pages.length > MAX_PARTS) lines.push('', `  … ${report.pages.length - MAX_PARTS}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What a part's line says, in the header's terms: an error is something to change (counted as
 * such above), a warning only a note — a part with notes alone has nothing to change.
 */
export function partVerdictKey(worst: 'ok' | 'info' | 'warning' | 'error' | null): 'partOk' | 'partNotes' | 'partNotOk' {
  return worst === 'error' ? 'partNotOk' : worst === 'warning' ? 'partNotes' : 'partOk';
}
