/**
 * Colour conversion to sRGB with lcms through sharp: the same engine for images and for vector
 * colours, so a CMYK fill and a CMYK photo of the same colour end up the same RGB.
 */
import sharp from 'sharp';
import { rawToTiff, type SampleModel } from './tiff.js';

/** Converts raw 8-bit samples (CMYK or gray, optionally with their ICC profile) to sRGB raw 8-bit. */
export async function samplesToSrgb(data: Uint8Array, width: number, height: number, model: SampleModel, icc?: Uint8Array): Promise<Uint8Array> {
  const tiff = rawToTiff(data, width, height, model, icc);
  const out = await sharp(tiff, { limitInputPixels: false }).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (out.info.channels === 3) return new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
  // Gray stays one channel in some libvips paths: spread it.
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb[i * 3] = rgb[i * 3 + 1] = rgb[i * 3 + 2] = out.data[i * out.info.channels]!;
  return rgb;
}

/** CMYK colours (components 0–1) → sRGB (0–1), all in one conversion. */
export async function cmykColoursToRgb(colours: readonly (readonly number[])[], icc?: Uint8Array): Promise<[number, number, number][]> {
  if (colours.length === 0) return [];
  const data = new Uint8Array(colours.length * 4);
  colours.forEach((c, i) => c.forEach((v, j) => (data[i * 4 + j] = Math.round(Math.max(0, Math.min(1, v)) * 255))));
  const rgb = await samplesToSrgb(data, colours.length, 1, 'cmyk', icc);
  return colours.map((_, i) => [rgb[i * 3]! / 255, rgb[i * 3 + 1]! / 255, rgb[i * 3 + 2]! / 255]);
}
