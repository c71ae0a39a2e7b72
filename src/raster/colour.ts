/**
 * Colour conversion to sRGB with lcms through sharp: the same engine for images and for vector
 * colours, so a CMYK fill and a CMYK photo of the same colour end up the same RGB.
 *
 * Building an lcms transform costs about 100 ms (the CMYK profile's tables), whatever the number of
 * pixels: converting a file's thousand small images one call each would spend minutes building the
 * same transform. So each transform is built once per source space and profile, the way lcms itself
 * precalculates one — lcms converts a grid of colours (every gray level; 17 points per CMYK
 * channel, lcms's own grid for four channels) — and each pixel is then interpolated from that table
 * (gray: looked up exactly; CMYK: on the simplex of its grid cell, five lookups), a strip of typed
 * arrays at a time.
 */
import { createHash } from 'node:crypto';
import { sourceProfile } from './cmyk-profile.js';
import { loadSharp } from './sharp.js';
import { rawToTiff, type SampleModel } from './tiff.js';

/** Grid points per CMYK channel (lcms's precalculation for four input channels). */
const CMYK_GRID = 17;
/** Transforms kept (per space and profile): a file rarely has more than a few. */
const KEEP = 16;

/**
 * A table of colours on a regular grid over `n` 8-bit input channels (`grid` points per channel),
 * and pixels interpolated in it: on the simplex of the grid cell that holds each (Kuhn's
 * subdivision — tetrahedral interpolation in three channels, as lcms does, and its like in more),
 * so a pixel costs n + 1 table lookups whatever n is.
 */
export class GridTable {
  private readonly strides: Int32Array;
  private readonly base = new Int32Array(8);
  private readonly frac = new Float64Array(8);
  private readonly order = new Int32Array(8);

  constructor(
    readonly n: number,
    readonly grid: number,
    /** Output values (0–255) per grid point, `outN` each, the last channel varying fastest. */
    readonly table: Float32Array,
    readonly outN: number,
  ) {
    this.strides = new Int32Array(n);
    for (let c = n - 1, m = 1; c >= 0; c--, m *= grid) this.strides[c] = m;
  }

  /** The grid point of index `i`, as 8-bit channel values (for filling the table). */
  static point(i: number, n: number, grid: number, into: Uint8Array | number[], at = 0): void {
    let rest = i;
    for (let c = n - 1; c >= 0; c--) {
      into[at + c] = Math.round(((rest % grid) * 255) / (grid - 1));
      rest = Math.floor(rest / grid);
    }
  }

  /** `count` pixels of `n` samples → `outN` bytes each. */
  apply(samples: Uint8Array, count: number): Uint8Array {
    const { n, grid, table, outN, strides, base, frac, order } = this;
    const out = new Uint8Array(count * outN);
    const scale = (grid - 1) / 255;
    const acc = new Float64Array(outN);
    let same = -1;
    for (let p = 0; p < count; p++) {
      const at = p * n;
      // A run of one colour (flat areas) is interpolated once.
      if (same >= 0) {
        let c = 0;
        while (c < n && samples[at + c] === samples[same + c]) c++;
        if (c === n) {
          for (let k = 0; k < outN; k++) out[p * outN + k] = out[(p - 1) * outN + k]!;
          continue;
        }
      }
      same = at;
      let index = 0;
      for (let c = 0; c < n; c++) {
        const x = samples[at + c]! * scale;
        const b = Math.min(grid - 2, x | 0);
        base[c] = b;
        frac[c] = x - b;
        index += b * strides[c]!;
        // Insertion sort of the channels by their fraction, largest first.
        let j = c;
        while (j > 0 && frac[order[j - 1]!]! < frac[c]!) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = c;
      }
      let w = 1 - frac[order[0]!]!;
      for (let k = 0; k < outN; k++) acc[k] = w * table[index * outN + k]!;
      for (let i = 0; i < n; i++) {
        const c = order[i]!;
        index += strides[c]!;
        w = frac[c]! - (i + 1 < n ? frac[order[i + 1]!]! : 0);
        if (w === 0) continue;
        for (let k = 0; k < outN; k++) acc[k]! += w * table[index * outN + k]!;
      }
      for (let k = 0; k < outN; k++) out[p * outN + k] = acc[k]! + 0.5;
    }
    return out;
  }
}

/** A conversion of 8-bit samples in one source space (and profile) to sRGB, built once and reused. */
export class ColourTransform {
  private static readonly cache = new Map<string, Promise<ColourTransform>>();

  private constructor(
    readonly _model: Exclude<SampleModel, 'rgb'>,
    /** gray: 256 × 3 bytes, looked up; cmyk: the 17⁴ grid, interpolated. */
    private readonly gray: Float32Array | null,
    private readonly cmyk: GridTable | null,
  ) {}

  /**
   * The transform of `model` (with `icc`, else lcms's default for the space), built on first use.
   * @example
   * const rgb = (await ColourTransform.of('cmyk')).apply(samples, width * height);
   */
  static of(model: Exclude<SampleModel, 'rgb'>, icc?: Uint8Array): Promise<ColourTransform> {
    const key = `${model}:${icc ? createHash('sha256').update(icc).digest('hex') : '-'}`;
    let found = ColourTransform.cache.get(key);
    if (found) {
      ColourTransform.cache.delete(key);
      ColourTransform.cache.set(key, found);
      return found;
    }
    found = build(model, icc).then((table) => (model === 'gray' ? new ColourTransform(model, table, null) : new ColourTransform(model, null, new GridTable(4, CMYK_GRID, table, 3))));
    found.catch(() => ColourTransform.cache.delete(key));
    ColourTransform.cache.set(key, found);
    while (ColourTransform.cache.size > KEEP) ColourTransform.cache.delete(ColourTransform.cache.keys().next().value as string);
    return found;
  }

  /** `count` pixels of 8-bit samples (1 or 4 per pixel) → sRGB, 3 bytes per pixel. */
  apply(samples: Uint8Array, count: number): Uint8Array {
    if (this.cmyk) return this.cmyk.apply(samples, count);
    return lookupRgb(samples, count, this.gray!);
  }
}

/**
 * One-component 8-bit samples → RGB through a 256-entry table of three values each (a gray
 * transform, a palette, a one-colorant tint transform).
 * @example
 * const rgb = lookupRgb(indices, width * rows, paletteTable); // 3 bytes per pixel
 */
export function lookupRgb(samples: Uint8Array, count: number, table: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(count * 3);
  for (let p = 0; p < count; p++) {
    const t = samples[p]! * 3;
    out[p * 3] = table[t]!;
    out[p * 3 + 1] = table[t + 1]!;
    out[p * 3 + 2] = table[t + 2]!;
  }
  return out;
}

/** The table of a transform: its grid of colours converted by lcms in one call. */
async function build(model: Exclude<SampleModel, 'rgb'>, icc: Uint8Array | undefined): Promise<Float32Array> {
  const points = model === 'gray' ? 256 : CMYK_GRID ** 4;
  const channels = model === 'gray' ? 1 : 4;
  const grid = new Uint8Array(points * channels);
  if (model === 'gray') for (let i = 0; i < 256; i++) grid[i] = i;
  else for (let i = 0; i < points; i++) GridTable.point(i, 4, CMYK_GRID, grid, i * 4);
  const rgb = await lcmsToSrgb(grid, points, 1, model, icc);
  return Float32Array.from(rgb);
}

/**
 * Raw 8-bit samples (CMYK or gray, optionally with their ICC profile) to sRGB raw 8-bit, through
 * lcms directly: every sample converted, no table in between (as the colour fix converts a JPEG).
 * @example
 * const rgb = await lcmsToSrgb(cmyk, width, height, 'cmyk', defaultCmykProfile());
 */
export async function lcmsToSrgb(data: Uint8Array, width: number, height: number, model: SampleModel, icc?: Uint8Array): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const tiff = rawToTiff(data, width, height, model, sourceProfile(model, icc));
  // The grid this module builds (at most 17⁴ points): its own size is the bound.
  const out = await sharp(tiff, { limitInputPixels: Math.max(1, width * height) })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (out.info.channels === 3) return new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
  // Gray stays one channel in some libvips paths: spread it.
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb[i * 3] = rgb[i * 3 + 1] = rgb[i * 3 + 2] = out.data[i * out.info.channels]!;
  return rgb;
}

/**
 * Converts raw 8-bit samples (CMYK or gray, optionally with their ICC profile) to sRGB raw 8-bit.
 * @example
 * const rgb = await samplesToSrgb(cmyk, width, height, 'cmyk', iccProfile);
 */
export async function samplesToSrgb(data: Uint8Array, width: number, height: number, model: SampleModel, icc?: Uint8Array): Promise<Uint8Array> {
  if (model === 'rgb') return data.subarray(0, width * height * 3);
  return (await ColourTransform.of(model, icc)).apply(data, width * height);
}

/** CMYK colours (components 0–1) → sRGB (0–1), all in one conversion. */
export async function cmykColoursToRgb(colours: readonly (readonly number[])[], icc?: Uint8Array): Promise<[number, number, number][]> {
  if (colours.length === 0) return [];
  const data = new Uint8Array(colours.length * 4);
  colours.forEach((c, i) => c.forEach((v, j) => (data[i * 4 + j] = Math.round(Math.max(0, Math.min(1, v)) * 255))));
  const rgb = await samplesToSrgb(data, colours.length, 1, 'cmyk', icc);
  return colours.map((_, i) => [rgb[i * 3]! / 255, rgb[i * 3 + 1]! / 255, rgb[i * 3 + 2]! / 255]);
}
