/**
 * quietly() silences pdf-lib's console output while a file parses; overlapping calls (two checks
 * at once in one process) must give the caller its console back when the last one ends — each
 * restoring what it saved left console.log mute for good (found when a test's log vanished).
 */
import { describe, expect, it } from 'vitest';
import { quietly } from '../../../src/pdf/parse.js';

describe('quietly', () => {
  it('overlapping calls, ending in either order, give the console back', async () => {
    const log = console.log;
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const ends: (() => void)[] = [];
      const started = [0, 1].map(() => quietly(() => new Promise<void>((resolve) => ends.push(resolve))));
      expect(console.log).not.toBe(log);
      ends[order[0]!]!();
      await started[order[0]!];
      expect(console.log, 'silent while the other call runs').not.toBe(log);
      ends[order[1]!]!();
      await started[order[1]!];
      expect(console.log).toBe(log);
    }
  });

  it('a call that throws gives the console back too', async () => {
    const warn = console.warn;
    await expect(quietly(() => Promise.reject(new Error('parse failed')))).rejects.toThrow('parse failed');
    expect(console.warn).toBe(warn);
  });
});
