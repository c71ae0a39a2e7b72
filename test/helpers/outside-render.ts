/**
 * Pages drawn by outside renderers — MuPDF (`mutool draw`) and Ghostscript (`gs -sDEVICE=png16m`),
 * both showing the CropBox with /Rotate and /UserUnit applied, as a viewer shows the page — and a
 * comparison of two drawings that tolerates a given geometric slack and colour difference.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { DEFAULT_CMYK_PROFILE_FILE } from '../../src/raster/cmyk-profile.js';
import { packageRoot } from '../../src/util/package-root.js';

export type Renderer = 'mupdf' | 'ghostscript';

export interface Drawing {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel. */
  rgb: Uint8Array;
}

/**
 * The CMYK profile our conversions assume for CMYK without one (src/raster/cmyk-profile.ts): given
 * to Ghostscript as its default CMYK profile, the two drawings differ only by what each conversion
 * does, not by which profile each assumed.
 */
export function chainCmykProfile(): string {
  return join(packageRoot(), DEFAULT_CMYK_PROFILE_FILE);
}

/** Draws page `page` (1-based) of `pdf` at `dpi` with `renderer` (Ghostscript's DeviceCMYK through `cmykProfile` when given). */
export async function drawPage(pdf: Uint8Array, page: number, dpi: number, renderer: Renderer, options: { cmykProfile?: string } = {}): Promise<Drawing> {
  const dir = mkdtempSync(join(tmpdir(), 'pp-draw-'));
  try {
    const input = join(dir, 'in.pdf');
    const output = join(dir, 'out.png');
    writeFileSync(input, pdf);
    if (renderer === 'mupdf') {
      execFileSync('mutool', ['draw', '-q', '-r', String(dpi), '-c', 'rgb', '-o', output, input, String(page)], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    } else {
      execFileSync(
        'gs',
        [
          '-q',
          '-dSAFER',
          '-dBATCH',
          '-dNOPAUSE',
          '-dUseCropBox',
          '-sDEVICE=png16m',
          ...(options.cmykProfile ? [`-sDefaultCMYKProfile=${options.cmykProfile}`] : []),
          `-r${dpi}`,
          `-dFirstPage=${page}`,
          `-dLastPage=${page}`,
          '-dTextAlphaBits=1',
          '-dGraphicsAlphaBits=1',
          `-sOutputFile=${output}`,
          input,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 },
      );
    }
    const { data, info } = await sharp(readFileSync(output)).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A drawing resampled to another size (nearest neighbour: no colours that were not there). */
export async function resized(d: Drawing, width: number, height: number): Promise<Drawing> {
  if (d.width === width && d.height === height) return d;
  const data = await sharp(Buffer.from(d.rgb), { raw: { width: d.width, height: d.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'nearest' })
    .raw()
    .toBuffer();
  return { width, height, rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** CIE L*a*b* (D65) of an sRGB colour, for ΔE. */
export function lab(r: number, g: number, b: number): [number, number, number] {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

export function deltaE(a: readonly number[], b: readonly number[]): number {
  const p = lab(a[0]!, a[1]!, a[2]!);
  const q = lab(b[0]!, b[1]!, b[2]!);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

export interface Comparison {
  /** Pixels of either drawing with no pixel of the other within `slack` px and `maxDeltaE`. */
  unmatched: number;
  total: number;
  /** Mean ΔE76 between the two drawings pixel for pixel. */
  meanDeltaE: number;
  /** The first unmatched pixel, for the message. */
  first?: { x: number; y: number; a: number[]; b: number[] };
}

/**
 * Compares two drawings of the same size: a pixel is matched when the other drawing has a pixel of
 * a colour within `maxDeltaE` at most `slack` pixels away (both ways), so a shape off by a pixel or
 * two at the drawn scale, or a colour converted within the tolerance, still matches. Pixels within
 * `border` of the edge are not judged: a renderer rounds a box with fractional pixel edges outward
 * and shows a sliver of what lies outside it.
 */
export function compareDrawings(a: Drawing, b: Drawing, slack: number, maxDeltaE: number, border = 0): Comparison {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`drawings of different sizes: ${a.width} × ${a.height} and ${b.width} × ${b.height}`);
  const { width, height } = a;
  const labOf = (d: Drawing) => {
    const out = new Float32Array(width * height * 3);
    const cache = new Map<number, [number, number, number]>();
    for (let i = 0; i < width * height; i++) {
      const key = (d.rgb[i * 3]! << 16) | (d.rgb[i * 3 + 1]! << 8) | d.rgb[i * 3 + 2]!;
      let v = cache.get(key);
      if (!v) {
        v = lab(d.rgb[i * 3]!, d.rgb[i * 3 + 1]!, d.rgb[i * 3 + 2]!);
        cache.set(key, v);
      }
      out.set(v, i * 3);
    }
    return out;
  };
  const la = labOf(a);
  const lb = labOf(b);
  const dist = (p: Float32Array, i: number, q: Float32Array, j: number) => Math.hypot(p[i * 3]! - q[j * 3]!, p[i * 3 + 1]! - q[j * 3 + 1]!, p[i * 3 + 2]! - q[j * 3 + 2]!);
  let unmatched = 0;
  let sum = 0;
  let first: Comparison['first'];
  const oneWay = (p: Float32Array, q: Float32Array, pd: Drawing, qd: Drawing) => {
    for (let y = border; y < height - border; y++) {
      for (let x = border; x < width - border; x++) {
        const i = y * width + x;
        if (dist(p, i, q, i) <= maxDeltaE) continue;
        let ok = false;
        for (let dy = -slack; dy <= slack && !ok; dy++) {
          for (let dx = -slack; dx <= slack && !ok; dx++) {
            const xx = x + dx;
            const yy = y + dy;
            if (xx >= 0 && yy >= 0 && xx < width && yy < height && dist(p, i, q, yy * width + xx) <= maxDeltaE) ok = true;
          }
        }
        if (!ok) {
          unmatched++;
          first ??= { x, y, a: [...pd.rgb.subarray(i * 3, i * 3 + 3)], b: [...qd.rgb.subarray(i * 3, i * 3 + 3)] };
        }
      }
    }
  };
  for (let i = 0; i < width * height; i++) sum += dist(la, i, lb, i);
  oneWay(la, lb, a, b);
  oneWay(lb, la, b, a);
  return { unmatched, total: 2 * Math.max(0, width - 2 * border) * Math.max(0, height - 2 * border), meanDeltaE: sum / (width * height), ...(first ? { first } : {}) };
}
