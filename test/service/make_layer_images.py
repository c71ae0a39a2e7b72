"""
Layer images as customers send them, made by real producers (Pillow, ImageMagick, exiftool,
img2pdf) into the folder given: every kind the service takes per layer, and a JPEG for each of
the eight EXIF orientations whose pixels are stored turned so that the tag makes them upright.

The upright design is 2400 x 3600 px (over 100 ppi on a t-shirt's front when stretched): a red band at the top (20 %), a blue band at the bottom (20 %),
between them green on the left half and yellow on the right half, so a turn or a mirror shows.
Run with Debian's /usr/bin/python3: python3 make_layer_images.py OUT_DIR
"""
import os
import subprocess
import sys

from PIL import Image, ImageDraw

RED, BLUE, GREEN, YELLOW = (220, 30, 30), (30, 60, 220), (30, 170, 60), (240, 210, 30)
W, H = 2400, 3600


def design(alpha_bottom=False):
    img = Image.new("RGBA", (W, H), (0, 0, 0, 255))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, W - 1, int(H * 0.2) - 1], fill=RED + (255,))
    d.rectangle([0, int(H * 0.2), W // 2 - 1, int(H * 0.8) - 1], fill=GREEN + (255,))
    d.rectangle([W // 2, int(H * 0.2), W - 1, int(H * 0.8) - 1], fill=YELLOW + (255,))
    d.rectangle([0, int(H * 0.8), W - 1, H - 1], fill=BLUE + ((0,) if alpha_bottom else (255,)))
    return img


def run(*args):
    subprocess.run(args, check=True)


def main(out):
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)
    design().convert("RGB").save(p("base.png"))
    # PNG 8-bit RGBA whose bottom band is fully transparent (it prints as the fabric colour).
    design(alpha_bottom=True).save(p("png8-alpha.png"))
    im = "/usr/bin/convert"
    run(im, p("base.png"), "-depth", "16", "PNG48:" + p("png16.png"))
    run(im, p("base.png"), "-colors", "8", "PNG8:" + p("palette.png"))
    # CMYK through ICC profiles (Ghostscript's sRGB and default CMYK), the CMYK one embedded.
    icc = ["-profile", "/usr/share/color/icc/ghostscript/srgb.icc", "-profile", "/usr/share/color/icc/ghostscript/default_cmyk.icc"]
    run(im, p("base.png"), *icc, "-quality", "92", p("cmyk.jpg"))
    run(im, p("base.png"), "-interlace", "JPEG", "-quality", "92", p("progressive.jpg"))
    run(im, p("base.png"), *icc, "-compress", "lzw", p("cmyk.tif"))
    design().convert("RGB").save(p("image.webp"), quality=92)
    run(im, p("base.png"), "-quality", "92", p("for-pdf.jpg"))
    run("/usr/bin/img2pdf", p("for-pdf.jpg"), "-o", p("one-page.pdf"))
    # Stored pixels = the inverse of what orientation N does on display, so the tag makes them upright.
    stored = {1: [], 2: ["-flop"], 3: ["-rotate", "180"], 4: ["-flip"], 5: ["-transpose"], 6: ["-rotate", "270"], 7: ["-transverse"], 8: ["-rotate", "90"]}
    for n, ops in stored.items():
        name = p(f"orientation-{n}.jpg")
        run(im, p("base.png"), *ops, "-quality", "92", name)
        run("/usr/bin/exiftool", "-q", "-overwrite_original", f"-Orientation={n}", "-n", name)
    # Small JPEGs (about 10 KB each) for the upload limits.
    for n, space in ((1, "sRGB"), (2, "CMYK")):
        run(im, p("base.png"), "-resize", "400x600", "-colorspace", space, "-quality", "92", p(f"small-{n}.jpg"))
    # Not an image: a text file named like one.
    with open(p("notes.png"), "w") as f:
        f.write("These are my notes, not a picture.\n")


if __name__ == "__main__":
    main(sys.argv[1])
