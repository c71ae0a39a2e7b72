"""Pages that are one Flate image, written with pikepdf (the image data compressed here with zlib,
the predictor applied here), for the Flate fast path's tests.

    /usr/bin/python3 flate_pages.py OUT.pdf KIND [ARGS]

KIND:
  oriented PREDICTOR BITS COMPONENTS DECODE  one 240 x 160 test picture on a 300 x 200 pt page, drawn
      in each of eight orientations (upright, mirrored, upside down, turned 180, turned 90, turned 270,
      transposed, anti-transposed) under each /Rotate 0 90 180 270: 32 pages. PREDICTOR 1 (none), 2
      (TIFF) or 15 (PNG, the row filter cycling through None, Sub, Up, Average, Paeth); DECODE
      "0 1" or "1 0" (inverted).
  big SIZE       one SIZE x SIZE RGB image (bands and a diagonal stripe), PNG predictor, on a
      2000 x 2000 pt page; streamed through zlib row by row, never whole in memory.
  corrupt        a 400 x 300 RGB Flate image whose data is cut and scrambled halfway.
  tiny INTERPOLATE  a 6 x 4 RGB image of alternating red and blue pixels over a 300 x 200 pt page;
      INTERPOLATE "true", "false" or "-" (no /Interpolate key).
  colour-key     the tiny image with a colour-key mask (/Mask [0 30 50 70 190 210]: blue is transparent).
  inks KIND      a 256 x 50 image over a 300 x 100 pt page in ink colour spaces, as itext's
      deviceN8bitDeviceCMYK test file is: KIND "devicen" (DeviceN [/Cyan /Magenta] over DeviceCMYK, a
      sampled tint transform of /Size [256 1] — its second input is constant — uncompressed), "nchannel"
      (the same with NChannel attributes, Flate) or "separation" (a spot colour over DeviceRGB, a
      Type 2 function). Each column x has tint x / 255.
"""
import sys
import zlib

import pikepdf
from pikepdf import Array, Dictionary, Name

W, H = 240, 160


def picture(x, y, components):
    """An asymmetric test picture: a gradient, a red corner top left, a blue bar along the bottom."""
    if x < 80 and y < 50:
        rgb = (208, 32, 32)
    elif y >= 130:
        rgb = (32, 64, 192)
    elif (x - 170) ** 2 + (y - 70) ** 2 < 900:
        rgb = (32, 160, 64)
    else:
        rgb = (120 + x * 100 // W, 200 - y * 60 // H, 128)
    if components == 1:
        return (sum(rgb) // 3,)
    return rgb


def sample_bytes(values, bits):
    if bits == 8:
        return bytes(values)
    out = bytearray()
    for v in values:
        out += (v * 257 + 37).to_bytes(2, "big") if v < 255 else (65535).to_bytes(2, "big")
    return bytes(out)


def png_filter(kind, row, prev, bpp):
    out = bytearray([kind])
    for i, v in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if kind == 0:
            p = 0
        elif kind == 1:
            p = a
        elif kind == 2:
            p = b
        elif kind == 3:
            p = (a + b) // 2
        else:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            p = a if pa <= pb and pa <= pc else b if pb <= pc else c
        out.append((v - p) & 0xFF)
    return bytes(out)


def tiff_diff(row, components, bits):
    if bits == 8:
        return bytes((row[i] - (row[i - components] if i >= components else 0)) & 0xFF for i in range(len(row)))
    vals = [int.from_bytes(row[i:i + 2], "big") for i in range(0, len(row), 2)]
    out = bytearray()
    for i, v in enumerate(vals):
        out += ((v - (vals[i - components] if i >= components else 0)) & 0xFFFF).to_bytes(2, "big")
    return bytes(out)


def oriented(out, predictor, bits, components, decode):
    bpp = components * bits // 8
    rows = []
    prev = bytes(W * bpp)
    for y in range(H):
        values = [v for x in range(W) for v in picture(x, y, components)]
        if decode == "1 0":
            values = [255 - v for v in values]
        row = sample_bytes(values, bits)
        if predictor == 15:
            rows.append(png_filter(y % 5, row, prev, bpp))
        elif predictor == 2:
            rows.append(tiff_diff(row, components, bits))
        else:
            rows.append(row)
        prev = row
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, zlib.compress(b"".join(rows)))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = W
    image.Height = H
    image.BitsPerComponent = bits
    image.ColorSpace = Name.DeviceRGB if components == 3 else Name.DeviceGray
    image.Filter = Name.FlateDecode
    if predictor != 1:
        image.DecodeParms = Dictionary(Predictor=predictor, Colors=components, BitsPerComponent=bits, Columns=W)
    if decode == "1 0":
        image.Decode = Array([1, 0] * components)
    w, h = 300, 200
    ctms = [
        [w, 0, 0, h, 0, 0], [-w, 0, 0, h, w, 0], [w, 0, 0, -h, 0, h], [-w, 0, 0, -h, w, h],
        [0, -h, w, 0, 0, h], [0, h, -w, 0, w, 0], [0, h, w, 0, 0, 0], [0, -h, -w, 0, w, h],
    ]
    for m in ctms:
        for rotate in (0, 90, 180, 270):
            content = pikepdf.Stream(pdf, ("q %s cm /Img Do Q" % " ".join(str(v) for v in m)).encode())
            page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, w, h]), Rotate=rotate,
                              Resources=Dictionary(XObject=Dictionary(Img=image)), Contents=content)
            pdf.pages.append(pikepdf.Page(page))
    pdf.save(out)


def big(out, size):
    z = zlib.compressobj(6)
    parts = []
    for y in range(size):
        band = (y * 8 // size) * 30
        row = bytearray(bytes((band, 255 - band, 128)) * size)
        s = (y * 3) % size  # a diagonal stripe 60 px wide
        row[s * 3:min(size, s + 60) * 3] = b"\x10\x10\x10" * (min(size, s + 60) - s)
        parts.append(z.compress(b"\x00" + bytes(row)))  # PNG filter None: Python is too slow for more
    parts.append(z.flush())
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, b"".join(parts))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = size
    image.Height = size
    image.BitsPerComponent = 8
    image.ColorSpace = Name.DeviceRGB
    image.Filter = Name.FlateDecode
    image.DecodeParms = Dictionary(Predictor=15, Colors=3, BitsPerComponent=8, Columns=size)
    content = pikepdf.Stream(pdf, b"q 2000 0 0 2000 0 0 cm /Img Do Q")
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 2000, 2000]),
                      Resources=Dictionary(XObject=Dictionary(Img=image)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(out)


def corrupt(out):
    w, h = 400, 300
    raw = b"".join(b"\x00" + bytes(v for x in range(w) for v in (x % 256, y % 256, 100)) for y in range(h))
    data = bytearray(zlib.compress(raw))
    half = len(data) // 2
    data[half:half + 64] = bytes((i * 37) & 0xFF for i in range(64))
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, bytes(data))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = w
    image.Height = h
    image.BitsPerComponent = 8
    image.ColorSpace = Name.DeviceRGB
    image.Filter = Name.FlateDecode
    image.DecodeParms = Dictionary(Predictor=15, Colors=3, BitsPerComponent=8, Columns=w)
    content = pikepdf.Stream(pdf, b"q 400 0 0 300 0 0 cm /Img Do Q")
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 400, 300]),
                      Resources=Dictionary(XObject=Dictionary(Img=image)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(out)


def tiny(out, interpolate):
    raw = b"".join(b"\x00" + bytes(v for x in range(6) for v in ((230, 40, 30) if (x + y * 6) % 2 else (20, 60, 200)))
                   for y in range(4))
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, zlib.compress(raw))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = 6
    image.Height = 4
    image.BitsPerComponent = 8
    image.ColorSpace = Name.DeviceRGB
    image.Filter = Name.FlateDecode
    image.DecodeParms = Dictionary(Predictor=15, Colors=3, BitsPerComponent=8, Columns=6)
    if interpolate == "colour-key":
        image.Mask = Array([0, 30, 50, 70, 190, 210])
    elif interpolate != "-":
        image.Interpolate = interpolate == "true"
    content = pikepdf.Stream(pdf, b"q 300 0 0 200 0 0 cm /Img Do Q")
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 300, 200]),
                      Resources=Dictionary(XObject=Dictionary(Img=image)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(out)


def inks(out, kind):
    pdf = pikepdf.new()
    w, h = 256, 50
    if kind == "separation":
        fn = Dictionary(FunctionType=2, Domain=Array([0, 1]), C0=Array([1, 1, 1]), C1=Array([0.1, 0.5, 0.2]), N=1)
        cs = Array([Name.Separation, Name("/Spot Green"), Name.DeviceRGB, fn])
        raw = bytes(x for y in range(h) for x in range(w))
    else:
        # Magenta at tint 0 of the first ink, cyan at tint 1: samples (c, m, y, k) per input step.
        samples = b"".join(bytes((i, 255 - i, 0, 0)) for i in range(256))
        fn = pikepdf.Stream(pdf, samples)
        fn.FunctionType = 0
        fn.Domain = Array([0, 1, 0, 1])
        fn.Range = Array([0, 1] * 4)
        fn.Size = Array([256, 1])
        fn.BitsPerSample = 8
        fn.Encode = Array([0, 255, 0, 0])
        fn.Decode = Array([0, 1] * 4)
        fn.Order = 1
        cs = Array([Name.DeviceN, Array([Name.Cyan, Name.Magenta]), Name.DeviceCMYK, fn])
        if kind == "nchannel":
            cs.append(Dictionary(Subtype=Name.NChannel))
        raw = bytes(v for y in range(h) for x in range(w) for v in (x, 0))
    image = pikepdf.Stream(pdf, raw if kind == "devicen" else zlib.compress(raw))
    image.Type = Name.XObject
    image.Subtype = Name.Image
    image.Width = w
    image.Height = h
    image.BitsPerComponent = 8
    image.ColorSpace = cs
    if kind != "devicen":
        image.Filter = Name.FlateDecode
    content = pikepdf.Stream(pdf, b"q 300 0 0 100 0 0 cm /Im0 Do Q")
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 300, 100]),
                      Resources=Dictionary(XObject=Dictionary(Im0=image)), Contents=content)
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(out)


if __name__ == "__main__":
    target, kind = sys.argv[1], sys.argv[2]
    if kind == "oriented":
        oriented(target, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif kind == "big":
        big(target, int(sys.argv[3]))
    elif kind == "tiny":
        tiny(target, sys.argv[3])
    elif kind == "colour-key":
        tiny(target, "colour-key")
    elif kind == "inks":
        inks(target, sys.argv[3])
    else:
        corrupt(target)
