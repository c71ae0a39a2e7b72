"""PDFs whose MediaBox, /UserUnit and content-stream operands (cm, w, Tf, re) lie at the edges of
IEEE doubles: one file per case, made by pikepdf, numbers written as PDF reals (no exponent), so
that the reader's own lexer meets 1e308, denormals and 2^53 + 1 as a producer could write them.

Usage: edge_numbers.py OUT_DIR  (prints the case names, one a line)
"""
import sys
from decimal import Decimal

import pikepdf
from pikepdf import Name

BIG = 1e308
MAX = sys.float_info.max
DEN = 5e-324  # the smallest denormal
TINY = 1e-308
HUGE_INT = 2**53 + 1


def num(x):
    """A PDF real for x: decimal digits, never an exponent."""
    if isinstance(x, int):
        return str(x)
    s = format(Decimal(repr(x)), "f")
    return s if "." in s else f"{s}.0"  # a real, not an integer qpdf would read as 64-bit


def ops(*parts):
    return " ".join(num(p) if isinstance(p, (int, float)) else p for p in parts).encode()


IMG = ("/Im0 Do",)
CASES = {
    # MediaBox / UserUnit
    "box-denormal": ([0, 0, TINY, TINY], None, ops("0 0 1 rg 0 0 1 1 re f")),
    "box-negative": ([0, 0, -612, -792], None, ops("0 0 1 rg -100 -100 50 50 re f")),
    "box-huge-integers": ([0, 0, HUGE_INT, 2**53 - 1], None, ops("0 0 1 rg 0 0 100 100 re f")),
    "box-1e308": ([0, 0, BIG, BIG], None, ops("0 0 1 rg 0 0", BIG, BIG, "re f")),
    "box-max-value": ([-MAX, 0, MAX, 792], None, ops("0 0 1 rg 0 0 100 100 re f")),
    "box-zero": ([0, 0, 0, 0], None, ops("0 0 1 rg 0 0 100 100 re f")),
    "userunit-almost-1": ([0, 0, 5783.04, 5783.04], 0.9999999999, ops("0 0 1 rg 0 0 5783.04 5783.04 re f")),
    "userunit-denormal": ([0, 0, 612, 792], DEN, ops("0 0 1 rg 0 0 612 792 re f")),
    "userunit-1e-308": ([0, 0, BIG, BIG], TINY, ops("0 0 1 rg 0 0 100 100 re f")),
    # cm operands
    "cm-overflow": ([0, 0, 5783.04, 5783.04], None, ops("q", BIG, 0, 0, BIG, 0, 0, "cm", BIG, 0, 0, BIG, 0, 0, "cm", *IMG, "Q")),
    "cm-inf-minus-inf": ([0, 0, 5783.04, 5783.04], None, ops("q", BIG, BIG, BIG, BIG, 0, 0, "cm", BIG, -BIG, BIG, -BIG, 0, 0, "cm", *IMG, "Q")),
    "cm-zero": ([0, 0, 5783.04, 5783.04], None, ops("q 0 0 0 0 0 0 cm", *IMG, "Q")),
    "cm-denormal": ([0, 0, 5783.04, 5783.04], None, ops("q", DEN, 0, 0, DEN, 0, 0, "cm", *IMG, "Q")),
    "cm-huge-integers": ([0, 0, 5783.04, 5783.04], None, ops("q", HUGE_INT, 0, 0, 2**53 - 1, 0, 0, "cm", *IMG, "Q")),
    "cm-translate-max": ([0, 0, 5783.04, 5783.04], None, ops("q 1 0 0 1", MAX, MAX, "cm 0 0 1 rg 0 0 10 10 re f Q q 100 0 0 100 10 10 cm", *IMG, "Q")),
    "cm-almost-1": ([0, 0, 5783.04, 5783.04], None, ops("q", 0.9999999999, 0, 0, 0.9999999999, 0, 0, "cm 1 w 0 0 1 RG 200 2000 m 3000 2000 l S BT /F1 6 Tf 300 300 Td (Six) Tj ET Q")),
    # line widths and text sizes
    "w-1e308": ([0, 0, 5783.04, 5783.04], None, ops(BIG, "w 0 0 1 RG 200 2000 m 3000 2000 l S")),
    "w-denormal": ([0, 0, 5783.04, 5783.04], None, ops(DEN, "w 0 0 1 RG 200 2000 m 3000 2000 l S")),
    "w-negative": ([0, 0, 5783.04, 5783.04], None, ops("-1 w 0 0 1 RG 200 2000 m 3000 2000 l S")),
    "tf-1e308": ([0, 0, 5783.04, 5783.04], None, ops("BT /F1", BIG, "Tf 300 300 Td (Big) Tj ET")),
    "tf-denormal": ([0, 0, 5783.04, 5783.04], None, ops("BT /F1", DEN, "Tf 300 300 Td (Tiny) Tj ET")),
    "tf-zero-matrix": ([0, 0, 5783.04, 5783.04], None, ops("BT /F1 12 Tf 0 0 0 0 300 300 Tm (Flat) Tj ET")),
    "re-max": ([0, 0, 5783.04, 5783.04], None, ops("0 0 1 rg", -MAX, -MAX, MAX, MAX, "re f 0 0 1 RG 1 w", -MAX, 0, "m", MAX, 0, "l S")),
}


def main(out):
    for name, (box, user_unit, content) in CASES.items():
        pdf = pikepdf.new()
        image = pikepdf.Stream(pdf, bytes([200, 30, 30]) * 4, Type=Name.XObject, Subtype=Name.Image, Width=2, Height=2, ColorSpace=Name.DeviceRGB, BitsPerComponent=8)
        font = pikepdf.Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica)
        resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=image), Font=pikepdf.Dictionary(F1=font))
        # pikepdf writes a Decimal with an exponent (not PDF) and 15 digits: the numbers go in as
        # names, are replaced by their PDF reals in the uncompressed file, and qpdf (pikepdf.open)
        # reads that and writes it again with its cross-reference table.
        values = list(box) + ([user_unit] if user_unit is not None else [])
        placeholders = [Name(f"/EDGE{i}x") for i in range(len(values))]
        page = pikepdf.Dictionary(Type=Name.Page, MediaBox=pikepdf.Array(placeholders[:4]), Resources=resources, Contents=pdf.make_stream(content))
        if user_unit is not None:
            page.UserUnit = placeholders[4]
        pdf.pages.append(pikepdf.Page(page))
        raw = f"{out}/{name}.raw.pdf"
        pdf.save(raw, qdf=True, static_id=True)
        data = open(raw, "rb").read()
        for i, v in enumerate(values):
            data = data.replace(f"/EDGE{i}x".encode(), num(v).encode())
        open(raw, "wb").write(data)
        with pikepdf.open(raw) as repaired:
            repaired.save(f"{out}/{name}.pdf")
        print(name)


if __name__ == "__main__":
    main(sys.argv[1])
