"""Highlights as Illustrator and Acrobat write them, through pikepdf: over a beige panel with black
bars, (1) a non-isolated group painted Normal through a luminosity soft mask with a /BC backdrop and
a /TR transfer function, a dark purple shape drawn with Screen inside it; (2) a non-isolated group
painted with Screen through a luminosity mask (the shape of pdf.js issue13520.pdf); (3) a printable
Highlight annotation whose appearance is a non-isolated group drawing yellow with Multiply; on a
second page, a translucent non-isolated group drawing yellow with Multiply over bars and bare paper.
Usage: highlights_pikepdf.py OUT.pdf"""
import sys

import pikepdf
from pikepdf import Array as A
from pikepdf import Dictionary as D
from pikepdf import Name as N

pdf = pikepdf.new()
W, H = 300, 200


def form(content, bbox, resources, group):
    s = pdf.make_stream(content.encode())
    s.Type = N.XObject
    s.Subtype = N.Form
    s.BBox = A(bbox)
    s.Resources = resources
    s.Group = group
    return s


def non_isolated():
    return D(Type=N.Group, S=N.Transparency, I=False, K=False)


def mask(cx, cy, r, backdrop, transfer):
    """A luminosity mask: a white disc fading to black over part of the masked area, the rest the backdrop /BC."""
    shade = D(ShadingType=3, ColorSpace=N.DeviceGray, Coords=A([0, 0, 0, 0, 0, 1]), Extend=A([True, True]),
              Function=D(FunctionType=2, Domain=A([0, 1]), C0=A([1]), C1=A([0]), N=1))
    group = form(f'q {r} 0 0 {r} {cx} {cy} cm /Sh0 sh Q', [cx - r, cy - r, cx + r, cy + r], D(Shading=D(Sh0=shade)),
                 D(Type=N.Group, S=N.Transparency, CS=N.DeviceGray, I=False, K=False))
    m = D(Type=N.Mask, S=N.Luminosity, G=group, BC=A([backdrop]))
    if transfer:
        m.TR = D(FunctionType=2, Domain=A([0, 1]), C0=A([0]), C1=A([1]), N=0.5)
    return m


screen = D(Type=N.ExtGState, BM=N.Screen)
inner_screen = form('/GSs gs 0.30 0.12 0.40 rg 30 20 120 160 re f', [30, 20, 150, 180], D(ExtGState=D(GSs=screen)), non_isolated())
screened = form('0.25 0.10 0.35 rg 160 20 120 160 re f', [160, 20, 280, 180], D(), non_isolated())
gs1 = D(Type=N.ExtGState, BM=N.Normal, SMask=mask(90, 100, 80, 0.0, True))
gs2 = D(Type=N.ExtGState, BM=N.Screen, SMask=mask(220, 100, 80, 0.0, False))
bars = ''.join(f'20 {24 + 28 * i} 260 10 re f ' for i in range(6))
content = f'0.95 0.92 0.78 rg 0 0 {W} {H} re f 0.1 0.1 0.1 rg {bars} q /GS1 gs /Fm1 Do Q q /GS2 gs /Fm2 Do Q'
pdf.pages.append(pikepdf.Page(D(Type=N.Page, MediaBox=A([0, 0, W, H]),
                                Resources=D(ExtGState=D(GS1=gs1, GS2=gs2), XObject=D(Fm1=inner_screen, Fm2=screened)),
                                Contents=pdf.make_stream(content.encode()))))
multiply = D(Type=N.ExtGState, BM=N.Multiply)
appearance = form('/R0 gs 1 0.85 0 rg 15 46 200 18 re f', [15, 46, 215, 64], D(ExtGState=D(R0=multiply)), non_isolated())
highlight = pdf.make_indirect(D(Type=N.Annot, Subtype=N.Highlight, F=4, Rect=A([15, 46, 215, 64]),
                                QuadPoints=A([15, 64, 215, 64, 15, 46, 215, 46]), C=A([1, 0.85, 0]), AP=D(N=appearance)))
pdf.pages[0].obj.Annots = pdf.make_indirect(A([highlight]))
# Page 2, mostly bare paper: a non-isolated group at 60 % opacity (a marker pen's stroke) whose
# yellow is Multiply inside it, over a black bar and a 50 % grey one and over bare paper.
pen = form('/R0 gs 1 0.85 0 rg 20 60 260 80 re f', [20, 60, 280, 140], D(ExtGState=D(R0=multiply)), non_isolated())
half = D(Type=N.ExtGState, ca=0.6, CA=0.6)
translucent = D(Type=N.ExtGState, ca=0.5)
content2 = '0.1 0.1 0.1 rg 40 80 220 12 re f q /T gs 40 110 220 12 re f Q q /GS1 gs /Pen Do Q'
pdf.pages.append(pikepdf.Page(D(Type=N.Page, MediaBox=A([0, 0, W, H]),
                                Resources=D(ExtGState=D(GS1=half, T=translucent), XObject=D(Pen=pen)),
                                Contents=pdf.make_stream(content2.encode()))))
pdf.save(sys.argv[1])
