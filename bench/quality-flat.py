#!/usr/bin/python3
"""
Issue 43's flat-art set for bench:quality (bench/quality-flat.mjs runs it): designs as customers
make them, drawn at their own pixel size by real producers, and pixel art enlarged by nearest
neighbour (the positives). Run with Debian's python3 (python3-pil, python3-reportlab, img2pdf,
python3-cairosvg); rsvg-convert (librsvg2-bin), inkscape, /usr/bin/convert (ImageMagick) and
chromium are called as programs. Writes OUT/img/*.png|jpg, OUT/pdf/*.pdf and OUT/manifest.json
(how each design is made); nothing of it is committed.

  /usr/bin/python3 bench/quality-flat.py OUT

Every image is put on a page of its own at 120–145 ppi (so that an enlargement of 1.5× or more
read into it would fall below the profiles' 100 ppi and be reported), in turn by img2pdf (PNG as
Flate with predictors, JPEG passed through) and reportlab (Flate; JPEG behind ASCII85).
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFont

OUT = os.path.abspath(sys.argv[1])
IMG = os.path.join(OUT, "img")
PDF = os.path.join(OUT, "pdf")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
POLICY = os.path.join(OUT, "magick")
for d in (IMG, PDF, POLICY):
    os.makedirs(d, exist_ok=True)
with open(os.path.join(POLICY, "policy.xml"), "w") as f:
    f.write(
        '<policymap><policy domain="resource" name="memory" value="4GiB"/><policy domain="resource" name="map" value="4GiB"/>'
        '<policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="width" value="64KP"/>'
        '<policy domain="resource" name="height" value="64KP"/></policymap>'
    )
ENV = {**os.environ, "MAGICK_CONFIGURE_PATH": POLICY}
ITEMS = []


def run(args):
    subprocess.run(["nice", "-n", "10", *args], check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def add(name, cls, producer, how, make, factor=1):
    """Makes the image `name` once (make(path)) and records it."""
    ext = ".jpg" if name.endswith("-jpg") else ".png"
    path = os.path.join(IMG, name + ext)
    if not os.path.exists(path):
        make(path)
    ITEMS.append({"name": name, "cls": cls, "factor": factor, "producer": producer, "how": how, "image": path})


# ---------------------------------------------------------------- SVG designs, three renderers
def svg_checker(s, w=1480, h=1110):
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><defs><pattern id="p" width="{2*s}" height="{2*s}" patternUnits="userSpaceOnUse"><rect width="{s}" height="{s}" fill="#1e2a78"/><rect x="{s}" y="{s}" width="{s}" height="{s}" fill="#1e2a78"/></pattern></defs><rect width="100%" height="100%" fill="#fff"/><rect width="100%" height="100%" fill="url(#p)"/></svg>'


def svg_dots(d, gap, w=1500, h=1125, color="#c81414"):
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><defs><pattern id="p" width="{gap}" height="{gap}" patternUnits="userSpaceOnUse"><circle cx="{gap/2}" cy="{gap/2}" r="{d/2}" fill="{color}"/></pattern></defs><rect width="100%" height="100%" fill="#fffbe8"/><rect width="100%" height="100%" fill="url(#p)"/></svg>'


def svg_stripes(width, angle, w=1400, h=1050):
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><defs><pattern id="p" width="{2*width}" height="{2*width}" patternUnits="userSpaceOnUse" patternTransform="rotate({angle})"><rect width="{width}" height="{2*width}" fill="#0a6d3c"/></pattern></defs><rect width="100%" height="100%" fill="#f4f4f4"/><rect width="100%" height="100%" fill="url(#p)"/></svg>'


def svg_logo(i, w=1200, h=1200):
    hue = (i * 53) % 360
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fff"/>
<circle cx="600" cy="520" r="{300 + i * 7}" fill="hsl({hue},70%,45%)"/><rect x="{330 - i * 5}" y="440" width="{540 + i * 10}" height="160" rx="40" fill="#fff"/>
<polygon points="600,{250 + i * 3} 700,450 500,450" fill="hsl({(hue + 180) % 360},80%,35%)"/>
<text x="600" y="560" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="{96 + i * 4}" fill="hsl({hue},70%,25%)">BRAND {i}</text>
<text x="600" y="1000" text-anchor="middle" font-family="DejaVu Sans" font-size="54" fill="#222">Since 19{70 + i} · Made with care</text></svg>"""


def svg_text(i, w=1300, h=1000):
    lines = "".join(f'<text x="60" y="{90 + k * (40 + i * 6)}" font-family="DejaVu Sans" font-size="{22 + i * 5}" fill="#111">Lorem ipsum dolor sit amet {k}, consectetur adipiscing elit.</text>' for k in range(18))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fff"/>{lines}</svg>'


def svg_gradient_shapes(i, w=1400, h=1000):
    hue = (i * 97) % 360
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="hsl({hue},80%,55%)"/><stop offset="1" stop-color="hsl({(hue + 90) % 360},70%,35%)"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/><rect x="100" y="100" width="400" height="300" fill="#fff"/><circle cx="900" cy="500" r="260" fill="#111"/>
<path d="M100 900 L 1300 {600 + i * 40} L 1300 1000 L 100 1000 Z" fill="#ffd400"/></svg>"""


def svg_rings(n, w=1200, h=1200):
    rings = "".join(f'<circle cx="600" cy="600" r="{r}" fill="none" stroke="{"#000" if k % 2 else "#e33"}" stroke-width="{n}"/>' for k, r in enumerate(range(n, 600, 2 * n)))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fff"/>{rings}</svg>'


def svg_halftone(w=1400, h=1050, gap=14):
    dots = []
    for y in range(0, h, gap):
        for x in range(0, w, gap):
            r = gap * 0.5 * (0.15 + 0.85 * x / w)
            dots.append(f'<circle cx="{x + gap / 2}" cy="{y + gap / 2}" r="{r:.2f}"/>')
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fff"/><g fill="#123">{"".join(dots)}</g></svg>'


def svg_grid(step, w=1400, h=1050):
    lines = "".join(f'<path d="M{x + 0.5} 0 V{h}" stroke="#666" stroke-width="1"/>' for x in range(0, w, step))
    lines += "".join(f'<path d="M0 {y + 0.5} H{w}" stroke="#666" stroke-width="1"/>' for y in range(0, h, step))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fff"/>{lines}</svg>'


def svg_waves(i, w=1400, h=1050):
    paths = "".join(f'<path d="M0 {y} C 350 {y - 60 - i * 5} 700 {y + 60} 1400 {y}" stroke="hsl({(y * 3) % 360},70%,40%)" stroke-width="{6 + i}" fill="none"/>' for y in range(40, h, 45))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="#fdf6e3"/>{paths}</svg>'


SVGS = {
    "checker37": svg_checker(37),
    "checker12": svg_checker(12),
    "checker64": svg_checker(64),
    "dots18": svg_dots(18, 30),
    "dots6": svg_dots(6, 11, color="#000"),
    "dots40": svg_dots(40, 52, color="#0b5"),
    "stripes20": svg_stripes(20, 0),
    "stripes7": svg_stripes(7, 90),
    "stripes15-diag": svg_stripes(15, 45),
    "logo1": svg_logo(1),
    "logo4": svg_logo(4),
    "logo7": svg_logo(7),
    "text-small": svg_text(0),
    "text-large": svg_text(4),
    "gradient-shapes1": svg_gradient_shapes(1),
    "gradient-shapes2": svg_gradient_shapes(2),
    "rings9": svg_rings(9),
    "rings25": svg_rings(25),
    "halftone": svg_halftone(),
    "grid-lines": svg_grid(24),
    "waves": svg_waves(2),
}


def render_svg(renderer, svg_path, dst):
    if renderer == "rsvg":
        run(["rsvg-convert", "-o", dst, svg_path])
    elif renderer == "cairosvg":
        import cairosvg

        cairosvg.svg2png(url=svg_path, write_to=dst)
    else:
        run(["inkscape", svg_path, "--export-type=png", f"--export-filename={dst}", "--export-background-opacity=1"])


SVG_DIR = os.path.join(OUT, "svg")
os.makedirs(SVG_DIR, exist_ok=True)
renderers = ["rsvg", "cairosvg"] + (["inkscape"] if shutil.which("inkscape") else [])
for design, svg in SVGS.items():
    svg_path = os.path.join(SVG_DIR, design + ".svg")
    with open(svg_path, "w") as f:
        f.write(svg)
    for r in renderers:
        add(f"{design}-{r}", "flat", r, f"SVG {design} rendered at its own size by {r}", lambda dst, r=r, p=svg_path: render_svg(r, p, dst))


# ---------------------------------------------------------------- Pillow
def pil_checker(s, aa=False):
    def make(dst):
        im = Image.new("RGB", (1480, 1110), "white")
        d = ImageDraw.Draw(im)
        for y in range(0, 1110, s):
            for x in range(0, 1480, s):
                if (x // s + y // s) % 2:
                    d.rectangle([x, y, x + s - 1, y + s - 1], fill=(30, 42, 120))
        im.save(dst)

    return make


def pil_dots(dia, gap, color=(200, 20, 20)):
    def make(dst):
        im = Image.new("RGB", (1500, 1125), (255, 251, 232))
        d = ImageDraw.Draw(im)
        for y in range(0, 1125, gap):
            for x in range(0, 1500, gap):
                o = (gap - dia) // 2
                d.ellipse([x + o, y + o, x + o + dia - 1, y + o + dia - 1], fill=color)
        im.save(dst)

    return make


def pil_text(size, bold=False, jpeg=False):
    def make(dst):
        im = Image.new("RGB", (1400, 1000), "white")
        d = ImageDraw.Draw(im)
        font = ImageFont.truetype(FONT_BOLD if bold else FONT, size)
        y = 30
        k = 0
        while y < 1000 - size:
            d.text((40, y), f"The quick brown fox jumps over the lazy dog {k}", font=font, fill=(15, 15, 15))
            y += int(size * 1.4)
            k += 1
        im.save(dst, **({"quality": 92} if jpeg else {}))

    return make


def pil_shapes(seed, jpeg=False):
    def make(dst):
        rnd = random.Random(seed)
        im = Image.new("RGB", (1300, 1000), tuple(rnd.randrange(200, 256) for _ in range(3)))
        d = ImageDraw.Draw(im)
        for _ in range(40):
            x, y = rnd.randrange(1300), rnd.randrange(1000)
            w, h = rnd.randrange(30, 300), rnd.randrange(30, 300)
            c = tuple(rnd.randrange(256) for _ in range(3))
            kind = rnd.randrange(3)
            if kind == 0:
                d.rectangle([x, y, x + w, y + h], fill=c)
            elif kind == 1:
                d.ellipse([x, y, x + w, y + h], fill=c)
            else:
                d.polygon([(x, y), (x + w, y + h // 3), (x + w // 2, y + h)], fill=c)
        im.save(dst, **({"quality": 92} if jpeg else {}))

    return make


def pil_shapes_aa(seed):
    """Shapes drawn at 4× and reduced with a box filter: anti-aliased edges, as a design tool exports them."""

    def make(dst):
        rnd = random.Random(seed)
        big = Image.new("RGB", (1300 * 4, 1000 * 4), "white")
        d = ImageDraw.Draw(big)
        for _ in range(30):
            x, y = rnd.randrange(5200), rnd.randrange(4000)
            r = rnd.randrange(80, 900)
            d.ellipse([x, y, x + r, y + r], fill=tuple(rnd.randrange(256) for _ in range(3)))
        big.resize((1300, 1000), Image.BOX).save(dst)

    return make


def pil_stripes(width, vertical):
    def make(dst):
        im = Image.new("RGB", (1400, 1050), "white")
        d = ImageDraw.Draw(im)
        for p in range(0, 1400 if vertical else 1050, 2 * width):
            d.rectangle([p, 0, p + width - 1, 1049] if vertical else [0, p, 1399, p + width - 1], fill=(180, 0, 60))
        im.save(dst)

    return make


def pil_gradient(kind):
    def make(dst):
        im = Image.new("RGB", (1400, 1000))
        px = im.load()
        for y in range(1000):
            for x in range(1400):
                if kind == "linear":
                    v = x * 255 // 1399
                    px[x, y] = (v, 80, 255 - v)
                else:
                    r = ((x - 700) ** 2 + (y - 500) ** 2) ** 0.5
                    v = max(0, 255 - int(r * 255 / 860))
                    px[x, y] = (v, v // 2, 40)
        im.save(dst)

    return make


for s in (37, 16, 50):
    add(f"pil-checker{s}", "flat", "pillow", f"Pillow checkerboard of {s}-px squares (aliased rectangles)", pil_checker(s))
for dia, gap in ((18, 30), (9, 14), (31, 45)):
    add(f"pil-dots{dia}", "flat", "pillow", f"Pillow field of {dia}-px dots every {gap} px (aliased ellipses)", pil_dots(dia, gap))
for size in (14, 28, 60):
    add(f"pil-text{size}", "flat", "pillow", f"Pillow text, DejaVu Sans {size} px", pil_text(size))
add("pil-text36-bold-jpg", "flat", "pillow", "Pillow text, DejaVu Sans Bold 36 px, JPEG quality 92", pil_text(36, True, True))
for seed in (1, 2, 3):
    add(f"pil-shapes{seed}", "flat", "pillow", f"Pillow rectangles, ellipses, triangles (aliased), seed {seed}", pil_shapes(seed))
add("pil-shapes4-jpg", "flat", "pillow", "Pillow shapes (aliased), seed 4, JPEG quality 92", pil_shapes(4, True))
for seed in (5, 6):
    add(f"pil-shapes-aa{seed}", "flat", "pillow", f"Pillow ellipses drawn at 4x, reduced with a box filter (anti-aliased), seed {seed}", pil_shapes_aa(seed))
for width, vertical in ((10, True), (25, False), (3, True)):
    add(f"pil-stripes{width}{'v' if vertical else 'h'}", "flat", "pillow", f"Pillow {'vertical' if vertical else 'horizontal'} stripes {width} px", pil_stripes(width, vertical))
for kind in ("linear", "radial"):
    add(f"pil-gradient-{kind}", "flat", "pillow", f"Pillow {kind} gradient, computed per pixel", pil_gradient(kind))

# ---------------------------------------------------------------- ImageMagick
IM = [
    ("im-checkerboard", "ImageMagick pattern:checkerboard tiled", ["-size", "1400x1050", "tile:pattern:checkerboard"]),
    ("im-hexagons", "ImageMagick pattern:hexagons tiled", ["-size", "1400x1050", "tile:pattern:hexagons"]),
    ("im-bricks", "ImageMagick pattern:bricks tiled", ["-size", "1400x1050", "tile:pattern:bricks"]),
    ("im-hs-diagcross", "ImageMagick pattern:hs_diagcross tiled", ["-size", "1400x1050", "tile:pattern:hs_diagcross"]),
    ("im-circles", "ImageMagick pattern:circles tiled", ["-size", "1400x1050", "tile:pattern:circles"]),
    ("im-gradient", "ImageMagick gradient:navy-gold", ["-size", "1400x1050", "gradient:navy-gold"]),
    ("im-radial", "ImageMagick radial-gradient:white-firebrick", ["-size", "1200x1200", "radial-gradient:white-firebrick"]),
    ("im-label", "ImageMagick label: text, DejaVu Sans 120 pt", ["-background", "white", "-fill", "black", "-font", FONT, "-pointsize", "120", "-size", "1400x", "label:Summer Sale 50% off everything"]),
    ("im-caption", "ImageMagick caption: paragraph, DejaVu Sans 28", ["-background", "#fff8e0", "-fill", "#203040", "-font", FONT, "-pointsize", "28", "-size", "1300x1000", "caption:" + "Our organic cotton tees are printed on demand in the city. " * 12]),
    ("im-draw-shapes", "ImageMagick -draw circles, rectangles and a polygon (anti-aliased)", ["-size", "1300x1000", "xc:white", "-fill", "#d22", "-draw", "circle 300,300 300,80", "-fill", "#22d", "-draw", "rectangle 600,100 1200,500", "-fill", "#2a2", "-draw", "polygon 100,900 600,550 1100,950", "-fill", "black", "-font", FONT, "-pointsize", "90", "-draw", "text 620,700 'LOGO'"]),
    ("im-draw-shapes-aliased", "ImageMagick -draw with +antialias", ["-size", "1300x1000", "xc:white", "+antialias", "-fill", "#d22", "-draw", "circle 300,300 300,80", "-fill", "#22d", "-draw", "rectangle 600,100 1200,500", "-fill", "#2a2", "-draw", "polygon 100,900 600,550 1100,950"]),
    ("im-stripes", "ImageMagick pattern:vertical tiled, scaled 8x by sampling then tiled as 4-px bars", ["-size", "1400x1050", "tile:pattern:vertical"]),
    ("im-checker-jpg", "ImageMagick pattern:checkerboard tiled, JPEG quality 92", ["-size", "1400x1050", "tile:pattern:checkerboard", "-quality", "92"]),
    ("im-label-jpg", "ImageMagick label: text 80 pt, JPEG quality 92", ["-background", "white", "-fill", "#900", "-font", FONT_BOLD, "-pointsize", "80", "-size", "1400x", "label:Family reunion 2026\nTeam Miller"]),
]
for name, how, args in IM:
    add(name, "flat", "imagemagick", how, lambda dst, a=args: run(["/usr/bin/convert", *a, dst]))


# ---------------------------------------------------------------- screenshots
PAGES = {
    "article": "<h1>Print on demand</h1>" + "<p>Customers upload their designs as PNG, JPEG or PDF; the print shop checks them before they print on fabric. " * 6 + "</p>",
    "table": "<table border=1 cellpadding=8>" + "".join(f"<tr><td>Item {i}</td><td>{i * 3} pcs</td><td>€ {i * 4.5:.2f}</td></tr>" for i in range(22)) + "</table>",
    "buttons": "".join(f'<button style="font-size:{14 + i}px;margin:10px;padding:10px;border-radius:8px;background:hsl({i * 30},70%,50%);color:#fff;border:0">Order now {i}</button>' for i in range(30)),
    "poster": '<div style="font:bold 110px DejaVu Sans;color:#c00;text-align:center;margin-top:150px">GRAND OPENING</div><div style="font:40px DejaVu Sans;text-align:center">Saturday 10:00 · Main street 12</div>',
    "chart": '<svg width="1200" height="800">' + "".join(f'<rect x="{60 + i * 90}" y="{780 - (i * 53) % 700}" width="60" height="{(i * 53) % 700}" fill="steelblue"/>' for i in range(12)) + "</svg>",
}


def screenshot(html, size):
    def make(dst):
        page = os.path.join(OUT, "svg", os.path.basename(dst) + ".html")
        with open(page, "w") as f:
            f.write(f"<!doctype html><meta charset=utf-8><body style='font-family:DejaVu Sans;margin:30px;background:#fff'>{html}</body>")
        run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={size[0]},{size[1]}", f"--screenshot={dst}", "file://" + page])

    return make


for name, html in PAGES.items():
    for size in ((1280, 960), (1400, 1100)):
        add(f"shot-{name}-{size[0]}", "flat", "chromium", f"headless chromium --screenshot of a page ({name}) at {size[0]}x{size[1]}", screenshot(html, size))


# ---------------------------------------------------------------- as customers pass them on
# Every fourth design saved again as JPEG at quality 80 (Pillow), every sixth reduced to 71 % by
# ImageMagick's Lanczos (a design exported large and made smaller): still drawn, never enlarged.
for k, item in enumerate(list(ITEMS)):
    if k % 4 == 0:
        add(f"{item['name']}-q80-jpg", "flat", item["producer"], f"{item['how']}; saved again as JPEG quality 80 by Pillow", lambda dst, src=item["image"]: Image.open(src).convert("RGB").save(dst, quality=80))
    if k % 6 == 3:
        add(f"{item['name']}-down71", "flat", item["producer"], f"{item['how']}; reduced to 71 % by ImageMagick -filter Lanczos", lambda dst, src=item["image"]: run(["/usr/bin/convert", src, "-filter", "Lanczos", "-resize", "71%", "PNG24:" + dst]))

# ---------------------------------------------------------------- pixel art enlarged by nearest neighbour (positives)
def sprite_sheet(seed, cells=12, cell=10):
    """Symmetric 'invader' sprites on a grid, one pixel per pixel, a few colours."""
    rnd = random.Random(seed)
    im = Image.new("RGB", (cells * (cell + 2), cells * (cell + 2)), (20, 20, 40))
    px = im.load()
    for cy in range(cells):
        for cx in range(cells):
            c = (rnd.randrange(60, 256), rnd.randrange(60, 256), rnd.randrange(60, 256))
            for y in range(cell):
                for x in range((cell + 1) // 2):
                    if rnd.random() < 0.5:
                        px[cx * (cell + 2) + 1 + x, cy * (cell + 2) + 1 + y] = c
                        px[cx * (cell + 2) + cell - x, cy * (cell + 2) + 1 + y] = c
    return im


def pixel_art_nn(seed, factor, tool):
    def make(dst):
        small = os.path.join(OUT, "svg", f"sprites{seed}.png")
        sprite_sheet(seed).save(small)
        if tool == "pillow":
            im = Image.open(small)
            im.resize((im.width * factor, im.height * factor), Image.NEAREST).save(dst)
        else:
            run(["/usr/bin/convert", small, "-sample", f"{factor * 100}%", dst])

    return make


def plasma_art_nn(seed, factor):
    """ImageMagick plasma reduced to 16 colours at 200 px (pixel art from a picture), then scaled by -filter point."""

    def make(dst):
        run(["/usr/bin/convert", "-seed", str(seed), "-size", "200x160", "plasma:", "+dither", "-colors", "16", "-filter", "point", "-resize", f"{factor * 100}%", dst])

    return make


n = 0
for factor in (2, 3, 4):
    for tool in ("pillow", "imagemagick"):
        n += 1
        add(f"pixelart-sprites{n}-nn{factor}-{tool}", "pixel-art", tool, f"sprite sheet (1 px per pixel, seed {n}) enlarged {factor}x by nearest neighbour ({'PIL NEAREST' if tool == 'pillow' else 'convert -sample'})", pixel_art_nn(n, factor, tool), factor)
    add(f"pixelart-plasma-nn{factor}", "pixel-art", "imagemagick", f"ImageMagick plasma at 200x160 reduced to 16 colours, enlarged {factor}x by -filter point", plasma_art_nn(factor, factor), factor)

# ---------------------------------------------------------------- pages
PRODUCERS = ["img2pdf", "reportlab"]


def pdf_img2pdf(src, dst, ppi):
    import img2pdf

    im = Image.open(src)
    layout = img2pdf.get_layout_fun((im.width * 72.0 / ppi, im.height * 72.0 / ppi), None, None)
    with open(dst, "wb") as f:
        f.write(img2pdf.convert(src, layout_fun=layout))


def pdf_reportlab(src, dst, ppi):
    from reportlab.pdfgen import canvas

    im = Image.open(src)
    w, h = im.width * 72.0 / ppi, im.height * 72.0 / ppi
    c = canvas.Canvas(dst, pagesize=(w, h))
    c.drawImage(src, 0, 0, w, h)
    c.showPage()
    c.save()


for turn, item in enumerate(ITEMS):
    im = Image.open(item["image"])
    if im.mode not in ("RGB", "L"):
        # Screenshots and renders carry alpha: flattened on white, as a design tool exports for print.
        flat = Image.new("RGB", im.size, "white")
        flat.paste(im, mask=im.convert("RGBA").split()[3])
        flat.save(item["image"])
    producer = PRODUCERS[turn % 2]
    ppi = 120 + (turn * 7) % 26
    item["pdfProducer"] = producer
    item["ppi"] = ppi
    item["pdf"] = os.path.join(PDF, item["name"] + ".pdf")
    if not os.path.exists(item["pdf"]):
        (pdf_img2pdf if producer == "img2pdf" else pdf_reportlab)(item["image"], item["pdf"], ppi)
    with open(item["image"], "rb") as f:
        item["sha256"] = hashlib.sha256(f.read()).hexdigest()
    item["widthPx"], item["heightPx"] = Image.open(item["image"]).size

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(ITEMS, f, indent=1)
print(len(ITEMS))
