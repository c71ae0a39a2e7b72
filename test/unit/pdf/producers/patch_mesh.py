"""A page painted by one Coons patch mesh (shading type 6) of N x N patches, written with pikepdf, as
an Illustrator gradient mesh is: a 600 x 400 pt page, 16-bit coordinates, 8-bit RGB colours.

    /usr/bin/python3 patch_mesh.py OUT.pdf N
"""
import struct
import sys
import zlib

import pikepdf
from pikepdf import Array, Dictionary, Name

out, n = sys.argv[1], int(sys.argv[2])
W, H = 600, 400
data = bytearray()
for j in range(n):
    for i in range(n):
        x0, x1 = i * 65535 // n, (i + 1) * 65535 // n
        y0, y1 = j * 65535 // n, (j + 1) * 65535 // n
        # 12 boundary points, counter-clockwise from the lower left corner (straight edges).
        pts = [(x0, y0), (x0, y0 + (y1 - y0) // 3), (x0, y0 + 2 * (y1 - y0) // 3), (x0, y1),
               (x0 + (x1 - x0) // 3, y1), (x0 + 2 * (x1 - x0) // 3, y1), (x1, y1),
               (x1, y0 + 2 * (y1 - y0) // 3), (x1, y0 + (y1 - y0) // 3), (x1, y0),
               (x0 + 2 * (x1 - x0) // 3, y0), (x0 + (x1 - x0) // 3, y0)]
        data.append(0)
        for x, y in pts:
            data += struct.pack(">HH", x, y)
        for k in range(4):
            data += bytes(((i * 255 // n + 40 * k) % 256, (j * 255 // n) % 256, 160))
pdf = pikepdf.new()
shading = pikepdf.Stream(pdf, zlib.compress(bytes(data)))
shading.ShadingType = 6
shading.ColorSpace = Name.DeviceRGB
shading.BitsPerCoordinate = 16
shading.BitsPerComponent = 8
shading.BitsPerFlag = 8
shading.Decode = Array([0, W, 0, H, 0, 1, 0, 1, 0, 1])
shading.Filter = Name.FlateDecode
content = pikepdf.Stream(pdf, b"/Sh0 sh")
page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, W, H]), Resources=Dictionary(Shading=Dictionary(Sh0=shading)), Contents=content)
pdf.pages.append(pikepdf.Page(page))
pdf.save(out)
