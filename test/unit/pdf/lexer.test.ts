import { describe, expect, it } from 'vitest';
import { lexContent, type Operand, type InlineImage } from '../../../src/pdf/lexer.js';

function lex(src: string | Uint8Array, inlineLength: (d: Map<string, Operand>) => number | null = () => null) {
  const bytes = typeof src === 'string' ? new TextEncoder().encode(src) : src;
  const ops: [string, Operand[]][] = [];
  const inline: InlineImage[] = [];
  lexContent(
    bytes,
    (op, args) => void ops.push([op, args]),
    (i) => inline.push(i),
    inlineLength,
  );
  return { ops, inline };
}

describe('content stream lexer', () => {
  it.each([
    ['1 0 0 1 10 20 cm', [['cm', [1, 0, 0, 1, 10, 20]]]],
    ['.5 -.25 +3 --4 1.2.3 re', [['re', [0.5, -0.25, 3, 4, 1.2]]]],
    [
      '/DeviceCMYK cs 0 0 0 1 sc',
      [
        ['cs', [{ name: 'DeviceCMYK' }]],
        ['sc', [0, 0, 0, 1]],
      ],
    ],
    ['/PANTONE#20185#20C cs', [['cs', [{ name: 'PANTONE 185 C' }]]]],
    ['(a (nested) \\) string) Tj', [['Tj', [{ string: true }]]]],
    ['<48656c6c6f> Tj', [['Tj', [{ string: true }]]]],
    ['[(A) -120 (B)] TJ', [['TJ', [[{ string: true }, -120, { string: true }]]]]],
    [
      '/P <</MCID 3>> BDC EMC',
      [
        ['BDC', [{ name: 'P' }, { dict: new Map([['MCID', 3]]) }]],
        ['EMC', []],
      ],
    ],
    [
      '% a comment\nq Q',
      [
        ['q', []],
        ['Q', []],
      ],
    ],
    ['true false null d0', [['d0', [true, false, null]]]],
  ] as const)('%s', (src, expected) => {
    expect(lex(src).ops).toEqual(expected);
  });

  it('drops an unclosed array at the next operator instead of swallowing the stream', () => {
    expect(lex('[1 2 f q Q').ops.map(([op]) => op)).toEqual(['q', 'Q']);
  });

  it('reads an inline image dictionary and finds EI after binary data', () => {
    const head = new TextEncoder().encode('q BI /W 2 /H 2 /CS /RGB /BPC 8 /F /DCT ID ');
    const data = Uint8Array.from([0xff, 0xd8, 0x20, 0x45, 0x49, 0x00, 0x01, 0xff, 0xd9]); // contains " EI" then binary
    const tail = new TextEncoder().encode('\nEI Q 1 0 0 1 0 0 cm');
    const all = new Uint8Array([...head, ...data, ...tail]);
    const { ops, inline } = lex(all);
    expect(inline).toHaveLength(1);
    expect(inline[0]!.dict.get('W')).toBe(2);
    expect(inline[0]!.dict.get('CS')).toEqual({ name: 'RGB' });
    expect(inline[0]!.dataStart).toBe(head.length);
    expect(inline[0]!.dataEnd).toBe(head.length + data.length + 1);
    expect(ops.map(([op]) => op)).toEqual(['q', 'Q', 'cm']);
  });

  it('uses the computed length of unfiltered data, whatever bytes it holds', () => {
    const head = new TextEncoder().encode('BI /W 4 /H 1 /CS /G /BPC 8 ID ');
    const data = new TextEncoder().encode(' EI ');
    const all = new Uint8Array([...head, ...data, ...new TextEncoder().encode(' EI Q')]);
    const { ops, inline } = lex(all, () => 4);
    expect(inline[0]!.dataEnd - inline[0]!.dataStart).toBe(4);
    expect(ops.map(([op]) => op)).toEqual(['Q']);
  });

  it('reads an indexed inline colour space array', () => {
    const { inline } = lex('BI /W 1 /H 1 /CS [/I /RGB 1 <ff000000ff00>] /BPC 8 ID \x00 EI');
    expect(inline[0]!.dict.get('CS')).toEqual([{ name: 'I' }, { name: 'RGB' }, 1, { string: true }]);
  });
});

describe('lexer bounds (issue 28)', () => {
  const limits = { maxNesting: 8, maxOperands: 16, maxTokenBytes: 64, maxContainerItems: 100 };
  const lexWith = (src: string) =>
    lexContent(
      new TextEncoder().encode(src),
      () => undefined,
      () => undefined,
      () => null,
      limits,
    );

  it.each([
    [`/${'N'.repeat(65)} Do`, /a name longer than 64 bytes/],
    [`${'x'.repeat(65)}`, /an operator longer than 64 bytes/],
    [`[${'1 '.repeat(101)}`, /more than 100 items in arrays or dictionaries/],
    [`<< ${'/K 1 '.repeat(51)}`, /more than 100 items/],
    [`[ ${'1 '.repeat(60)} [ ${'2 '.repeat(45)}`, /more than 100 items/],
    [`${'1 '.repeat(17)}m`, /more than 16 operands/],
    [`BI ${'/W 1 '.repeat(60)}`, /an inline image dictionary of more than 100 items/],
  ])('refuses %#', (src, error) => {
    expect(() => lexWith(src)).toThrow(error);
  });

  it('counts only the items of containers still open: closed ones give their count back', () => {
    // Nine closed arrays of 10 items (and again, twice over) are nine operands, not 270 items.
    expect(lexWith(`${'[1 2 3 4 5 6 7 8 9 10] '.repeat(9)}TJ ${'[1 2 3 4 5 6 7 8 9 10] '.repeat(9)}TJ ${'[1 2 3 4 5 6 7 8 9 10] '.repeat(9)}TJ`)).toBe(true);
    expect(lexWith(`[${'1 '.repeat(99)}] TJ [${'1 '.repeat(99)}] TJ`)).toBe(true);
  });
});
