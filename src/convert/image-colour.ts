/**
 * Colour conversion of decoded image samples for images.ts: a strip of 8-bit samples in the image's
 * colour space → sRGB, through lcms (gray, CMYK, ICC), a palette table (Indexed) or a table per tint
 * (Separation, DeviceN; a sampled grid for up to six colorants, bounded evaluations beyond).
 */
import { PDFArray, PDFRawStream, type PDFContext, type PDFObject } from '../pdf/pdf-lib.js';
import type { ColourSpaceFacts } from '../pdf/facts.js';
import { parseFunction, type PdfFunction } from '../pdf/functions.js';
import { bytesOf, items, numberOf, resolve } from '../pdf/objects.js';
import { BudgetExceededError, type DecodeBudget } from '../pdf/decode-budget.js';
import { decodeStream } from '../pdf/streams.js';
import { GridTable, lookupRgb, samplesToSrgb } from '../raster/colour.js';
import type { SampleModel } from '../raster/tiff.js';
import { grouped } from '../util/text.js';

/** Why an image is left as it is (the message of a refusal). */
export class LeftAsItIs extends Error {}

/** Turns a strip of decoded rows (8-bit samples, `n` per pixel) into sRGB (3 bytes per pixel). */
export type StripConverter = (samples: Uint8Array, width: number, rows: number) => Promise<Uint8Array>;

export const modelOf = (c: ColourSpaceFacts | undefined): SampleModel | null => (c?.model === 'cmyk' ? 'cmyk' : c?.model === 'gray' ? 'gray' : c?.model === 'rgb' ? 'rgb' : null);

/** The ICC profile of an ICCBased colour space object, decoded under the budget (undefined for other spaces). */
export function iccOf(context: PDFContext, space: PDFObject | undefined, budget: DecodeBudget): Uint8Array | undefined {
  const arr = resolve(context, space);
  if (!(arr instanceof PDFArray)) return undefined;
  const parts = items(context, arr);
  if (parts[0]?.toString() !== '/ICCBased' || !(parts[1] instanceof PDFRawStream)) return undefined;
  try {
    return decodeStream(context, parts[1], { maxBytes: 16 * 1024 * 1024, budget, what: 'an ICC profile' });
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    return undefined;
  }
}

/** The converter of a strip of 8-bit samples in `cs` to sRGB. */
export async function stripConverter(context: PDFContext, cs: ColourSpaceFacts, csObj: PDFObject | undefined, bpc: number, budget: DecodeBudget, deviceCmyk?: Uint8Array): Promise<StripConverter> {
  const model = modelOf(cs);
  if (cs.family === 'Indexed') return paletteConverter(context, cs, csObj, bpc, budget, deviceCmyk);
  if (cs.family === 'Separation' || cs.family === 'DeviceN') {
    const spot = await spotConverter(context, cs, csObj, budget, deviceCmyk);
    return async (samples, width, rows) => spot(samples, width * rows);
  }
  if (!model) throw new LeftAsItIs(`images in ${cs.label} are not converted`);
  if (model === 'rgb') return async (samples) => samples;
  const icc = iccOf(context, csObj, budget) ?? (cs.family === 'DeviceCMYK' ? deviceCmyk : undefined);
  return (samples, width, rows) => samplesToSrgb(samples, width, rows, model, icc);
}

/** Indexed: the palette converted once (at most 256 colours), then each index looked up. */
async function paletteConverter(
  context: PDFContext,
  cs: ColourSpaceFacts,
  csObj: PDFObject | undefined,
  bpc: number,
  budget: DecodeBudget,
  deviceCmyk: Uint8Array | undefined,
): Promise<StripConverter> {
  const arr = items(context, resolve(context, csObj) as PDFArray);
  const base = cs.base;
  if (!base) throw new LeftAsItIs('its palette has no base colour space');
  const hival = Math.max(0, Math.min(255, Math.trunc(numberOf(arr[2]) ?? 0)));
  const entries = Math.min(hival + 1, 1 << bpc);
  const n = base.components;
  const lookupObj = arr[3];
  const lookup = bytesOf(lookupObj) ?? (lookupObj instanceof PDFRawStream ? decodeStream(context, lookupObj, { maxBytes: 256 * 32, budget, what: 'a palette' }) : undefined);
  if (!lookup) throw new LeftAsItIs('its palette cannot be read');
  const colours = new Uint8Array(entries * n);
  colours.set(lookup.subarray(0, colours.length));
  let rgb: Uint8Array;
  if (base.family === 'Separation' || base.family === 'DeviceN') rgb = await (await spotConverter(context, base, arr[1], budget, deviceCmyk))(colours, entries);
  else {
    const baseModel = modelOf(base);
    if (!baseModel) throw new LeftAsItIs(`Indexed over ${base.label} is not converted`);
    rgb = baseModel === 'rgb' ? colours : await samplesToSrgb(colours, entries, 1, baseModel, iccOf(context, arr[1], budget) ?? (base.family === 'DeviceCMYK' ? deviceCmyk : undefined));
  }
  // Indices past the palette take its last colour (as pdf.js clamps).
  const table = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) table.set(rgb.subarray(Math.min(i, entries - 1) * 3, Math.min(i, entries - 1) * 3 + 3), i * 3);
  return async (samples, width, rows) => lookupRgb(samples, width * rows, table);
}

/**
 * Separation and DeviceN: the tint transform evaluated once per distinct tint (a table of 256 for
 * one colorant, a bounded cache for several), its results converted to sRGB through lcms in one
 * batch per strip.
 */
async function spotConverter(
  context: PDFContext,
  cs: ColourSpaceFacts,
  csObj: PDFObject | undefined,
  budget: DecodeBudget,
  deviceCmyk: Uint8Array | undefined,
): Promise<(samples: Uint8Array, count: number) => Promise<Uint8Array>> {
  const arr = items(context, resolve(context, csObj) as PDFArray);
  const why: string[] = [];
  const fn: PdfFunction | null = parseFunction(context, arr[3], why);
  const alt = cs.base;
  const altModel = modelOf(alt);
  if (!fn || !altModel) throw new LeftAsItIs(`its tint transform cannot be evaluated (${why.join('; ') || `alternate ${alt?.label}`})`);
  const n = cs.components;
  const outN = altModel === 'cmyk' ? 4 : altModel === 'gray' ? 1 : 3;
  const icc = iccOf(context, arr[2], budget) ?? (alt?.family === 'DeviceCMYK' ? deviceCmyk : undefined);
  const toAlt = (tints: number[]): number[] => {
    try {
      return fn(tints);
    } catch {
      return [];
    }
  };
  const altToRgb = (alts: Uint8Array, count: number) => (altModel === 'rgb' ? Promise.resolve(alts) : samplesToSrgb(alts, count, 1, altModel, icc));
  const clampByte = (v: number | undefined) => Math.round(Math.max(0, Math.min(1, v ?? 0)) * 255);

  if (n === 1) {
    const alts = new Uint8Array(256 * outN);
    for (let t = 0; t < 256; t++) {
      const v = toAlt([t / 255]);
      for (let c = 0; c < outN; c++) alts[t * outN + c] = clampByte(v[c]);
    }
    const table = await altToRgb(alts, 256);
    return async (samples, count) => lookupRgb(samples, count, table);
  }
  // Several colorants (up to 6): the tint transform and the alternate space's conversion sampled
  // together on a grid (as renderers sample Type 4 transforms), each pixel interpolated in it.
  // More colorants: each pixel's tints evaluated, within a bound.
  const grid = n <= 3 ? 33 : n === 4 ? 17 : n <= 6 ? 9 : 0;
  if (grid) {
    const points = grid ** n;
    const alts = new Uint8Array(points * outN);
    const tints = new Array<number>(n).fill(0);
    const at = new Array<number>(n).fill(0);
    for (let i = 0; i < points; i++) {
      GridTable.point(i, n, grid, at);
      for (let c = 0; c < n; c++) tints[c] = at[c]! / 255;
      const v = toAlt(tints);
      for (let k = 0; k < outN; k++) alts[i * outN + k] = clampByte(v[k]);
    }
    const table = new GridTable(n, grid, Float32Array.from(await altToRgb(alts, points)), 3);
    return async (samples, count) => table.apply(samples, count);
  }
  const exact = exactEvaluator(n, outN, toAlt, cs.label);
  return async (samples, count) => altToRgb(exact(samples, count), count);
}

/** Most tint transform evaluations for one image of more than 6 colorants. */
const MAX_TINT_EVALUATIONS = 4_000_000;

/** Each pixel's tints evaluated (runs of one colour once), at most {@link MAX_TINT_EVALUATIONS} for the image. */
function exactEvaluator(n: number, outN: number, toAlt: (tints: number[]) => number[], label: string): (samples: Uint8Array, count: number) => Uint8Array {
  let evaluations = 0;
  const tints = new Array<number>(n).fill(0);
  return (samples, count) => {
    const out = new Uint8Array(count * outN);
    for (let p = 0; p < count; p++) {
      const same = p > 0 && samples.subarray(p * n, p * n + n).every((v, c) => v === samples[(p - 1) * n + c]);
      if (same) {
        out.copyWithin(p * outN, (p - 1) * outN, p * outN);
        continue;
      }
      if (++evaluations > MAX_TINT_EVALUATIONS) throw new LeftAsItIs(`its ${label} colours need more than ${grouped(MAX_TINT_EVALUATIONS)} tint transform evaluations`);
      for (let c = 0; c < n; c++) tints[c] = samples[p * n + c]! / 255;
      const v = toAlt(tints);
      for (let k = 0; k < outN; k++) out[p * outN + k] = Math.round(Math.max(0, Math.min(1, v[k] ?? 0)) * 255);
    }
    return out;
  };
}
