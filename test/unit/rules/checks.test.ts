import { describe, expect, it } from 'vitest';
import { checkColourSpace } from '../../../src/rules/check-colour-space.js';
import { checkDocument } from '../../../src/rules/check-document.js';
import { checkFileSize } from '../../../src/rules/check-file-size.js';
import { checkImageResolution } from '../../../src/rules/check-image-resolution.js';
import { checkImageSize } from '../../../src/rules/check-image-size.js';
import { checkPageBoxes } from '../../../src/rules/check-page-boxes.js';
import { checkPageCount } from '../../../src/rules/check-page-count.js';
import { checkPageRotate } from '../../../src/rules/check-page-rotate.js';
import { checkPageSize, pageOrderOf } from '../../../src/rules/check-page-size.js';
import type { LayerSpec } from '../../../src/profile/registry.js';
import { runChecks } from '../../../src/rules/index.js';
import { mmToPt } from '../../../src/pdf/units.js';
import { CS, context, doc, image, page } from '../../helpers/facts.js';

const codes = (drafts: { code: string }[]) => drafts.map((d) => d.code);

describe('checkPageSize (duvet-cover 200x200: 2040 x 2040 mm ± 2; curtains 140x260: 1440 x 2640)', () => {
  it.each([
    ['exact', 'duvet', 2040, 2040, []],
    ['within tolerance', 'duvet', 2041.9, 2038.1, []],
    ['just beyond on one side, other proportions', 'curtains', 1443, 2600, ['page-size-mismatch']],
    ['trim size without bleed (square: same proportions)', 'duvet', 2000, 2000, ['page-bleed-missing']],
    ['trim size without bleed (curtains)', 'curtains', 1400, 2600, ['page-bleed-missing']],
    ['trim size less 1 mm', 'curtains', 1399, 2599, ['page-bleed-missing']],
    ['inside the bleed of the trim', 'duvet', 2020, 2020, ['page-bleed-missing']],
    ['2 mm under the trim: scaled, not bled', 'duvet', 1998, 1998, ['page-scale-mismatch']],
    ['half size', 'duvet', 1020, 1020, ['page-scale-mismatch']],
    ['half size, portrait', 'curtains', 720, 1320, ['page-scale-mismatch']],
    ['swapped', 'curtains', 2640, 1440, ['page-orientation-mismatch']],
    ['swapped within tolerance', 'curtains', 2641, 1439, ['page-orientation-mismatch']],
    ['swapped and half size', 'curtains', 1320, 720, ['page-orientation-mismatch', 'page-scale-mismatch']],
    ['A4', 'curtains', 210, 297, ['page-size-mismatch']],
  ] as const)('%s', async (_name, product, w, h, expected) => {
    const target = product === 'duvet' ? { product: 'duvet-cover', variant: '200x200' } : { product: 'curtains', variant: '140x260' };
    const ctx = await context(doc([page(1, w, h), page(2, product === 'duvet' ? 2040 : 1440, product === 'duvet' ? 2040 : 2640)]), target);
    const drafts = checkPageSize(ctx);
    expect(codes(drafts)).toEqual(expected);
    for (const d of drafts) {
      expect(d.page).toBe(1);
      expect(d.layer).toBe(product === 'duvet' ? 'front' : 'left');
      expect(d.message).toMatch(/^Page 1 \((front|left)\)/);
    }
  });

  it('says to add bleed when the page is the trim size', async () => {
    const ctx = await context(doc([page(1, 1400, 2600), page(2, 1440, 2640)]), { product: 'curtains', variant: '140x260' });
    const [finding] = checkPageSize(ctx);
    expect(finding!.message).toContain('without the 20 mm bleed on each side (20 mm missing)');
    expect(finding!.message).toContain('Export it with the design extending 20 mm beyond the trim');
    expect(finding!.severity).toBeUndefined(); // other proportions than the layer: an error (the code's default)
  });

  it('does not judge pages beyond the layer count (page-count-mismatch covers them)', async () => {
    const ctx = await context(doc([page(1, 2040, 2040), page(2, 2040, 2040), page(3, 10, 10)]));
    expect(checkPageSize(ctx)).toEqual([]);
  });
});

describe('checkPageCount', () => {
  it.each([
    [1, ['page-count-mismatch'], /Add the missing layer page \(back\)/],
    [2, [], null],
    [3, ['page-count-mismatch'], /Remove the extra page 3/],
  ] as const)('%i pages for 2 layers', async (n, expected, message) => {
    const ctx = await context(doc(Array.from({ length: n }, (_, i) => page(i + 1, 2040, 2040))));
    const drafts = checkPageCount(ctx);
    expect(codes(drafts)).toEqual(expected);
    if (message) expect(drafts[0]!.message).toMatch(message);
  });

  it('says nothing when the page tree could not be read', async () => {
    expect(checkPageCount(await context(doc([], { pageCount: null })))).toEqual([]);
  });
});

describe('checkPageRotate and checkPageBoxes', () => {
  it.each([
    [0, []],
    [90, ['page-rotate-set']],
    [180, ['page-rotate-set']],
    [270, ['page-rotate-set']],
  ] as const)('/Rotate %i', async (rotate, expected) => {
    expect(codes(checkPageRotate(await context(doc([page(1, 2040, 2040, { rotate }), page(2, 2040, 2040)]))))).toEqual(expected);
  });

  it.each([
    ['no trim or bleed box', null, null, []],
    ['TrimBox equal to the page', [0, 0, mmToPt(2040), mmToPt(2040)], null, []],
    ['TrimBox at the trim', [mmToPt(20), mmToPt(20), mmToPt(2020), mmToPt(2020)], null, ['page-boxes-differ']],
    ['BleedBox inside the page', null, [mmToPt(5), mmToPt(5), mmToPt(2035), mmToPt(2035)], ['page-boxes-differ']],
    ['both differ', [mmToPt(20), mmToPt(20), mmToPt(2020), mmToPt(2020)], [1, 1, 100, 100], ['page-boxes-differ', 'page-boxes-differ']],
  ] as const)('%s', async (_name, trim, bleed, expected) => {
    const p = page(1, 2040, 2040);
    p.boxes.trim = trim as never;
    p.boxes.bleed = bleed as never;
    expect(codes(checkPageBoxes(await context(doc([p, page(2, 2040, 2040)]))))).toEqual(expected);
  });
});

describe('checkImageSize and checkImageResolution', () => {
  it.each([
    ['15,000 px is allowed', 15000, 10, []],
    ['15,001 px wide', 15001, 10, ['image-too-large']],
    ['15,001 px high', 10, 15001, ['image-too-large']],
  ] as const)('%s', async (_n, w, h, expected) => {
    const ctx = await context(doc([page(1, 2040, 2040, { images: [image(w, h, 2040, 2040)] }), page(2, 2040, 2040)]));
    expect(codes(checkImageSize(ctx))).toEqual(expected);
  });

  it('reports an image drawn twice once', async () => {
    const big = image(16000, 16000, 2040, 2040);
    const ctx = await context(doc([page(1, 2040, 2040, { images: [big, { ...big }] }), page(2, 2040, 2040)]));
    expect(checkImageSize(ctx)).toHaveLength(1);
  });

  it.each([
    ['100 ppi exactly', 8031.5, []],
    ['99 ppi', 7950, ['image-low-resolution']],
    ['150 ppi', 12047, []],
  ] as const)('a 2040 mm placement at %s', async (_n, px, expected) => {
    const ctx = await context(doc([page(1, 2040, 2040, { images: [image(Math.round(px), Math.round(px), 2040, 2040)] }), page(2, 2040, 2040)]));
    expect(codes(checkImageResolution(ctx))).toEqual(expected);
  });

  it('judges the worst placement of an image drawn twice, and names the pixels needed', async () => {
    const small = image(1000, 1000, 100, 100); // 254 ppi
    const stretched = image(1000, 1000, 1000, 1000); // 25.4 ppi
    const ctx = await context(doc([page(1, 2040, 2040, { images: [small, stretched] }), page(2, 2040, 2040)]));
    const drafts = checkImageResolution(ctx);
    expect(drafts).toHaveLength(1);
    expect(drafts[0]!.actual).toBe('25.4 ppi');
    expect(drafts[0]!.message).toContain('Supply at least 3,938 × 3,938 px');
  });

  it('ignores images placed at zero size and honours the limit override', async () => {
    const flat = image(10, 10, 0, 0, { ppiX: null, ppiY: null, placedWidthPt: 0, placedHeightPt: 0 });
    const ctx = await context(doc([page(1, 2040, 2040, { images: [flat, image(100, 100, 25.4, 25.4)] }), page(2, 2040, 2040)]));
    expect(checkImageResolution(ctx)).toEqual([]);
    expect(codes(checkImageResolution({ ...ctx, limits: { ...ctx.limits, minPpi: 150 } }))).toEqual(['image-low-resolution']);
  });
});

describe('image resolution at the printed size', () => {
  const at = (ppi: number, mm = 2040) => Math.round((ppi * mm) / 25.4);

  it('a half-size duvet export: the service prints the page at 200 %, so its images at half their placed ppi, and says the pixels needed at that size', async () => {
    // 1,004 px over 1,020 mm is 25 ppi placed, 12.5 ppi printed over 2,040 mm.
    const ctx = await context(doc([page(1, 1020, 1020, { images: [image(1004, 1004, 1020, 1020)] }), page(2, 1020, 1020)]));
    const [d] = runChecks(ctx).filter((f) => f.code === 'image-low-resolution');
    expect(d).toMatchObject({ severity: 'error', actual: '12.5 ppi', expected: '≥ 100 ppi' });
    expect(d!.details).toMatchObject({ ppi: 12.5, placedPpi: 25, printScale: 2, printedWidthMm: 2040, neededWidthPx: 8032 });
    expect(d!.message).toContain('scales to 200 %, so it prints at 2040 × 2040 mm: 12.5 ppi');
    expect(d!.message).toContain('Supply at least 8,032 × 8,032 px for that printed size (12,048 × 12,048 px for 150 ppi)');
  });

  it.each([
    ['60 ppi: a warning', 60, 'warning'],
    ['50 ppi exactly: a warning', 50, 'warning'],
    ['49 ppi: an error', 49, 'error'],
    ['10 ppi: an error', 10, 'error'],
  ] as const)('the severity ladder, %s', async (_n, ppi, severity) => {
    const ctx = await context(doc([page(1, 2040, 2040, { images: [image(at(ppi), at(ppi), 2040, 2040)] }), page(2, 2040, 2040)]));
    expect(
      runChecks(ctx)
        .filter((f) => f.code === 'image-low-resolution')
        .map((f) => f.severity),
    ).toEqual([severity]);
  });

  it('minPpiError comes from the limits (0: never an error), and a profile severity still overrides the ladder', async () => {
    const ctx = await context(doc([page(1, 2040, 2040, { images: [image(at(10), at(10), 2040, 2040)] }), page(2, 2040, 2040)]));
    expect(runChecks({ ...ctx, limits: { ...ctx.limits, minPpiError: 0 } }).find((f) => f.code === 'image-low-resolution')!.severity).toBe('warning');
    expect(runChecks(ctx, { 'image-low-resolution': 'info' }).find((f) => f.code === 'image-low-resolution')!.severity).toBe('info');
  });

  it('compares and prints with one precision: 99.96 ppi is 100.0 (no finding), 99.94 ppi is 99.9', async () => {
    const ppiImage = (ppi: number) => image(1000, 1000, 10, 10, { ppiX: ppi, ppiY: ppi });
    const ok = await context(doc([page(1, 2040, 2040, { images: [ppiImage(99.96)] }), page(2, 2040, 2040)]));
    expect(checkImageResolution(ok)).toEqual([]);
    const low = await context(doc([page(1, 2040, 2040, { images: [ppiImage(99.94)] }), page(2, 2040, 2040)]));
    const [d] = checkImageResolution(low);
    expect(d!.actual).toBe('99.9 ppi');
    expect(d!.message).toContain('99.9 ppi; the minimum is 100 ppi');
  });
});

describe('checkColourSpace', () => {
  const img = (cs: keyof typeof CS | null, ref = '10 0 R') => image(100, 100, 10, 10, { colourSpace: cs ? CS[cs]! : null, imageMask: cs === null, ref });
  it.each([
    ['rgb', []],
    ['iccRgb', []],
    ['idxRgb', []],
    ['cmyk', ['colour-space-not-rgb']],
    ['iccCmyk', ['colour-space-not-rgb']],
    ['gray', ['colour-space-not-rgb']],
    ['calgray', ['colour-space-not-rgb']],
    ['iccGray', ['colour-space-not-rgb']],
    ['lab', ['colour-space-not-rgb']],
    ['sep', ['colour-space-not-rgb']],
    ['devn', ['colour-space-not-rgb']],
    ['idxCmyk', ['colour-space-not-rgb']],
    ['jpx', []],
  ] as const)('image in %s', async (cs, expected) => {
    const ctx = await context(doc([page(1, 2040, 2040, { images: [img(cs)] }), page(2, 2040, 2040)]));
    expect(codes(checkColourSpace(ctx))).toEqual(expected);
  });

  it.each([
    ['rgb', []],
    ['gray', []],
    ['calgray', []],
    ['iccGray', []],
    ['cmyk', ['colour-space-not-rgb']],
    ['sep', ['colour-space-not-rgb']],
    ['devn', ['colour-space-not-rgb']],
    ['lab', ['colour-space-not-rgb']],
  ] as const)('vector fill in %s', async (cs, expected) => {
    const ctx = await context(doc([page(1, 2040, 2040, { colours: [{ use: 'fill', colourSpace: CS[cs]!, count: 3, via: [] }] }), page(2, 2040, 2040)]));
    expect(codes(checkColourSpace(ctx))).toEqual(expected);
  });

  it('groups images of one colour space into one finding per page', async () => {
    const images = [img('cmyk', '1 0 R'), img('cmyk', '2 0 R'), img('cmyk', '3 0 R'), img('cmyk', '4 0 R'), img('lab', '5 0 R')];
    const drafts = checkColourSpace(await context(doc([page(1, 2040, 2040, { images }), page(2, 2040, 2040)])));
    expect(drafts).toHaveLength(2);
    expect(drafts[0]!.message).toContain('4 images (image Im1 (1 0 R), image Im1 (2 0 R), image Im1 (3 0 R) and 1 more) are in DeviceCMYK');
  });
});

describe('checkDocument and checkFileSize', () => {
  it.each([
    ['not a PDF', { problems: [{ kind: 'not-pdf', detail: 'the file is empty (0 bytes)' }] }, ['file-not-pdf'], null],
    ['damaged', { problems: [{ kind: 'damaged', detail: 'x' }] }, ['pdf-damaged'], null],
    ['too complex', { problems: [{ kind: 'too-complex', detail: 'x' }] }, ['pdf-too-complex'], null],
    ['user password', { encryption: { filter: 'Standard', version: 5, revision: 6, method: 'AES-256', needsPassword: true, decrypted: false } }, ['pdf-encrypted'], undefined],
    ['owner only', { encryption: { filter: 'Standard', version: 5, revision: 6, method: 'AES-256', needsPassword: false, decrypted: true } }, ['pdf-encrypted'], 'warning'],
  ] as const)('%s', async (_n, extra, expected, severity) => {
    const drafts = checkDocument(await context(doc([], extra as never)));
    expect(codes(drafts)).toEqual(expected);
    if (severity !== null) expect(drafts[0]!.severity).toBe(severity);
  });

  it.each([
    [50_000_000, []],
    [50_000_001, ['file-too-large']],
  ] as const)('%i bytes', async (bytes, expected) => {
    expect(codes(checkFileSize(await context(doc([], { bytes }))))).toEqual(expected);
  });
});

describe('runChecks: severities and order', () => {
  const facts = () => doc([page(1, 2040, 2040, { rotate: 90, images: [image(300, 300, 100, 100, { colourSpace: CS.cmyk! })] }), page(2, 1000, 3000)]); // 76 ppi: a warning

  it('orders findings by page, severity, code', async () => {
    const found = runChecks(await context(facts()));
    expect(found.map((f) => `${f.page}:${f.severity}:${f.code}`)).toEqual([
      '1:warning:colour-space-not-rgb',
      '1:warning:image-low-resolution',
      '1:warning:page-rotate-set',
      '2:error:page-size-mismatch',
    ]);
  });

  it('applies per-call overrides, with off dropping a finding', async () => {
    const found = runChecks(await context(facts()), { 'colour-space-not-rgb': 'error', 'page-rotate-set': 'off' });
    expect(found.map((f) => `${f.severity}:${f.code}`)).toEqual(['error:colour-space-not-rgb', 'warning:image-low-resolution', 'error:page-size-mismatch']);
  });

  it('applies profile severities below call overrides', async () => {
    const ctx = await context(facts());
    const profile = { ...ctx.target.profile, severities: { 'image-low-resolution': 'info' as const } };
    const found = runChecks({ ...ctx, target: { ...ctx.target, profile } });
    expect(found.find((f) => f.code === 'image-low-resolution')!.severity).toBe('info');
  });
});

describe('page-order-mismatch (t-shirt M: front, back 560 × 750 mm; sleeves 460 × 260 mm)', () => {
  const tshirt = { sku: 'T-SHIRT-M' };
  const front = [560, 750] as const;
  const sleeve = [460, 260] as const;
  const pages = (...sizes: (readonly [number, number])[]) => doc(sizes.map(([w, h], i) => page(i + 1, w, h)));

  it('sleeve, sleeve, front, back: one finding naming which pages look like which layers, no size error per page', async () => {
    const drafts = checkPageSize(await context(pages(sleeve, sleeve, front, front), tshirt));
    expect(codes(drafts)).toEqual(['page-order-mismatch']);
    const d = drafts[0]!;
    expect(d.page).toBeNull();
    expect(d.message).toContain('pages 1–2 match left-sleeve and right-sleeve, pages 3–4 front and back; expected front, back, left-sleeve, right-sleeve');
    expect(d.details).toMatchObject({ order: '3,4,1,2', ambiguous: true });
    expect(d.message).toContain('cannot be told apart');
  });

  it('front, sleeve, back, sleeve: the pages that are right stay, the order is stable', async () => {
    const d = checkPageSize(await context(pages(front, sleeve, front, sleeve), tshirt))[0]!;
    expect(d.code).toBe('page-order-mismatch');
    expect(d.details?.order).toBe('1,3,2,4');
  });

  it('never guesses between layers of the same size: a swap of front and back is not seen', async () => {
    expect(checkPageSize(await context(pages(front, front, sleeve, sleeve), tshirt))).toEqual([]);
  });

  it('sizes that no order explains stay per-page size findings', async () => {
    const drafts = checkPageSize(await context(pages(sleeve, sleeve, front, [100, 100]), tshirt));
    expect(codes(drafts)).not.toContain('page-order-mismatch');
    expect(codes(drafts)).toContain('page-size-mismatch');
  });

  it('a page count that differs from the layers is page-count-mismatch, not an order', async () => {
    expect(codes(checkPageSize(await context(pages(sleeve, front, front), tshirt)))).not.toContain('page-order-mismatch');
  });

  it('two layers of distinct sizes: each page is named without ambiguity; a sideways page is no match', () => {
    const sizes: [number, number][] = [
      [300, 400],
      [500, 200],
    ];
    const layers: LayerSpec[] = sizes.map(([w, h], i) => ({ id: `l${i + 1}`, name: `L${i + 1}`, index: i + 1, trimWidthMm: w, trimHeightMm: h, pageWidthMm: w, pageHeightMm: h, sewnEdges: [] }));
    const plan = pageOrderOf(
      [
        { widthMm: 500, heightMm: 200 },
        { widthMm: 300, heightMm: 400 },
      ],
      layers,
      2,
    );
    expect(plan).toEqual({ candidates: [['l2'], ['l1']], order: [2, 1] });
    // Swapped orientation is not a size match: no order explains it.
    expect(
      pageOrderOf(
        [
          { widthMm: 200, heightMm: 500 },
          { widthMm: 300, heightMm: 400 },
        ],
        layers,
        2,
      ),
    ).toBeNull();
  });
});
