"""Issue 46's resampler set: enlarges a native picture by resamplers the detector was not designed
on (ImageMagick's and PIL's filters; libvips' are made by bench/quality-resamplers.mjs through
sharp). Run with Debian's /usr/bin/python3 (PIL). Usage: quality-resamplers.py NATIVE.png OUTDIR
POLICYDIR; prints one JSON line per image written: {"file", "resampler", "factor"}."""
import json
import os
import subprocess
import sys

from PIL import Image

FACTORS = [1.25, 1.5, 2, 3]
IM_FILTERS = ['Mitchell', 'Lanczos', 'Triangle', 'Catrom', 'Hermite', 'Gaussian', 'Spline', 'Lanczos2', 'Blackman', 'Hamming']
PIL_FILTERS = {'LANCZOS': Image.LANCZOS, 'BILINEAR': Image.BILINEAR, 'BICUBIC': Image.BICUBIC, 'HAMMING': Image.HAMMING, 'BOX': Image.BOX}


def main(native, out, policy):
    src = Image.open(native).convert('RGB')
    w, h = src.size
    env = {**os.environ, 'MAGICK_CONFIGURE_PATH': policy}
    for f in FACTORS:
        size = (round(w * f), round(h * f))
        tag = f'{f:g}x'
        for name in IM_FILTERS:
            dst = os.path.join(out, f'im-{name.lower()}-{tag}.png')
            subprocess.run(['nice', '-n', '10', '/usr/bin/convert', native, '-filter', name, '-resize', f'{size[0]}x{size[1]}!', dst], env=env, check=True)
            print(json.dumps({'file': dst, 'resampler': f'im-{name.lower()}', 'factor': f}))
        for name, flt in PIL_FILTERS.items():
            dst = os.path.join(out, f'pil-{name.lower()}-{tag}.png')
            src.resize(size, flt).save(dst)
            print(json.dumps({'file': dst, 'resampler': f'pil-{name.lower()}', 'factor': f}))


if __name__ == '__main__':
    main(*sys.argv[1:4])
