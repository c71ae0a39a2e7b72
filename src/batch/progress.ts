import type { BatchResult } from './summary.js';
import { safeForTerminal } from '../report/terminal.js';

/**
 * Progress of a batch for a terminal (one line, redrawn in place and never wider than the
 * terminal, cleared at the end) or a log (one line per file).
 */
export class ProgressView {
  private readonly started = Date.now();
  private drawn = false;

  constructor(
    private readonly write: (s: string) => void,
    private readonly tty: boolean,
    /** The terminal's width; the line is cut to one column less, so it never wraps. */
    private readonly columns = 80,
  ) {}

  update(done: number, total: number, result: BatchResult): void {
    const elapsed = (Date.now() - this.started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = rate > 0 ? (total - done) / rate : 0;
    const codes = Object.keys(result.rules).join(', ');
    // File names and reasons come from the folder and the files: no escape sequence reaches the terminal.
    const what = `${result.verdict.toUpperCase()} ${safeForTerminal(result.file)}${result.reused ? ' (kept)' : ''}`;
    if (!this.tty) {
      const reason = result.reason ? `: ${safeForTerminal(result.reason)}` : codes ? `: ${codes}` : '';
      this.write(`[${done}/${total}] ${what}${result.sku ? ` (${safeForTerminal(result.sku)})` : ''}${reason}\n`);
      return;
    }
    this.write(`\r\x1b[2K${progressLine(done, total, rate, eta, what, this.columns)}`);
    this.drawn = true;
  }

  /** Clears the bar's line (before other output, and at the end). */
  clear(): void {
    if (this.tty && this.drawn) this.write('\r\x1b[2K');
    this.drawn = false;
  }

  end(): void {
    this.clear();
  }
}

/** "████░░░░ 3/10 · 1.2 files/s · ETA 0:06 · PASS a.pdf", fitted to `columns - 1` characters. */
export function progressLine(done: number, total: number, rate: number, eta: number, what: string, columns: number): string {
  const room = Math.max(20, columns - 1);
  const stats = ` ${done}/${total} · ${rate.toFixed(1)} files/s · ETA ${clock(eta)}`;
  const barWidth = Math.max(5, Math.min(28, room - stats.length - 12));
  const filled = total ? Math.round((done / total) * barWidth) : barWidth;
  const head = `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}${stats}`;
  const line = `${head} · ${what}`;
  const chars = [...line];
  if (chars.length <= room) return line;
  return chars.length > room && [...head].length + 4 <= room ? `${chars.slice(0, room - 1).join('')}…` : [...head].slice(0, room).join('');
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
