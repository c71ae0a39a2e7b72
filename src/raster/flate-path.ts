/**
 * A fast path for pages that are one Flate-compressed image (a PNG placed by img2pdf, a
 * flattened export) too big for pdf.js's memory budget: the stream is inflated as it comes and
 * averaged down row by row (a box filter), so memory holds one row and the reduced image — never
 * the decoded image — whatever its size; a bomb stops at the image's last row. The reduced image
 * is then placed like a JPEG on the page raster.
 */
import { createInflate } from 'node:zlib';
import type { PageFacts } from '../pdf/facts.js';
import { coveringPlan, place, placement, type ImagePlan } from './fast-path.js';
import type { RawPixels } from './pixels.js';

/** Longest side taken (the service's own image limit): beyond it the page is not rendered. */
const MAX_FLATE_SIDE = 15_000;

/** Families whose 1 or 3 components are drawn as gray or RGB. */
const FLATE_FAMILIES = new Set(['DeviceRGB', 'DeviceGray', 'ICCBased', 'CalRGB', 'CalGray']);

/** The page's one covering Flate image (8 bits, gray or RGB, no mask), as a plan; otherwise null. */
export function flatePlan(page: PageFacts): ImagePlan | null {
  if (page.images.length !== 1 || page.colours.length !== 0) return null;
  const image = page.images[0]!;
  if (image.inline || !image.ref || image.imageMask || image.hasSMask || image.mask) return null;
  if (image.filters.length !== 1 || image.filters[0] !== 'FlateDecode' || image.bitsPerComponent !== 8) return null;
  if (image.widthPx > MAX_FLATE_SIDE || image.heightPx > MAX_FLATE_SIDE) return null;
  const cs = image.colourSpace;
  if (!cs || !FLATE_FAMILIES.has(cs.family) || (cs.components !== 1 && cs.components !== 3)) return null;
  const plan = coveringPlan(page, image);
  return plan ? { ...plan, kind: 'flate', components: cs.components } : null;
}

/** What the stream's /DecodeParms say about row prediction. */
export interface FlateParms {
  predictor: number;
  colors: number;
  bitsPerComponent: number;
  columns: number;
}

/**
 * Draws the page from its Flate image stream at `maxPx` on the longest side, or null when the
 * stream is not what the plan says (a predictor other than none or PNG, other parameters).
 */
export async function renderFromFlate(raw: Uint8Array, parms: FlateParms, plan: ImagePlan, maxPx: number): Promise<RawPixels | null> {
  const comps = plan.components ?? 0;
  const w = plan.widthPx;
  const h = plan.heightPx;
  const png = parms.predictor >= 10;
  if (comps !== 1 && comps !== 3) return null;
  if (parms.predictor !== 1 && !png) return null;
  if (png && (parms.colors !== comps || parms.bitsPerComponent !== 8 || parms.columns !== w)) return null;
  const at = placement(plan, maxPx);
  if (!at) return null;
  // Reduce by a whole factor to about the placed size (a box filter); sharp does the rest.
  const turned = at.angle === 90 || at.angle === 270;
  const k = Math.max(1, Math.floor(Math.min(w / (turned ? at.rh : at.rw), h / (turned ? at.rw : at.rh))));
  if (k * k * 255 >= 2 ** 32) return null; // drawn so small that a cell's sum would overflow
  const rw = Math.ceil(w / k);
  const rh = Math.ceil(h / k);
  const sums = new Uint32Array(rw * rh * comps);
  const rowLength = w * comps;
  const stride = rowLength + (png ? 1 : 0);
  const row = new Uint8Array(stride);
  let prev: Uint8Array = new Uint8Array(rowLength);
  let filled = 0;
  let y = 0;

  const finishRow = () => {
    const line = png ? unfilter(row[0]!, row.subarray(1), prev, comps) : row;
    const base = Math.floor(y / k) * rw * comps;
    for (let x = 0; x < w; x++) {
      const cell = base + Math.floor(x / k) * comps;
      for (let c = 0; c < comps; c++) sums[cell + c]! += line[x * comps + c]!;
    }
    if (png) prev = line;
    y++;
    filled = 0;
  };

  await new Promise<void>((resolve) => {
    const inflater = createInflate();
    const done = () => {
      inflater.removeAllListeners('data');
      inflater.destroy();
      resolve();
    };
    inflater.on('data', (chunk: Buffer) => {
      let i = 0;
      while (i < chunk.length && y < h) {
        const n = Math.min(stride - filled, chunk.length - i);
        row.set(chunk.subarray(i, i + n), filled);
        filled += n;
        i += n;
        if (filled === stride) finishRow();
      }
      if (y >= h) done(); // the image is complete: whatever follows (a bomb) is never inflated
    });
    // Damaged or short data: what was decoded stands, the rest stays black (as pdf.js leaves it).
    inflater.on('error', done);
    inflater.on('end', done);
    inflater.end(raw);
  });

  const reduced = new Uint8Array(rw * rh * comps);
  for (let ry = 0; ry < rh; ry++) {
    const cellH = Math.min(k, h - ry * k);
    for (let rx = 0; rx < rw; rx++) {
      const n = cellH * Math.min(k, w - rx * k);
      for (let c = 0; c < comps; c++) {
        const i = (ry * rw + rx) * comps + c;
        reduced[i] = Math.round(sums[i]! / n);
      }
    }
  }
  const scaled = { ...plan, widthPx: rw, heightPx: rh };
  const fitted = placement(scaled, maxPx);
  if (!fitted) return null;
  const { default: sharp } = await import('sharp'); // loaded by the first page that needs it
  return place(sharp(reduced, { raw: { width: rw, height: rh, channels: comps as 1 | 3 } }), fitted);
}

/** Undoes one PNG row filter (types 0–4) against the previous decoded row. */
function unfilter(type: number, row: Uint8Array, prev: Uint8Array, bpp: number): Uint8Array {
  const out = new Uint8Array(row.length);
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? out[i - bpp]! : 0;
    const b = prev[i]!;
    const c = i >= bpp ? prev[i - bpp]! : 0;
    const x = row[i]!;
    let v: number;
    switch (type) {
      case 1:
        v = x + a;
        break;
      case 2:
        v = x + b;
        break;
      case 3:
        v = x + ((a + b) >> 1);
        break;
      case 4: {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        break;
      }
      default:
        v = x;
    }
    out[i] = v & 0xff;
  }
  return out;
}
