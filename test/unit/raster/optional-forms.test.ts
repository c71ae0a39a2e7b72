/**
 * Optional content on Form XObjects (their /OC entry, ISO 32000-2 §8.11.3.3), as Illustrator writes
 * its layers: poppler's ClarityOCGs.pdf has one form per language layer, each with /OC naming an
 * OCMD over one group, three of the four groups OFF and no /Usage, so print state = view state.
 * A printer leaves those layers out; both engines must, whatever the membership's shape (an OCMD
 * whose /OCGs is a dictionary or an array, or the group itself), as poppler and MuPDF do.
 *
 * Ghostscript 10.00.0 draws such forms (with and without -dPrinted), while it honours /OC on marked
 * content: that is why the real-world comparison lists ClarityOCGs.pdf as a reviewed difference.
 * Ghostscript is not asserted here (a later release may read /OC on forms).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localExecutor } from '../../../src/pool/local.js';
import { sha256Hex } from '../../../src/source/read.js';

let dir = '';
let pdf = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'optional-forms-'));
  pdf = join(dir, 'forms.pdf');
  execFileSync('/usr/bin/python3', ['test/unit/raster/producers/optional_forms.py', pdf]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Red and blue at the middle of each 100-pt column of a 400 × 100 px drawing. */
async function columns(png: Uint8Array | Buffer): Promise<[number, number][]> {
  const { data, info } = await sharp(png).resize(400, 100, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [50, 150, 250, 350].map((x) => {
    const i = (50 * info.width + x) * info.channels;
    return [data[i]!, data[i + 2]!];
  });
}

const PRINTED: [number, number][] = [
  [255, 255],
  [255, 255],
  [255, 255],
  [0, 255],
];

describe('layers on Form XObjects that are OFF do not print', () => {
  it('poppler and MuPDF leave out the three OFF forms (the oracles this preview is held to)', async () => {
    execFileSync('pdftoppm', ['-scale-to-x', '400', '-scale-to-y', '100', '-png', '-singlefile', pdf, join(dir, 'poppler')]);
    execFileSync('mutool', ['draw', '-q', '-w', '400', '-h', '100', '-o', join(dir, 'mupdf.png'), pdf, '1'], { stdio: 'pipe' });
    expect(await columns(readFileSync(join(dir, 'poppler.png')))).toEqual(PRINTED);
    expect(await columns(readFileSync(join(dir, 'mupdf.png')))).toEqual(PRINTED);
  });

  for (const renderer of ['pdfium', 'pdfjs'] as const) {
    it(`${renderer} leaves them out too, and draws the ON one`, async () => {
      const bytes = new Uint8Array(readFileSync(pdf));
      const shared = new SharedArrayBuffer(bytes.length);
      new Uint8Array(shared).set(bytes);
      const r = await localExecutor.render({
        docId: `${sha256Hex(bytes)}:${renderer}`,
        bytes: shared,
        page: 1,
        maxPx: 400,
        format: 'png',
        plan: null,
        renderer,
        maxInputPixels: 1e9,
        maxPdfjsImagePixels: 1e9,
        largestImagePixels: 0,
      });
      expect(r.facts.method).toBe(renderer);
      expect(await columns(r.preview!)).toEqual(PRINTED);
    });
  }
});
