/**
 * What a file names and chains, read as data and never as JavaScript's own: names that are
 * Object.prototype's keys (__proto__, constructor, toString…) name resources like any other; actions
 * are found however deep they hang (an action's /Next chain, dictionaries or arrays of them) and
 * whatever form their type takes; form fields deep in the field tree are measured before a renderer
 * walks them.
 */
import { describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { inspectPdf } from '../../../src/pdf/inspect.js';
import { widgetFieldChains } from '../../../src/pdf/annotations.js';
import { fullFilterName } from '../../../src/pdf/streams.js';
import { own } from '../../../src/util/own.js';
// @ts-expect-error plain ESM helper without types
import { onePage, writePdf } from '../../hostile/pdf-writer.mjs';

const PROTO = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__lookupGetter__'];

describe('names that are Object.prototype’s keys', () => {
  it('own() reads a table’s own entries only', () => {
    const table = { DeviceRGB: 3 };
    expect(own(table, 'DeviceRGB')).toBe(3);
    for (const name of PROTO) expect(own(table, name), name).toBeUndefined();
    for (const name of PROTO) expect(fullFilterName(name), name).toBe(name);
  });

  it.each(PROTO)('a colour space named /%s is the one the resources give it', async (name) => {
    const facts = await inspectPdf(onePage({ content: `/${name} cs 1 0 0 0 sc 0 0 10 10 re f /${name} CS 0 0 0 1 SC 0 0 10 10 re S`, resources: `/ColorSpace << /${name} /DeviceCMYK >>` }));
    const colours = facts.pages[0]!.colours;
    expect(colours.map((c) => [c.use, c.colourSpace.label])).toEqual([
      ['fill', 'DeviceCMYK'],
      ['stroke', 'DeviceCMYK'],
    ]);
  });

  it('an action whose type is /__proto__ or /constructor is no action at all', async () => {
    const facts = await inspectPdf(onePage({ catalogExtra: '/OpenAction << /S /__proto__ /Next << /S /constructor /Next << /S /toString >> >> >>' }));
    expect(facts.activeContent).toEqual([]);
  });
});

describe('actions wherever they hang', () => {
  const chain = (depth: number, link: (inner: string) => string) => {
    let action = '<< /S /JavaScript /JS (app.alert\\(1\\)) >>';
    for (let i = 0; i < depth; i++) action = link(action);
    return action;
  };

  it.each([
    ['64 dictionaries down /Next', chain(64, (a) => `<< /S /GoTo /D [3 0 R /Fit] /Next ${a} >>`)],
    ['100 arrays down /Next', chain(100, (a) => `<< /S /GoTo /D [3 0 R /Fit] /Next [<< /S /GoTo /D [3 0 R /Fit] >> ${a}] >>`)],
    ['200 dictionaries down /Next', chain(200, (a) => `<< /S /GoTo /D [3 0 R /Fit] /Next ${a} >>`)],
  ])('finds JavaScript %s', async (_name, action) => {
    expect((await inspectPdf(onePage({ catalogExtra: `/OpenAction ${action}` }))).activeContent).toEqual(['JavaScript']);
  });

  it('finds JavaScript at the end of a chain of 5,000 indirect actions that loops back to its start', async () => {
    const n = 5_000;
    const actions = Array.from({ length: n }, (_, i) => `<< /S /GoTo /D [3 0 R /Fit] /Next ${i + 1 < n ? i + 6 : 5} 0 R ${i === n - 1 ? '/JS (1)' : ''} >>`);
    const facts = await inspectPdf(onePage({ catalogExtra: '/OpenAction 5 0 R', extra: actions }));
    expect(facts.activeContent).toEqual(['JavaScript']);
  });

  it('reads an action type given by reference, as readers do', async () => {
    const facts = await inspectPdf(onePage({ pageExtra: '/Annots [<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << /S 5 0 R /F (calc.exe) >> >>]', extra: ['/Launch'] }));
    expect(facts.activeContent).toEqual(['a Launch action (starts a program)']);
  });
});

describe('form fields deep in the field tree', () => {
  /** A page whose one widget hangs `depth` fields down (and, with `loop`, whose top field's parent is the widget). */
  async function page(depth: number, loop = false) {
    const first = 4;
    const fields = Array.from({ length: depth }, (_, i) => `<< /T (f${i}) ${i ? `/Parent ${first + i - 1} 0 R` : loop ? `/Parent ${first + depth} 0 R` : ''} >>`);
    const bytes = writePdf([
      `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${first} 0 R] >> >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Annots [${first + depth} 0 R] >>`,
      ...fields,
      `<< /Type /Annot /Subtype /Widget /FT /Btn /Rect [0 0 20 20] /F 4 /Parent ${first + depth - 1} 0 R >>`,
    ]);
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    return { doc, bytes };
  }

  it('measures each widget’s chain, ending it where it loops back', async () => {
    const { doc } = await page(30);
    expect(widgetFieldChains(doc.context, doc.getPage(0).node)).toEqual({ total: 30, deepest: 30 });
    const looped = await page(30, true);
    expect(widgetFieldChains(looped.doc.context, looped.doc.getPage(0).node)).toEqual({ total: 30, deepest: 30 });
  });

  it('keeps a page whose widget is 1,000 fields deep from renderers (pdf.js took 2 s; 20,000 more than a minute)', async () => {
    const deep = (await inspectPdf((await page(1_000)).bytes)).pages[0]!;
    expect(deep.tooComplex).toBe(true);
    expect(deep.notes.join(' ')).toMatch(/form fields sit 1,000 levels deep in the form's field tree/);
    expect((await inspectPdf((await page(20)).bytes)).pages[0]!.tooComplex).toBe(false);
  });
});
