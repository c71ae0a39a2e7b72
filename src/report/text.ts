import { formatMm, formatNumber } from '../pdf/units.js';
import type { Report } from './schema.js';
import { minOf, pushAll } from '../util/array.js';
import { safeForTerminal } from './terminal.js';

export interface TextOptions {
  /** ANSI colours. Default false. */
  colour?: boolean;
}

const SEVERITY_MARK = { error: '✖', warning: '⚠', info: 'ℹ' } as const;
const VERDICT_WORD = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;

/**
 * A readable summary of a report, as `print-preflight check` prints it.
 * @example process.stdout.write(renderText(report, { colour: process.stdout.isTTY }));
 */
export function renderText(report: Report, options: TextOptions = {}): string {
  const c = palette(options.colour ?? false);
  const lines: string[] = [];
  const verdictColour = report.verdict === 'pass' ? c.green : report.verdict === 'warn' ? c.yellow : c.red;
  const name = safeForTerminal(report.file.path ?? '(bytes)');
  lines.push(
    `${verdictColour(c.bold(` ${VERDICT_WORD[report.verdict]} `))} ${c.bold(name)} — ${report.product} ${report.variant} (${report.sku}, profile ${report.profileVersion})`,
  );
  const size = `${(report.file.bytes / 1_000_000).toFixed(report.file.bytes < 10_000_000 ? 2 : 1)} MB`;
  const pages = report.pdf.pageCount === null ? 'pages unreadable' : `${report.pdf.pageCount} page${report.pdf.pageCount === 1 ? '' : 's'}`;
  lines.push(
    `       ${size}, ${pages}${report.pdf.version ? `, PDF ${report.pdf.version}` : ''} · ${c.red(`${report.counts.error} error${report.counts.error === 1 ? '' : 's'}`)}, ${c.yellow(`${report.counts.warning} warning${report.counts.warning === 1 ? '' : 's'}`)}, ${report.counts.info} info`,
  );
  if (report.pages.length) {
    lines.push('');
    for (const p of report.pages) {
      const pageFindings = report.findings.filter((f) => f.page === p.index);
      const worst = pageFindings[0]?.severity;
      const mark = worst ? (worst === 'error' ? c.red('✖') : worst === 'warning' ? c.yellow('⚠') : c.dim('ℹ')) : c.green('✓');
      const expected = p.expectedWidthMm !== null ? ` (layer ${formatMm(p.expectedWidthMm, p.expectedHeightMm!)})` : ' (no layer)';
      const imgs = p.images.length
        ? `, ${p.images.length} image${p.images.length === 1 ? '' : 's'}${minPpi(p.images)}`
        : ', no images';
      lines.push(
        `  ${mark} Page ${p.index}${p.layer ? ` ${c.bold(safeForTerminal(p.layer))}` : ''}: ${formatMm(p.widthMm, p.heightMm)}${expected}${p.rotate ? `, /Rotate ${p.rotate}` : ''}${imgs}`,
      );
    }
  }
  if (report.findings.length) {
    lines.push('');
    for (const f of report.findings) {
      const mark = f.severity === 'error' ? c.red(SEVERITY_MARK.error) : f.severity === 'warning' ? c.yellow(SEVERITY_MARK.warning) : c.dim(SEVERITY_MARK.info);
      lines.push(`  ${mark} ${c.dim(f.code)}`);
      pushAll(lines, wrap(safeForTerminal(f.message), 96).map((l) => `    ${l}`));
    }
  } else {
    lines.push('', `  ${c.green('✓')} No findings: the file meets every rule checked.`);
  }
  return `${lines.join('\n')}\n`;
}

function minPpi(images: Report['pages'][number]['images']): string {
  const ppis = images.map((i) => i.ppi).filter((p): p is number => p !== null);
  return ppis.length ? `, lowest ${formatNumber(minOf(ppis), 0)} ppi` : '';
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
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
