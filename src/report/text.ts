import { formatMm, formatBytes } from '../pdf/units.js';
import { formatPpi } from '../rules/check-image-resolution.js';
import type { Finding } from '../model/finding.js';
import { formatRanges } from '../util/ranges.js';
import { pageSizeOff } from './page-size.js';
import type { Report } from './schema.js';
import { wrap } from './wrap.js';

export { wrap } from './wrap.js';
import { minOf, pushAll } from '../util/array.js';
import { safeForTerminal } from './terminal.js';
import { grouped } from '../util/text.js';

export interface TextOptions {
  /** ANSI colours. Default false. */
  colour?: boolean;
  /** Wrap lines to this many columns (a terminal's width). Default: no wrapping, one line per item. */
  width?: number;
  /** Most page lines shown before the rest are summarised. Default 24. */
  maxPageLines?: number;
  /** Most findings (after grouping) shown before the rest are summarised. Default 40. */
  maxFindings?: number;
}

const SEVERITY_MARK = { error: '✖', warning: '⚠', info: 'ℹ' } as const;
const VERDICT_WORD = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;
/** "Page 12 (front)" at the start of a message. */
const PAGE_PREFIX = /^Page \d+(?: \([^)]*\))?/;

/** A finding shown once for every page it repeats on. */
interface Group {
  finding: Finding;
  pages: number[];
  rest: string;
}

/**
 * A readable summary of a report, as `print-preflight check` prints it: the same finding on several
 * pages is shown once ("Pages 1–4: …"), runs of alike pages are one line, and long lists end in a
 * count, so a 20,000-page file prints a screen, not 20,000 lines.
 * @example process.stdout.write(renderText(report, { colour: process.stdout.isTTY, width: process.stdout.columns }));
 */
export function renderText(report: Report, options: TextOptions = {}): string {
  const c = palette(options.colour ?? false);
  const width = options.width && options.width >= 40 ? options.width : undefined;
  const maxPageLines = options.maxPageLines ?? 24;
  const maxFindings = options.maxFindings ?? 40;
  const lines: string[] = [];
  const push = (text: string, indent: string) => pushAll(lines, width ? wrap(text, width, indent) : [text]);
  const verdictColour = report.verdict === 'pass' ? c.green : report.verdict === 'warn' ? c.yellow : c.red;
  const name = safeForTerminal(report.file.path ?? '(bytes)');
  push(`${verdictColour(c.bold(` ${VERDICT_WORD[report.verdict]} `))} ${c.bold(name)} — ${report.product} ${report.variant} (${report.sku}, profile ${report.profileVersion})`, '       ');
  const pages = report.pdf.pageCount === null ? 'pages unreadable' : `${grouped(report.pdf.pageCount)} page${report.pdf.pageCount === 1 ? '' : 's'}`;
  push(
    `       ${formatBytes(report.file.bytes)}, ${pages}${report.pdf.version ? `, PDF ${report.pdf.version}` : ''} · ${c.red(`${report.counts.error} error${report.counts.error === 1 ? '' : 's'}`)}, ${c.yellow(`${report.counts.warning} warning${report.counts.warning === 1 ? '' : 's'}`)}, ${report.counts.info} info`,
    '       ',
  );

  if (report.pages.length) {
    lines.push('');
    // Runs of consecutive pages with the same line become one line.
    const worstByPage = new Map<number, Finding['severity']>();
    for (const f of report.findings) if (f.page !== null && !worstByPage.has(f.page)) worstByPage.set(f.page, f.severity);
    const rows: { first: number; last: number; layer: string | null; body: string; worst: Finding['severity'] | undefined }[] = [];
    for (const p of report.pages) {
      const expected = p.expectedWidthMm !== null ? ` (layer ${formatMm(p.expectedWidthMm, p.expectedHeightMm!)})` : ' (no layer)';
      const imgs = p.images.length ? `, ${p.images.length} image${p.images.length === 1 ? '' : 's'}${lowestPpi(p.images)}` : ', no images';
      const approximate = p.raster?.approximate ? `; preview approximate: ${safeForTerminal(p.raster.approximate)}` : '';
      const body = `${formatMm(p.widthMm, p.heightMm)}${expected}${p.rotate ? `, /Rotate ${p.rotate}` : ''}${p.printScale !== 1 ? `, printed at ${Math.round(p.printScale * 100)} %` : ''}${imgs}${approximate}`;
      // A page off its layer's size (a design in another part's position) never gets a ✓.
      const worst = worstByPage.get(p.index) ?? (pageSizeOff(p, report.limits.toleranceMm) ? 'error' : undefined);
      const last = rows[rows.length - 1];
      if (last && last.last === p.index - 1 && last.body === body && last.worst === worst && last.layer === null && p.layer === null) last.last = p.index;
      else rows.push({ first: p.index, last: p.index, layer: p.layer, body, worst });
    }
    const shown = rows.length > maxPageLines ? rows.slice(0, maxPageLines - 1) : rows;
    for (const r of shown) {
      const mark = r.worst ? (r.worst === 'error' ? c.red('✖') : r.worst === 'warning' ? c.yellow('⚠') : c.dim('ℹ')) : c.green('✓');
      const label = r.first === r.last ? `Page ${r.first}` : `Pages ${grouped(r.first)}–${grouped(r.last)}`;
      push(`  ${mark} ${label}${r.layer ? ` ${c.bold(safeForTerminal(r.layer))}` : ''}: ${r.body}`, '      ');
    }
    if (shown.length < rows.length) {
      const hidden = rows.slice(shown.length).reduce((n, r) => n + r.last - r.first + 1, 0);
      push(`  … ${grouped(hidden)} more page${hidden === 1 ? '' : 's'} (pages ${grouped(rows[shown.length]!.first)}–${grouped(rows[rows.length - 1]!.last)}; --json lists every page)`, '    ');
    }
  }

  if (report.findings.length) {
    lines.push('');
    const groups = groupFindings(report.findings);
    const shown = groups.length > maxFindings ? groups.slice(0, maxFindings - 1) : groups;
    for (const g of shown) {
      const f = g.finding;
      const mark = f.severity === 'error' ? c.red(SEVERITY_MARK.error) : f.severity === 'warning' ? c.yellow(SEVERITY_MARK.warning) : c.dim(SEVERITY_MARK.info);
      lines.push(`  ${mark} ${c.dim(f.code)}${g.pages.length > 1 ? c.dim(` × ${grouped(g.pages.length)}`) : ''}`);
      const message = safeForTerminal(g.pages.length > 1 ? `Pages ${formatRanges(g.pages)}${g.rest.replace(/^ is /, ' are ')}` : f.message);
      push(`    ${message}`, '    ');
    }
    if (shown.length < groups.length) {
      const hidden = groups.slice(shown.length).reduce((n, g) => n + g.pages.length, 0);
      push(`  … ${grouped(hidden)} more finding${hidden === 1 ? '' : 's'} (--json or --html for all)`, '    ');
    }
  } else {
    lines.push('', `  ${c.green('✓')} No findings: the file meets every rule checked.`);
  }
  return `${lines.join('\n')}\n`;
}

/** Findings that differ only in their page ("Page 3 (back): …") become one group, in report order. */
export function groupFindings(findings: readonly Finding[]): Group[] {
  const groups = new Map<string, Group>();
  const out: Group[] = [];
  for (const f of findings) {
    const rest = f.page !== null && PAGE_PREFIX.test(f.message) ? f.message.replace(PAGE_PREFIX, '') : null;
    const key = rest === null ? null : `${f.code}\u0000${f.severity}\u0000${rest}`;
    const hit = key === null ? undefined : groups.get(key);
    if (hit) {
      hit.pages.push(f.page!);
      continue;
    }
    const g: Group = { finding: f, pages: f.page === null ? [] : [f.page], rest: rest ?? f.message };
    if (key !== null) groups.set(key, g);
    out.push(g);
  }
  return out;
}

function lowestPpi(images: Report['pages'][number]['images']): string {
  const ppis = images.map((i) => i.printedPpi).filter((p): p is number => p !== null);
  return ppis.length ? `, lowest ${formatPpi(minOf(ppis))}` : '';
}

function palette(on: boolean) {
  const wrapWith = (open: string, close: string) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    bold: wrapWith('1', '22'),
    dim: wrapWith('2', '22'),
    red: wrapWith('31', '39'),
    green: wrapWith('32', '39'),
    yellow: wrapWith('33', '39'),
  };
}
