import { safeForTerminal } from '../report/terminal.js';
import { wrap } from '../report/wrap.js';
import type { CliIO } from './args.js';

/**
 * Output streams that a closed reader cannot crash: `print-preflight check … | head -3` closes
 * the pipe after three lines; the next write fails with EPIPE. Without a listener that is an
 * unhandled 'error' event and a stack trace with exit 1 (which looks like a failing file). Here
 * further output is dropped and the command ends with its own exit status.
 */
export interface GuardedOutput {
  write: (s: string) => void;
  /** True once the reader has gone. */
  readonly closed: boolean;
}

const GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

export function guardOutput(stream: NodeJS.WritableStream): GuardedOutput {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (GONE.has(error.code ?? '')) {
      closed = true;
      return;
    }
    // Anything else (disk full on a redirect…) is a real failure: say it once, on stderr.
    closed = true;
    process.stderr.write(`print-preflight: cannot write the output (${error.code ?? error.message})\n`);
    process.exitCode = 2;
  });
  return {
    write(s) {
      if (closed) return;
      try {
        stream.write(s);
      } catch (error) {
        if (GONE.has((error as NodeJS.ErrnoException).code ?? '')) closed = true;
        else throw error;
      }
    },
    get closed() {
      return closed;
    },
  };
}

/** One message on stderr, wrapped to a terminal's width (continuation lines indented). */
export function say(io: CliIO, message: string): void {
  const text = safeForTerminal(message);
  io.stderr(`${io.stderrColumns ? wrap(text, io.stderrColumns, '  ').join('\n') : text}\n`);
}

/** One line on stdout, wrapped to a terminal's width. */
export function print(io: CliIO, line: string, indent = '  '): void {
  const text = safeForTerminal(line);
  io.stdout(`${io.columns ? wrap(text, io.columns, indent).join('\n') : text}\n`);
}

/**
 * Ends the process `afterMs` after a long-running command (worker, serve) has shut down, if
 * something still keeps it alive: with Redis gone, BullMQ's objects retry their connections for
 * ever and cannot finish closing. A process that drains on its own exits first (the timer does not
 * hold it).
 */
export function exitAfterShutdown(code: number, afterMs = 1_000): void {
  setTimeout(() => process.exit(code), afterMs).unref();
}
