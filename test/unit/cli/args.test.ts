import { describe, expect, it } from 'vitest';
import { progressLine } from '../../../src/batch/progress.js';
import { fails, failOnFlag, parseFlags, UsageError } from '../../../src/cli/args.js';
import { didYouMean, editDistance, nearest } from '../../../src/cli/suggest.js';
import { formatBytes } from '../../../src/pdf/units.js';
import { wrap } from '../../../src/report/text.js';
import { formatRanges, pagesLabel } from '../../../src/util/ranges.js';

const spec = {
  sku: { type: 'string' },
  severity: { type: 'string', multiple: true },
  'min-ppi': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('parseFlags', () => {
  it('reads values, switches, repeats, = forms, -h and -- ', () => {
    const r = parseFlags(['a.pdf', '--sku', 'T-SHIRT-M', '--json', '--severity=x=error', '--severity', 'y=off', '-h', '--', '--not-a-flag'], spec);
    expect(r.values).toEqual({ sku: 'T-SHIRT-M', json: true, severity: ['x=error', 'y=off'], help: true });
    expect(r.positionals).toEqual(['a.pdf', '--not-a-flag']);
  });

  it('takes a negative number as a value, so the value check can say what is wrong with it', () => {
    expect(parseFlags(['--min-ppi', '-5'], spec).values['min-ppi']).toBe('-5');
  });

  it.each([
    [['--skuu', 'X'], 'unknown option --skuu (did you mean --sku?)'],
    [['--frobnicate'], 'unknown option --frobnicate'],
    [['-x'], 'unknown option -x'],
    [['--sku'], '--sku needs a value'],
    [['--sku', '--json'], '--sku needs a value'],
    [['--json=1'], '--json takes no value, got "1"'],
    [['--sku', 'A', '--sku', 'B'], '--sku given twice ("A" and "B")'],
  ])('%j → %s', (args, message) => {
    expect(() => parseFlags(args, spec)).toThrow(new UsageError(message));
  });
});

describe('did you mean', () => {
  it('edit distance counts a transposition as one edit', () => {
    expect(editDistance('chekc', 'check')).toBe(1);
    expect(editDistance('chek', 'check')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
  it('suggests only near words', () => {
    expect(nearest('chek', ['assemble', 'batch', 'check', 'fix'])).toBe('check');
    expect(nearest('T-SHIRT-XXXL', ['T-SHIRT-M', 'T-SHIRT-3XL'])).toBe('T-SHIRT-3XL');
    expect(nearest('zzz', ['check', 'fix'])).toBeNull();
    expect(didYouMean('fx', ['fix'])).toBe(' (did you mean "fix"?)');
    expect(didYouMean('qqqqqq', ['fix'])).toBe('');
  });
});

describe('--fail-on', () => {
  it('reads error|warning and decides the exit', () => {
    expect(failOnFlag(undefined)).toBe('error');
    expect(failOnFlag('warning')).toBe('warning');
    expect(() => failOnFlag('info')).toThrow(/--fail-on must be error or warning/);
    expect([fails('warn', 'error'), fails('warn', 'warning'), fails('fail', 'error'), fails('pass', 'warning'), fails('error', 'error')]).toEqual([false, true, true, false, true]);
  });
});

describe('formatting for people', () => {
  it('page ranges, summarised when long', () => {
    expect(formatRanges([4, 1, 2, 3, 7, 9, 10])).toBe('1–4, 7, 9–10');
    expect(pagesLabel([3])).toBe('page 3');
    const odd = Array.from({ length: 10_000 }, (_, i) => 2 * i + 1);
    expect(formatRanges(odd)).toBe('1, 3, 5, 7, 9, 11, 13, 15, … (10,000 pages)');
  });

  it('one size format', () => {
    expect([formatBytes(0), formatBytes(812), formatBytes(3100), formatBytes(999_999), formatBytes(48_200_000), formatBytes(2e9)]).toEqual([
      '0 bytes',
      '812 bytes',
      '3.1 kB',
      '1 MB',
      '48.2 MB',
      '2 GB',
    ]);
  });

  it('wraps to a width with a hanging indent, measuring without ANSI colours', () => {
    const lines = wrap(`    ${'word '.repeat(40).trim()}`, 40, '    ');
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines.every((l) => l.startsWith('    word'))).toBe(true);
    expect(wrap('\x1b[1mbold\x1b[22m text', 9)).toEqual(['\x1b[1mbold\x1b[22m text']);
  });

  it('the progress line never reaches the last column', () => {
    for (const columns of [40, 80, 120]) {
      const line = progressLine(3, 10, 1.5, 5, `PASS ${'very-long-name/'.repeat(10)}a.pdf`, columns);
      expect([...line].length).toBeLessThanOrEqual(columns - 1);
      expect(line).toContain('3/10');
    }
  });
});

describe('wrap keeps measures whole', () => {
  it('never breaks between a number and its unit, or inside "a × b"', () => {
    const text = 'it prints at 2040 × 2040 mm: 5 ppi; supply at least 8,032 × 8,032 px for that printed size at 200 %';
    for (let width = 20; width <= 60; width++) {
      const lines = wrap(text, width);
      expect(lines.join(' ')).toBe(text);
      for (const l of lines) expect(l).not.toMatch(/^(mm|ppi|px|%|×)\b|\d$|×$/);
    }
  });
});
