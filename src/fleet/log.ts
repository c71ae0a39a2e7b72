/**
 * Structured logs of fleet processes: one JSON object per line (`time`, `level`, `event`, `worker`,
 * then the event's fields, among them `jobId`), ready for journald, Loki or `jq`. JSON escapes
 * control characters, so a hostile file name cannot forge lines or drive a terminal.
 */
export type LogLevel = 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

/** A logger writing JSON lines through `write` (default: stderr). */
export function jsonLogger(worker: string, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  return (level, event, fields = {}) => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, event, worker, ...fields })}\n`);
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = () => undefined;
