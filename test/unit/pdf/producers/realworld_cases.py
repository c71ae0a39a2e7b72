"""Small PDFs made with pikepdf (qpdf's library), PIL and reportlab for the real-world classes of
issue 13: /Contents as a reference to an array, printable and non-printing annotations, optional
content (OCGs, OCMDs, print usage), a stencil mask painted with a shading pattern, JPEG 2000 images
without /ColorSpace, a page listed twice in /Kids and a real cycle, a file without a usable /Root.

    /usr/bin/python3 realworld_cases.py OUT_DIR
"""
import io
import sys
import zlib

import pikepdf
from PIL import Image
from pikepdf import Array, Dictionary, Name, Stream
from reportlab.pdfgen import canvas

out = sys.argv[1]


def image(pdf, w, h, cs=Name.DeviceRGB, comps=3, **extra):
    data = bytes((x * 7 + y * 3 + c * 50) % 256 for y in range(h) for x in range(w) for c in range(comps))
    return Stream(pdf, zlib.compress(data), Type=Name.XObject, Subtype=Name.Image, Width=w, Height=h,
                  ColorSpace=cs, BitsPerComponent=8, Filter=Name.FlateDecode, **extra)


def page(pdf, content, resources, **extra):
    p = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 600, 600]), Resources=resources, **extra)
    if content is not None:
        p.Contents = Stream(pdf, content)
    pdf.pages.append(pikepdf.Page(p))
    return pdf.pages[-1]


def form(pdf, content, resources, bbox=(0, 0, 100, 100), **extra):
    return Stream(pdf, content, Type=Name.XObject, Subtype=Name.Form, BBox=Array(list(bbox)), Resources=resources, **extra)


# 1. /Contents: an indirect reference to an array of indirect streams.
pdf = pikepdf.new()
p = page(pdf, None, Dictionary(XObject=Dictionary(Im0=image(pdf, 100, 100))))
parts = pdf.make_indirect(Array([pdf.make_indirect(Stream(pdf, b"q 72 0 0 72 10 10 cm\n")),
                                 pdf.make_indirect(Stream(pdf, b"/Im0 Do Q\n"))]))
p.obj.Contents = parts
pdf.save(f"{out}/contents-indirect-array.pdf")

# 2. Annotations: which print, and how their appearance is placed on the page.
pdf = pikepdf.new()
helv = pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica))
ap = lambda w, cs=Name.DeviceRGB, comps=3: form(pdf, b"q 100 0 0 100 0 0 cm /Im Do Q", Dictionary(XObject=Dictionary(Im=image(pdf, w, w, cs, comps))))
annots = Array([
    # a. prints: a 100 x 100 px image stretched over a 400 pt square -> 18 ppi
    Dictionary(Type=Name.Annot, Subtype=Name.Stamp, F=4, Rect=Array([100, 100, 500, 500]), AP=Dictionary(N=ap(100))),
    # b. no Print flag: on screen only
    Dictionary(Type=Name.Annot, Subtype=Name.Stamp, F=0, Rect=Array([0, 0, 50, 50]), AP=Dictionary(N=ap(51))),
    # c. Print but Hidden
    Dictionary(Type=Name.Annot, Subtype=Name.Stamp, F=6, Rect=Array([0, 0, 50, 50]), AP=Dictionary(N=ap(52))),
    # d. a check box: /AS picks the Off appearance (CMYK), not the On one
    Dictionary(Type=Name.Annot, Subtype=Name.Widget, F=4, Rect=Array([0, 0, 20, 20]), AS=Name.Off,
               AP=Dictionary(N=Dictionary(On=ap(53), Off=ap(70, Name.DeviceCMYK, 4)))),
    # e. FreeText in an unembedded font
    Dictionary(Type=Name.Annot, Subtype=Name.FreeText, F=4, Rect=Array([0, 500, 200, 550]),
               AP=Dictionary(N=form(pdf, b"BT /Helv 12 Tf 2 20 Td (Hello) Tj ET", Dictionary(Font=Dictionary(Helv=helv)), (0, 0, 200, 50)))),
    # f. a NoView stamp still prints
    Dictionary(Type=Name.Annot, Subtype=Name.Stamp, F=4 | 32, Rect=Array([0, 0, 90, 90]), AP=Dictionary(N=ap(90))),
])
page(pdf, b"", Dictionary(), Annots=annots)
pdf.save(f"{out}/annotations.pdf")

# 3. Optional content.
pdf = pikepdf.new()
ocg = lambda name, **kw: pdf.make_indirect(Dictionary(Type=Name.OCG, Name=pikepdf.String(name), **kw))
on, off = ocg("on"), ocg("off")
print_off = ocg("screen only", Usage=Dictionary(Print=Dictionary(PrintState=Name.OFF)))
base_off = ocg("base off")
ocmd = lambda **kw: pdf.make_indirect(Dictionary(Type=Name.OCMD, **kw))
pdf.Root.OCProperties = Dictionary(
    OCGs=Array([on, off, print_off]),
    D=Dictionary(OFF=Array([off]), AS=Array([Dictionary(Event=Name.Print, Category=Array([Name.Print]), OCGs=Array([print_off]))])),
)
props = Dictionary(
    MCon=on, MCoff=off, MCprint=print_off,
    MDall=ocmd(OCGs=Array([on, off]), P=Name.AllOn),
    MDany=ocmd(OCGs=Array([on, off])),
    MDnot=ocmd(VE=Array([Name.Not, off])),
    MDand=ocmd(VE=Array([Name.And, on, off])),
)
xobjects = Dictionary(**{f"Im{w}": image(pdf, w, w) for w in (11, 12, 13, 14, 15, 16, 17)})
xobjects.Im18 = image(pdf, 18, 18, OC=off)
content = b"".join([
    b"/OC /MCon BDC q 100 0 0 100 0 0 cm /Im11 Do Q EMC\n",
    b"/OC /MCoff BDC q 100 0 0 100 0 0 cm /Im12 Do Q 0 0 0 1 k 0 0 10 10 re f EMC\n",
    b"/OC /MCprint BDC q 100 0 0 100 0 0 cm /Im13 Do Q EMC\n",
    b"/OC /MDall BDC q 100 0 0 100 0 0 cm /Im14 Do Q EMC\n",
    b"/OC /MDany BDC q 100 0 0 100 0 0 cm /Im15 Do Q EMC\n",
    b"/OC /MDnot BDC q 100 0 0 100 0 0 cm /Im16 Do Q EMC\n",
    b"/OC /MDand BDC q 100 0 0 100 0 0 cm /Im17 Do Q EMC\n",
    b"q 100 0 0 100 0 0 cm /Im18 Do Q\n",
    b"/Span << /ActualText (x) >> BDC 0.5 g 0 0 5 5 re f EMC\n",
])
page(pdf, content, Dictionary(XObject=xobjects, Properties=props))
pdf.save(f"{out}/optional-content.pdf")

# 4. A stencil mask painted with an RGB (and a CMYK) axial shading pattern.
for name, cs, c0, c1 in (("rgb", Name.DeviceRGB, [1, 0, 0], [0, 0, 1]), ("cmyk", Name.DeviceCMYK, [1, 0, 0, 0], [0, 0, 1, 0])):
    pdf = pikepdf.new()
    shading = Dictionary(ShadingType=2, ColorSpace=cs, Coords=Array([0, 0, 100, 0]),
                         Function=Dictionary(FunctionType=2, Domain=Array([0, 1]), C0=Array(c0), C1=Array(c1), N=1))
    pattern = pdf.make_indirect(Dictionary(Type=Name.Pattern, PatternType=2, Shading=shading))
    mask = Stream(pdf, bytes([0xAA, 0x55] * 8), Type=Name.XObject, Subtype=Name.Image, Width=16, Height=8, ImageMask=True, BitsPerComponent=1)
    page(pdf, b"/Pattern cs /P0 scn q 100 0 0 100 0 0 cm /Mask Do Q",
         Dictionary(Pattern=Dictionary(P0=pattern), XObject=Dictionary(Mask=mask)))
    pdf.save(f"{out}/stencil-shading-{name}.pdf")

# 5. JPEG 2000 images without /ColorSpace: a JP2 file (colr box) and a bare codestream (SIZ).
pdf = pikepdf.new()
jpx = {}
for key, mode, fmt in (("jp2rgb", "RGB", "jp2"), ("jp2gray", "L", "jp2"), ("j2krgb", "RGB", "j2k"), ("j2kgray", "L", "j2k")):
    buf = io.BytesIO()
    Image.new(mode, (32, 24), "red" if mode == "RGB" else 128).save(buf, "JPEG2000", no_jp2=(fmt == "j2k"))
    jpx[key] = Stream(pdf, buf.getvalue(), Type=Name.XObject, Subtype=Name.Image, Width=32, Height=24, Filter=Name.JPXDecode)
page(pdf, b"".join(f"q 32 0 0 24 {i * 40} 0 cm /{k} Do Q\n".encode() for i, k in enumerate(jpx)), Dictionary(XObject=Dictionary(**jpx)))
pdf.save(f"{out}/jpx-no-colorspace.pdf")

# 6. A page listed twice in /Kids (qpdf, poppler and MuPDF count 2 pages), and a real cycle.
pdf = pikepdf.new()
page(pdf, b"0 0 1 rg 0 0 600 600 re f", Dictionary())
pdf.save(f"{out}/one-page.pdf")
pdf = pikepdf.open(f"{out}/one-page.pdf")
kid = pdf.Root.Pages.Kids[0]
pdf.Root.Pages.Kids = Array([kid, kid])
pdf.Root.Pages.Count = 2
pdf.save(f"{out}/page-listed-twice.pdf")
pdf = pikepdf.open(f"{out}/one-page.pdf")
pdf.Root.Pages.Kids.append(pdf.Root.Pages)
pdf.save(f"{out}/page-tree-cycle.pdf")

# 7. reportlab: a plain file for the damage cases (xref subsections, no usable /Root).
c = canvas.Canvas(f"{out}/reportlab-plain.pdf", pagesize=(600, 600))
c.setFillColorRGB(0.2, 0.4, 0.6)
c.rect(0, 0, 600, 600, fill=1)
c.showPage()
c.save()
