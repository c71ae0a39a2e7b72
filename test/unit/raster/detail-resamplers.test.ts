/**
 * image-upscaled's detector on 1.5× enlargements made at test time by real producers of each
 * family — ImageMagick's filters, PIL's (Debian's /usr/bin/python3) and libvips' kernels (sharp) —
 * from a detailed picture (fractal plasma with grain, 512 px), and its negatives: the picture
 * itself and the picture reduced to 75 %. Issue 46: the judge's set found 1.5× enlargements by
 * ImageMagick Mitchell, PIL Lanczos, ImageMagick Triangle and PIL bilinear least often. On this
 * synthetic picture every one of them is found today: these tests guard against a change that
 * loses a family; the misses on camera photos are measured by bench/quality-resamplers.mjs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { busiestWindow, estimateDetail } from '../../../src/raster/detail.js';
import { measureJpegDetail } from '../../../src/raster/image-detail.js';

const dir = mkdtempSync(join(tmpdir(), 'detail-resamplers-'));
const policy = join(dir, 'magick');
const native = join(dir, 'native.png');
const SIDE = 512;
const UP = Math.round(SIDE * 1.5);

function magick(...args: string[]) {
  execFileSync('/usr/bin/convert', args, { env: { ...process.env, MAGICK_CONFIGURE_PATH: policy } });
}

/** PIL's resize with one of its filters, by Debian's Python (the first python3 on PATH has no PIL). */
function pil(filter: string, side: number, out: string) {
  execFileSync('/usr/bin/python3', ['-c', `from PIL import Image; Image.open(${JSON.stringify(native)}).convert('RGB').resize((${side}, ${side}), Image.${filter}).save(${JSON.stringify(out)})`]);
}

const makers: Record<string, (out: string) => Promise<void> | void> = {
  'im-mitchell': (out) => magick(native, '-filter', 'Mitchell', '-resize', `${UP}x${UP}!`, out),
  'im-lanczos': (out) => magick(native, '-filter', 'Lanczos', '-resize', `${UP}x${UP}!`, out),
  'im-triangle': (out) => magick(native, '-filter', 'Triangle', '-resize', `${UP}x${UP}!`, out),
  'im-catrom': (out) => magick(native, '-filter', 'Catrom', '-resize', `${UP}x${UP}!`, out),
  'pil-lanczos': (out) => pil('LANCZOS', UP, out),
  'pil-bilinear': (out) => pil('BILINEAR', UP, out),
  'pil-bicubic': (out) => pil('BICUBIC', UP, out),
  'vips-lanczos2': async (out) => {
    await sharp(native).resize(UP, UP, { kernel: 'lanczos2', fit: 'fill' }).png().toFile(out);
  },
  'vips-linear': async (out) => {
    await sharp(native).resize(UP, UP, { kernel: 'linear', fit: 'fill' }).png().toFile(out);
  },
  native: () => undefined,
  'reduced-75': async (out) => {
    await sharp(native).resize(384, 384, { kernel: 'lanczos3' }).png().toFile(out);
  },
};

beforeAll(async () => {
  mkdirSync(policy);
  writeFileSync(join(policy, 'policy.xml'), '<policymap><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="memory" value="2GiB"/></policymap>');
  magick('-seed', '11', '-size', `${SIDE}x${SIDE}`, 'plasma:fractal', '-attenuate', '0.4', '+noise', 'Gaussian', '-colorspace', 'sRGB', native);
  for (const [name, make] of Object.entries(makers)) if (name !== 'native') await make(join(dir, `${name}.png`));
}, 120_000);

async function estimate(name: string) {
  const { data, info } = await sharp(join(dir, `${name}.png`))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return estimateDetail(busiestWindow(data, info.width, info.height, info.channels));
}

const ENLARGED = ['im-mitchell', 'im-lanczos', 'im-triangle', 'im-catrom', 'pil-lanczos', 'pil-bilinear', 'pil-bicubic', 'vips-lanczos2', 'vips-linear'];

describe('1.5× enlargements by resamplers of each family', () => {
  it.each(ENLARGED)('%s 1.5× is found, factor 1.5 ± 15 %', async (name) => {
    const d = await estimate(name);
    expect(d.factor, `${name}: evidence ${d.evidence}`).not.toBeNull();
    expect(Math.abs(d.factor! / 1.5 - 1)).toBeLessThanOrEqual(0.15);
  });

  it.each(['native', 'reduced-75'])('%s is no enlargement', async (name) => {
    const d = await estimate(name);
    expect(d.factor, `${name}: evidence ${d.evidence}`).toBeNull();
  });
});

/**
 * A photo-like picture of the dead-leaves model (overlapping discs of every size, as natural scenes
 * occlude one another; its spectrum falls as a photo's does) drawn by ImageMagick, with a little
 * sensor-like grain. The discs come from a seeded generator (the seed is printed).
 */
function deadLeaves(out: string, seed: number) {
  console.log(`dead-leaves seed ${seed}`);
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const draw: string[] = [];
  for (let i = 0; i < 700; i++) {
    const r = Math.floor(80 * random() ** 2.5) + 2;
    const x = Math.floor(random() * SIDE);
    const y = Math.floor(random() * SIDE);
    const colour = `rgb(${[0, 1, 2].map(() => Math.floor(random() * 256)).join(',')})`;
    draw.push('-fill', colour, '-draw', `circle ${x},${y} ${x + r},${y}`);
  }
  magick('-size', `${SIDE}x${SIDE}`, 'xc:#808080', ...draw, '-attenuate', '0.15', '+noise', 'Gaussian', '-colorspace', 'sRGB', out);
}

/** PIL's JPEG encoder (libjpeg, standard tables, 4:2:0) at a quality. */
function pilJpeg(src: string, quality: number, out: string) {
  execFileSync('/usr/bin/python3', ['-c', `from PIL import Image; Image.open(${JSON.stringify(src)}).convert('RGB').save(${JSON.stringify(out)}, 'JPEG', quality=${quality})`]);
}

const leaves = join(dir, 'leaves');

/** The dead-leaves picture made by `resampler` (or as it is), saved as JPEG by ImageMagick or PIL; the detector as a check runs it, on the JPEG's bytes. */
async function jpegEstimate(resampler: string, encoder: 'im' | 'pil', quality: number) {
  const src = join(leaves, `${resampler}.png`);
  const out = join(leaves, `${resampler}-${encoder}-q${quality}.jpg`);
  if (encoder === 'im') magick(src, '-quality', String(quality), out);
  else pilJpeg(src, quality, out);
  const bytes = new Uint8Array(readFileSync(out));
  const meta = await sharp(bytes).metadata();
  return measureJpegDetail(bytes, { ref: '1 0 R', widthPx: meta.width!, heightPx: meta.height! }, 1e9);
}

// Issue 46: the judge's 1.5× misses came with JPEG — quantisation leaves only part of the mirrored
// detail the detector looks for (bench/quality-jpeg-set.mjs). On the plasma picture above JPEG's
// own block trace outweighs it; on a photo-like picture the enlargement must be found.
describe('1.5× enlargements saved again as JPEG', () => {
  beforeAll(async () => {
    mkdirSync(leaves);
    const native = join(leaves, 'native.png');
    deadLeaves(native, 46);
    const up = (filter: string) => magick(native, '-filter', filter, '-resize', `${UP}x${UP}!`, join(leaves, `im-${filter.toLowerCase()}.png`));
    for (const filter of ['Mitchell', 'Lanczos', 'Triangle']) up(filter);
    for (const [name, filter] of [
      ['pil-lanczos', 'LANCZOS'],
      ['pil-bilinear', 'BILINEAR'],
    ]) {
      execFileSync('/usr/bin/python3', [
        '-c',
        `from PIL import Image; Image.open(${JSON.stringify(native)}).convert('RGB').resize((${UP}, ${UP}), Image.${filter}).save(${JSON.stringify(join(leaves, `${name}.png`))})`,
      ]);
    }
    await sharp(native).resize(UP, UP, { kernel: 'lanczos2', fit: 'fill' }).png().toFile(join(leaves, 'vips-lanczos2.png'));
    await sharp(native).resize(384, 384, { kernel: 'lanczos3' }).png().toFile(join(leaves, 'reduced-75.png'));
  }, 60_000);

  it.each([
    ['im-mitchell', 'im', 80],
    ['im-lanczos', 'im', 75],
    ['im-triangle', 'pil', 85],
    ['pil-lanczos', 'pil', 75],
    ['pil-bilinear', 'im', 80],
    ['vips-lanczos2', 'pil', 80],
  ] as const)('%s saved by %s at quality %i is found, factor 1.5 ± 5 %', async (name, encoder, quality) => {
    const d = await jpegEstimate(name, encoder, quality);
    expect(d?.factor, `${name} ${encoder} q${quality}: evidence ${d?.evidence}`).not.toBeNull();
    expect(Math.abs(d!.factor! / 1.5 - 1)).toBeLessThanOrEqual(0.05);
  });

  it.each([
    ['native', 'im', 75],
    ['native', 'pil', 75],
    ['native', 'pil', 92],
    ['reduced-75', 'im', 75],
  ] as const)('%s saved by %s at quality %i is no enlargement', async (name, encoder, quality) => {
    const d = await jpegEstimate(name, encoder, quality);
    expect(d).not.toBeNull();
    expect(d!.factor, `${name} ${encoder} q${quality}: evidence ${d!.evidence}`).toBeNull();
  });
});
