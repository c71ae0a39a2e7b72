/**
 * Assembly fills: `tile` repeats an image at the resolution it states (PNG pHYs, JPEG density;
 * else the production resolution) as a tiling pattern of one image object — the page drawn by
 * MuPDF and by poppler is periodic with the tile's period, and the check judges the tile at its own
 * resolution — and `mirror` places the design as contain and fills the rest by mirroring its
 * edges, for an image and for a one-page PDF (drawn again as a form), leaving no unpainted band.
 * The images and the PDF are made by ImageMagick, Pillow and reportlab at test time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../../src/flow/assemble.js';
import { drawPage, type Drawing } from '../../helpers/outside-render.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-fills-'));
const py = (code: string) => execFileSync('/usr/bin/python3', ['-c', code], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

/** A 600 × 450 px tile (blue field, yellow disc, red corner square), by ImageMagick, stating 150 ppi in pHYs. */
function magickTile(): Uint8Array {
  const out = join(dir, 'tile.png');
  execFileSync('/usr/bin/convert', [
    '-size',
    '600x450',
    'xc:#2050a0',
    '-fill',
    '#f0c020',
    '-draw',
    'circle 300,225 300,60',
    '-fill',
    '#c03030',
    '-draw',
    'rectangle 0,0 90,90',
    '-units',
    'PixelsPerInch',
    '-density',
    '150',
    out,
  ]);
  return new Uint8Array(readFileSync(out));
}

/** The same kind of tile by Pillow: a PNG with no pHYs, or a JPEG stating `dpi` in JFIF. */
function pillowTile(name: string, dpi: number | null): Uint8Array {
  py(
    `from PIL import Image, ImageDraw\nim=Image.new('RGB',(400,300),(30,140,60))\nd=ImageDraw.Draw(im)\nd.ellipse((100,50,300,250),fill=(240,200,40))\nd.rectangle((0,0,60,60),fill=(200,30,30))\n` +
      (dpi ? `im.save('${name}', quality=95, dpi=(${dpi},${dpi}))` : `im.save('${name}')`),
  );
  return new Uint8Array(readFileSync(join(dir, name)));
}

/** Mean absolute difference per channel between the drawing and itself shifted by (dx, dy), over the overlap away from the page edges. */
function shiftDiff(d: Drawing, dx: number, dy: number): number {
  let sum = 0;
  let n = 0;
  const m = 4;
  for (let y = m; y + dy < d.height - m; y++) {
    for (let x = m; x + dx < d.width - m; x++) {
      const a = (y * d.width + x) * 3;
      const b = ((y + dy) * d.width + x + dx) * 3;
      for (let c = 0; c < 3; c++) sum += Math.abs(d.rgb[a + c]! - d.rgb[b + c]!);
      n += 3;
    }
  }
  return sum / n;
}

/** Pixels within `tol` of white in a drawing. */
const nearWhite = (d: Drawing, tol = 24) => {
  let n = 0;
  for (let i = 0; i < d.rgb.length; i += 3) if (d.rgb[i]! > 255 - tol && d.rgb[i + 1]! > 255 - tol && d.rgb[i + 2]! > 255 - tol) n++;
  return n;
};

async function drawPoppler(pdf: Uint8Array, page: number, dpi: number): Promise<Drawing> {
  const input = join(dir, `p${page}-${dpi}.pdf`);
  writeFileSync(input, pdf);
  execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(page), '-l', String(page), '-png', '-singlefile', input, join(dir, 'poppler')]);
  const { data, info } = await sharp(join(dir, 'poppler.png')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgb: new Uint8Array(data) };
}

describe('assemble: tile', () => {
  it('repeats an ImageMagick PNG at its pHYs 150 ppi: the page is periodic with 4 × 3 in, one image judged at 150 ppi', async () => {
    const tile = magickTile();
    const { bytes, report, layers } = await assemble({ sku: 'TANKTOP-M' }, [tile, tile], { fit: 'tile' }, { pool: false });
    expect(layers[0]).toMatchObject({ layer: 'front', fill: 'tile', source: 'image', widthPx: 600, heightPx: 450, tile: { ppi: 150, stated: true, widthMm: 101.6, heightMm: 76.2 } });
    expect(report.assembly?.layers.map((l) => l.fill)).toEqual(['tile', 'tile']);
    // One image object, placed once (the pattern's cell), at the tile's own resolution.
    const images = report.pages[0]!.images;
    expect(images).toHaveLength(1);
    expect(images[0]!.widthPx).toBe(600);
    expect(images[0]!.ppiX).toBeCloseTo(150, 3);
    expect(images[0]!.ppiY).toBeCloseTo(150, 3);
    const codes = report.findings.map((f) => f.code);
    for (const c of ['image-low-resolution', 'image-upscaled', 'page-edge-gap', 'page-unpainted', 'page-size-mismatch']) expect(codes).not.toContain(c);
    // 25 dpi: the period is exactly 100 × 75 px; half a period is far from it.
    for (const draw of [(p: Uint8Array) => drawPage(p, 1, 25, 'mupdf'), (p: Uint8Array) => drawPoppler(p, 1, 25)]) {
      const d = await draw(bytes);
      expect(Math.abs(d.width - Math.round((report.pages[0]!.widthMm / 25.4) * 25))).toBeLessThanOrEqual(1);
      const period = Math.max(shiftDiff(d, 100, 0), shiftDiff(d, 0, 75), shiftDiff(d, 100, 75));
      const off = Math.min(shiftDiff(d, 50, 0), shiftDiff(d, 0, 37));
      expect(period, `period ${period}, half-period ${off}`).toBeLessThan(4);
      expect(off).toBeGreaterThan(25);
    }
  }, 120_000);

  it('lays a tile that states no resolution at the production resolution, and one that does at its own (Pillow JPEG at 100 dpi)', async () => {
    const bare = pillowTile('bare.png', null);
    const jpeg = pillowTile('t100.jpg', 100);
    const { bytes, layers, report } = await assemble({ sku: 'TANKTOP-M' }, [bare, jpeg], { fit: 'tile' }, { pool: false });
    expect(layers[0]!.tile).toEqual({ ppi: 150, stated: false, widthMm: 67.73, heightMm: 50.8 });
    expect(layers[1]!.tile).toEqual({ ppi: 100, stated: true, widthMm: 101.6, heightMm: 76.2 });
    expect(report.pages[1]!.images[0]!.ppiX).toBeCloseTo(100, 3);
    // At 30 dpi the 100-ppi tile's period is 120 × 90 px.
    const d = await drawPage(bytes, 2, 30, 'mupdf');
    expect(Math.max(shiftDiff(d, 120, 0), shiftDiff(d, 0, 90))).toBeLessThan(4);
    expect(shiftDiff(d, 60, 0)).toBeGreaterThan(25);
  }, 120_000);
});

describe('assemble: mirror', () => {
  it('places a Pillow JPEG as contain and mirrors its edges into the rest: no white band, unlike contain', async () => {
    const photo = pillowTile('wide.jpg', null); // 400 × 300 on a 580 × 770 mm page: bands above and below
    const mirrored = await assemble({ sku: 'TANKTOP-M' }, [photo, photo], { fit: 'mirror', background: '#ffffff' }, { pool: false });
    const contained = await assemble({ sku: 'TANKTOP-M' }, [photo, photo], { fit: 'contain', background: '#ffffff' }, { pool: false, raster: false });
    expect(mirrored.layers.map((l) => l.fill)).toEqual(['mirror', 'mirror']);
    const m = await drawPage(mirrored.bytes, 1, 20, 'mupdf');
    const c = await drawPage(contained.bytes, 1, 20, 'mupdf');
    expect(nearWhite(c)).toBeGreaterThan(c.width * c.height * 0.3);
    expect(nearWhite(m)).toBe(0);
    // The band above the image is the image's top reflected: the row just above its top edge equals the row just below it.
    const top = Math.round((m.height - (m.width * 300) / 400) / 2);
    const row = (y: number) => m.rgb.subarray(y * m.width * 3, (y + 1) * m.width * 3);
    let diff = 0;
    for (let k = 2; k < 10; k++) {
      const a = row(top - k);
      const b = row(top + k - 1);
      for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    }
    expect(diff / (8 * m.width * 3)).toBeLessThan(12);
    const codes = mirrored.report.findings.map((f) => f.code);
    expect(codes).not.toContain('page-edge-gap');
    expect(codes).not.toContain('page-unpainted');
  }, 120_000);

  it('mirrors a reportlab one-page PDF as vector forms: no white band, the design at its contain place', async () => {
    py(
      `from reportlab.pdfgen import canvas\nc=canvas.Canvas('layer.pdf', pagesize=(400,300))\nc.setFillColorRGB(0.1,0.5,0.8)\nc.rect(0,0,400,300,stroke=0,fill=1)\nc.setFillColorRGB(0.9,0.2,0.1)\nc.rect(0,0,60,300,stroke=0,fill=1)\nc.showPage()\nc.save()`,
    );
    const layer = new Uint8Array(readFileSync(join(dir, 'layer.pdf')));
    const { bytes, report } = await assemble({ sku: 'TANKTOP-M' }, [layer, layer], { fit: 'mirror' }, { pool: false });
    expect(report.pages[0]!.images).toHaveLength(0); // vector stays vector
    const d = await drawPage(bytes, 1, 20, 'ghostscript');
    expect(nearWhite(d)).toBe(0);
    // The red strip is at the design's left edge; mirrored, the band beside it is red too, never blue.
    const mid = Math.floor(d.height / 2);
    const at = (x: number) => [...d.rgb.subarray((mid * d.width + x) * 3, (mid * d.width + x) * 3 + 3)];
    expect(at(2)[0]).toBeGreaterThan(150);
    expect(report.findings.map((f) => f.code)).not.toContain('page-edge-gap');
  }, 120_000);
});

describe('the fill said to the customer', () => {
  it('names the fill, and a tile with its size and resolution, in every locale', async () => {
    const { uiFormatter } = await import('../../../src/messages/catalogue.js');
    const { LOCALES } = await import('../../../src/model/locales.js');
    const seen = new Set<string>();
    for (const locale of LOCALES) {
      const t = await uiFormatter(locale);
      const tile = t('fill', { fill: 'tile', width: 101.6, height: 76.2, ppi: 150 });
      expect(tile, locale).toMatch(/101[.,]6 × 76[.,]2 mm \(150 ppi\)/);
      const mirror = t('fill', { fill: 'mirror', width: 0, height: 0, ppi: 0 });
      expect(mirror.length, locale).toBeGreaterThan(20);
      seen.add(mirror);
    }
    expect(seen.size).toBeGreaterThanOrEqual(6);
  });
});

describe('the fill on the approval page', () => {
  it('says each assembled part’s fill, a tile with its size, in the page’s language', async () => {
    const { approvalPage } = await import('../../../src/report/customer-pages.js');
    const { registryFrom } = await import('../../../src/profile/load.js');
    const tile = magickTile();
    const photo = pillowTile('page.jpg', null);
    const { report } = await assemble(
      { sku: 'TANKTOP-M' },
      [
        { layer: 'front', input: tile, fit: 'tile' },
        { layer: 'back', input: photo, fit: 'mirror' },
      ],
      {},
      { pool: false, raster: false },
    );
    const profile = (await registryFrom(undefined)).resolve({ sku: 'TANKTOP-M' }).profile;
    const page = (locale: 'de' | 'en') =>
      approvalPage({
        before: report,
        after: report,
        beforeImages: new Map(),
        afterImages: new Map(),
        mockups: new Map(),
        record: { fixed: { bytes: report.file.bytes, changes: [] }, approval: { state: 'pending' } },
        profile,
        locale,
        action: '/v1/approvals/x',
      });
    const de = await page('de');
    expect(de).toContain('Ihr Bild wiederholt sich als Muster, jede Kachel 101,6 × 76,2 mm (150 ppi).');
    expect(de).toContain('setzt seine Ränder gespiegelt fort');
    const en = await page('en');
    expect(en).toContain('Your image repeats as a pattern, each tile 101.6 × 76.2 mm (150 ppi).');
  }, 120_000);
});
