/**
 * Ghostscript as the pixel oracle of the real-world comparison: a page drawn as it prints
 * (`-dPrinted`: annotations with the Print flag, optional content's print state; Ghostscript's
 * colour management through its default ICC profiles) at the pixel size of our preview, and
 * measures of how far our preview is from it. Where Ghostscript and we differ, poppler
 * (`pdftoppm`) and MuPDF (`mutool draw`) are asked too: Ghostscript has its own misreadings
 * (an LZW image read as another, JBIG2 refinement regions left out).
 *
 * The measures, over the page's pixels (RGB, 0–255):
 * - `mean`: mean absolute difference per channel;
 * - `coarse`: the same over 4 × 4 px cells (each cell's average colour), so that text drawn a pixel
 *   aside or in a substitute font's shapes (readers substitute fonts a file does not embed each in
 *   their own way) does not count as a different page, while a missing, misplaced or miscoloured
 *   object still does;
 * - `off`: share of pixels with a channel more than 64 apart;
 * - `missing`: share of the page where Ghostscript puts clear ink (a channel below 160) and our
 *   preview has none within one pixel — text or artwork our preview leaves out;
 * - `extra`: the same the other way round — ink only we draw;
 * - `inkOracle`: Ghostscript's ink coverage, measured like ours (raster/pixels.ts), for the blank
 *   verdict.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { analysePixels, type RawPixels } from '../../src/raster/pixels.js';

const run = promisify(execFile);

export interface PixelAgreement {
  mean: number;
  coarse: number;
  off: number;
  missing: number;
  extra: number;
  inkOracle: number;
}

/**
 * Page `page` (1-based) of `path` drawn by Ghostscript as printed, at exactly `width` × `height`
 * pixels (Ghostscript renders at the resolution that gives that size; a one-pixel rounding
 * difference is resampled away). Null when Ghostscript cannot draw it.
 */
export async function ghostscriptPage(path: string, page: number, width: number, height: number, pageWidthPt: number, pageHeightPt: number): Promise<RawPixels | null> {
  const dir = await mkdtemp(join(tmpdir(), 'pp-gs-'));
  try {
    const out = join(dir, 'page.png');
    const dpi = (72 * Math.max(width / pageWidthPt, height / pageHeightPt)).toFixed(4);
    try {
      await run(
        'gs',
        [
          '-q',
          '-dSAFER',
          '-dBATCH',
          '-dNOPAUSE',
          '-dPrinted',
          '-dUseCropBox',
          '-sDEVICE=png16m',
          `-r${dpi}`,
          '-dTextAlphaBits=4',
          '-dGraphicsAlphaBits=4',
          `-dFirstPage=${page}`,
          `-dLastPage=${page}`,
          `-sOutputFile=${out}`,
          path,
        ],
        { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      );
    } catch {
      // Ghostscript writes what it could draw and exits non-zero on some damaged files; judged below.
    }
    const png = await readFile(out).catch(() => null);
    if (!png) return null;
    const { data, info } = await sharp(png).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 3 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Page `page` drawn by poppler (`pdftoppm`) at `width` × `height` pixels; null when it cannot. */
export async function popplerPage(path: string, page: number, width: number, height: number): Promise<RawPixels | null> {
  return toolPage(
    'pdftoppm',
    (out) => ['-f', String(page), '-l', String(page), '-scale-to-x', String(width), '-scale-to-y', String(height), '-png', '-singlefile', path, out.replace(/\.png$/, '')],
    width,
    height,
  );
}

/** Page `page` drawn by MuPDF (`mutool draw`) at `width` × `height` pixels; null when it cannot. */
export async function mupdfPage(path: string, page: number, width: number, height: number): Promise<RawPixels | null> {
  return toolPage('mutool', (out) => ['draw', '-q', '-w', String(width), '-h', String(height), '-F', 'png', '-o', out, path, String(page)], width, height);
}

async function toolPage(cmd: string, args: (out: string) => string[], width: number, height: number): Promise<RawPixels | null> {
  const dir = await mkdtemp(join(tmpdir(), 'pp-oracle-'));
  try {
    const out = join(dir, 'page.png');
    await run(cmd, args(out), { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).catch(() => undefined);
    const png = await readFile(out).catch(() => null);
    if (!png) return null;
    const { data, info } = await sharp(png).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 3 };
  } catch {
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Close enough to count as the same page: a mean difference over 4 × 4 px cells of at most 8 of
 * 255 per channel (pdf.js's uncalibrated CMYK stays within it on most pages, a misplaced or
 * missing object does not), and no more than 0.2 % of the page inked by the oracle and left blank
 * by us (a word or two of body text on a letter page).
 */
export const CLOSE = { coarse: 8, missing: 0.002 };

export function isClose(a: PixelAgreement): boolean {
  return a.coarse <= CLOSE.coarse && a.missing <= CLOSE.missing;
}

/** Our preview (PNG or WebP bytes) as RGB pixels. */
export async function previewPixels(bytes: Uint8Array): Promise<RawPixels> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** Clear ink: some channel well below paper white. */
const INK_LEVEL = 160;
/** Paper: every channel at least this (raster/pixels.ts's WHITE_LEVEL). */
const PAPER_LEVEL = 250;

/**
 * How far `ours` is from `oracle` (same size, RGB or RGBA).
 * @example
 * const a = comparePixels(ours, await ghostscriptPage(path, 1, ours.width, ours.height, w, h));
 */
export function comparePixels(ours: RawPixels, oracle: RawPixels): PixelAgreement {
  if (ours.width !== oracle.width || ours.height !== oracle.height) throw new Error(`sizes differ: ${ours.width}×${ours.height} and ${oracle.width}×${oracle.height}`);
  const { width, height } = ours;
  const n = width * height;
  const inkA = new Uint8Array(n);
  const inkB = new Uint8Array(n);
  const paperA = new Uint8Array(n);
  const paperB = new Uint8Array(n);
  let sum = 0;
  let off = 0;
  for (let i = 0; i < n; i++) {
    const a = i * ours.channels;
    const b = i * oracle.channels;
    let worst = 0;
    let minA = 255;
    let minB = 255;
    for (let c = 0; c < 3; c++) {
      const va = ours.data[a + c]!;
      const vb = oracle.data[b + c]!;
      const d = Math.abs(va - vb);
      sum += d;
      if (d > worst) worst = d;
      if (va < minA) minA = va;
      if (vb < minB) minB = vb;
    }
    if (worst > 64) off++;
    inkA[i] = minA < INK_LEVEL ? 1 : 0;
    inkB[i] = minB < INK_LEVEL ? 1 : 0;
    paperA[i] = minA >= PAPER_LEVEL ? 1 : 0;
    paperB[i] = minB >= PAPER_LEVEL ? 1 : 0;
  }
  return {
    mean: n ? sum / (n * 3) : 0,
    coarse: coarseDifference(ours, oracle, 4),
    off: n ? off / n : 0,
    missing: onlyOneSide(inkB, paperA, width, height),
    extra: onlyOneSide(inkA, paperB, width, height),
    inkOracle: analysePixels(oracle).inkCoverage,
  };
}

/** Mean absolute difference per channel between the two images' `cell` × `cell` px averages. */
function coarseDifference(a: RawPixels, b: RawPixels, cell: number): number {
  const cols = Math.ceil(a.width / cell);
  const rows = Math.ceil(a.height / cell);
  const sumA = new Float64Array(cols * rows * 3);
  const sumB = new Float64Array(cols * rows * 3);
  const count = new Uint32Array(cols * rows);
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const c = Math.floor(y / cell) * cols + Math.floor(x / cell);
      const i = y * a.width + x;
      count[c]!++;
      for (let k = 0; k < 3; k++) {
        sumA[c * 3 + k]! += a.data[i * a.channels + k]!;
        sumB[c * 3 + k]! += b.data[i * b.channels + k]!;
      }
    }
  }
  let total = 0;
  for (let c = 0; c < cols * rows; c++) for (let k = 0; k < 3; k++) total += Math.abs(sumA[c * 3 + k]! - sumB[c * 3 + k]!) / count[c]!;
  return cols * rows ? total / (cols * rows * 3) : 0;
}

/** Share of pixels inked on one side where the other side is paper in the whole 3 × 3 neighbourhood. */
function onlyOneSide(ink: Uint8Array, paper: Uint8Array, width: number, height: number): number {
  let count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!ink[y * width + x]) continue;
      let allPaper = true;
      for (let dy = -1; dy <= 1 && allPaper; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          if (!paper[yy * width + xx]) {
            allPaper = false;
            break;
          }
        }
      }
      if (allPaper) count++;
    }
  }
  return width * height ? count / (width * height) : 0;
}
