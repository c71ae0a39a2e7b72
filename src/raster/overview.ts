/**
 * The overview of an image that the detail measurement chooses its band and window on
 * (raster/image-detail.ts): the part of the page's drawing where the image lands. A page drawn
 * from its one image is that image; on any other page an image drawn upright (not turned, not
 * mirrored) and wholly on the page is cut out of the drawing, so that the measurement looks where
 * the picture's detail is instead of at its top rows (a sky, a plain border). The drawing shows
 * what is painted over the image too; it only steers where to look — the pixels measured are the
 * image's own.
 */
import type { Overview, Placed } from './image-detail.js';
import { placement } from './fast-path.js';
import type { RawPixels } from './pixels.js';

/** The smallest cut-out (px per side) worth steering by. */
const MIN_OVERVIEW_PX = 32;

/**
 * The part of `page` (a drawing of the whole page, upright as displayed) where an image of
 * `widthPx × heightPx` placed as `placed` lands; null when it is turned or mirrored, reaches past
 * the drawing, is skewed, or lands on fewer than {@link MIN_OVERVIEW_PX} pixels a side.
 * @example
 * const overview = placedOverview(pagePixels, { ctm: [300, 0, 0, 200, 50, 60], checkedBox: [0, 0, 400, 400], rotate: 0 }, 3000, 2000);
 */
export function placedOverview(page: RawPixels, placed: Placed, widthPx: number, heightPx: number): Overview | null {
  let at: ReturnType<typeof placement>;
  try {
    at = placement({ ref: '', ...placed, widthPx, heightPx }, Math.max(page.width, page.height));
  } catch {
    return null; // skewed or sheared: no rectangle of the drawing is the image
  }
  if (!at || at.flip || at.angle !== 0) return null;
  // The drawing must be the one placement() assumes (same size within rounding).
  if (Math.abs(at.width - page.width) > 1 || Math.abs(at.height - page.height) > 1) return null;
  const left = Math.round(at.left);
  const top = Math.round(at.top);
  if (left < -1 || top < -1 || left + at.rw > page.width + 1 || top + at.rh > page.height + 1) return null;
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const width = Math.min(page.width, left + at.rw) - x0;
  const height = Math.min(page.height, top + at.rh) - y0;
  if (width < MIN_OVERVIEW_PX || height < MIN_OVERVIEW_PX) return null;
  const { channels } = page;
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const from = ((y0 + y) * page.width + x0) * channels;
    data.set(page.data.subarray(from, from + width * channels), y * width * channels);
  }
  return { data, width, height, channels };
}
