/**
 * Runs the built CLI under GNU time (`/usr/bin/time -f %M`), for tests that bound a whole process's
 * memory: exit code, stdout, stderr and peak RSS in bytes (NaN when time wrote no figure: the
 * caller's assertion says so).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MeasuredRun {
  code: number | null;
  out: string;
  err: string;
  rss: number;
}

/**
 * @param bin the CLI entry (bin/print-preflight.js)
 * @param scratch a folder for time's output file
 * @param wrap a command the run goes under (e.g. `prlimit --data=…`)
 * @example
 * const r = await measuredCli(BIN, dir, ['check', 'a.pdf', '--json']);
 * expect(r.rss).toBeLessThan(1024 ** 3);
 */
export function measuredCli(bin: string, scratch: string, args: string[], wrap: string[] = []): Promise<MeasuredRun> {
  return new Promise((resolve) => {
    const timeFile = join(scratch, `time-${Math.random().toString(36).slice(2)}`);
    const command = [...wrap, '/usr/bin/time', '-f', '%M', '-o', timeFile, process.execPath, bin, ...args];
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      let rss = Number.NaN;
      try {
        rss = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) * 1024;
      } catch {
        // no figure: the caller's assertion says so
      }
      resolve({ code, out, err, rss });
    });
  });
}
