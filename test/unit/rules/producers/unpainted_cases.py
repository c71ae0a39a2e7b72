"""Print files for page-unpainted-area, made by reportlab (t-shirt M front: 560 x 750 mm page, trim
10 mm in). Nothing is painted outside what each case draws: the rest stays transparent.

  bare-bleed     a background over exactly the trim, the 10 mm bleed left bare (0 % of the panel unpainted)
  hole-60        the whole page painted but for a 60 x 60 mm hole inside the trim (0.91 %)
  hole-80        the same with an 80 x 80 mm hole (1.62 %)

    /usr/bin/python3 unpainted_cases.py OUT_DIR
"""
import sys
from reportlab.lib.units import mm
from reportlab.pdfgen import canvas

out = sys.argv[1]
W, H = 560 * mm, 750 * mm


def page(name, draw):
    c = canvas.Canvas(f"{out}/{name}.pdf", pagesize=(W, H))
    c.setFillColorRGB(0.2, 0.5, 0.7)
    draw(c)
    c.showPage()
    c.save()


def bare_bleed(c):
    c.rect(10 * mm, 10 * mm, W - 20 * mm, H - 20 * mm, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.rect(200 * mm, 300 * mm, 100 * mm, 100 * mm, stroke=0, fill=1)  # painted white: painted


def hole(size):
    def draw(c):
        # Four rectangles around a size x size hole whose corner is at (240, 330) mm.
        x, y, s = 240 * mm, 330 * mm, size * mm
        c.rect(0, 0, W, y, stroke=0, fill=1)
        c.rect(0, y + s, W, H - y - s, stroke=0, fill=1)
        c.rect(0, y, x, s, stroke=0, fill=1)
        c.rect(x + s, y, W - x - s, s, stroke=0, fill=1)
    return draw


page("bare-bleed", bare_bleed)
page("hole-60", hole(60))
page("hole-80", hole(80))
