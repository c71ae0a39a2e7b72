/**
 * Issue 46's resampler set for bench:quality: camera photos the detector was never tuned on
 * (bench/quality-resampler-photos.json), enlarged 1.25×, 1.5×, 2× and 3× by resamplers outside the
 * twelve of issue 36's set — ImageMagick's Mitchell, Lanczos, Triangle, Catrom, Hermite, Gaussian,
 * Spline, Lanczos2, Blackman, Hamming; PIL's LANCZOS, BILINEAR, BICUBIC, HAMMING, BOX
 * (bench/quality-resamplers.py); libvips' lanczos2, linear, mks2013, mks2021 (through sharp) — and
 * negatives: the native picture as PNG and JPEG, and reduced to 75 % and 50 %. Every image goes on a
 * page of its own through img2pdf; enlargements are placed at 130 ppi (their detail falls below
 * the profiles' 100 ppi from 1.5× on, so each must be reported), negatives at 150 ppi.
 *
 * The photos are split: `design` may be looked at while tuning the detector; `heldout` is run once,
 * after all tuning (QUALITY_PART=heldout). Figures come from quality-camera.mjs's summary.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { magickPolicyDir } from './magick-policy.mjs';

const here = new URL('.', import.meta.url).pathname;
const MIRROR = process.env.QUALITY_MIRROR ?? '/work/.mirror';
const VIPS_KERNELS = ['lanczos2', 'linear', 'mks2013', 'mks2021'];
const FACTORS = [1.25, 1.5, 2, 3];
const NATIVE_MAX = 512;
const PPI_UPSCALED = 130;
const PPI_NEGATIVE = 150;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function toPdf(image, pdf, ppi) {
  execFileSync('nice', ['-n', '10', 'img2pdf', '--imgsize', `${ppi}dpi`, '-o', pdf, image], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A photo of a set's manifest, read from its fetched mirror (`git show` at the recorded commit) and
 * checked against its recorded sha256; `id` is its file name without extension.
 */
export function readMirroredPhoto(photo, mirror, manifestName) {
  const bytes = execFileSync('git', ['--git-dir', join(mirror, photo.repo.replace('/', '+'), 'repo'), 'show', `${photo.commit}:${photo.path}`], { maxBuffer: 1 << 28 });
  if (sha256(bytes) !== photo.sha256) throw new Error(`${photo.repo}/${photo.path}: sha256 differs from ${manifestName}`);
  const id = photo.path
    .split('/')
    .pop()
    .replace(/\.[a-z]+$/i, '');
  return { bytes, id };
}

/** Makes (or reuses) the set for one part; returns quality-camera.mjs's items. */
export async function makeResamplerSet(out, part) {
  const { photos } = JSON.parse(readFileSync(join(here, 'quality-resampler-photos.json'), 'utf8'));
  mkdirSync(out, { recursive: true });
  const manifest = join(out, `manifest-${part}.json`);
  if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8'));
  const policy = magickPolicyDir(out);
  const items = [];
  for (const photo of photos.filter((p) => p.part === part)) {
    const { bytes, id } = readMirroredPhoto(photo, MIRROR, 'bench/quality-resampler-photos.json');
    const dir = join(out, id);
    mkdirSync(dir, { recursive: true });
    // The native picture: a centred crop of at most NATIVE_MAX px, every pixel the camera's (or the
    // suite's own reduction's).
    const meta = await sharp(bytes).metadata();
    const w = Math.min(meta.width, NATIVE_MAX);
    const h = Math.min(meta.height, NATIVE_MAX);
    const crop = { left: (meta.width - w) >> 1, top: (meta.height - h) >> 1, width: w, height: h };
    const native = join(dir, 'native.png');
    await sharp(bytes).removeAlpha().extract(crop).png().toFile(native);
    const add = (file, extra, ppi) => {
      const pdf = file.replace(/\.[a-z]+$/, '.pdf');
      toPdf(file, pdf, ppi);
      items.push({ pdf, name: `${id}/${file.split('/').pop()}`, photo: id, image: file, producer: 'img2pdf', ...extra });
    };
    add(native, { cls: 'native', factor: 1, resampler: 'none' }, PPI_NEGATIVE);
    const jpeg = join(dir, 'native-q90.jpg');
    await sharp(native).jpeg({ quality: 90 }).toFile(jpeg);
    add(jpeg, { cls: 'native', factor: 1, resampler: 'none' }, PPI_NEGATIVE);
    for (const s of [0.75, 0.5]) {
      const file = join(dir, `down-${s}.png`);
      await sharp(native)
        .resize(Math.round(w * s), Math.round(h * s), { kernel: 'lanczos3' })
        .png()
        .toFile(file);
      add(file, { cls: 'downscaled', factor: s, resampler: 'sharp-lanczos3' }, PPI_NEGATIVE);
    }
    const made = execFileSync('/usr/bin/python3', [join(here, 'quality-resamplers.py'), native, dir, policy], { maxBuffer: 1 << 24 })
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const f of FACTORS) {
      for (const kernel of VIPS_KERNELS) {
        const file = join(dir, `vips-${kernel}-${f}x.png`);
        await sharp(native)
          .resize(Math.round(w * f), Math.round(h * f), { kernel, fit: 'fill' })
          .png()
          .toFile(file);
        made.push({ file, resampler: `vips-${kernel}`, factor: f });
      }
    }
    for (const m of made) add(m.file, { cls: 'upscaled', factor: m.factor, resampler: m.resampler }, PPI_UPSCALED);
  }
  writeFileSync(manifest, JSON.stringify(items, null, 1));
  return items;
}

/** Recall per resampler and factor (a table the camera summary does not print). */
export function resamplerTable(rows) {
  const ok = rows.filter((r) => !r.crashed && r.cls === 'upscaled');
  const factors = [...new Set(ok.map((r) => r.factor))].sort((a, b) => a - b);
  const lines = [`${'resampler'.padEnd(18)}${factors.map((f) => `${f}×`.padStart(8)).join('')}`];
  for (const res of [...new Set(ok.map((r) => r.resampler))].sort()) {
    const cells = factors.map((f) => {
      const set = ok.filter((r) => r.resampler === res && r.factor === f);
      return `${set.filter((r) => r.reported !== null).length}/${set.length}`.padStart(8);
    });
    lines.push(`${res.padEnd(18)}${cells.join('')}`);
  }
  return lines;
}

// `node bench/quality-resamplers.mjs [design|heldout]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const { checkCameraSet, summariseCamera } = await import('./quality-camera.mjs');
  const part = process.argv[2] ?? process.env.QUALITY_PART ?? 'design';
  const items = await makeResamplerSet(join(here, 'inputs', 'quality-resamplers'), part);
  const { rows, cpuMs } = await checkCameraSet(items, { onProgress: (i, n) => process.stderr.write(`\r${i}/${n}`) });
  process.stderr.write('\n');
  console.log(`# resampler set, ${part} part\n`);
  console.log(summariseCamera(rows, cpuMs).lines.join('\n'));
  console.log(`\nrecall per resampler and factor (reported/files)\n${resamplerTable(rows).join('\n')}`);
  if (process.env.QUALITY_ROWS) writeFileSync(process.env.QUALITY_ROWS, JSON.stringify(rows, null, 1));
}
