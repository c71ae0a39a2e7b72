"""Print files on which the seam and text-size checks must stay quiet (issue 36), made by several
producers at test time (t-shirt M front: 560 x 750 mm page, trim 10 mm in, safe line 20 mm in):

  rows-reportlab, rows-words-reportlab, rows-rsvg, rows-gs, rows-pikepdf
      a background of text rows that run off the page on both sides, one every 37 mm from the
      bottom edge to the top (rows in the seam zone included); reportlab also word by word.
  spaces-reportlab, spaces-rsvg
      12 pt text, and runs of spaces set at 2 pt between words and on lines of their own (reportlab:
      a simple TrueType subset; rsvg-convert: cairo's composite font with a /ToUnicode map);
      reportlab adds a 2 pt line of invisible text (render mode 3, as an OCR layer is).
  emoji-type3 SIZE
      a Type 3 font drawn on a 2,048-unit em (FontMatrix 1/2048, as Chromium and cairo embed a
      colour emoji font) whose glyph fills its em, set at SIZE pt.

    /usr/bin/python3 false_marks.py OUT_DIR
"""
import os
import subprocess
import sys

import pikepdf
from pikepdf import Array, Dictionary, Name
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

pdfmetrics.registerFont(TTFont("DejaVu", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))
out = sys.argv[1]
W, H = 560 * mm, 750 * mm
ROW = "PARTY CREW 2026 * " * 12  # about 3.3 m at 30 pt: runs off both sides
ROWS = [5 * mm + k * 37 * mm for k in range(21)]  # 5 mm to 745 mm from the bottom edge


def reportlab_rows(name, words):
    c = canvas.Canvas(f"{out}/{name}.pdf", pagesize=(W, H))
    c.setFillColorRGB(0.95, 0.9, 0.7)
    c.rect(0, 0, W, H, stroke=0, fill=1)
    c.setFillColorRGB(0.85, 0.8, 0.6)
    c.setFont("DejaVu", 30)
    for y in ROWS:
        if words:
            x = -40 * mm
            for word in ROW.split(" "):
                c.drawString(x, y, word)
                x += pdfmetrics.stringWidth(word + " ", "DejaVu", 30)
        else:
            c.drawString(-40 * mm, y, ROW)
    c.showPage()
    c.save()


def rsvg_rows(name):
    w, h = 560, 750
    rows = "".join(f'<text x="-40" y="{h - y / mm:.1f}" font-family="DejaVu Sans" font-size="10.58" fill="#d9cc99">{ROW}</text>' for y in ROWS)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}"><rect width="{w}" height="{h}" fill="#f2e6b3"/>{rows}</svg>'
    src = f"{out}/{name}.svg"
    with open(src, "w") as f:
        f.write(svg)
    subprocess.run(["rsvg-convert", "-f", "pdf", "-o", f"{out}/{name}.pdf", src], check=True)


def gs_rows(name):
    ps = [f"<< /PageSize [{W:.2f} {H:.2f}] >> setpagedevice", "0.95 0.9 0.7 setrgbcolor", f"0 0 {W:.2f} {H:.2f} rectfill",
          "/Helvetica findfont 30 scalefont setfont", "0.85 0.8 0.6 setrgbcolor"]
    for y in ROWS:
        ps.append(f"{-40 * mm:.2f} {y:.2f} moveto ({ROW}) show")
    ps.append("showpage")
    src = f"{out}/{name}.ps"
    with open(src, "w") as f:
        f.write("%!PS\n" + "\n".join(ps) + "\n")
    subprocess.run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", f"-sOutputFile={out}/{name}.pdf", src], check=True)


def pikepdf_rows(name):
    pdf = pikepdf.new()
    font = Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding)
    ops = [f"0.95 0.9 0.7 rg 0 0 {W:.2f} {H:.2f} re f 0.85 0.8 0.6 rg"]
    for y in ROWS:
        ops.append(f"BT /F1 30 Tf {-40 * mm:.2f} {y:.2f} Td [({ROW[:60]}) -250 ({ROW[60:]})] TJ ET")
    content = pikepdf.Stream(pdf, "\n".join(ops).encode("latin-1"))
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, W, H]), Resources=Dictionary(Font=Dictionary(F1=font)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(f"{out}/{name}.pdf")


def reportlab_spaces(name):
    c = canvas.Canvas(f"{out}/{name}.pdf", pagesize=(W, H))
    c.setFillColorRGB(0.1, 0.1, 0.3)
    c.setFont("DejaVu", 12)
    c.drawString(200 * mm, 400 * mm, "Inside the safe area")
    t = c.beginText(200 * mm, 380 * mm)
    for word in ["Words", "set", "apart", "by", "tiny", "spaces"]:
        t.setFont("DejaVu", 12)
        t.textOut(word)
        t.setFont("DejaVu", 2)
        t.textOut("      ")
    c.drawText(t)
    c.setFont("DejaVu", 2)
    c.drawString(200 * mm, 360 * mm, " " * 40)  # a line of spaces alone
    t = c.beginText(200 * mm, 340 * mm)
    t.setTextRenderMode(3)  # invisible, as an OCR layer
    t.setFont("DejaVu", 2)
    t.textOut("scanned text under an image")
    c.drawText(t)
    c.showPage()
    c.save()


def rsvg_spaces(name):
    w, h = 560, 750
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">'
           f'<text x="200" y="350" font-family="DejaVu Sans" font-size="4.23" xml:space="preserve">Words'
           f'<tspan font-size="0.7">      </tspan>set<tspan font-size="0.7">      </tspan>apart</text>'
           f'<text x="200" y="370" font-family="DejaVu Sans" font-size="0.7" xml:space="preserve">{"&#160;" * 30}</text></svg>')
    src = f"{out}/{name}.svg"
    with open(src, "w") as f:
        f.write(svg)
    subprocess.run(["rsvg-convert", "-f", "pdf", "-o", f"{out}/{name}.pdf", src], check=True)


def emoji_type3(name, size):
    pdf = pikepdf.new()
    # One glyph, a disc drawn on the whole 2,048-unit em (as an emoji fills its em).
    proc = pikepdf.Stream(pdf, b"2048 0 0 -410 2048 1638 d1 1024 614 m 1590 614 2048 1072 2048 1638 c 0 1638 l 0 1072 458 614 1024 614 c f")
    font = Dictionary(
        Type=Name.Font, Subtype=Name.Type3, FontMatrix=Array([1 / 2048, 0, 0, 1 / 2048, 0, 0]), FontBBox=Array([0, -410, 2048, 1638]),
        CharProcs=Dictionary(smile=proc), Encoding=Dictionary(Type=Name.Encoding, Differences=Array([65, Name.smile])),
        FirstChar=65, LastChar=65, Widths=Array([2048]), Resources=Dictionary(),
    )
    content = pikepdf.Stream(pdf, f"0.9 0.7 0.1 rg BT /E1 {size} Tf {200 * mm:.2f} {400 * mm:.2f} Td (AAA) Tj ET".encode())
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, W, H]), Resources=Dictionary(Font=Dictionary(E1=font)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(f"{out}/{name}.pdf")


os.makedirs(out, exist_ok=True)
reportlab_rows("rows-reportlab", False)
reportlab_rows("rows-words-reportlab", True)
rsvg_rows("rows-rsvg")
gs_rows("rows-gs")
pikepdf_rows("rows-pikepdf")
reportlab_spaces("spaces-reportlab")
rsvg_spaces("spaces-rsvg")
emoji_type3("emoji-type3-11", 11)
emoji_type3("emoji-type3-3", 3)
