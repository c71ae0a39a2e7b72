import type { BatchResult } from './summary.js';
import { safeForTerminal } from '../report/terminal.js';

/** Progress of a batch for a terminal (one redrawn line) or a log (one line per file). */
export class ProgressView {
  private readonly started = Date.now();
  private drawn = false;

  constructor(
    private readonly write: (s: string) => void,
    private readonly tty: boolean,
    private readonly width = 28,
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
    const filled = total ? Math.round((done / total) * this.width) : this.width;
    const bar = `${'█'.repeat(filled)}${'░'.repeat(this.width - filled)}`;
    const line = `${bar} ${done}/${total} · ${rate.toFixed(1)} files/s · ETA ${clock(eta)} · ${what}`;
    this.write(`\r\x1b[2K${line.slice(0, 160)}`);
    this.drawn = true;
  }

  end(): void {
    if (this.tty && this.drawn) this.write('\n');
  }
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
