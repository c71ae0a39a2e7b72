"""
A layer's source as Pillow (LittleCMS) draws it, for colour comparisons: upright by its EXIF
orientation, through its embedded ICC profile to sRGB (perceptual intent, the intent libvips uses
for the assembly), on white, resized to the page's pixels. Writes raw 8-bit RGB to stdout.
Run with Debian's /usr/bin/python3: python3 layer_reference.py IMAGE WIDTH HEIGHT
"""
import io
import sys

from PIL import Image, ImageCms, ImageOps


def main(path, width, height):
    im = ImageOps.exif_transpose(Image.open(path))
    icc = im.info.get("icc_profile")
    if icc:
        src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        im = ImageCms.profileToProfile(im, src, ImageCms.createProfile("sRGB"), renderingIntent=0, outputMode="RGBA" if im.mode in ("RGBA", "LA") else "RGB")
    im = im.convert("RGBA")
    white = Image.new("RGBA", im.size, (255, 255, 255, 255))
    im = Image.alpha_composite(white, im).convert("RGB")
    sys.stdout.buffer.write(im.resize((width, height), Image.LANCZOS).tobytes())


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
