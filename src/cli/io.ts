/** What every command shares with main: its streams and its misuse error (no dependencies: --help loads it). */

/** Misuse of the command line: exit status 2 with a one-line reason. */
export class UsageError extends Error {}

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** stdout is a terminal. */
  isTTY: boolean;
  /** stdout's width when it is a terminal (text is wrapped to it); undefined: no wrapping. */
  columns?: number;
  /** stderr is a terminal (progress bars). */
  stderrIsTTY?: boolean;
  /** stderr's width when it is a terminal. */
  stderrColumns?: number;
}
