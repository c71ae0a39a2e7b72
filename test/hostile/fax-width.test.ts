/**
 * The fax path and the width of a CCITT image (issue 46): libvips reduces a Group 4 image's rows as
 * libtiff decodes them, but holds a band of them full-width while it does — about 0.7 KB of memory
 * per pixel of width. A 2.6 KB file of a 1,000,000-px-wide fax took the process to 810 MB; the fax
 * path now takes images up to 200,000 px across (raster/budget.ts) and a wider one goes to the page's
 * pixel budget, which keeps it from pdf.js. Both faxes are Group 4 TIFFs written by Pillow (one strip),
 * put on a page by img2pdf (their data passed through, as CCITTFaxDecode).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measuredCli } from '../helpers/measured-cli.js';

const BIN = 'bin/print-preflight.js';
const dir = mkdtempSync(join(tmpdir(), 'pp-fax-width-'));

/** A white Group 4 fax `width` × `height` px at 1200 ppi with a black bar along half its width, on a page by img2pdf. */
function faxPdf(width: number, height: number): string {
  const tif = join(dir, `fax-${width}.tif`);
  execFileSync('/usr/bin/python3', [
    '-c',
    `from PIL import Image, ImageDraw, TiffImagePlugin
Image.MAX_IMAGE_PIXELS = None
im = Image.new('1', (${width}, ${height}), 1)
ImageDraw.Draw(im).rectangle([0, ${height / 4}, ${width / 2}, ${(3 * height) / 4}], fill=0)
info = TiffImagePlugin.ImageFileDirectory_v2(); info[278] = ${height}
im.save(${JSON.stringify(tif)}, compression='group4', tiffinfo=info, dpi=(1200, 1200))`,
  ]);
  const pdf = join(dir, `fax-${width}.pdf`);
  // The page is the image's size at 1200 ppi, so the image covers it (the fax path's condition).
  const pt = (px: number) => (px / 1200) * 72;
  execFileSync('img2pdf', ['--pillow-limit-break', '--pagesize', `${pt(width)}ptx${pt(height)}pt`, tif, '-o', pdf], { stdio: 'ignore' });
  return pdf;
}

/**
 * The whole CLI process's peak: 230–316 MB for the 200,000-px fax (Node 20 and 22; Node 22 starts
 * higher), 810 MB for the 1,000,000-px one before its width was bounded.
 */
const findings = (out: string) => (JSON.parse(out) as { findings: { code: string; message: string }[] }).findings;

describe('the fax path holds a band of full-width rows: its width is bounded', () => {
  it('draws a 200,000-px-wide fax from its data within 400 MB', async () => {
    const r = await measuredCli(BIN, dir, ['check', faxPdf(200_000, 2_000), '--product', 'duvet-cover', '--variant', '200x200', '--json']);
    expect(r.code, r.err).toBe(1);
    const codes = findings(r.out).map((f) => f.code);
    expect(codes).not.toContain('pdf-too-complex');
    expect(codes).not.toContain('page-render-failed');
    expect(r.rss).toBeLessThan(400 * 1024 * 1024);
  }, 120_000);

  it('keeps a 1,000,000-px-wide fax from every decoder, within 400 MB', async () => {
    const r = await measuredCli(BIN, dir, ['check', faxPdf(1_000_000, 800), '--product', 'duvet-cover', '--variant', '200x200', '--json']);
    expect(r.code, r.err).toBe(1);
    const complex = findings(r.out).find((f) => f.code === 'pdf-too-complex');
    expect(complex?.message).toMatch(/800,000,000 pixels/);
    expect(r.rss).toBeLessThan(400 * 1024 * 1024);
  }, 120_000);
});
