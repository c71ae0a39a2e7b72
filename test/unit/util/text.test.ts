import { describe, expect, it } from 'vitest';
import { escapeForLog, escapeHtml, grouped, ordinal, withoutFormatControls, withoutFormatControlsDeep } from '../../../src/util/text.js';

describe('grouped', () => {
  it('writes numbers as toLocaleString("en-US") does, without loading ICU', () => {
    // A spread of magnitudes, signs and fractions, made reproducibly (no Math.random).
    const samples: number[] = [0, 1, -1, 999, 1000, -1000, 0.5, 12.3456, 999.9996];
    let x = 7;
    for (let i = 0; i < 500; i++) {
      x = (x * 48271) % 2147483647;
      const magnitude = 10 ** (i % 16);
      // Integers of every size; fractions of the sizes a report writes (below a billion).
      samples.push(Math.round((x / 2147483647) * magnitude) * (i % 3 === 0 ? -1 : 1), (x / 2147483647) * Math.min(magnitude, 1e9));
    }
    for (const n of samples) expect(grouped(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});

describe('ordinal', () => {
  it('orders by code units, whatever the locale', () => {
    expect(['b', 'B', 'a', 'A', 'a-b', 'ab'].sort(ordinal)).toEqual(['A', 'B', 'a', 'a-b', 'ab', 'b']);
  });
});

describe('format controls (Unicode Cf)', () => {
  it.each([
    ['bidi override (U+202E): the classic name spoof', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['isolates and marks', '\u2066a\u2069\u200Eb\u200F\u061Cc', 'abc'],
    ['zero-width space, joiner, BOM, word joiner, soft hyphen', 'a\u200Bb\u200Dc\uFEFFd\u2060e\u00ADf', 'abcdef'],
    ['tag characters (outside the BMP)', 'flag\u{E0067}\u{E0062}\u{E007F}', 'flag'],
    ['ordinary text, accents and CJK untouched', 'Café 東京 – ok.pdf', 'Café 東京 – ok.pdf'],
  ])('%s', (_what, input, expected) => {
    expect(withoutFormatControls(input)).toBe(expected);
  });

  it('cleans every string of JSON data, and keeps the same object when there is nothing to clean', () => {
    const clean = { a: ['x', 1, null, { b: 'y' }] };
    expect(withoutFormatControlsDeep(clean)).toBe(clean);
    expect(withoutFormatControlsDeep({ a: ['x\u202E', 1, { b: '\u200By' }] })).toEqual({ a: ['x', 1, { b: 'y' }] });
  });

  it('escapeForLog: the same JSON value, no raw format or C1 control left for a terminal', () => {
    const value = { name: 'a\u202Eb\u0085c\u009Bd\u2028e\u{E0041}' };
    const line = escapeForLog(JSON.stringify(value));
    expect(line).not.toMatch(/[\u0080-\u009f\u2028\u2029\p{Cf}]/u);
    expect(line).toContain('\\u202e');
    expect(JSON.parse(line)).toEqual(value);
  });

  it('escapeHtml: markup escaped, format controls removed', () => {
    expect(escapeHtml(`<img src=x onerror="a('1')">\u202E&`)).toBe('&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;');
  });

  it.each([
    ['ESC and BEL of a spot colour name', 'Pantone\x1b]0;owned\x07 485', 'Pantone]0;owned 485'],
    ['a CSI sequence in a font name', 'Helv\x1b[31mRed', 'Helv[31mRed'],
    ['NUL, DEL and C1 controls', 'a\x00b\x7fc\x9bd', 'abcd'],
    ['tabs and line breaks stay (whitespace in HTML)', 'a\tb\nc\rd', 'a\tb\nc\rd'],
  ])('escapeHtml drops control characters: %s', (_what, input, want) => {
    expect(escapeHtml(input)).toBe(want);
    expect(escapeHtml(input)).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/);
  });
});
