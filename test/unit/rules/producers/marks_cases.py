"""Print files for the seam, line-width and text-size checks, made by reportlab (t-shirt M front:
trim 540 x 730 mm, bleed 10 mm, safe margin 10 mm: the safe line is 20 mm from the page edge)."""
import sys
from reportlab.lib.units import mm
from reportlab.pdfgen import canvas
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

pdfmetrics.registerFont(TTFont('DejaVu', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'))
out = sys.argv[1]
W, H = 560 * mm, 750 * mm


def page(name, draw, w=W, h=H):
    c = canvas.Canvas(f'{out}/{name}.pdf', pagesize=(w, h))
    c.setFillColorRGB(0.9, 0.85, 0.6)
    c.rect(0, 0, w, h, stroke=0, fill=1)  # full-bleed background: runs past the trim
    c.setFillColorRGB(0.1, 0.1, 0.3)
    c.setStrokeColorRGB(0.1, 0.1, 0.3)
    draw(c, w, h)
    c.showPage()
    c.save()


def crop_marks(c, w, h):
    c.setLineWidth(0.25)
    for x, y, dx, dy in [(0, 10 * mm, 8 * mm, 0), (10 * mm, 0, 0, 8 * mm), (w, 10 * mm, -8 * mm, 0), (w - 10 * mm, 0, 0, 8 * mm)]:
        c.line(x, y, x + dx, y + dy)


def clean(c, w, h):
    c.setFont('DejaVu', 12)
    c.drawString(200 * mm, 400 * mm, 'Inside the safe area')
    c.setLineWidth(2)
    c.line(200 * mm, 380 * mm, 350 * mm, 380 * mm)
    crop_marks(c, w, h)
    c.setFont('DejaVu', 7)
    c.drawString(2 * mm, 3 * mm, 'slug: order 1234')  # wholly in the bleed: cut away


def seam_text(c, w, h):
    c.setFont('DejaVu', 24)
    c.drawString(200 * mm, 15 * mm, 'JOHN')  # baseline 5 mm inside the trim


def seam_logo(c, w, h):
    c.rect(15 * mm, 300 * mm, 60 * mm, 60 * mm, stroke=0, fill=1)  # left side 5 mm inside the trim


def seam_form(c, w, h):
    c.beginForm('badge')
    c.setFont('DejaVu', 18)
    c.drawString(0, 0, 'TEAM')
    c.endForm()
    c.saveState()
    c.translate(250 * mm, h - 16 * mm)  # top of the text within 10 mm of the trim
    c.doForm('badge')
    c.restoreState()


def seam_rotated(c, w, h):
    c.saveState()
    c.translate(16 * mm, 300 * mm)
    c.rotate(90)
    c.setFont('DejaVu', 20)
    c.drawString(0, 0, 'SIDEWAYS')
    c.restoreState()


def thin_lines(c, w, h):
    c.setLineWidth(0.25)
    c.line(200 * mm, 300 * mm, 350 * mm, 300 * mm)
    c.setLineWidth(0)
    c.line(200 * mm, 320 * mm, 350 * mm, 320 * mm)
    c.setLineWidth(1.5)
    c.line(200 * mm, 340 * mm, 350 * mm, 340 * mm)


def small_text(c, w, h):
    c.setFont('DejaVu', 4)
    c.drawString(200 * mm, 300 * mm, 'tiny print')
    c.saveState()
    c.translate(200 * mm, 350 * mm)
    c.scale(0.25, 0.25)
    c.setFont('DejaVu', 12)
    c.drawString(0, 0, 'scaled down')
    c.restoreState()
    c.setFont('DejaVu', 9)
    c.drawString(200 * mm, 400 * mm, 'readable')


def half_size(c, w, h):
    # Printed at 200 %: 4 pt text prints at 8 pt (fine); a 0.4 pt line prints at 0.8 pt (too thin).
    c.setFont('DejaVu', 4)
    c.drawString(100 * mm, 150 * mm, 'small on the page, fine printed')
    c.setLineWidth(0.4)
    c.line(100 * mm, 140 * mm, 150 * mm, 140 * mm)


def at_the_limits(c, w, h):
    # Exactly at the limits, through a matrix that is not quite 1 (as form fields are drawn: a form
    # matrix of 0.9999987): 1 pt borders and 6 pt text measure 0.9999987 pt and 5.9999922 pt.
    c.saveState()
    c.translate(200 * mm, 400 * mm)
    c.scale(0.9999987, 0.9999987)
    c.setLineWidth(1)
    c.rect(0, 0, 60 * mm, 20 * mm, stroke=1, fill=0)
    c.setFont('DejaVu', 6)
    c.drawString(5 * mm, 5 * mm, 'six point label')
    c.restoreState()


def just_below(c, w, h):
    # Below the limits as a reader sees it: 0.99 pt and 5.9 pt.
    c.setLineWidth(0.99)
    c.line(200 * mm, 380 * mm, 350 * mm, 380 * mm)
    c.setFont('DejaVu', 5.9)
    c.drawString(200 * mm, 400 * mm, 'five point nine')


page('clean', clean)
page('at-the-limits', at_the_limits)
page('just-below', just_below)
page('seam-text', seam_text)
page('seam-logo', seam_logo)
page('seam-form', seam_form)
page('seam-rotated', seam_rotated)
page('thin-lines', thin_lines)
page('small-text', small_text)
page('half-size', half_size, W / 2, H / 2)
