/**
 * How far the previews `check --previews` writes are from the oracles' renders: each page of a PDF
 * drawn by poppler (pdftoppm, its CropBox), MuPDF (mutool draw) and Ghostscript (its CropBox) at the
 * preview's own resolution, and the mean absolute difference of each channel (R/G/B) printed, with
 * the difference of the channel means beside it. Needs a build (dist/) and the three tools.
 *
 *   node bench/preview-oracles.mjs FILE.pdf [PREVIEW_PX=600]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const [file, sizeArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/preview-oracles.mjs FILE.pdf [PREVIEW_PX=600]');
  process.exit(2);
}
const size = Number(sizeArg ?? 600);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'preview-oracles-'));
try {
  execFileSync(
    process.execPath,
    [
      join(root, 'bin/print-preflight.js'),
      'check',
      file,
      '--product',
      'duvet-cover',
      '--variant',
      '200x200',
      '--previews',
      join(dir, 'ours'),
      '--preview-format',
      'png',
      '--preview-size',
      String(size),
      '--json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
} catch (error) {
  if (error.status !== 1) throw error; // 1: the check fails (any product will do here)
}

/** RGB pixels of a render, at `width` × `height` (an oracle's render may be a pixel off). */
async function rgb(path, width, height) {
  const meta = await sharp(path).metadata();
  let img = sharp(path).removeAlpha();
  if (meta.width !== width || meta.height !== height) img = img.resize(width, height, { fit: 'fill' });
  return img.raw().toBuffer();
}

const previews = readdirSync(join(dir, 'ours'))
  .filter((f) => f.endsWith('.png'))
  .sort((a, b) => Number(a.match(/page-(\d+)/)?.[1]) - Number(b.match(/page-(\d+)/)?.[1]));
for (const [i, name] of previews.entries()) {
  const p = i + 1;
  const ours = join(dir, 'ours', name);
  const { width, height } = await sharp(ours).metadata();
  const box = execFileSync('pdfinfo', ['-f', `${p}`, '-l', `${p}`, '-box', file])
    .toString()
    .match(/CropBox:\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)/);
  const dpi = (72 * Math.max(width, height)) / Math.max(Math.abs(box[3] - box[1]), Math.abs(box[4] - box[2]));
  execFileSync('pdftoppm', ['-cropbox', '-f', `${p}`, '-l', `${p}`, '-r', `${dpi}`, '-png', '-singlefile', file, join(dir, `poppler-${p}`)]);
  execFileSync('mutool', ['draw', '-q', '-r', `${dpi}`, '-o', join(dir, `mupdf-${p}.png`), file, `${p}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  execFileSync('gs', [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=png16m',
    '-dUseCropBox',
    `-dFirstPage=${p}`,
    `-dLastPage=${p}`,
    `-r${dpi}`,
    '-dTextAlphaBits=4',
    '-dGraphicsAlphaBits=4',
    `-sOutputFile=${join(dir, `gs-${p}.png`)}`,
    file,
  ]);
  const a = await rgb(ours, width, height);
  const line = [`page ${p} (${width} × ${height})`];
  for (const oracle of ['poppler', 'mupdf', 'gs']) {
    const b = await rgb(join(dir, `${oracle}-${p}.png`), width, height);
    const diff = [0, 0, 0];
    const means = [0, 0, 0];
    for (let k = 0; k < a.length; k++) {
      diff[k % 3] += Math.abs(a[k] - b[k]);
      means[k % 3] += a[k] - b[k];
    }
    const n = a.length / 3;
    const say = (v) => v.map((x) => (x / n).toFixed(1)).join('/');
    line.push(`${oracle}: mean |difference| ${say(diff)}, means ${say(means)}`);
  }
  console.log(line.join(' | '));
}
console.log(`renders in ${dir}`);
