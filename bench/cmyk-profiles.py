#!/usr/bin/python3
"""How far CMYK profiles put colours from Ghostscript's default CMYK (issue 48).

Ghostscript draws DeviceCMYK through Artifex's SWOP profile (AGPL: read here for measuring only,
never shipped) with relative colorimetric intent and black-point compensation. For each candidate
profile, converted as print-preflight converts (sharp/libvips: lcms, perceptual intent), this prints
the mean / p95 ΔE76 against Ghostscript's conversion

  - over a 6^4 grid of CMYK values, split by K, total ink and lightness,
  - over an ImageMagick CMYK photo (plasma, seed 7, as test/e2e/colour-chain.test.ts makes it),
    split by lightness and chroma,
  - on the four solids of the reportlab t-shirt (0 100 100 0, 100 60 0 0, 0 0 100 0, 80 0 100 0).

Candidates: print-preflight's default (icc/cgats-tr003-swop-grade3.icc) and, with --build, profiles
made by ArgyllCMS colprof (as icc/make-default-cmyk.sh makes the default) from the other
characterisation data icc-profiles-free ships: TR005 (SWOP grade 5), TR006 (GRACoL), FOGRA39L.

  /usr/bin/python3 bench/cmyk-profiles.py [--build] [extra.icc ...]

Needs Debian's python3-pil, ghostscript, imagemagick (and argyll, icc-profiles-free for --build).
"""
import glob
import itertools
import math
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
GS = (glob.glob('/usr/share/color/icc/ghostscript/default_cmyk.icc') + glob.glob('/usr/share/ghostscript/*/iccprofiles/default_cmyk.icc'))[0]
SRGB = ImageCms.createProfile('sRGB')
BPC = ImageCms.FLAGS['BLACKPOINTCOMPENSATION']


def lab(rgb):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(lin, rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def convert(profile, img, intent, flags):
    t = ImageCms.buildTransform(ImageCms.getOpenProfile(profile), SRGB, 'CMYK', 'RGB', renderingIntent=intent, flags=flags)
    return [lab(p) for p in ImageCms.applyTransform(img, t).getdata()]


def as_image(pixels):
    img = Image.new('CMYK', (len(pixels), 1))
    img.putdata(pixels)
    return img


def stats(ref, other, keep=None):
    d = sorted(math.dist(a, b) for i, (a, b) in enumerate(zip(ref, other)) if keep is None or keep(i))
    return f'{sum(d) / len(d):.2f} / {d[int(0.95 * (len(d) - 1))]:.2f} (n={len(d)})' if d else '-'


def main():
    args = [a for a in sys.argv[1:] if a != '--build']
    candidates = [os.path.join(HERE, '..', 'icc', 'cgats-tr003-swop-grade3.icc')] + args
    work = tempfile.mkdtemp(prefix='pp-cmyk-')
    if '--build' in sys.argv:
        for name in ['TR005', 'TR006', 'FOGRA39L']:
            subprocess.run(['cp', f'/usr/share/color/icc/{name}.ti3', work], check=True)
            subprocess.run(['colprof', '-qm', '-bn', '-D', name, name], cwd=work, check=True, stdout=subprocess.DEVNULL)
            candidates.append(os.path.join(work, f'{name}.icc'))
    grid = list(itertools.product([0, 51, 102, 153, 204, 255], repeat=4))
    jpg = os.path.join(work, 'photo.jpg')
    subprocess.run(['/usr/bin/convert', '-seed', '7', '-size', '400x536', 'plasma:red-blue', '-blur', '0x3', '-colorspace', 'CMYK', '-quality', '95', jpg], check=True)
    photo = Image.open(jpg)
    photo.draft('CMYK', (200, 268))
    photo = photo.resize((200, 268))
    photo_px = list(photo.getdata())
    solids = [(0, 255, 255, 0), (255, 153, 0, 0), (0, 0, 255, 0), (204, 0, 255, 0)]
    ref_grid, ref_photo, ref_solids = (convert(GS, img, 1, BPC) for img in (as_image(grid), photo, as_image(solids)))
    print(f'Against Ghostscript ({GS}, relative colorimetric + BPC); mean / p95 ΔE76')
    for profile in candidates:
        name = os.path.basename(profile)
        for intent, flags, how in [(0, 0, 'perceptual (as sharp converts)'), (1, BPC, 'relative colorimetric + BPC')]:
            g, p, s = (convert(profile, img, intent, flags) for img in (as_image(grid), photo, as_image(solids)))
            print(f'\n{name}, {how}')
            print(f'  grid all {stats(ref_grid, g)}; K=0 {stats(ref_grid, g, lambda i: grid[i][3] == 0)}; K>=80% {stats(ref_grid, g, lambda i: grid[i][3] >= 204)}; ink>300% {stats(ref_grid, g, lambda i: sum(grid[i]) > 765)}')
            print(f'  photo all {stats(ref_photo, p)}; L*<30 {stats(ref_photo, p, lambda i: ref_photo[i][0] < 30)}; L*>=30 {stats(ref_photo, p, lambda i: ref_photo[i][0] >= 30)}; '
                  f'chroma>60 {stats(ref_photo, p, lambda i: math.hypot(*ref_photo[i][1:]) > 60)}; chroma<=60 {stats(ref_photo, p, lambda i: math.hypot(*ref_photo[i][1:]) <= 60)}; K>50% {stats(ref_photo, p, lambda i: photo_px[i][3] > 128)}')
            print('  solids red, blue, yellow, green: ' + ', '.join(f'{math.dist(a, b):.2f}' for a, b in zip(ref_solids, s)))


if __name__ == '__main__':
    main()
