/**
 * Previews of Lab colour as the oracles draw them (issue 46): an ICCBased space whose profile's data
 * are Lab (a profile LittleCMS makes through Pillow) is drawn by PDFium as if its values were RGB —
 * L 60, a 10, b −30 came out yellow where poppler and Ghostscript draw a blue-violet. Such pages are
 * drawn from the chain copy (convert/chain-copy.ts), where the space is the same values as a Lab
 * space. The file is written by pikepdf at test time: Separation over Lab, ICCBased Lab, Lab, and
 * Separation over ICCBased Lab; each page's preview is compared with poppler's render.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pp-lab-previews-'));

function labFile(): string {
  const out = join(dir, 'lab.pdf');
  execFileSync('/usr/bin/python3', [
    '-c',
    `import pikepdf
from PIL import ImageCms
lab = ImageCms.ImageCmsProfile(ImageCms.createProfile('LAB', 5000)).tobytes()
pdf = pikepdf.new()
def page(cs, ops):
    pdf.pages.append(pikepdf.Page(pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, 200, 200],
        Resources=pikepdf.Dictionary(ColorSpace=pikepdf.Dictionary(CS0=cs)), Contents=pdf.make_stream(('q /CS0 cs %s scn 0 0 200 200 re f Q' % ops).encode()))))
def icc():
    s = pdf.make_stream(lab); s.N = 3; s.Range = [0, 100, -128, 127, -128, 127]; return s
labcs = pikepdf.Array([pikepdf.Name.Lab, pikepdf.Dictionary(WhitePoint=[0.9642, 1.0, 0.8249], Range=[-128, 127, -128, 127])])
beige = pdf.make_indirect(pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[100, 0, 0], C1=[80, 5, 20], N=1))
page(pikepdf.Array([pikepdf.Name.Separation, pikepdf.Name('/Beige'), labcs, beige]), '1')
page(pikepdf.Array([pikepdf.Name.ICCBased, icc()]), '60 10 -30')
page(labcs, '60 10 -30')
page(pikepdf.Array([pikepdf.Name.Separation, pikepdf.Name('/Beige'), pikepdf.Array([pikepdf.Name.ICCBased, icc()]), beige]), '1')
pdf.save(${JSON.stringify(out)})`,
  ]);
  return out;
}

const mean = async (file: string) => (await sharp(file).removeAlpha().stats()).channels.map((c) => c.mean);

describe('Lab colours in previews', () => {
  it("are drawn within 12 levels a channel of poppler's render, ICCBased Lab included", async () => {
    const pdf = labFile();
    const previews = join(dir, 'previews');
    try {
      execFileSync(process.execPath, ['bin/print-preflight.js', 'check', pdf, '--product', 'duvet-cover', '--variant', '200x200', '--previews', previews, '--preview-format', 'png', '--json'], {
        stdio: 'pipe',
      });
    } catch (error) {
      if ((error as { status?: number }).status !== 1) throw error; // 1: the check fails (the page sizes)
    }
    const files = readdirSync(previews)
      .filter((f) => f.endsWith('.png'))
      .sort();
    expect(files).toHaveLength(4);
    for (let page = 1; page <= 4; page++) {
      execFileSync('pdftoppm', ['-f', String(page), '-l', String(page), '-r', '20', '-png', '-singlefile', pdf, join(dir, `poppler-${page}`)]);
      const ours = await mean(join(previews, files[page - 1]!));
      const oracle = await mean(join(dir, `poppler-${page}.png`));
      const off = Math.max(...ours.map((v, i) => Math.abs(v - oracle[i]!)));
      expect(off, `page ${page}: ours ${ours.map(Math.round)} poppler ${oracle.map(Math.round)}`).toBeLessThanOrEqual(12);
    }
  }, 120_000);
});
