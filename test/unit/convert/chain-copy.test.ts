/**
 * The chain copy (convert/chain-copy.ts): a reportlab page painting DeviceCMYK vector colour and a
 * CMYK JPEG image (ImageMagick), and a pikepdf-added Indexed-over-DeviceCMYK space, become
 * ICCBased with the chain's profile — read back by qpdf — and PDFium then draws the CMYK where
 * the chain (sharp's lcms) puts it. A file without DeviceCMYK gets no copy.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAIN_CMYK_NAME, MAX_CHAIN_IMAGE_PIXELS, chainCopy } from '../../../src/convert/chain-copy.js';
import { deltaE00 } from '../../../src/model/difference.js';
import { cmykColoursToRgb } from '../../../src/raster/colour.js';
import { openWithPdfium, renderWithPdfium } from '../../../src/raster/pdfium.js';

/** DeviceCMYK where the QDF text shows it: an image's or Indexed space's, or `k`/`K` with its four operands on a content line. */
const DEVICE_CMYK = /\/ColorSpace\s*\/DeviceCMYK|\/Indexed\s+\/DeviceCMYK|(?:^|\n)(?:[\d.]+ ){4}[kK]\s/;

const dir = mkdtempSync(join(tmpdir(), 'pp-chain-copy-'));

function made(name: string, script: string): Uint8Array {
  const py = join(dir, `${name}.py`);
  const out = join(dir, `${name}.pdf`);
  writeFileSync(py, script);
  execFileSync('/usr/bin/python3', [py, out, dir]);
  return new Uint8Array(readFileSync(out));
}

/** A CMYK red rectangle (left half), a blue stroke, a CMYK JPEG (right half) and an Indexed-over-DeviceCMYK colour space in the resources. */
function cmykPage(): Uint8Array {
  execFileSync('/usr/bin/convert', ['-size', '40x40', 'xc:#2080c0', '-colorspace', 'CMYK', join(dir, 'cmyk.jpg')]);
  return made(
    'cmyk',
    String.raw`
import sys, pikepdf
from reportlab.pdfgen import canvas
from reportlab.lib.colors import CMYKColor
c = canvas.Canvas(sys.argv[1], pagesize=(200, 100))
c.setFillColor(CMYKColor(0, 1, 1, 0)); c.rect(0, 0, 100, 100, stroke=0, fill=1)
c.setStrokeColor(CMYKColor(1, 0.6, 0, 0)); c.line(0, 0, 100, 100)
c.drawImage(sys.argv[2] + "/cmyk.jpg", 100, 0, 100, 100)
c.showPage(); c.save()
pdf = pikepdf.open(sys.argv[1], allow_overwriting_input=True)
res = pdf.pages[0].Resources
res.ColorSpace = pikepdf.Dictionary(IX=pikepdf.Array([pikepdf.Name.Indexed, pikepdf.Name.DeviceCMYK, 0, pikepdf.String(b"\x00\xff\xff\x00")]))
pdf.save(sys.argv[1])
`,
  );
}

function qdf(bytes: Uint8Array): string {
  const file = join(dir, `q-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, '-']).toString('latin1');
}

describe('the chain copy: DeviceCMYK drawn through the chain’s profile (issue 48)', () => {
  it('rewrites k/K, the image’s and the Indexed base’s DeviceCMYK as ICCBased with the chain’s profile', async () => {
    const original = cmykPage();
    expect(DEVICE_CMYK.test(qdf(original)), 'the original paints DeviceCMYK').toBe(true);
    const copy = await chainCopy(original);
    expect(copy).not.toBeNull();
    const text = qdf(copy!);
    // Short answers: the QDF text holds the ICC profile's bytes.
    const has = (re: RegExp) => re.test(text);
    const left = DEVICE_CMYK.exec(text);
    expect(left && text.slice(left.index - 40, left.index + 20), 'DeviceCMYK left').toBeNull();
    expect(text.includes(`/${CHAIN_CMYK_NAME} cs 0 1 1 0 sc`), 'k rewritten').toBe(true);
    expect(text.includes(`/${CHAIN_CMYK_NAME} CS 1 0.6 0 0 SC`), 'K rewritten').toBe(true);
    expect(has(/\/ICCBased\s+\d+ 0 R/), 'an ICCBased space').toBe(true);
    expect(has(/\/Indexed\s+\d+ 0 R\s+0/), 'Indexed over the ICCBased space').toBe(true);
  });

  it('PDFium draws the copy’s CMYK red where sharp’s lcms puts it, and the original’s elsewhere', async () => {
    const original = cmykPage();
    const [chain] = await cmykColoursToRgb([[0, 1, 1, 0]]);
    const at = async (bytes: Uint8Array) => {
      const handle = await openWithPdfium(bytes);
      try {
        const d = await renderWithPdfium(handle, 1, 200);
        const i = (50 * d.width + 40) * d.channels;
        return [d.data[i]!, d.data[i + 1]!, d.data[i + 2]!];
      } finally {
        handle.doc.destroy();
      }
    };
    const [before, copied] = [await at(original), await at((await chainCopy(original))!)];
    expect(
      deltaE00(
        copied,
        chain!.map((v) => Math.round(v * 255)),
      ),
      `copy ${copied} chain ${chain}`,
    ).toBeLessThanOrEqual(0.5);
    // PDFium's own CMYK formula draws the original's red elsewhere: the copy is what changes it.
    expect(
      deltaE00(
        before,
        chain!.map((v) => Math.round(v * 255)),
      ),
      `original ${before} chain ${chain}`,
    ).toBeGreaterThan(1);
  });

  it('an image over the pixel bound keeps its DeviceCMYK (PDFium converts ICC images slowly), its page’s vector colour is rewritten', async () => {
    const side = Math.ceil(Math.sqrt(MAX_CHAIN_IMAGE_PIXELS)) + 1;
    execFileSync('/usr/bin/convert', ['-size', `${side}x${side}`, 'xc:#2080c0', '-colorspace', 'CMYK', '-quality', '50', join(dir, 'big.jpg')]);
    const original = made(
      'big',
      `
import sys
from reportlab.pdfgen import canvas
from reportlab.lib.colors import CMYKColor
c = canvas.Canvas(sys.argv[1], pagesize=(200, 100))
c.setFillColor(CMYKColor(0, 1, 1, 0)); c.rect(0, 0, 100, 100, stroke=0, fill=1)
c.drawImage(sys.argv[2] + "/big.jpg", 100, 0, 100, 100)
c.showPage(); c.save()
`,
    );
    const text = qdf((await chainCopy(original))!);
    expect(/\/ColorSpace\s*\/DeviceCMYK/.test(text), 'the large image keeps DeviceCMYK').toBe(true);
    expect(text.includes(`/${CHAIN_CMYK_NAME} cs 0 1 1 0 sc`), 'k rewritten').toBe(true);
  });

  it('a file without DeviceCMYK gets no copy (its previews stay byte for byte)', async () => {
    const rgb = made(
      'rgb',
      `
import sys
from reportlab.pdfgen import canvas
c = canvas.Canvas(sys.argv[1], pagesize=(200, 100))
c.setFillColorRGB(0.9, 0.1, 0.1); c.rect(0, 0, 100, 100, stroke=0, fill=1)
c.showPage(); c.save()
`,
    );
    expect(await chainCopy(rgb)).toBeNull();
  });
});
