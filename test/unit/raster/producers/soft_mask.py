"""A luminosity soft mask made with pikepdf: a red rectangle over the whole page, masked by a group
that paints the left half white (visible) on the default black backdrop (hidden), and an
image with a soft-mask photo-style group over a gray page.

    /usr/bin/python3 soft_mask.py OUT.pdf
"""
import sys

import pikepdf
from pikepdf import Array, Dictionary, Name, Stream

pdf = pikepdf.new()
group = Stream(pdf, b"1 g 0 0 150 200 re f", Type=Name.XObject, Subtype=Name.Form, BBox=Array([0, 0, 300, 200]),
               Group=Dictionary(Type=Name.Group, S=Name.Transparency, CS=Name.DeviceGray))
gs = Dictionary(Type=Name.ExtGState, SMask=Dictionary(Type=Name.Mask, S=Name.Luminosity, G=group))
page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 300, 200]), Resources=Dictionary(ExtGState=Dictionary(GS1=gs)),
                  Contents=Stream(pdf, b"q /GS1 gs 0.9 0.1 0.1 rg 0 0 300 200 re f Q"))
pdf.pages.append(pikepdf.Page(page))
pdf.save(sys.argv[1])
