"""Corpus files built with pikepdf (qpdf's library): page boxes, /Rotate, /UserUnit, and images
in every colour space the checks must tell apart, drawn directly, inline and through nested
Form XObjects."""
import sys
import zlib
import pikepdf
from pikepdf import Array, Dictionary, Name, Stream

MM = 72 / 25.4
out = sys.argv[1]
ICC = "/usr/share/color/icc/ghostscript"


def new_pdf():
    pdf = pikepdf.new()
    return pdf


def add_page(pdf, w_mm, h_mm, content=b"", resources=None, **extra):
    page = Dictionary(
        Type=Name.Page,
        MediaBox=Array([0, 0, round(w_mm * MM, 4), round(h_mm * MM, 4)]),
        Contents=Stream(pdf, content),
        Resources=resources if resources is not None else Dictionary(),
    )
    for k, v in extra.items():
        page[Name("/" + k)] = v
    pdf.pages.append(pikepdf.Page(page))
    return pdf.pages[-1]


def rgb_fill(w_mm, h_mm, r=0.2, g=0.5, b=0.8):
    return f"{r} {g} {b} rg 0 0 {w_mm * MM:.4f} {h_mm * MM:.4f} re f\n".encode()


def image(pdf, w, h, colourspace, comps, bpc=8, **extra):
    data = bytes((x * 7 + y * 3 + c * 50) % 256 for y in range(h) for x in range(w) for c in range(comps))
    if bpc == 1:
        data = bytes(((x + y) % 2) * 255 for y in range(h) for x in range((w + 7) // 8))
    s = Stream(pdf, zlib.compress(data))
    s.Type = Name.XObject
    s.Subtype = Name.Image
    s.Width = w
    s.Height = h
    s.BitsPerComponent = bpc
    s.Filter = Name.FlateDecode
    if colourspace is not None:
        s.ColorSpace = colourspace
    for k, v in extra.items():
        s[Name("/" + k)] = v
    return pdf.make_indirect(s)


def icc(pdf, name, n):
    with open(f"{ICC}/{name}", "rb") as f:
        s = Stream(pdf, f.read())
    s.N = n
    return pdf.make_indirect(Array([Name.ICCBased, s]))


def tint_cmyk(pdf, c, m, y, k):
    return Dictionary(FunctionType=2, Domain=[0, 1], C0=[0, 0, 0, 0], C1=[c, m, y, k], N=1)


def draw(x_mm, y_mm, w_mm, h_mm, name):
    return f"q {w_mm * MM:.4f} 0 0 {h_mm * MM:.4f} {x_mm * MM:.4f} {y_mm * MM:.4f} cm /{name} Do Q\n".encode()


def one_image_file(name, cs_factory, comps, bpc=8):
    """tanktop M (2 pages of 540 x 740 mm); page 1 draws a 400 x 400 px image over 50 x 50 mm (203 ppi)."""
    pdf = new_pdf()
    img = image(pdf, 400, 400, cs_factory(pdf), comps, bpc)
    add_page(pdf, 540, 740, rgb_fill(540, 740) + draw(100, 100, 50, 50, "Im1"),
             Dictionary(XObject=Dictionary(Im1=img)))
    add_page(pdf, 540, 740, rgb_fill(540, 740, 0.8, 0.3, 0.1))
    pdf.save(f"{out}/{name}")


one_image_file("pikepdf-tanktop-icc-cmyk.pdf", lambda p: icc(p, "default_cmyk.icc", 4), 4)
one_image_file("pikepdf-tanktop-icc-rgb.pdf", lambda p: icc(p, "srgb.icc", 3), 3)
one_image_file("pikepdf-tanktop-lab.pdf", lambda p: Array([Name.Lab, Dictionary(WhitePoint=[0.9505, 1, 1.089], Range=[-128, 127, -128, 127])]), 3)
one_image_file("pikepdf-tanktop-separation.pdf",
               lambda p: Array([Name.Separation, Name("/PANTONE 185 C"), Name.DeviceCMYK, tint_cmyk(p, 0, 0.9, 0.8, 0)]), 1)
one_image_file("pikepdf-tanktop-devicen.pdf",
               lambda p: Array([Name.DeviceN, Array([Name.Cyan, Name.Magenta, Name("/Gold")]), Name.DeviceCMYK,
                                p.make_indirect(Stream(p, b"{ pop 0 0 }", FunctionType=4, Domain=[0, 1, 0, 1, 0, 1], Range=[0, 1, 0, 1, 0, 1, 0, 1]))]), 3)
one_image_file("pikepdf-tanktop-indexed-cmyk.pdf",
               lambda p: Array([Name.Indexed, Name.DeviceCMYK, 1, pikepdf.String(bytes([0, 0, 0, 0, 255, 0, 0, 0]))]), 1)
one_image_file("pikepdf-tanktop-calgray.pdf", lambda p: Array([Name.CalGray, Dictionary(WhitePoint=[0.9505, 1, 1.089])]), 1)
one_image_file("pikepdf-tanktop-calrgb.pdf", lambda p: Array([Name.CalRGB, Dictionary(WhitePoint=[0.9505, 1, 1.089])]), 3)

# Images through three levels of Form XObjects, a stencil mask, and inline images (RGB and CMYK).
pdf = new_pdf()
inner_img = image(pdf, 300, 200, Name.DeviceCMYK, 4)
form3 = pdf.make_indirect(Stream(pdf, b"q 100 0 0 100 0 0 cm /Deep Do Q", Type=Name.XObject, Subtype=Name.Form,
                                 BBox=[0, 0, 100, 100], Resources=Dictionary(XObject=Dictionary(Deep=inner_img))))
form2 = pdf.make_indirect(Stream(pdf, b"q 2 0 0 2 0 0 cm /F3 Do Q", Type=Name.XObject, Subtype=Name.Form,
                                 BBox=[0, 0, 200, 200], Matrix=[1, 0, 0, 1, 10, 10],
                                 Resources=Dictionary(XObject=Dictionary(F3=form3))))
form1 = pdf.make_indirect(Stream(pdf, b"/F2 Do", Type=Name.XObject, Subtype=Name.Form, BBox=[0, 0, 400, 400],
                                 Resources=Dictionary(XObject=Dictionary(F2=form2))))
stencil = image(pdf, 64, 64, None, 1, 1, ImageMask=True)
inline_rgb = b"BI /W 4 /H 4 /CS /RGB /BPC 8 ID " + bytes(range(48)) + b" EI\n"
inline_cmyk = b"BI /W 2 /H 2 /CS /CMYK /BPC 8 /F /AHx ID 00ff00ff00ff00ff00ff00ff00ff00ff> EI\n"
content = (rgb_fill(540, 740) + b"q 2 0 0 2 100 100 cm /F1 Do Q\n"
           + b"q 0 0 0 1 k 72 0 0 72 300 300 cm /Mask Do Q\n"
           + b"q 36 0 0 36 500 500 cm " + inline_rgb + b"Q\n"
           + b"q 20 0 0 20 600 600 cm " + inline_cmyk + b"Q\n")
add_page(pdf, 540, 740, content, Dictionary(XObject=Dictionary(F1=form1, Mask=stencil)))
add_page(pdf, 540, 740, rgb_fill(540, 740, 0.8, 0.3, 0.1))
pdf.save(f"{out}/pikepdf-tanktop-forms-inline-stencil.pdf")

# curtains 140x260 (1440 x 2640 mm portrait).
def curtains(name, w, h, **extra):
    pdf = new_pdf()
    for i in range(2):
        add_page(pdf, w, h, rgb_fill(w, h, 0.1 * i, 0.6, 0.4), **extra)
    pdf.save(f"{out}/{name}")


curtains("pikepdf-curtains-rotate90.pdf", 2640, 1440, Rotate=90)          # shown portrait: only page-rotate-set
curtains("pikepdf-curtains-rotate270-sideways.pdf", 1440, 2640, Rotate=270)  # shown landscape: orientation too

# duvet-cover 200x200 (2040 x 2040 mm): /UserUnit 2 with a 1020 mm MediaBox; an image at 2 x scale.
pdf = new_pdf()
img = image(pdf, 500, 500, Name.DeviceRGB, 3)
for i in range(2):
    add_page(pdf, 1020, 1020, rgb_fill(1020, 1020) + (draw(100, 100, 50, 50, "Im1") if i == 0 else b""),
             Dictionary(XObject=Dictionary(Im1=img)), UserUnit=2)
pdf.save(f"{out}/pikepdf-duvet-userunit.pdf")

# duvet-cover 200x200: a 2100 mm MediaBox cropped to 2040 mm, with a TrimBox at the trim (2000 mm).
pdf = new_pdf()
o = 30 * MM
for i in range(2):
    add_page(pdf, 2100, 2100, rgb_fill(2100, 2100),
             CropBox=Array([round(o, 4), round(o, 4), round(o + 2040 * MM, 4), round(o + 2040 * MM, 4)]),
             TrimBox=Array([round(o + 20 * MM, 4), round(o + 20 * MM, 4), round(o + 2020 * MM, 4), round(o + 2020 * MM, 4)]))
pdf.save(f"{out}/pikepdf-duvet-cropbox-trimbox.pdf")
