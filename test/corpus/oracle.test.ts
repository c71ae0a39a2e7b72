/**
 * Oracle: on every corpus PDF, the images we find (page by page, in drawing order) agree with
 * poppler's `pdfimages -list`: pixel size, colour family, components and effective ppi.
 * poppler-utils is installed by .ci/run; without it this test fails rather than skips.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectPdf } from '../../src/pdf/inspect.js';
import type { ImageFacts, PageFacts } from '../../src/pdf/facts.js';

const dir = 'test/corpus/files';
const files = readdirSync(dir).filter((f) => f.endsWith('.pdf') && !f.startsWith('broken-') && !f.includes('user-password'));

/** poppler's colour names (ImageOutputDev::listImage). */
const POPPLER_COLOUR: Record<string, string> = {
  DeviceGray: 'gray',
  CalGray: 'gray',
  DeviceRGB: 'rgb',
  CalRGB: 'rgb',
  DeviceCMYK: 'cmyk',
  Lab: 'lab',
  ICCBased: 'icc',
  Indexed: 'index',
  Separation: 'sep',
  DeviceN: 'devn',
};

interface Row {
  page: number;
  type: string;
  width: number;
  height: number;
  color: string;
  comp: number;
  xppi: number;
  yppi: number;
}

function pdfimages(path: string): Row[] {
  const out = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const f = l.trim().split(/\s+/);
      // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
      const inline = f[10] === '[inline]' || f[10] === '[none]';
      const xppiAt = inline ? 11 : 12;
      return {
        page: Number(f[0]),
        type: f[2]!,
        width: Number(f[3]),
        height: Number(f[4]),
        color: f[5]!,
        comp: Number(f[6]),
        xppi: Number(f[xppiAt]),
        yppi: Number(f[xppiAt + 1]),
      };
    })
    .filter((r) => r.type !== 'smask' && r.type !== 'mask');
}

function ours(page: PageFacts, image: ImageFacts) {
  // poppler does not apply /UserUnit: compare in its terms.
  const uu = page.userUnit;
  return {
    page: page.index,
    type: image.imageMask ? 'stencil' : 'image',
    width: image.widthPx,
    height: image.heightPx,
    color: image.colourSpace ? (POPPLER_COLOUR[image.colourSpace.family] ?? '?') : '-',
    comp: image.colourSpace ? image.colourSpace.components : 1,
    xppi: image.ppiX === null ? 0 : image.ppiX * uu,
    yppi: image.ppiY === null ? 0 : image.ppiY * uu,
  };
}

describe('images agree with poppler pdfimages -list', () => {
  it('has files to compare, with images in many colour spaces', () => {
    expect(files.length).toBeGreaterThan(25);
  });

  it.each(files)('%s', async (file) => {
    const path = join(dir, file);
    const theirs = pdfimages(path);
    const facts = await inspectPdf(new Uint8Array(readFileSync(path)));
    const mine = facts.pages.flatMap((p) => p.images.map((i) => ours(p, i)));
    expect(mine.length, `${file}: image count`).toBe(theirs.length);
    mine.forEach((m, i) => {
      const t = theirs[i]!;
      expect({ ...m, xppi: 0, yppi: 0 }, `${file} image ${i}`).toEqual({ ...t, xppi: 0, yppi: 0 });
      // poppler prints ppi rounded to an integer ("%5.0f"), or 3 decimals below 1.
      expect(Math.abs(m.xppi - t.xppi), `${file} image ${i} x-ppi ${m.xppi} vs ${t.xppi}`).toBeLessThanOrEqual(0.51);
      expect(Math.abs(m.yppi - t.yppi), `${file} image ${i} y-ppi ${m.yppi} vs ${t.yppi}`).toBeLessThanOrEqual(0.51);
    });
  });
});
