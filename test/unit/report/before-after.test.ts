/** Before and after by design: pairing through a reorder, the spot of an image change, the area where two pictures differ. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { appliedOrder, beforeBox, findChangedArea, padded, pairLayers, type UnitBox } from '../../../src/report/before-after.js';

const page = (index: number, layer: string | null, images: { ref: string; widthPx: number; heightPx: number; bboxMm: [number, number, number, number] }[] = [], w = 100, h = 200) =>
  ({ index, layer, widthMm: w, heightMm: h, images }) as never;

describe('pairing each fixed page with the original page that became it', () => {
  const order = { code: 'page-order-mismatch' as const, page: null, layer: null, message: '', severity: 'error' as const, expected: null, actual: null, details: { order: '3,4,1,2' } };
  const before = {
    findings: [order],
    pages: [page(1, 'front'), page(2, 'back'), page(3, 'left-sleeve', [{ ref: '9 0 R', widthPx: 40, heightPx: 40, bboxMm: [10, 20, 50, 60] }]), page(4, 'right-sleeve')],
  } as never;
  const after = { pages: [page(1, 'front', [{ ref: '12 0 R', widthPx: 40, heightPx: 40, bboxMm: [20, 40, 60, 80] }]), page(2, 'back'), page(3, 'left-sleeve'), page(4, 'right-sleeve')] } as never;

  it('through the reorder the fix made', () => {
    const changes = [{ code: 'page-order-mismatch' as const, page: null, action: 'put the pages in the order 3, 4, 1, 2' }];
    expect(appliedOrder(before, changes)).toEqual([3, 4, 1, 2]);
    expect(pairLayers(before, after, changes).map((p) => [p.afterPage, p.layer, p.beforePage])).toEqual([
      [1, 'front', 3],
      [2, 'back', 4],
      [3, 'left-sleeve', 1],
      [4, 'right-sleeve', 2],
    ]);
  });

  it('by position when the fix kept the order (the finding alone moves nothing)', () => {
    expect(appliedOrder(before, [])).toBeNull();
    expect(pairLayers(before, after, []).map((p) => p.beforePage)).toEqual([1, 2, 3, 4]);
  });

  it('an image change is placed on both pages: by its reference after, by its place in the list before', () => {
    const changes = [
      { code: 'page-order-mismatch' as const, page: null, action: 'put the pages in the order 3, 4, 1, 2' },
      { code: 'colour-space-not-rgb' as const, page: 1, action: 'image 12 0 R: converted DeviceCMYK to sRGB' },
      { code: 'page-orientation-mismatch' as const, page: 1, action: "turned the page content 90° counter-clockwise onto a page of the layer's size" },
    ];
    const [front] = pairLayers(before, after, changes);
    expect(front).toMatchObject({ beforePage: 3, turn: 270, resized: true });
    expect(front!.spots).toEqual([{ code: 'colour-space-not-rgb', kind: 'image', before: [0.1, 0.1, 0.5, 0.3], after: [0.2, 0.2, 0.6, 0.4] }]);
  });

  it('an order that is not a permutation of the pages is not applied', () => {
    const bad = { pages: (before as { pages: unknown[] }).pages, findings: [{ ...order, details: { order: '1,1,2,3' } }] } as never;
    expect(appliedOrder(bad, [{ code: 'page-order-mismatch', page: null, action: '' }])).toBeNull();
  });
});

describe('where two pictures of a page differ', () => {
  const W = 400;
  const H = 600;
  const picture = async (disc: string, rotate = 0) => {
    const drawn = await sharp({ create: { width: W, height: H, channels: 3, background: '#2a8bd6' } })
      .composite([
        {
          input: Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect y="${H * 0.2}" width="${W}" height="${H * 0.1}" fill="#f2d81e"/><circle cx="${W * 0.5}" cy="${H * 0.65}" r="${W * 0.15}" fill="${disc}"/><text x="${W * 0.4}" y="${H * 0.45}" font-size="40" fill="#fff">L1</text></svg>`,
          ),
        },
      ])
      .png()
      .toBuffer();
    return sharp(drawn).rotate(rotate).webp({ quality: 80 }).toBuffer();
  };

  it('finds a disc whose colour shifted by a dozen levels (a CMYK colour converted), nothing else', async () => {
    const area = (await findChangedArea(await picture('#d93c48'), await picture('#d32f3d'), 0))!;
    expect(area).not.toBeNull();
    // The disc spans x 0.35–0.65, y 0.55–0.75.
    expect(area[0]).toBeGreaterThan(0.28);
    expect(area[2]).toBeLessThan(0.72);
    expect(area[1]).toBeGreaterThan(0.5);
    expect(area[3]).toBeLessThan(0.8);
  });

  it("brings the original to the fixed page's geometry first (a page turned upright)", async () => {
    const area = (await findChangedArea(await picture('#d93c48', 270), await picture('#d32f3d'), 90))!;
    expect(area[0]).toBeGreaterThan(0.28);
    expect(area[3]).toBeLessThan(0.8);
  });

  it('the same picture coded again differs nowhere', async () => {
    expect(await findChangedArea(await picture('#d93c48'), await picture('#d93c48'), 0)).toBeNull();
  });

  it('a box of the page after maps to the original through the turn', () => {
    const box: UnitBox = [0.1, 0.2, 0.3, 0.6];
    const close = (a: UnitBox, b: UnitBox) => a.forEach((v, i) => expect(v).toBeCloseTo(b[i]!, 9));
    close(beforeBox(box, 0), box);
    close(beforeBox(box, 90), [0.2, 0.7, 0.6, 0.9]);
    close(beforeBox(beforeBox(box, 180), 180), box);
    close(beforeBox(beforeBox(box, 90), 270), box);
    const p = padded([0.4, 0.4, 0.5, 0.45]);
    expect(p[0]).toBeLessThan(0.4);
    expect(p[2] - p[0]).toBeGreaterThanOrEqual(0.2 - 1e-9);
    expect(padded([0.95, 0.95, 1, 1])[2]).toBeLessThanOrEqual(1);
  });
});
