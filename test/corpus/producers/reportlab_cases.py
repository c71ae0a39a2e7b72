"""Corpus files written by reportlab: exact apparel pages, swapped orientation, CMYK and spot
vector colour, inline images, Form XObjects."""
import sys
from reportlab.pdfgen import canvas
from reportlab.lib.colors import CMYKColorSep, CMYKColor
from reportlab.lib.utils import ImageReader
from PIL import Image
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

# An embedded (subset) TrueType font for the passing samples; Helvetica stays unembedded.
pdfmetrics.registerFont(TTFont("DejaVuSans", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))

MM = 72 / 25.4
out = sys.argv[1]
tmp = sys.argv[2]


def gradient(path, w, h, mode="RGB"):
    img = Image.new("RGB", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            px[x, y] = (x * 255 // max(1, w - 1), y * 255 // max(1, h - 1), 128)
    if mode != "RGB":
        img = img.convert(mode)
    img.save(path, quality=90)
    return path


def tshirt(name, layers, font="DejaVuSans"):
    c = canvas.Canvas(f"{out}/{name}", pageCompression=1)
    photo = gradient(f"{tmp}/rl-photo.jpg", 600, 300)
    for i, (w, h) in enumerate(layers):
        c.setPageSize((w * MM, h * MM))
        c.setFillColorRGB(0.9, 0.2 + 0.1 * i, 0.3)
        c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.setFont(font, 40)
        c.drawString(30 * MM, 30 * MM, f"layer {i + 1}")
        # 600 x 300 px over 100 x 50 mm = 152 ppi
        c.drawImage(photo, 20 * MM, 60 * MM, 100 * MM, 50 * MM)
        c.showPage()
    c.save()


tshirt_m = [(560, 750), (560, 750), (460, 260), (460, 260)]
tshirt("reportlab-tshirt-M-exact.pdf", tshirt_m)
tshirt("reportlab-tshirt-M-three-pages.pdf", tshirt_m[:3])
tshirt("reportlab-tshirt-M-unembedded-font.pdf", tshirt_m, font="Helvetica")

# curtains 140x260 expects 1440 x 2640 mm portrait; these pages are landscape.
c = canvas.Canvas(f"{out}/reportlab-curtains-swapped.pdf")
for i in range(2):
    c.setPageSize((2640 * MM, 1440 * MM))
    c.setFillColorRGB(0.2, 0.5, 0.2 + 0.3 * i)
    c.rect(0, 0, 2640 * MM, 1440 * MM, stroke=0, fill=1)
    c.showPage()
c.save()

# tanktop M: pages 540 x 740 mm. CMYK and spot fills, an inline image, a Form XObject.
c = canvas.Canvas(f"{out}/reportlab-tanktop-cmyk-spot.pdf")
small = gradient(f"{tmp}/rl-small.png", 64, 64)
for i in range(2):
    c.setPageSize((540 * MM, 740 * MM))
    if i == 0:
        c.setFillColor(CMYKColor(0.1, 0.8, 0.6, 0.05))
        c.rect(0, 0, 540 * MM, 740 * MM, stroke=0, fill=1)
        c.setFillColor(CMYKColorSep(0, 0.9, 0.8, 0, spotName="PANTONE 185 C", density=1))
        c.circle(270 * MM, 370 * MM, 100 * MM, stroke=0, fill=1)
    else:
        c.setFillColorRGB(0.1, 0.2, 0.7)
        c.rect(0, 0, 540 * MM, 740 * MM, stroke=0, fill=1)
        c.beginForm("logo")
        c.setStrokeColor(CMYKColor(1, 0, 0, 0))
        c.setLineWidth(8)
        c.line(0, 0, 100 * MM, 100 * MM)
        c.endForm()
        c.doForm("logo")
        # 64 px over 10 mm = 163 ppi, drawn inline
        c.drawInlineImage(small, 300 * MM, 300 * MM, 10 * MM, 10 * MM)
    c.showPage()
c.save()

# t-shirt M: the back page left blank, and a front whose design stops 15 mm short of the left
# edge and 8 mm short of the top (a white band inside the 10 mm bleed, and one wider than it).
c = canvas.Canvas(f"{out}/reportlab-tshirt-M-blank-back-edge-gap.pdf")
for i, (w, h) in enumerate(tshirt_m):
    c.setPageSize((w * MM, h * MM))
    if i == 0:
        c.setFillColorRGB(0.1, 0.5, 0.3)
        c.rect(15 * MM, 0, (w - 15) * MM, (h - 8) * MM, stroke=0, fill=1)
    elif i == 1:
        pass  # blank: nothing drawn
    else:
        c.setFillColorRGB(0.9, 0.4, 0.1)
        c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
    c.showPage()
c.save()
