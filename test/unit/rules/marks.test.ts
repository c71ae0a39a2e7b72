/**
 * content-in-seam-zone, line-too-thin and text-too-small on print files reportlab makes at test
 * time (producers/marks_cases.py): each made case must give exactly its finding, where it is, and
 * the clean page (full-bleed background, crop marks and slug text in the bleed, a 12 pt line of
 * text and a 2 pt rule inside the safe area) none.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import type { Finding } from '../../../src/model/finding.js';

const CODES = ['content-in-seam-zone', 'line-too-thin', 'text-too-small'];
const dir = mkdtempSync(join(tmpdir(), 'marks-'));

beforeAll(() => {
  execFileSync('/usr/bin/python3', [join(__dirname, 'producers', 'marks_cases.py'), dir]);
});

async function findings(name: string, limits = {}): Promise<Finding[]> {
  const report = await preflight(join(dir, `${name}.pdf`), { sku: 'T-SHIRT-M' }, { raster: false, limits });
  return report.findings.filter((f) => CODES.includes(f.code));
}

describe('seam zone, line width and text size', () => {
  it('at the limits through a 0.9999987 matrix (1 pt measured 0.9999987, 6 pt 5.99999): no finding; just below (0.99 pt, 5.9 pt): each found, never saying it is at the limit', async () => {
    expect(await findings('at-the-limits')).toEqual([]);
    const below = await findings('just-below');
    expect(below.map((f) => f.code).sort()).toEqual(['line-too-thin', 'text-too-small']);
    expect(below.find((f) => f.code === 'line-too-thin')!.actual).toBe('0.99 pt');
    expect(below.find((f) => f.code === 'text-too-small')!.actual).toBe('5.9 pt');
  });

  it('a clean page: background past the trim, crop marks and slug in the bleed, content inside the safe line', async () => {
    expect(await findings('clean')).toEqual([]);
  });

  it.each([
    ['seam-text', 'JOHN', [200, 729, 222, 737]],
    ['seam-form', 'TEAM', [250, 11, 268, 16]],
    ['seam-rotated', 'SIDEWAYS', [11, 413, 18, 450]],
  ] as const)('%s: text in the margin is reported with its text and position', async (name, text, box) => {
    const [f, ...rest] = await findings(name);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ code: 'content-in-seam-zone', severity: 'warning', page: 1, layer: 'front', details: { count: 1, texts: 1, safeMarginMm: 10 } });
    expect(f!.message).toContain(`text “${text}” at ${box[0]}–${box[2]} mm across, ${box[1]}–${box[3]} mm down`);
  });

  it('a shape crossing the safe line without reaching the trim is reported; a wider safe margin per call finds more', async () => {
    const [f] = await findings('seam-logo');
    expect(f).toMatchObject({ code: 'content-in-seam-zone', details: { count: 1, texts: 0 } });
    expect(f!.message).toContain('a shape at 15–75 mm across, 390–450 mm down');
    // With a 220 mm margin the 12 pt text and the rule of the clean page cross the safe line too (the slug stays out: it is in the bleed).
    const wide = await findings('clean', { safeMarginMm: 220 });
    expect(wide.map((x) => x.code)).toEqual(['content-in-seam-zone']);
    expect(wide[0]!.details).toMatchObject({ count: 2, texts: 1 });
  });

  it('lines thinner than minLineWidthPt, hairlines included; crop marks outside the trim are not', async () => {
    const [f, ...rest] = await findings('thin-lines');
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ code: 'line-too-thin', actual: 'hairline (0 pt)', details: { count: 2, thinnestPt: 0, minLineWidthPt: 1 } });
    expect((await findings('thin-lines', { minLineWidthPt: 0.2 })).map((x) => x.details?.count)).toEqual([1]);
  });

  it('text smaller than minTextSizePt after the CTM (12 pt scaled by 0.25 is 3 pt)', async () => {
    const [f, ...rest] = await findings('small-text');
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ code: 'text-too-small', actual: '3 pt', details: { count: 2, smallestPt: 3 } });
    expect(f!.message).toContain('text “tiny print”');
    expect(f!.message).toContain('text “scaled down”');
  });

  it('judged at the printed size: a half-size page prints its 4 pt text at 8 pt and its 0.4 pt line at 0.8 pt', async () => {
    const found = await findings('half-size');
    expect(found.map((x) => x.code)).toEqual(['line-too-thin']);
    expect(found[0]!.details).toMatchObject({ thinnestPt: 0.8 });
  });
});

describe('no false seam or small-text findings (issue 36)', () => {
  const quiet = mkdtempSync(join(tmpdir(), 'false-marks-'));
  beforeAll(() => {
    execFileSync('/usr/bin/python3', [join(__dirname, 'producers', 'false_marks.py'), quiet]);
  });
  const codes = async (name: string) => {
    const report = await preflight(join(quiet, `${name}.pdf`), { sku: 'T-SHIRT-M' }, { raster: false });
    return report.findings.filter((f) => CODES.includes(f.code));
  };

  it.each(['rows-reportlab', 'rows-words-reportlab', 'rows-rsvg', 'rows-gs', 'rows-pikepdf'])(
    '%s: rows of background text running off both sides are a pattern, not content in the seam',
    async (name) => {
      expect(await codes(name)).toEqual([]);
    },
  );

  it('the rows rule keeps real seam text: a word ending inside the zone is still reported', async () => {
    // The same reportlab page with one more word that stops 5 mm inside the trim (seam-text).
    expect((await findings('seam-text')).map((f) => f.code)).toEqual(['content-in-seam-zone']);
  });

  it.each(['spaces-reportlab', 'spaces-rsvg'])('%s: runs of tiny spaces and invisible text paint nothing and are not text-too-small', async (name) => {
    expect(await codes(name)).toEqual([]);
  });

  it('a Type 3 emoji font on a 2,048-unit em is judged at its set size: 11 pt passes, 3 pt is reported at 3 pt', async () => {
    expect(await codes('emoji-type3-11')).toEqual([]);
    const [small, ...rest] = await codes('emoji-type3-3');
    expect(rest).toEqual([]);
    expect(small).toMatchObject({ code: 'text-too-small', details: { smallestPt: 3 } });
  });
});
