#!/usr/bin/python3
"""
Helper of bench/quality.mjs (issue 36's set): PIL resampling and encoding, and PDFs written by
reportlab, img2pdf, pikepdf and cairo. Reads one JSON job per line on stdin, writes "ok" or
"error: …" per job on stdout. Run with Debian's python3 (/usr/bin/python3), which sees
python3-pil, python3-reportlab, python3-pikepdf, python3-img2pdf and python3-cairo.

Jobs:
  {"op": "resize", "src", "dst", "w", "h", "filter": nearest|bilinear|bicubic|lanczos, "quality"?}
  {"op": "encode", "src", "dst", "quality"}                 (PIL's libjpeg, standard tables)
  {"op": "pdf", "producer", "src", "dst", "ppi"}            (the image fills a page at ppi)
Producers: reportlab, img2pdf, cairo, and pikepdf-VARIANT with VARIANT one of flate, a85-flate,
png-predictor, indexed, cmyk, gray, jpx, a85-dct (a JPEG behind ASCII85, as reportlab writes it).
"""
import base64
import io
import json
import sys
import zlib

from PIL import Image

FILTERS = {
    "nearest": Image.NEAREST,
    "bilinear": Image.BILINEAR,
    "bicubic": Image.BICUBIC,
    "lanczos": Image.LANCZOS,
}


def save(img, dst, quality=None):
    if dst.endswith(".jpg"):
        img.convert("RGB").save(dst, "JPEG", quality=int(quality or 90))
    else:
        img.save(dst)


def resize(job):
    img = Image.open(job["src"])
    img.load()
    if img.mode not in ("RGB", "L"):
        img = img.convert("RGB")
    out = img.resize((job["w"], job["h"]), FILTERS[job["filter"]])
    save(out, job["dst"], job.get("quality"))


def encode(job):
    img = Image.open(job["src"])
    save(img.convert("RGB"), job["dst"], job["quality"])


def page_size(img, ppi):
    return img.width * 72.0 / ppi, img.height * 72.0 / ppi


def pdf_reportlab(job):
    from reportlab.pdfgen import canvas

    img = Image.open(job["src"])
    w, h = page_size(img, job["ppi"])
    c = canvas.Canvas(job["dst"], pagesize=(w, h))
    c.drawImage(job["src"], 0, 0, w, h)
    c.showPage()
    c.save()


def pdf_img2pdf(job):
    import img2pdf

    img = Image.open(job["src"])
    w, h = page_size(img, job["ppi"])
    layout = img2pdf.get_layout_fun((w, h), None, None)
    with open(job["dst"], "wb") as f:
        f.write(img2pdf.convert(job["src"], layout_fun=layout))


def pdf_cairo(job):
    import cairo

    img = Image.open(job["src"])
    w, h = page_size(img, job["ppi"])
    surface = cairo.PDFSurface(job["dst"], w, h)
    ctx = cairo.Context(surface)
    if job["src"].endswith(".png"):
        src = cairo.ImageSurface.create_from_png(job["src"])
    else:
        # cairo embeds the JPEG itself (DCTDecode) when the surface carries it as MIME data.
        rgb = img.convert("RGB")
        bgra = rgb.convert("RGBA").tobytes("raw", "BGRA")
        src = cairo.ImageSurface.create_for_data(bytearray(bgra), cairo.FORMAT_RGB24, rgb.width, rgb.height, rgb.width * 4)
        with open(job["src"], "rb") as f:
            src.set_mime_data(cairo.MIME_TYPE_JPEG, f.read())
    ctx.scale(w / img.width, h / img.height)
    ctx.set_source_surface(src, 0, 0)
    ctx.paint()
    surface.finish()


def png_predicted(raw, width, height, bpp):
    """PNG 'Up' filter on every row (predictor 12 as far as readers care: 10-15 all mean per-row types)."""
    stride = width * bpp
    out = bytearray()
    prev = bytes(stride)
    for y in range(height):
        row = raw[y * stride:(y + 1) * stride]
        out.append(2)
        out.extend(bytes((row[i] - prev[i]) & 0xFF for i in range(stride)))
        prev = row
    return bytes(out)


def pdf_pikepdf(job):
    import pikepdf
    from pikepdf import Array, Dictionary, Name

    variant = job["producer"].split("-", 1)[1]
    img = Image.open(job["src"])
    img.load()
    w, h = page_size(img, job["ppi"])
    pdf = pikepdf.new()
    d = {"Type": Name.XObject, "Subtype": Name.Image, "Width": img.width, "Height": img.height, "BitsPerComponent": 8}
    if variant == "a85-dct":
        data = base64.a85encode(open(job["src"], "rb").read(), adobe=True)[2:]  # drop '<~', keep '~>'
        d.update(ColorSpace=Name.DeviceRGB, Filter=Array([Name.ASCII85Decode, Name.DCTDecode]))
    elif variant == "jpx":
        buf = io.BytesIO()
        img.convert("RGB").save(buf, "JPEG2000", irreversible=True, quality_mode="rates", quality_layers=[8])
        data = buf.getvalue()
        d.update(Filter=Name.JPXDecode)
        del d["BitsPerComponent"]
    elif variant == "indexed":
        pal = img.convert("RGB").quantize(256, dither=Image.Dither.NONE)
        palette = bytes(pal.getpalette()[: 256 * 3]).ljust(256 * 3, b"\0")
        data = zlib.compress(pal.tobytes())
        d.update(ColorSpace=Array([Name.Indexed, Name.DeviceRGB, 255, pikepdf.String(palette)]), Filter=Name.FlateDecode)
    elif variant == "cmyk":
        data = zlib.compress(img.convert("CMYK").tobytes())
        d.update(ColorSpace=Name.DeviceCMYK, Filter=Name.FlateDecode)
    elif variant == "gray":
        data = zlib.compress(img.convert("L").tobytes())
        d.update(ColorSpace=Name.DeviceGray, Filter=Name.FlateDecode)
    elif variant == "png-predictor":
        rgb = img.convert("RGB")
        data = zlib.compress(png_predicted(rgb.tobytes(), rgb.width, rgb.height, 3))
        d.update(ColorSpace=Name.DeviceRGB, Filter=Name.FlateDecode, DecodeParms=Dictionary(Predictor=15, Colors=3, BitsPerComponent=8, Columns=rgb.width))
    elif variant == "a85-flate":
        data = base64.a85encode(zlib.compress(img.convert("RGB").tobytes()), adobe=True)[2:]
        d.update(ColorSpace=Name.DeviceRGB, Filter=Array([Name.ASCII85Decode, Name.FlateDecode]))
    else:  # flate
        data = zlib.compress(img.convert("RGB").tobytes())
        d.update(ColorSpace=Name.DeviceRGB, Filter=Name.FlateDecode)
    image = pikepdf.Stream(pdf, data)
    for k, v in d.items():
        image[Name("/" + k)] = v
    content = pikepdf.Stream(pdf, f"q {w:.4f} 0 0 {h:.4f} 0 0 cm /Im0 Do Q".encode())
    page = pikepdf.Dictionary(
        Type=Name.Page,
        MediaBox=Array([0, 0, w, h]),
        Resources=Dictionary(XObject=Dictionary(Im0=image)),
        Contents=content,
    )
    pdf.pages.append(pikepdf.Page(page))
    pdf.save(job["dst"])


def pdf(job):
    producer = job["producer"]
    if producer == "reportlab":
        pdf_reportlab(job)
    elif producer == "img2pdf":
        pdf_img2pdf(job)
    elif producer == "cairo":
        pdf_cairo(job)
    elif producer.startswith("pikepdf-"):
        pdf_pikepdf(job)
    else:
        raise ValueError(f"unknown producer {producer}")


OPS = {"resize": resize, "encode": encode, "pdf": pdf}

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        job = json.loads(line)
        OPS[job["op"]](job)
        print("ok", flush=True)
    except Exception as error:  # reported to the caller, which stops
        print(f"error: {type(error).__name__}: {error}".replace("\n", " "), flush=True)
