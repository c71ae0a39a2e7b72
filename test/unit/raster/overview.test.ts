/**
 * The part of a page's drawing where an image lands (raster/overview.ts): what the detail
 * measurement steers by when the page is more than its one image.
 */
import { describe, expect, it } from 'vitest';
import { placedOverview } from '../../../src/raster/overview.js';

/** A 400 × 300 drawing of a 400 × 300 pt page, each pixel's value its column (red) and row (green). */
const drawing = () => {
  const width = 400;
  const height = 300;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([x % 256, y % 256, 0], (y * width + x) * 3);
  return { data, width, height, channels: 3 };
};

describe('the part of the drawing where an image lands', () => {
  it('an upright image is cut out at its place, top row first', () => {
    // 200 × 100 pt at (50, 60) from the bottom left: rows 140–239 and columns 50–249 of the drawing.
    const o = placedOverview(drawing(), { ctm: [200, 0, 0, 100, 50, 60], checkedBox: [0, 0, 400, 300], rotate: 0 }, 2000, 1000)!;
    expect([o.width, o.height, o.channels]).toEqual([200, 100, 3]);
    expect([o.data[0], o.data[1]]).toEqual([50, 140]);
    const last = (o.width * o.height - 1) * 3;
    expect([o.data[last], o.data[last + 1]]).toEqual([249, 239]);
  });

  it('turned, mirrored, off-page or tiny images have none', () => {
    const page = { checkedBox: [0, 0, 400, 300] as [number, number, number, number], rotate: 0 };
    expect(placedOverview(drawing(), { ...page, ctm: [0, 100, -200, 0, 250, 60] }, 2000, 1000)).toBeNull();
    expect(placedOverview(drawing(), { ...page, ctm: [-200, 0, 0, 100, 250, 60] }, 2000, 1000)).toBeNull();
    expect(placedOverview(drawing(), { ...page, ctm: [300, 0, 0, 100, 250, 60] }, 2000, 1000)).toBeNull();
    expect(placedOverview(drawing(), { ...page, ctm: [20, 0, 0, 20, 50, 60] }, 2000, 1000)).toBeNull();
    // Skewed (pdfcpu's ImageAbsScaling sample): the page is still drawn, the image just has no overview.
    expect(placedOverview(drawing(), { ...page, ctm: [200, 30, 20, 100, 50, 60] }, 2000, 1000)).toBeNull();
  });

  it('a drawing of another size than the placement assumes has none', () => {
    const small = { ...drawing(), width: 300 };
    expect(placedOverview(small, { ctm: [200, 0, 0, 100, 50, 60], checkedBox: [0, 0, 400, 300], rotate: 0 }, 2000, 1000)).toBeNull();
  });
});
