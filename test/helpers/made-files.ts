/**
 * Test files nobody on the project made, written at test time by real producers: reportlab (with
 * DejaVu Sans embedded) and pikepdf, run with Debian's /usr/bin/python3.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * T-shirt M written sleeves first: front and back 560 × 750 mm, sleeves 460 × 260 mm, in the
 * order sleeves, sleeves, front, back; the front stored landscape with /Rotate 90 (it shows
 * upright) and a CMYK disc on it. Each design has its own colours and a label "Ln ^".
 * `python3 make.py OUT` writes OUT/apparel.pdf.
 */
// biome-ignore lint/complexity/noUselessStringRaw: Python source, kept raw so that any backslash stays as written
export const APPAREL_PY = String.raw`
import sys, pikepdf
from reportlab.pdfgen import canvas
from reportlab.lib.colors import CMYKColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from PIL import Image, ImageDraw
out = sys.argv[1]
MM = 72 / 25.4
pdfmetrics.registerFont(TTFont("DejaVuSans", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))

def design(c, w, h, i):
    c.setFillColorRGB(0.15 + 0.2 * i, 0.55, 0.85 - 0.15 * i)
    c.rect(0, 0, w * MM, h * MM, stroke=0, fill=1)
    c.setFillColorRGB(0.95, 0.85, 0.1)
    c.rect(0, h * MM * 0.62, w * MM, h * MM * 0.12, stroke=0, fill=1)
    if i == 0:
        c.setFillColor(CMYKColor(0.05, 0.9, 0.7, 0.05))
    else:
        c.setFillColorRGB(0.8, 0.1, 0.2)
    c.circle(w * MM * 0.5, h * MM * 0.35, min(w, h) * MM * 0.15, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.setFont("DejaVuSans", 60)
    c.drawString(w * MM * 0.4, h * MM * 0.5, "L%d ^" % (i + 1))

# T-shirt M: front, back 560 x 750 mm, sleeves 460 x 260 mm; written sleeves first, the front
# stored landscape with /Rotate 90 (it shows upright), a CMYK disc on the front.
layers = [(560, 750), (560, 750), (460, 260), (460, 260)]
c = canvas.Canvas(out + "/apparel.pdf")
for i in [2, 3, 0, 1]:
    w, h = layers[i]
    if i == 0:
        c.setPageSize((h * MM, w * MM))
        c.transform(0, 1, -1, 0, h * MM, 0)
    else:
        c.setPageSize((w * MM, h * MM))
    design(c, w, h, i)
    c.showPage()
c.save()
pdf = pikepdf.open(out + "/apparel.pdf", allow_overwriting_input=True)
pdf.pages[2].obj.Rotate = 90
pdf.save(out + "/apparel.pdf")

`;

/** Writes `apparel.pdf` ({@link APPAREL_PY}) into `dir` and returns its path. */
export function makeApparel(dir: string): string {
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'make-apparel.py'), APPAREL_PY);
  const r = spawnSync('/usr/bin/python3', [join(dir, 'make-apparel.py'), dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reportlab/pikepdf could not make apparel.pdf: ${r.stderr}`);
  return join(dir, 'apparel.pdf');
}
