/**
 * image-upscaled on flat art (issue 43) and scan layers (issue 46): designs drawn at their own
 * pixel size by Pillow and ImageMagick at test time — checkerboards, dot fields, stripes, text,
 * aliased and anti-aliased shapes, a gradient — and near-uniform scan backgrounds (one level
 * nearly everywhere, a few specks) must get no enlargement; pixel art and a picture enlarged by
 * nearest neighbour must be found, at their factor, as repeated pixels, with the confidence
 * stated. bench:quality --flat-only measures the same on 117 files from six producers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { busiestWindow, estimateDetail } from '../../../src/raster/detail.js';
import { crispFor, pictureKind } from '../../../src/raster/flat-art.js';

const dir = mkdtempSync(join(tmpdir(), 'flat-art-'));
const policy = join(dir, 'magick');
// The specks of the scan backgrounds are placed at random: the seed is printed and can be replayed.
const SEED = Number(process.env.FLAT_ART_SEED ?? Math.floor(Math.random() * 2 ** 31));

function magick(...args: string[]) {
  execFileSync('/usr/bin/convert', args, { env: { ...process.env, MAGICK_CONFIGURE_PATH: policy } });
}

/** Pillow, run by Debian's python3 (which sees python3-pil). */
function pillow(script: string) {
  execFileSync('/usr/bin/python3', ['-c', `from PIL import Image, ImageDraw, ImageFont\nimport random\nrandom.seed(${SEED})\nD = ${JSON.stringify(dir)}\n${script}`]);
}

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

beforeAll(() => {
  console.log(`flat-art test seed ${SEED} (replay with FLAT_ART_SEED=${SEED})`);
  mkdirSync(policy);
  writeFileSync(join(policy, 'policy.xml'), '<policymap><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="memory" value="2GiB"/></policymap>');
  pillow(`
def board(s, name):
    im = Image.new('RGB', (740, 740), 'white'); d = ImageDraw.Draw(im)
    for y in range(0, 740, s):
        for x in range(0, 740, s):
            if (x // s + y // s) % 2: d.rectangle([x, y, x + s - 1, y + s - 1], fill=(30, 42, 120))
    im.save(f'{D}/{name}.png')
board(37, 'checker37')
board(16, 'checker16')
im = Image.new('RGB', (750, 750), (255, 251, 232)); d = ImageDraw.Draw(im)
for y in range(0, 750, 30):
    for x in range(0, 750, 30): d.ellipse([x + 6, y + 6, x + 23, y + 23], fill=(200, 20, 20))
im.save(f'{D}/dots18.png')
im = Image.new('RGB', (700, 700), 'white'); d = ImageDraw.Draw(im)
r = random.Random(3)
for _ in range(30):
    x, y, w, h = r.randrange(700), r.randrange(700), r.randrange(30, 250), r.randrange(30, 250)
    c = tuple(r.randrange(256) for _ in range(3))
    [d.rectangle, d.ellipse][r.randrange(2)]([x, y, x + w, y + h], fill=c)
im.save(f'{D}/shapes.png')
im = Image.new('RGB', (800, 700), 'white'); d = ImageDraw.Draw(im)
font = ImageFont.truetype(${JSON.stringify(FONT)}, 22)
for k in range(20): d.text((20, 20 + k * 33), f'The quick brown fox jumps over the lazy dog {k}', font=font, fill=(15, 15, 15))
im.save(f'{D}/text.png')
# Scan backgrounds: white paper, 0.3 % of the pixels dark specks of 1 px (an MRC background layer).
for name, share, size in (('mrc-specks', 0.003, 1), ('mrc-specks2', 0.001, 2)):
    im = Image.new('L', (900, 900), 255); px = im.load()
    for _ in range(int(900 * 900 * share / (size * size))):
        x, y = random.randrange(900 - size), random.randrange(900 - size)
        v = random.randrange(0, 200)
        for dy in range(size):
            for dx in range(size): px[x + dx, y + dy] = v
    im.save(f'{D}/{name}.png')
    im.save(f'{D}/{name}-jpg.jpg', quality=75)
# Pixel art: symmetric sprites, one pixel per pixel, enlarged 3x by repeating pixels.
art = Image.new('RGB', (216, 216), (20, 20, 40)); px = art.load()
r = random.Random(5)
for cy in range(18):
    for cx in range(18):
        c = (r.randrange(60, 256), r.randrange(60, 256), r.randrange(60, 256))
        for y in range(10):
            for x in range(5):
                if r.random() < 0.5:
                    px[cx * 12 + 1 + x, cy * 12 + 1 + y] = c; px[cx * 12 + 10 - x, cy * 12 + 1 + y] = c
art.save(f'{D}/sprites.png')
art.resize((648, 648), Image.NEAREST).save(f'{D}/sprites-nn3.png')
`);
  magick('-size', '720x720', 'tile:pattern:hexagons', join(dir, 'hexagons.png'));
  magick('-size', '720x720', 'tile:pattern:vertical', join(dir, 'stripes.png'));
  magick(
    '-size',
    '800x700',
    'xc:white',
    '-fill',
    '#d22',
    '-draw',
    'circle 200,200 200,40',
    '-fill',
    '#22d',
    '-draw',
    'rectangle 420,80 760,380',
    '-fill',
    '#2a2',
    '-draw',
    'polygon 60,660 400,420 760,680',
    '-fill',
    'black',
    '-font',
    FONT,
    '-pointsize',
    '80',
    '-draw',
    "text 430,560 'LOGO'",
    `PNG24:${join(dir, 'logo.png')}`,
  );
  magick('-background', 'white', '-fill', '#900', '-font', FONT, '-pointsize', '90', '-size', '800x', 'label:Summer Sale\n50% off', `PNG24:${join(dir, 'label.png')}`);
  magick('-size', '800x600', 'gradient:navy-gold', `PNG24:${join(dir, 'gradient.png')}`);
  magick('-size', '720x720', 'tile:pattern:checkerboard', '-quality', '92', join(dir, 'checker-jpg.jpg'));
  magick('-size', '900x900', 'radial-gradient:white-firebrick', '-quality', '80', join(dir, 'radial-jpg.jpg'));
  magick(join(dir, 'sprites.png'), '-sample', '200%', join(dir, 'sprites-nn2.png'));
  // A picture (fractal plasma with grain) enlarged 4× by repeating pixels, saved as JPEG.
  magick(
    '-seed',
    '11',
    '-size',
    '300x300',
    'plasma:fractal',
    '-attenuate',
    '0.4',
    '+noise',
    'Gaussian',
    '-colorspace',
    'sRGB',
    '-filter',
    'point',
    '-resize',
    '400%',
    '-quality',
    '90',
    join(dir, 'plasma-nn4.jpg'),
  );
  magick(
    '-seed',
    '12',
    '-size',
    '300x300',
    'plasma:fractal',
    '-attenuate',
    '0.4',
    '+noise',
    'Gaussian',
    '-colorspace',
    'sRGB',
    '-background',
    'white',
    '-extent',
    '600x300',
    '-sample',
    '200%',
    '-quality',
    '75',
    join(dir, 'plasma-plain-nn2.jpg'),
  );
}, 120_000);

async function tileOf(name: string) {
  const file = join(dir, name.endsWith('-jpg') || name.endsWith('.jpg') ? `${name.replace(/\.jpg$/, '')}.jpg` : `${name}.png`);
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return busiestWindow(data, info.width, info.height, info.channels);
}

describe('flat art drawn at its own pixel size is no enlargement', () => {
  // [file, producer and design, what the picture is]
  const cases: [string, string, string][] = [
    ['checker37', 'Pillow: checkerboard of 37-px squares', 'periodic'],
    ['checker16', 'Pillow: checkerboard of 16-px squares', 'periodic'],
    ['dots18', 'Pillow: field of 18-px dots every 30 px', 'periodic'],
    ['hexagons', 'ImageMagick: pattern:hexagons tiled', 'periodic'],
    ['stripes', 'ImageMagick: pattern:vertical tiled (stripes)', 'periodic'],
    ['checker-jpg', 'ImageMagick: pattern:checkerboard tiled, JPEG quality 92', 'periodic'],
    ['shapes', 'Pillow: aliased rectangles and ellipses', 'flat'],
    ['logo', 'ImageMagick: anti-aliased circle, rectangle, polygon and text', 'flat'],
    ['label', 'ImageMagick: label: text at 90 pt', 'flat'],
    ['text', 'Pillow: lines of 22-px text', 'periodic'],
    ['gradient', 'ImageMagick: gradient:navy-gold', 'smooth'],
    ['radial-jpg', 'ImageMagick: radial-gradient:white-firebrick, JPEG quality 80 (its block grid read as 4× before)', 'smooth'],
  ];
  it.each(cases)('%s (%s): no enlargement, judged %s', async (name, _how, kind) => {
    const tile = await tileOf(name);
    const estimate = estimateDetail(tile);
    expect(estimate.factor).toBeNull();
    expect(pictureKind(tile).kind).toBe(kind);
  });

  it('flat art whose edges are as wide as an enlargement leaves them is not called crisp', () => {
    // A picture whose strong edges take 3 steps: crisp for 4× (an enlargement by 4 leaves 5 and more), not for 2× (3–4).
    const widths = [0.05, 0.1, 0.9, 0.95, 1, 1, 1, 1];
    const kind = { kind: 'flat' as const, uniformShare: 0.5, flatShare: 0.9, widths, period: null };
    expect(crispFor(kind, 2)).toBe(false);
    expect(crispFor(kind, 4.5)).toBe(true);
    expect(crispFor({ ...kind, kind: 'picture' }, 4.5)).toBe(false);
  });
});

describe('near-uniform scan layers are no enlargement', () => {
  const cases: [string, string][] = [
    ['mrc-specks', 'white, 0.3 % of pixels 1-px specks, PNG'],
    ['mrc-specks-jpg', 'the same as JPEG quality 75'],
    ['mrc-specks2', 'white, 0.1 % of pixels in 2-px specks, PNG'],
    ['mrc-specks2-jpg', 'the same as JPEG quality 75'],
  ];
  it.each(cases)('%s (%s)', async (name) => {
    const tile = await tileOf(name);
    expect(pictureKind(tile).kind).toBe('near-uniform');
    expect(estimateDetail(tile).factor).toBeNull();
  });
});

describe('enlargements by repeating pixels are found', () => {
  // [file, how, factor, confidence, read as repeated pixels]
  const cases: [string, string, number, string, boolean][] = [
    ['sprites-nn3', 'Pillow NEAREST 3× of pixel art', 3, 'high', true],
    ['sprites-nn2', 'ImageMagick -sample 200% of pixel art', 2, 'high', true],
    ['plasma-nn4.jpg', 'ImageMagick -filter point 4× of a grainy picture, JPEG 90', 4, 'medium', true],
    // Half plain paper: flat steps nearly everywhere, and its repeats too faint after JPEG 75 to be read as such; found all the same.
    ['plasma-plain-nn2.jpg', 'ImageMagick -sample 200% of a grainy picture half plain white, JPEG 75', 2, 'medium', false],
  ];
  it.each(cases)('%s (%s): %s×, confidence %s', async (name, _how, factor, confidence, blocky) => {
    const estimate = estimateDetail(await tileOf(name));
    if (blocky) expect(estimate.nearest).toBe(true);
    expect(estimate.factor).toBeCloseTo(factor, 1);
    expect(['high', 'medium']).toContain(estimate.confidence);
    if (confidence === 'high') expect(estimate.confidence).toBe('high');
  });
});

describe('in a check', () => {
  const target = { product: 'duvet-cover', variant: '200x200' };
  // img2pdf stretches each picture (648–900 px) over the 2,040-mm page: 8–11.2 ppi, so that any
  // enlargement read into it would carry detail below minPpi and be reported.
  const limits = { minPpi: 12, minPpiError: 1 };
  const page = (name: string) => {
    const pdf = join(dir, `${name}.pdf`);
    execFileSync('img2pdf', ['--pagesize', '2040mmx2040mm', '--fit', 'fill', '-o', pdf, join(dir, `${name}.png`)]);
    return pdf;
  };

  it.each(['checker37', 'dots18', 'logo', 'mrc-specks'])('%s on a page: no image-upscaled', async (name) => {
    const report = await preflight(page(name), target, { limits });
    expect(report.pages[0]!.images).toHaveLength(1);
    expect(report.findings.map((f) => f.code)).not.toContain('image-upscaled');
  });

  it('pixel art enlarged 3× by nearest neighbour is image-upscaled, blocky, with its confidence', async () => {
    const report = await preflight(page('sprites-nn3'), target, { limits });
    const f = report.findings.find((x) => x.code === 'image-upscaled');
    expect(f).toMatchObject({ details: { factor: 3, nearestNeighbour: true, confidence: 'high' } });
    expect(f!.message).toContain('by repeating its pixels');
  });
});
