/**
 * The fast path for raster pages. A textile print file is usually one photo covering the page;
 * pdf.js would decode every pixel of it in JavaScript. Instead, the JPEG stream is handed to sharp
 * (libjpeg's shrink-on-load decodes at 1/2, 1/4 or 1/8 scale; CMYK goes to sRGB through lcms),
 * turned and mirrored as the page draws it, and placed into a white page raster.
 */
import type { Sharp } from 'sharp';
import type { ImagePlan } from './image-plan.js';
import { apply, displayPoint } from '../pdf/matrix.js';
import { jpegSize } from '../pdf/image-header.js';
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import { fastPathFits } from './budget.js';
import type { RawPixels } from './pixels.js';
import { loadSharp } from './sharp.js';
import { fitSize } from './render.js';
import { defaultCmykProfile } from './cmyk-profile.js';
import { withIccProfile } from './jpeg-icc.js';
import { lcmsToSrgb } from './colour.js';

type Vec = [number, number];

/** Image pixel (u right, v down) → displayed page pixel, for a page rendered `scale` px per pt. */
function toPagePx(plan: ImagePlan, scale: number): (u: number, v: number) => Vec {
  return (u, v) => {
    const [x, y] = apply(plan.ctm, u / plan.widthPx, 1 - v / plan.heightPx);
    return displayPoint(x, y, plan.checkedBox, plan.rotate, scale);
  };
}

const sign = (v: Vec): Vec => [Math.sign(Math.round(v[0] * 1e6)), Math.sign(Math.round(v[1] * 1e6))];
const turn = ([x, y]: Vec): Vec => [-y, x]; // 90° clockwise with y down

/** sharp's flip (before rotation) and clockwise rotation that take image axes to page axes. */
export function orientation(du: Vec, dv: Vec): { flip: boolean; angle: 0 | 90 | 180 | 270 } {
  const want = [sign(du), sign(dv)];
  for (const flip of [false, true]) {
    let u: Vec = [1, 0];
    let v: Vec = flip ? [0, -1] : [0, 1];
    for (const angle of [0, 90, 180, 270] as const) {
      if (u[0] === want[0]![0] && u[1] === want[0]![1] && v[0] === want[1]![0] && v[1] === want[1]![1]) return { flip, angle };
      u = turn(u);
      v = turn(v);
    }
  }
  throw new Error('the image is not drawn axis-aligned');
}

/**
 * Draws the page from its JPEG stream at `maxPx` on the longest side. Returns RGB pixels, or null
 * when the JPEG does not decode to what the PDF means (a /Decode array sharp cannot honour).
 *
 * An image enlarged on the page is drawn with hard pixels (nearest neighbour) unless it asks for
 * /Interpolate true, as PDF readers show it (pdf.js, poppler, MuPDF); a reduced one is smoothed.
 */
export async function renderFromImage(jpeg: Uint8Array, plan: ImagePlan, maxPx: number, decodeInverted: boolean, maxInputPixels: number, interpolate = false): Promise<RawPixels | null> {
  const at = placement(plan, maxPx);
  if (!at) return null;

  // The worker checks the JPEG's own frame header again, before sharp sees a byte of it.
  const header = jpegSize(jpeg);
  if (!header || header.widthPx !== plan.widthPx || header.heightPx !== plan.heightPx || !fastPathFits(header)) return null;
  if (header.widthPx * header.heightPx > maxInputPixels) return null;
  if (jpegScanReason(jpeg, header.widthPx * header.heightPx)) return null;
  // sharp is loaded by the first page drawn this way: planning a page (or --no-raster) never loads it.
  const sharp = await loadSharp();
  const options = { failOn: 'none', limitInputPixels: maxInputPixels, sequentialRead: true } as const;
  let input = sharp(jpeg, options);
  const meta = await input.metadata();
  const cmyk = meta.space === 'cmyk';
  // A CMYK JPEG that carries no profile is converted through the default chain (cmyk-profile.ts),
  // as the colour fix and the other renderers convert it — not through libvips's own fallback.
  if (cmyk && !meta.icc) input = sharp(withIccProfile(jpeg, defaultCmykProfile()), options);
  // libvips already undoes Adobe's inverted CMYK; a PDF says the same with /Decode [1 0 …].
  // Any other combination means something sharp would get wrong.
  const adobe = cmyk && hasAdobeMarker(jpeg);
  if (cmyk && adobe !== decodeInverted) return null;
  if (!cmyk && decodeInverted) return null;
  // A CMYK image is shrunk, turned and resized in CMYK; lcms converts it once, at the final size
  // (converting the full-size decode first costs as much again as the decode).
  return drawPlaced(cmyk ? input.pipelineColourspace('cmyk') : input, plan, at, interpolate, cmyk ? (meta.icc ? new Uint8Array(meta.icc) : defaultCmykProfile()) : undefined);
}

/** Where the image lands on the displayed page raster, and how it is turned to get there. */
export interface Placement {
  /** The page raster. */
  width: number;
  height: number;
  flip: boolean;
  angle: 0 | 90 | 180 | 270;
  /** The image's rectangle on the page raster (it may reach past the page). */
  left: number;
  top: number;
  rw: number;
  rh: number;
}

/**
 * The placement of the plan's image on a page raster of `maxPx` on the longest side; null when
 * the image is drawn mostly off the page (pdf.js clips it instead).
 */
export function placement(plan: ImagePlan, maxPx: number): Placement | null {
  const [bx0, by0, bx1, by1] = plan.checkedBox;
  const turned = plan.rotate === 90 || plan.rotate === 270;
  const wPt = turned ? by1 - by0 : bx1 - bx0;
  const hPt = turned ? bx1 - bx0 : by1 - by0;
  const { width, height } = fitSize(wPt, hPt, maxPx);
  const scale = Math.max(width / wPt, height / hPt);
  const map = toPagePx(plan, scale);
  const p00 = map(0, 0);
  const pu = map(plan.widthPx, 0);
  const pv = map(0, plan.heightPx);
  const du: Vec = [pu[0] - p00[0], pu[1] - p00[1]];
  const dv: Vec = [pv[0] - p00[0], pv[1] - p00[1]];
  const { flip, angle } = orientation(du, dv);
  const xs = [p00[0], pu[0], pv[0], pu[0] + dv[0]];
  const ys = [p00[1], pu[1], pv[1], pu[1] + dv[1]];
  // Four corners: no spread, so no array length to reason about.
  const left = Math.min(xs[0]!, xs[1]!, xs[2]!, xs[3]!);
  const top = Math.min(ys[0]!, ys[1]!, ys[2]!, ys[3]!);
  const rw = Math.max(1, Math.round(Math.max(xs[0]!, xs[1]!, xs[2]!, xs[3]!) - left));
  const rh = Math.max(1, Math.round(Math.max(ys[0]!, ys[1]!, ys[2]!, ys[3]!) - top));
  if (rw * rh > 16 * width * height) return null;
  return { width, height, flip, angle, left, top, rw, rh };
}

/**
 * Turns, mirrors and scales an image (in image orientation: u right, v down) to its placement and
 * draws it into a white page raster. An image enlarged on the page keeps hard pixels (nearest
 * neighbour) unless it asks for /Interpolate true; a reduced one is smoothed.
 */
export async function drawPlaced(input: Sharp, plan: ImagePlan, at: Placement, interpolate: boolean, cmykIcc?: Uint8Array): Promise<RawPixels> {
  const { width, height, flip, angle, left, top, rw, rh } = at;
  let img = input;
  if (flip) img = img.flip();
  if (angle) img = img.rotate(angle);
  const enlarged = rw * rh > plan.widthPx * plan.heightPx;
  const resized = img.resize(rw, rh, { fit: 'fill', kernel: enlarged && !interpolate ? 'nearest' : 'lanczos3' });
  const placed = cmykIcc ? await cmykToSrgb(resized, cmykIcc) : await resized.toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const channels = placed.info.channels;
  const ox = Math.round(left);
  const oy = Math.round(top);
  // The usual textile page: the image covers the page exactly, so its pixels are the page's.
  if (ox === 0 && oy === 0 && placed.info.width === width && placed.info.height === height && channels === 3) {
    return { data: new Uint8Array(placed.data.buffer, placed.data.byteOffset, placed.data.byteLength), width, height, channels: 3 };
  }
  const out = new Uint8Array(width * height * 3).fill(255);
  for (let y = Math.max(0, oy); y < Math.min(height, oy + placed.info.height); y++) {
    for (let x = Math.max(0, ox); x < Math.min(width, ox + placed.info.width); x++) {
      const s = ((y - oy) * placed.info.width + (x - ox)) * channels;
      const t = (y * width + x) * 3;
      out[t] = placed.data[s]!;
      out[t + 1] = placed.data[s + (channels > 1 ? 1 : 0)]!;
      out[t + 2] = placed.data[s + (channels > 2 ? 2 : 0)]!;
    }
  }
  return { data: out, width, height, channels: 3 };
}

/**
 * A CMYK pipeline's pixels to sRGB through lcms from `icc`, as the colour fix converts the image
 * (colour.ts). libvips's own CMYK → sRGB step at the end of a CMYK pipeline converts otherwise
 * (lighter and greyer: ΔE00 2.1 on an ImageMagick CMYK photo against the fixed file's preview).
 */
async function cmykToSrgb(resized: Sharp, icc: Uint8Array): Promise<{ data: Buffer; info: { width: number; height: number; channels: number } }> {
  const cmyk = await resized.toColourspace('cmyk').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = cmyk.info;
  const rgb = await lcmsToSrgb(new Uint8Array(cmyk.data.buffer, cmyk.data.byteOffset, cmyk.data.byteLength), width, height, 'cmyk', icc);
  return { data: Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), info: { width, height, channels: 3 } };
}

/** JPEG APP14 "Adobe" segment: the marker of Adobe's (inverted) CMYK JPEGs. */
export function hasAdobeMarker(jpeg: Uint8Array): boolean {
  let i = 2;
  while (i + 4 < jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // start of scan / end of image
    const len = (jpeg[i + 2]! << 8) | jpeg[i + 3]!;
    if (marker === 0xee && len >= 7 && String.fromCharCode(...jpeg.subarray(i + 4, i + 9)) === 'Adobe') return true;
    i += 2 + len;
  }
  return false;
}

/** How a render failure starts when the page's one image could not be read (its data is corrupt or short). */
export const IMAGE_UNREADABLE = 'its image could not be read';
