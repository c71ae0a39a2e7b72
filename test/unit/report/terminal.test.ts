import { describe, expect, it } from 'vitest';
import { renderText } from '../../../src/report/text.js';
import { safeForTerminal } from '../../../src/report/terminal.js';
import { preflight } from '../../../src/flow/preflight.js';
// @ts-expect-error plain ESM helper without types
import { onePage } from '../../hostile/pdf-writer.mjs';

describe('safeForTerminal', () => {
  it.each([
    ['plain text, accents and emoji stay', 'Café – 200×200 mm 🎨', 'Café – 200×200 mm 🎨'],
    ['CSI colour and clear screen', 'a\x1b[31mred\x1b[0m\x1b[2Jb', 'aredb'],
    ['OSC window title ended by BEL', 'x\x1b]0;owned\x07y', 'xy'],
    ['OSC hyperlink ended by ST', '\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['DCS string', 'a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['8-bit CSI and other C1 controls (NEL is a line break)', 'a\x9b31mb\x85c\x90d', 'ab cd'],
    ['an unterminated OSC loses only its introducer', 'a\x1b]0;title', 'a0;title'],
    ['a lone ESC and two-byte escapes', 'a\x1bcb\x1b(Bc\x1b', 'abc'],
    ['other C0 controls and DEL', 'a\x00b\x07c\x08d\x7fe', 'abcde'],
    ['line breaks and tabs become spaces', 'a\nb\r\nc\td', 'a b  c d'],
    ['bidi overrides and isolates', 'invoice\u202Efdp.exe\u2066x\u2069\u200f', 'invoicefdp.exex'],
  ])('%s', (_, input, expected) => {
    expect(safeForTerminal(input)).toBe(expected);
  });

  it('leaves nothing below U+0020, no DEL, no C1 and no bidi control in any string', () => {
    let all = '';
    for (let c = 0; c < 0x300; c++) all += String.fromCharCode(c);
    all += '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
    expect(safeForTerminal(all)).not.toMatch(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('the text report', () => {
  it('prints names taken from a file without their escape sequences', async () => {
    const bytes = onePage({
      content: 'BT /F1 24 Tf 50 200 Td (Hello) Tj ET',
      resources: '/Font << /F1 5 0 R >>',
      extra: ['<< /Type /Font /Subtype /Type1 /BaseFont /Evil#1B#5D0;owned#07#1B#5B2J#E2#80#AEx >>'],
    });
    const report = await preflight(bytes, { sku: 'TANKTOP-M' }, { pool: false, raster: false, path: 'order\x1b[2J\u202e.pdf' });
    expect(report.findings.find((f) => f.code === 'font-not-embedded')!.message).toContain('\x1b]0;owned');
    // The JSON report keeps control characters (JSON escapes them) but no format control: its
    // display fields read as what they hold wherever they are shown.
    expect(report.file.path).toBe('order\x1b[2J.pdf');
    expect(JSON.stringify(report)).not.toMatch(/\p{Cf}/u);
    for (const colour of [false, true]) {
      const text = renderText(report, { colour });
      expect(text).toContain('Evil');
      expect(text).not.toMatch(/\x1b[\][][0-9;]*[A-Za-z]?owned|\x1b\[2J|\x07|\u202e/);
    }
  });
});

describe('safeForTerminal on hostile lengths', () => {
  it('cleans a megabyte of unterminated 8-bit introducers (each scan stops at the next one)', () => {
    expect(safeForTerminal('\x9d\x90x'.repeat(350_000))).toBe('x'.repeat(350_000));
  });
});
