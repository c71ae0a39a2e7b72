/**
 * The one content interpreter (src/pdf/content/): its walk dispatches through an operator table,
 * its state stack saves and restores as `q`/`Q` do, and the page scan and the vector colour
 * rewriter read the colour operators through the same table shape.
 */
import { describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { ContentScanner } from '../../../src/pdf/content-scan.js';
import { ColourSpaceResolver } from '../../../src/pdf/colour-space.js';
import { DecodeBudget } from '../../../src/pdf/decode-budget.js';
import { decodeStream, type StreamReader } from '../../../src/pdf/streams.js';
import { StateStack } from '../../../src/pdf/content/state.js';
import { colourOperators, operatorTable, walkContent, type Paint } from '../../../src/pdf/content/walk.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('walkContent and the operator table', () => {
  it('calls the handler of each operator in the table, with its operands and bytes, and no other', () => {
    const seen: string[] = [];
    const content = 'q 1 0 0 1 5 5 cm 0 0 m 10 10 l S Q';
    const table = operatorTable<string[]>([['cm', 'S'], (f, args, start, end, op) => f.push(`${op}(${args.join(',')})@${content.slice(start, end)}`)]);
    walkContent(enc(content), seen, table);
    expect(seen).toEqual(['cm(1,0,0,1,5,5)@1 0 0 1 5 5 cm', 'S()@S']);
  });

  it('treats operator names from the file as names, never as properties of the table', () => {
    const seen: string[] = [];
    const table = operatorTable<string[]>([['f'], (f, _a, _s, _e, op) => f.push(op)]);
    expect(() => walkContent(enc('1 constructor __proto__ toString hasOwnProperty f'), seen, table)).not.toThrow();
    expect(seen).toEqual(['f']);
  });

  it('skips an operator when the before hook says so', () => {
    const seen: string[] = [];
    const table = operatorTable<string[]>([['f', 'S'], (f, _a, _s, _e, op) => f.push(op)]);
    walkContent(enc('f S f'), seen, table, { before: (_f, op) => op !== 'S' });
    expect(seen).toEqual(['f', 'f']);
  });

  it('maps the twelve colour operators to device, space and colour, fill or stroke', () => {
    const seen: string[] = [];
    const rows = colourOperators<string[]>({
      device: (f, paint: Paint, family) => f.push(`${paint} ${family}`),
      space: (f, paint, args) => f.push(`${paint} space ${JSON.stringify(args[0])}`),
      colour: (f, paint, args, _s, _e, _op, named) => f.push(`${paint} colour ${args.length}${named ? ' n' : ''}`),
    });
    walkContent(enc('0 g 0 G 0 0 0 rg 0 0 0 RG 0 0 0 1 k 0 0 0 1 K /CS0 cs /CS1 CS 1 sc 1 SC /P0 scn 1 1 SCN'), seen, operatorTable(...rows));
    expect(seen).toEqual([
      'fill DeviceGray',
      'stroke DeviceGray',
      'fill DeviceRGB',
      'stroke DeviceRGB',
      'fill DeviceCMYK',
      'stroke DeviceCMYK',
      'fill space {"name":"CS0"}',
      'stroke space {"name":"CS1"}',
      'fill colour 1',
      'stroke colour 1',
      'fill colour 1 n',
      'stroke colour 2 n',
    ]);
  });
});

describe('StateStack', () => {
  it('restores saved states last first, and nothing when none is saved', () => {
    const stack = new StateStack<number>(8);
    stack.save(1);
    stack.save(2);
    expect([stack.restore(), stack.restore(), stack.restore()]).toEqual([2, 1, undefined]);
  });

  it('past its depth, tells each save it drops; balanced, the matching restores give nothing back', () => {
    let dropped = 0;
    const balanced = new StateStack<number>(2, () => dropped++, true);
    for (const n of [1, 2, 3, 4]) balanced.save(n);
    expect(dropped).toBe(2);
    expect([balanced.restore(), balanced.restore(), balanced.restore(), balanced.restore()]).toEqual([undefined, undefined, 2, 1]);
    const dropping = new StateStack<number>(2);
    for (const n of [1, 2, 3, 4]) dropping.save(n);
    expect([dropping.restore(), dropping.restore(), dropping.restore()]).toEqual([2, 1, undefined]);
  });
});

describe('ContentScanner through the interpreter', () => {
  async function scan(content: string) {
    const doc = await PDFDocument.create();
    const context = doc.context;
    const budget = new DecodeBudget();
    const readStream: StreamReader = (s, o = {}) => decodeStream(context, s, { maxBytes: o.maxBytes ?? 1 << 24, budget, what: o.what, untilImageFilter: o.untilImageFilter, prefix: o.prefix });
    const colourSpaces = new ColourSpaceResolver(context, (s) => decodeStream(context, s, { maxBytes: 1 << 24, budget }));
    const scanner = new ContentScanner(context, colourSpaces, readStream, 1, undefined, undefined, { budget });
    const ref = context.register(context.flateStream(enc(content)));
    return scanner.scanPage(ref, undefined, [], [0, 0, 100, 100], 100 * 100);
  }

  it('restores the fill colour space at Q: the fill after it is painted in the space saved', async () => {
    const result = await scan('0 0 0 1 k q 1 0 0 rg 0 0 10 10 re f Q 0 0 10 10 re f');
    expect(result.colours.map((c) => [c.use, c.colourSpace.family, c.count])).toEqual([
      ['fill', 'DeviceRGB', 1],
      ['fill', 'DeviceCMYK', 1],
    ]);
  });

  it('follows cm into where an inline image is placed', async () => {
    const result = await scan('q 200 0 0 100 0 0 cm BI /W 2 /H 1 /CS /G /BPC 8 ID \u0000\u00ff EI Q');
    expect(result.images).toHaveLength(1);
    expect(result.images[0]).toMatchObject({ inline: true, widthPx: 2, heightPx: 1, placedWidthPt: 200, placedHeightPt: 100, ppiX: 0.72 });
  });
});
