"""Files for "what prints is what the preview shows" (issue 27), made at test time by reportlab and
pikepdf (run with Debian's /usr/bin/python3): printable and non-printing form fields, one full-page
image per colour space the report names, blend modes and a knockout group, broken page objects,
and an image no renderer can decode.

    /usr/bin/python3 printed_cases.py OUT_DIR
"""
import glob
import re
import sys
import zlib
from pathlib import Path

import pikepdf
from pikepdf import Array, Dictionary, Name, Pdf, Stream
from reportlab.lib.colors import black, blue, white
from reportlab.pdfgen import canvas

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def save(pdf, name):
    pdf.save(out / name, object_stream_mode=pikepdf.ObjectStreamMode.disable, compress_streams=False)


# Form fields: a text field and a check box with appearance streams and the Print flag (reportlab
# sets /F 4); the same file with the flag cleared prints nothing.
c = canvas.Canvas(str(out / 'widgets.pdf'), pagesize=(300, 200))
c.acroForm.textfield(name='name', x=20, y=120, width=200, height=30, value='Printed field', borderColor=black, fillColor=white, textColor=blue, forceBorder=True)
c.acroForm.checkbox(name='ok', x=20, y=60, size=30, checked=True, buttonStyle='check', borderColor=black, fillColor=white, textColor=black, forceBorder=True)
c.showPage()
c.save()
pdf = Pdf.open(out / 'widgets.pdf')
for annot in pdf.pages[0].Annots:
    annot.F = 0
save(pdf, 'widgets-noprint.pdf')


# One full-page image per colour space: a horizontal ramp in the first component, a vertical one
# in the second.
W, H = 192, 96


def image_page(pdf, colour_space, components, size=(300, 150)):
    data = bytearray()
    for y in range(H):
        for x in range(W):
            for c in range(components):
                data.append((x * 255 // (W - 1)) if c % 2 == 0 else (y * 255 // (H - 1)))
    image = Stream(pdf, zlib.compress(bytes(data)))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = W
    image.Height = H
    image.ColorSpace = colour_space
    image.BitsPerComponent = 8
    image.Filter = Name.FlateDecode
    pdf.add_blank_page(page_size=size)
    page = pdf.pages[-1]
    page.Resources = Dictionary(XObject=Dictionary(Im0=image))
    page.Contents = Stream(pdf, b'q %d 0 0 %d 0 0 cm /Im0 Do Q' % size)


def type4(pdf, inputs, outputs, code):
    fn = Stream(pdf, code)
    fn.FunctionType = 4
    fn.Domain = Array([0, 1] * inputs)
    fn.Range = Array([0, 1] * outputs)
    return fn


def icc(name):
    found = sorted(glob.glob(f'/usr/share/ghostscript/*/iccprofiles/{name}'))
    if not found:
        raise SystemExit(f'Ghostscript ICC profile {name} not found')
    return Path(found[-1]).read_bytes()


spaces = {
    'image-devicen.pdf': lambda pdf: (Array([Name.DeviceN, Array([Name.Cyan, Name('/Spot Orange')]), Name.DeviceCMYK, type4(pdf, 2, 4, b'{ exch 0.9 mul exch dup 0.6 mul exch 0 exch pop 0 }')]), 2),
    'image-devicen-nchannel.pdf': lambda pdf: (Array([Name.DeviceN, Array([Name.Magenta, Name.Yellow]), Name.DeviceCMYK, type4(pdf, 2, 4, b'{ 0 3 1 roll 0 }'), Dictionary(Subtype=Name.NChannel, Process=Dictionary(ColorSpace=Name.DeviceCMYK, Components=Array([Name.Cyan, Name.Magenta, Name.Yellow, Name.Black])))]), 2),
    'image-separation.pdf': lambda pdf: (Array([Name.Separation, Name('/PANTONE 185 C'), Name.DeviceCMYK, Dictionary(FunctionType=2, Domain=Array([0, 1]), C0=Array([0, 0, 0, 0]), C1=Array([0, 0.91, 0.76, 0]), N=1)]), 1),
    'image-lab.pdf': lambda pdf: (Array([Name.Lab, Dictionary(WhitePoint=Array([0.9505, 1.0, 1.089]), Range=Array([-128, 127, -128, 127]))]), 3),
    'image-icc-cmyk-alternate.pdf': lambda pdf: (Array([Name.ICCBased, Stream(pdf, icc('default_cmyk.icc'), N=4, Alternate=Name.DeviceCMYK)]), 4),
    'image-icc-gray-alternate.pdf': lambda pdf: (Array([Name.ICCBased, Stream(pdf, icc('default_gray.icc'), N=1, Alternate=Name.DeviceGray)]), 1),
}
for name, make in spaces.items():
    pdf = Pdf.new()
    colour_space, components = make(pdf)
    image_page(pdf, colour_space, components)
    save(pdf, name)


# Transparency: a Difference blend (as pdf.js transparency_group.pdf) and a knockout group.
def vector(name, content, resources):
    pdf = Pdf.new()
    pdf.add_blank_page(page_size=(300, 200))
    page = pdf.pages[-1]
    page.Resources = resources(pdf)
    page.Contents = Stream(pdf, content)
    save(pdf, name)


vector('blend-difference.pdf', b'1 0.6 0 rg 20 20 160 120 re f /G1 gs 0 0.4 1 rg 100 60 160 120 re f',
       lambda pdf: Dictionary(ExtGState=Dictionary(G1=Dictionary(Type=Name.ExtGState, BM=Name.Difference))))


def knockout(pdf):
    group = Stream(pdf, b'/G1 gs 1 0 0 rg 20 20 160 120 re f 0 0 1 rg 100 60 160 120 re f')
    group.Type = Name.XObject
    group.Subtype = Name.Form
    group.BBox = Array([0, 0, 300, 200])
    group.Group = Dictionary(S=Name.Transparency, K=True, I=True)
    group.Resources = Dictionary(ExtGState=Dictionary(G1=Dictionary(Type=Name.ExtGState, ca=0.5)))
    return Dictionary(XObject=Dictionary(Fm=group))


vector('knockout.pdf', b'0 1 0 rg 0 80 300 40 re f /Fm Do', knockout)


# Broken page objects. Five pages, page i is (300 + 20 i) pt wide and draws a bar of i × 40 pt, so
# every page can be told from the others.
def five_pages():
    pdf = Pdf.new()
    for i in range(1, 6):
        pdf.add_blank_page(page_size=(300 + 20 * i, 200))
        pdf.pages[-1].Contents = Stream(pdf, b'0 0 0.6 rg 10 10 %d 60 re f' % (40 * i))
    return pdf


save(five_pages(), 'five-pages.pdf')
base = (out / 'five-pages.pdf').read_bytes()
kids = [int(n) for n in re.findall(rb'(\d+) 0 R', re.search(rb'/Kids \[([^\]]*)\]', base).group(1))]


def span(data, num):
    start = re.search(rb'(?<![0-9])%d 0 obj' % num, data).start()
    return start, data.index(b'endobj', start) + len(b'endobj')


# Page 3's dictionary has a stray token and no endobj: pdf-lib's fallback reads on to the next
# endobj and swallows page 4 with it (two pages lost in one: 145 of 147 in the issue).
s, e = span(base, kids[2])
body = base[s:e].replace(b'/Type /Page', b'/Type /Page )', 1).replace(b'endobj', b'')
(out / 'swallowed-page.pdf').write_bytes(base[:s] + body + base[e:])
# Page 2's entry in /Kids names an object that does not exist.
(out / 'missing-page.pdf').write_bytes(re.sub(rb'/Kids \[([^\]]*)\]', lambda m: m.group(0).replace(b'%d 0 R' % kids[1], b'999 0 R'), base))


# A full-page JPEG 2000 image whose data is noise: no renderer can draw it.
pdf = Pdf.new()
pdf.add_blank_page(page_size=(300, 200))
noise = bytes((i * 7919) % 251 for i in range(4000))
jpx = Stream(pdf, b'\x00\x00\x00\x0cjP  \r\n\x87\n' + noise)
jpx.Type = Name.XObject
jpx.Subtype = Name.Image
jpx.Width = 300
jpx.Height = 200
jpx.ColorSpace = Name.DeviceRGB
jpx.BitsPerComponent = 8
jpx.Filter = Name.JPXDecode
pdf.pages[0].Resources = Dictionary(XObject=Dictionary(Im0=jpx))
pdf.pages[0].Contents = Stream(pdf, b'q 300 0 0 200 0 0 cm /Im0 Do Q')
save(pdf, 'undecodable-image.pdf')


# Fill colours outside the Indexed palette (as pdf.js IndexedCS_negative_and_high.pdf): index -5
# and 9 of a palette of four (hival 3). Ghostscript, MuPDF and pdf.js clamp to the first and last
# entries; PDFium paints nothing.
pdf = Pdf.new()
pdf.add_blank_page(page_size=(300, 100))
palette = Array([Name.Indexed, Name.DeviceRGB, 3, pikepdf.String(bytes([0, 128, 0, 255, 0, 0, 0, 0, 255, 200, 0, 200]))])
pdf.pages[0].Resources = Dictionary(ColorSpace=Dictionary(P=palette))
pdf.pages[0].Contents = Stream(pdf, b'/P cs -5 sc 10 20 60 60 re f 1 sc 80 20 60 60 re f 2 sc 150 20 60 60 re f 9 sc 220 20 60 60 re f')
save(pdf, 'indexed-out-of-range.pdf')


# An inline Flate image whose data is corrupt, then a large blue bar (as qpdf damaged-inline-image.pdf):
# PDFium loses the rest of the content stream after the image, the other readers draw the bar.
pixels = zlib.compress(bytes((x * 5 + y * 3) % 256 for y in range(40) for x in range(40 * 3)))
corrupt = pixels[:60] + b'\n---damaged---\n' + pixels[60:]
pdf = Pdf.new()
pdf.add_blank_page(page_size=(300, 200))
pdf.pages[0].Contents = Stream(pdf, b'q 40 0 0 40 10 150 cm BI /W 40 /H 40 /BPC 8 /CS /RGB /F /Fl ID ' + corrupt + b'\nEI Q 0 0 1 rg 20 20 260 100 re f')
save(pdf, 'damaged-inline-image.pdf')


# A printing push button without an appearance stream, grey background in /MK (as veraPDF
# 6-3-3-t01-fail-s.pdf): Ghostscript, MuPDF and poppler draw the grey box, pdf.js and PDFium nothing.
pdf = Pdf.new()
pdf.add_blank_page(page_size=(300, 200))
button = pdf.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name.Widget, FT=Name.Btn, Ff=65536, F=4, T=pikepdf.String('Button'),
                                      Rect=Array([40, 40, 200, 160]), MK=Dictionary(BG=Array([0.75])), P=pdf.pages[0].obj))
pdf.pages[0].Annots = Array([button])
pdf.Root.AcroForm = Dictionary(Fields=Array([button]))
save(pdf, 'field-without-appearance.pdf')

