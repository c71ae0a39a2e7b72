/** The fleet's pure parts: Redis URLs, which download failures are worth a retry, log lines. */
import { describe, expect, it } from 'vitest';
import { parseRedisUrl, redactRedisUrl } from '../../src/fleet/connection.js';
import { transientDownloadFailure } from '../../src/fleet/handlers.js';
import { jsonLogger } from '../../src/fleet/log.js';
import type { Report } from '../../src/report/schema.js';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379/0', { host: '127.0.0.1', port: 6379, db: 0 }],
    ['redis://queue.internal', { host: 'queue.internal', port: 6379, db: 0 }],
    ['redis://:s%40cret@queue.internal:6380/2', { host: 'queue.internal', port: 6380, db: 2, password: 's@cret' }],
    ['redis://fleet:pw@[::1]:7000/15', { host: '::1', port: 7000, db: 15, username: 'fleet', password: 'pw' }],
    ['rediss://queue.example.com/1', { host: 'queue.example.com', port: 6379, db: 1, tls: { servername: 'queue.example.com' } }],
  ])('%s', (url, expected) => {
    expect(parseRedisUrl(url)).toEqual(expected);
  });

  it.each([
    ['localhost:6379', /redis:\/\/ or rediss:\/\/ URL/],
    ['http://queue:6379', /scheme "http:"/],
    ['redis://queue/16', /database number from 0 to 15/],
    ['redis://queue/x', /database number/],
    ['not a url', /Expected a Redis URL/],
  ])('refuses %s', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('keeps passwords out of what it shows', () => {
    expect(redactRedisUrl('redis://fleet:secret@queue:6379/0')).toBe('redis://fleet:***@queue:6379/0');
    expect(redactRedisUrl('redis://queue:6379/0')).toBe('redis://queue:6379/0');
  });
});

describe('transientDownloadFailure', () => {
  const report = (status: number | null, codes: string[]) => ({ source: { status }, rules: Object.fromEntries(codes.map((c) => [c, 1])) }) as unknown as Report;
  it.each([
    [null, ['source-unreachable'], true],
    [503, ['source-unreachable'], true],
    [429, ['source-unreachable'], true],
    [404, ['source-unreachable'], false],
    [200, ['page-count-mismatch'], false],
    [null, ['source-address-blocked'], false],
  ])('status %s with %j → %s', (status, codes, expected) => {
    expect(transientDownloadFailure(report(status, codes))).toBe(expected);
  });

  it('is false for a report on an upload (no source)', () => {
    expect(transientDownloadFailure({ rules: { 'source-unreachable': 1 } } as unknown as Report)).toBe(false);
  });
});

describe('jsonLogger', () => {
  it('writes one JSON object per line; control characters from file names cannot break lines', () => {
    const lines: string[] = [];
    jsonLogger('host:1', (l) => lines.push(l))('warn', 'job-failed', { jobId: 'a', error: 'bad\nname\u001b[31m' });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(lines[0]!.slice(0, -1)).not.toMatch(/[\n\u001b]/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', event: 'job-failed', worker: 'host:1', jobId: 'a', error: 'bad\nname\u001b[31m' });
  });
});
