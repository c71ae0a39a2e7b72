"""A page whose optional content is on Form XObjects (their /OC entry), as Illustrator writes its
layers (poppler's ClarityOCGs.pdf: one form per language layer, each with /OC naming an OCMD over
one group, the groups OFF in the default configuration). Written with pikepdf.

    /usr/bin/python3 optional_forms.py OUT.pdf

A 400 x 100 pt page in four 100 pt columns, each a form filling its column with blue:
  1. /OC an OCMD whose /OCGs is one OFF group (a dictionary, not an array), the form a transparency group;
  2. /OC the OFF group itself;
  3. /OC an OCMD whose /OCGs is an array of the OFF group;
  4. /OC an ON group: drawn.
No /Usage and no /AS: the print state is the view state, so a printer leaves out columns 1–3.
"""
import sys

import pikepdf
from pikepdf import Array, Dictionary, Name, Stream

pdf = pikepdf.new()
off = pdf.make_indirect(Dictionary(Type=Name.OCG, Name=pikepdf.String("French")))
on = pdf.make_indirect(Dictionary(Type=Name.OCG, Name=pikepdf.String("English")))
pdf.Root.OCProperties = Dictionary(OCGs=Array([off, on]), D=Dictionary(OFF=Array([off]), Order=Array([on, off])))
memberships = [
    pdf.make_indirect(Dictionary(Type=Name.OCMD, OCGs=off)),
    off,
    pdf.make_indirect(Dictionary(Type=Name.OCMD, OCGs=Array([off]))),
    on,
]
xobjects = Dictionary()
content = b""
for i, oc in enumerate(memberships):
    extra = dict(Group=Dictionary(Type=Name.Group, S=Name.Transparency, CS=Name.DeviceCMYK)) if i == 0 else {}
    form = Stream(pdf, f"0 0 1 rg {i * 100} 0 100 100 re f".encode(), Type=Name.XObject, Subtype=Name.Form,
                  BBox=Array([0, 0, 400, 100]), OC=oc, **extra)
    xobjects[f"/Fm{i}"] = pdf.make_indirect(form)
    content += f"/Fm{i} Do\n".encode()
page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 400, 100]), Resources=Dictionary(XObject=xobjects),
                  Contents=Stream(pdf, content))
pdf.pages.append(pikepdf.Page(page))
pdf.save(sys.argv[1])
