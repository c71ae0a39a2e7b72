/** The fleet's command-line surface: help, and misuse refused with exit 2 before anything connects. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from './fleet-harness.js';

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('fleet command line', () => {
  it('worker --help names the shared folders and the shutdown rules', () => {
    const r = run('worker', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('--redis URL');
    expect(r.out).toContain('--crash-limit N');
    expect(r.out).toContain('SIGTERM');
    expect(run('--help').out).toContain('worker --redis URL --data DIR');
  });

  it.each([
    [['worker', '--data', '.'], /worker needs --redis URL/],
    [['worker', '--redis', 'redis://127.0.0.1:1/0'], /worker needs --data DIR/],
    [['worker', '--redis', 'http://queue/0', '--data', '.'], /redis:\/\/ or rediss:\/\/ URL/],
    [['worker', '--redis', 'redis://queue/0', '--data', '/no/such/folder'], /is not a folder/],
    [['worker', '--redis', 'redis://queue/0', '--data', '.', '--crash-limit', '0'], /--crash-limit needs a whole number from 1 to 20/],
    [['batch', '.', '--out', 'x', '--redis', 'redis://queue/0', '--watch'], /--watch runs on this machine/],
    [['batch', '.', '--out', 'x', '--redis', 'queue:6379'], /redis:\/\/ or rediss:\/\/ URL/],
    [['serve', '--redis', 'localhost'], /--redis needs a URL like redis:\/\/host:6379\/0/],
  ])('%j → exit 2', (args, message) => {
    const r = run(...(args as string[]).map((a) => (a === '.' ? mkdtempSync(join(tmpdir(), 'pp-fleet-cli-')) : a)));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });
});
