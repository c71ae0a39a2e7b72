#!/usr/bin/python3
"""Embedded fonts for the font-program checks (test/unit/pdf/font-program.test.ts), made at test
time by real producers and then damaged in one known way each with pikepdf:

  ttf.pdf                    reportlab, DejaVu Sans subset (FontFile2, TrueType)
  ttf-hinting.pdf            the same, its `prep` program calling a function fpgm never defines
                             (what pdf.js warns about as "TT: undefined function"; hinting only)
  ttf-truncated.pdf          the same, its program cut to 40 % of its length
  ttf-bad-glyph.pdf          the same, its glyphs of two or more contours with end points out of order
  cff.pdf                    Ghostscript (pdfwrite), Nimbus Sans subset (FontFile3 /Type1C)
  cff-bad-glyph.pdf          the same, glyph 1 calling a local subroutine the font does not have
  t1.pdf                     reportlab, URW Nimbus Sans as a Type 1 program (FontFile)
  t1-no-eexec.pdf            the same, its eexec section renamed away (no glyphs can be found)
  type3.pdf                  pikepdf: a Type 3 font with a procedure for /a only; page 1 shows
                             "a", page 2 "ab" (/b has no procedure), page 3 "ac" (no name for c)
  type0-no-descendant.pdf    ttf.pdf with its font made a Type 0 font whose descendant is a number
Usage: font_cases.py OUTDIR
"""
import struct
import subprocess
import sys
from pathlib import Path

import pikepdf
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
TEXT = 'Hello world'


def reportlab_ttf(path):
    pdfmetrics.registerFont(TTFont('DejaVu', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'))
    c = canvas.Canvas(str(path), pagesize=(200, 100))
    c.setFont('DejaVu', 24)
    c.drawString(10, 40, TEXT)
    c.save()


def reportlab_type1(path):
    # reportlab embeds Type 1 fonts from PFB files: wrap URW's font (clear text, binary eexec part,
    # zeros) in PFB segments.
    base = '/usr/share/fonts/type1/urw-base35/NimbusSans-Regular'
    raw = open(base + '.t1', 'rb').read()
    clear_end = raw.find(b'eexec') + len(b'eexec\r')
    zeros = raw.rfind(b'0' * 64)
    zeros = raw.rfind(b'\r', 0, zeros) + 1 if raw.rfind(b'\r', 0, zeros) > clear_end else zeros
    segments = [(1, raw[:clear_end]), (2, raw[clear_end:zeros]), (1, raw[zeros:])]
    pfb = b''.join(b'\x80' + bytes([kind]) + struct.pack('<I', len(data)) + data for kind, data in segments) + b'\x80\x03'
    pfb_path = out / 'NimbusSans-Regular.pfb'
    pfb_path.write_bytes(pfb)
    face = pdfmetrics.EmbeddedType1Face(base + '.afm', str(pfb_path))
    pdfmetrics.registerTypeFace(face)
    pdfmetrics.registerFont(pdfmetrics.Font('NimbusT1', face.name, 'WinAnsiEncoding'))
    c = canvas.Canvas(str(path), pagesize=(200, 100))
    c.setFont('NimbusT1', 24)
    c.drawString(10, 40, TEXT)
    c.save()


def ghostscript_cff(path):
    ps = out / 'cff.ps'
    ps.write_text(f'/NimbusSans-Regular findfont 24 scalefont setfont 10 40 moveto ({TEXT}) show showpage\n')
    subprocess.run(['gs', '-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite', '-dDEVICEWIDTHPOINTS=200',
                    '-dDEVICEHEIGHTPOINTS=100', '-dFIXEDMEDIA', '-o', str(path), str(ps)], check=True)


def font_file(pdf, key):
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get('/Type') == '/FontDescriptor' and key in obj:
            return obj[key]
    raise SystemExit(f'no {key} in the file')


def with_program(source, target, key, change):
    pdf = pikepdf.open(source)
    stream = font_file(pdf, key)
    data = change(stream.read_bytes())
    extra = {k: stream[k] for k in ('/Length1', '/Length2', '/Length3', '/Subtype') if k in stream}
    stream.write(data)
    for k, v in extra.items():
        stream[k] = v
    if '/Length1' in stream and key == '/FontFile2':
        stream.Length1 = len(data)
    pdf.save(target)


# --- sfnt --------------------------------------------------------------------------------------

def sfnt_tables(data):
    n = struct.unpack('>H', data[4:6])[0]
    tables = {}
    for i in range(n):
        tag, _checksum, offset, length = struct.unpack('>4sIII', data[12 + 16 * i:28 + 16 * i])
        tables[tag.decode('latin1')] = data[offset:offset + length]
    return tables


def sfnt_build(tables):
    tags = sorted(tables)
    head = struct.pack('>IHHHH', 0x00010000, len(tags), 0, 0, 0)
    offset = 12 + 16 * len(tags)
    directory, body = b'', b''
    for tag in tags:
        data = tables[tag]
        directory += struct.pack('>4sIII', tag.encode('latin1'), 0, offset + len(body), len(data))
        body += data + b'\0' * (-len(data) % 4)
    return head + directory + body


def hinting_calls_undefined_function(data):
    tables = sfnt_tables(data)
    tables['prep'] = bytes([0xB0, 99, 0x2B])  # PUSHB[0] 99, CALL: fpgm defines no function 99
    return sfnt_build(tables)


def glyph_contours_out_of_order(data):
    """Every glyph of two or more contours ("o", "e", "d" of the text among them) gets its second
    contour ending where the first does: FreeType refuses such an outline ("invalid outline")."""
    tables = sfnt_tables(data)
    long_loca = struct.unpack('>h', tables['head'][50:52])[0] != 0
    loca, glyf = tables['loca'], bytearray(tables['glyf'])
    count = len(loca) // (4 if long_loca else 2) - 1
    broken = 0
    for g in range(1, count):
        if long_loca:
            start, end = struct.unpack('>II', loca[4 * g:4 * g + 8])
        else:
            start, end = (v * 2 for v in struct.unpack('>HH', loca[2 * g:2 * g + 4]))
        if end - start >= 14 and struct.unpack('>h', glyf[start:start + 2])[0] >= 2:
            glyf[start + 12:start + 14] = glyf[start + 10:start + 12]
            broken += 1
    if not broken:
        raise SystemExit('no glyph with two contours')
    tables['glyf'] = bytes(glyf)
    return sfnt_build(tables)


# --- CFF ---------------------------------------------------------------------------------------

def cff_index(data, at):
    count = struct.unpack('>H', data[at:at + 2])[0]
    if count == 0:
        return [], at + 2
    off_size = data[at + 2]
    offs = [int.from_bytes(data[at + 3 + i * off_size:at + 3 + (i + 1) * off_size], 'big') for i in range(count + 1)]
    base = at + 3 + (count + 1) * off_size - 1
    return [(base + offs[i], offs[i + 1] - offs[i]) for i in range(count)], base + offs[-1]


def cff_dict_operand(data, start, length, op):
    p, operands = start, []
    while p < start + length:
        v = data[p]
        if v <= 21:
            if v == op:
                return operands
            operands, p = [], p + (2 if v == 12 else 1)
        elif v == 28:
            operands.append(struct.unpack('>h', data[p + 1:p + 3])[0]); p += 3
        elif v == 29:
            operands.append(struct.unpack('>i', data[p + 1:p + 5])[0]); p += 5
        elif v == 30:
            p += 1
            while not (data[p] & 0x0f == 0x0f or data[p] & 0xf0 == 0xf0):
                p += 1
            p += 1; operands.append(0)
        elif v <= 246:
            operands.append(v - 139); p += 1
        elif v <= 250:
            operands.append((v - 247) * 256 + data[p + 1] + 108); p += 2
        else:
            operands.append(-(v - 251) * 256 - data[p + 1] - 108); p += 2
    raise SystemExit(f'no operator {op}')


def cff_glyph_calls_missing_subr(data):
    data = bytearray(data)
    _names, at = cff_index(data, data[2])
    tops, at = cff_index(data, at)
    charstrings_at = cff_dict_operand(data, tops[0][0], tops[0][1], 17)[0]
    glyphs, _ = cff_index(data, charstrings_at)
    start, length = glyphs[1]
    assert length >= 3
    data[start:start + 3] = bytes([246, 10, 14])  # 107 callsubr endchar: there is no such subroutine
    return bytes(data)


# --- Type 1 ------------------------------------------------------------------------------------

def type1_without_eexec(data):
    return data.replace(b'eexec', b'eeXec', 1)


# --- Type 3 and Type 0 (pikepdf) ---------------------------------------------------------------

def type3(path):
    pdf = pikepdf.new()
    square = pdf.make_stream(b'500 0 0 0 500 700 d1 0 0 500 700 re f')
    font = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 500, 700],
        FontMatrix=[0.001, 0, 0, 0.001, 0, 0], FirstChar=97, LastChar=99, Widths=[500, 500, 500],
        CharProcs=pikepdf.Dictionary(a=square),
        Encoding=pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=[97, pikepdf.Name.a, pikepdf.Name.b])))
    for text in (b'a', b'ab', b'ac'):
        content = pdf.make_stream(b'BT /T3 24 Tf 10 40 Td (' + text + b') Tj ET')
        page = pikepdf.Page(pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, 200, 100], Contents=content,
                                               Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(T3=font))))
        pdf.pages.append(page)
    pdf.save(path)


def type0_without_descendant(source, target):
    pdf = pikepdf.open(source)
    for page in pdf.pages:
        for name, font in page.Resources.Font.items():
            if font.Subtype == '/TrueType':
                page.Resources.Font[name] = pdf.make_indirect(pikepdf.Dictionary(
                    Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type0, BaseFont=font.BaseFont,
                    Encoding=pikepdf.Name('/Identity-H'), DescendantFonts=[42]))
    pdf.save(target)


reportlab_ttf(out / 'ttf.pdf')
with_program(out / 'ttf.pdf', out / 'ttf-hinting.pdf', '/FontFile2', hinting_calls_undefined_function)
with_program(out / 'ttf.pdf', out / 'ttf-truncated.pdf', '/FontFile2', lambda d: d[:len(d) * 2 // 5])
with_program(out / 'ttf.pdf', out / 'ttf-bad-glyph.pdf', '/FontFile2', glyph_contours_out_of_order)
ghostscript_cff(out / 'cff.pdf')
with_program(out / 'cff.pdf', out / 'cff-bad-glyph.pdf', '/FontFile3', cff_glyph_calls_missing_subr)
reportlab_type1(out / 't1.pdf')
with_program(out / 't1.pdf', out / 't1-no-eexec.pdf', '/FontFile', type1_without_eexec)
type3(out / 'type3.pdf')
type0_without_descendant(out / 'ttf.pdf', out / 'type0-no-descendant.pdf')
