"""Pages that are one CCITT fax image, for the fax path's tests. The fax data is coded by libtiff
(through PIL), and wrapped by img2pdf (Group 4 TIFF → PDF, as tiff2pdf and OCRmyPDF's inputs are)
or by pikepdf with the /DecodeParms libtiff's coding calls for.

    /usr/bin/python3 ccitt_pages.py OUT.pdf KIND [SIZE]

The picture (SIZE x SIZE px, 1 bit, on a page of SIZE / 100 inches): white, with a black band over
the left quarter and a black block over the bottom right quarter; asymmetric, so that a mirrored,
turned or inverted drawing shows.

KIND:
  img2pdf     Group 4 (/K -1) from img2pdf, which writes /BlackIs1 true for PIL's min-is-black TIFF.
  g4          the same Group 4 data wrapped by pikepdf (img2pdf refuses images over 179 megapixels).
  mh          Modified Huffman, each row byte-aligned (/K 0 /EncodedByteAlign true), pikepdf.
  decode      the Group 4 data with /BlackIs1 false and /Decode [1 0]: drawn as img2pdf's page.
  negative    the Group 4 data with /BlackIs1 false and no /Decode: drawn inverted.
  rotated     the img2pdf page under /Rotate 90.
  g3          Group 3 1-D with EOLs (/K 0 /EndOfLine true), libtiff's coding.
  gs-k4, gs-k4-aligned, gs-k0-noeol
              Ghostscript's CCITTFaxEncode filter: Group 3 2-D with EOLs (/K 4 /EndOfLine true), the
              same with each row byte-aligned (/EncodedByteAlign true), and 1-D without EOLs or
              alignment (/K 0), which TIFF cannot express and the fax path leaves to pdf.js.
  corrupt     the Group 4 data cut after a third and its middle scrambled.
  columns     the Group 4 data with /Columns twice the /Width (pdf.js allocates /Columns x /Rows).
"""
import io
import subprocess
import sys
import tempfile

import pikepdf
from PIL import Image, ImageDraw, TiffImagePlugin
from pikepdf import Array, Dictionary, Name

out, kind = sys.argv[1], sys.argv[2]
size = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
TiffImagePlugin.STRIP_SIZE = 1 << 30  # one strip: the PDF stream is that strip's data
Image.MAX_IMAGE_PIXELS = None  # the big pages are made on purpose

im = Image.new("1", (size, size), 1)
draw = ImageDraw.Draw(im)
draw.rectangle([0, 0, size // 4 - 1, size - 1], fill=0)
draw.rectangle([size // 2, size * 3 // 4, size - 1, size - 1], fill=0)


def coded(compression):
    """The picture coded by libtiff: (strip data, photometric)."""
    buf = io.BytesIO()
    im.save(buf, "TIFF", compression=compression)
    tif = Image.open(io.BytesIO(buf.getvalue()))
    offsets, counts = tif.tag_v2[273], tif.tag_v2[279]
    assert len(offsets) == 1, "one strip"
    return buf.getvalue()[offsets[0]:offsets[0] + counts[0]], tif.tag_v2[262]


if kind in ("img2pdf", "rotated"):
    with tempfile.NamedTemporaryFile(suffix=".tif") as tif:
        im.save(tif.name, compression="group4")
        subprocess.run(["img2pdf", "--imgsize", "100dpix100dpi", tif.name, "-o", out], check=True)
    if kind == "rotated":
        pdf = pikepdf.open(out, allow_overwriting_input=True)
        pdf.pages[0].obj.Rotate = 90
        pdf.save(out)
    sys.exit(0)

if kind.startswith("gs-"):
    k = 0 if "k0" in kind else 4
    parms = dict(K=k, EndOfLine="noeol" not in kind, EncodedByteAlign="aligned" in kind)
    ps_dict = " ".join(f"/{key} {str(v).lower()}" for key, v in parms.items())
    with tempfile.NamedTemporaryFile(suffix=".raw") as raw:
        raw.write(im.tobytes())  # PIL's 1-bit rows, most significant bit first, 0 = black
        raw.flush()
        program = (f"/in ({raw.name}) (r) file def /buf {size // 8} string def "
                   f"/out (%stdout) (w) file << /Columns {size} /Rows {size} /BlackIs1 false {ps_dict} >> /CCITTFaxEncode filter def "
                   "{ in buf readstring exch out exch writestring not { exit } if } loop out closefile")
        data = subprocess.run(["gs", "-q", "-dNODISPLAY", "-dBATCH", "-dSAFER", f"--permit-file-read={raw.name}", "-c", program],
                              check=True, capture_output=True).stdout
    photometric = 0  # BlackIs1 false
else:
    compression, parms = {
        "mh": ("tiff_ccitt", dict(K=0, EncodedByteAlign=True)),
        "g3": ("group3", dict(K=0, EndOfLine=True)),
    }.get(kind, ("group4", dict(K=-1)))
    data, photometric = coded(compression)
black_is_1 = photometric == 1
extra = {}
if kind == "decode":
    black_is_1, extra = not black_is_1, dict(Decode=Array([1, 0]))
elif kind == "negative":
    black_is_1 = not black_is_1
elif kind == "corrupt":
    third = len(data) // 3
    data = data[:third // 2] + bytes((b * 37 + 11) & 0xFF for b in data[third // 2:third])

pdf = pikepdf.new()
pt = size * 72 / 100
columns = size * 2 if kind == "columns" else size
image = pikepdf.Stream(pdf, data, Type=Name.XObject, Subtype=Name.Image, Width=size, Height=size,
                       ColorSpace=Name.DeviceGray, BitsPerComponent=1, Filter=Name.CCITTFaxDecode,
                       DecodeParms=Dictionary(Columns=columns, Rows=size, BlackIs1=black_is_1, **parms), **extra)
page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, pt, pt]), Resources=Dictionary(XObject=Dictionary(Im0=image)),
                  Contents=pikepdf.Stream(pdf, f"q {pt} 0 0 {pt} 0 0 cm /Im0 Do Q".encode()))
pdf.pages.append(pikepdf.Page(page))
pdf.save(out)
