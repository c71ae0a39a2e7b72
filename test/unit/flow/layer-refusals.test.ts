/**
 * One rule for a layer image on every surface (issue 43): the library's `check({ layers })` and
 * `assemble()` and the command line's `assemble` refuse an image over the product's
 * `maxImagePixels` on a side (15,000 px) the way the service's 422 `layer-too-large` does — naming
 * the layer, its size and the limit, never scaling it down — and one that cannot be decoded as
 * `layer-unreadable` does. The probe runs in the pool. The assembly's changes carry their own code,
 * `layers-assembled`, checked against the published fixed-report schema by ajv. Images are made at
 * test time by ImageMagick (/usr/bin/convert) and Pillow (/usr/bin/python3).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../../src/flow/check.js';
import { assemble } from '../../../src/flow/assemble.js';
import { LayerImageError, PreflightError } from '../../../src/errors.js';
import { PreflightPool } from '../../../src/pool/pool.js';
import { expectPublished } from '../../helpers/contracts.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-layer-refusals-'));
const image = (name: string) => join(dir, name);
let pool: PreflightPool;

const PILLOW = `
import sys, os
from PIL import Image
out = sys.argv[1]
Image.effect_noise((600, 400), 40).convert('RGB').save(os.path.join(out, 'good.png'))
Image.effect_noise((600, 400), 40).convert('RGB').save(os.path.join(out, 'good.jpg'), quality=90)
png = bytearray(open(os.path.join(out, 'good.png'), 'rb').read())
at = png.index(b'IDAT') + 2000
for k in range(at, at + 400):
    png[k] ^= 0x5A
open(os.path.join(out, 'damaged.png'), 'wb').write(bytes(png))
Image.effect_noise((4000, 3000), 40).convert('RGB').save(os.path.join(out, 'photo.jpg'), quality=90)
`;

beforeAll(() => {
  // A 15,001 × 20 px PNG of one colour: a few hundred bytes, one pixel over the order service's limit.
  execFileSync('/usr/bin/convert', ['-size', '15001x20', 'xc:#c83030', image('wide.png')]);
  execFileSync('/usr/bin/python3', ['-c', PILLOW, dir]);
  writeFileSync(image('notes.png'), 'a note, not an image\n');
  // A one-page PDF layer is left to the assembly (not probed).
  execFileSync('img2pdf', [image('good.jpg'), '-o', image('back.pdf')]);
  pool = new PreflightPool({ maxThreads: 1 });
}, 60_000);

afterAll(async () => {
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(call: Promise<unknown>): Promise<LayerImageError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the call must be refused').toBeInstanceOf(LayerImageError);
  return error as LayerImageError;
}

describe('a layer image over the limit is refused, not scaled, on every surface', () => {
  it('check({ layers }): ERR_LAYER_TOO_LARGE naming the layer, its size and the limit', async () => {
    const e = await refusal(check({ layers: { front: image('wide.png'), back: image('good.png') } }, { sku: 'TANKTOP-M' }, { pool }));
    expect(e).toBeInstanceOf(PreflightError);
    expect(e).toMatchObject({ code: 'ERR_LAYER_TOO_LARGE', layer: 'front', widthPx: 15_001, heightPx: 20, limitPx: 15_000 });
    expect(e.message).toBe(
      'The image for layer "front" is 15,001 × 20 pixels; the order service takes images of at most 15,000 pixels per side. Scale it to at most 15,000 pixels on its longer side and send it again.',
    );
  });

  it('assemble(): the same refusal, for a layer given by name too', async () => {
    const e = await refusal(assemble({ sku: 'TANKTOP-M' }, [image('good.jpg'), { layer: 'back', input: image('wide.png') }], {}, { pool }));
    expect(e).toMatchObject({ code: 'ERR_LAYER_TOO_LARGE', layer: 'back', widthPx: 15_001, heightPx: 20, limitPx: 15_000 });
  });

  it("a call's stricter limit is the limit; within it the same images are assembled", async () => {
    const e = await refusal(check({ layers: { front: image('good.png'), back: image('good.jpg') } }, { sku: 'TANKTOP-M' }, { pool, limits: { maxImagePixels: 599 } }));
    expect(e).toMatchObject({ code: 'ERR_LAYER_TOO_LARGE', layer: 'front', widthPx: 600, heightPx: 400, limitPx: 599 });
    const out = await check({ layers: { front: image('good.png'), back: image('good.jpg') } }, { sku: 'TANKTOP-M' }, { pool, limits: { maxImagePixels: 600 }, raster: false });
    expect(out.fixed?.bytes.length).toBeGreaterThan(0);
  });

  it('an image that cannot be decoded, or is no image, is ERR_LAYER_UNREADABLE naming its layer', async () => {
    const damaged = await refusal(check({ layers: { front: image('good.png'), back: image('damaged.png') } }, { sku: 'TANKTOP-M' }, { pool }));
    expect(damaged).toMatchObject({ code: 'ERR_LAYER_UNREADABLE', layer: 'back', widthPx: null, limitPx: null });
    expect(damaged.message).toMatch(/^The image for layer "back" cannot be decoded as PNG \(.+\): the file is damaged, cut short or no image\./);
    const note = await refusal(assemble({ sku: 'TANKTOP-M' }, [image('notes.png'), image('good.png')], {}, { pool }));
    expect(note).toMatchObject({ code: 'ERR_LAYER_UNREADABLE', layer: 'front' });
    expect(note.message).toContain('not a PNG, JPEG, TIFF, WebP or PDF file: it starts with "a note, not an image"');
  });

  it('a probe whose worker is stopped under it (here by the memory watchdog) is the image’s ERR_LAYER_UNREADABLE, not a crash of the call', async () => {
    // A limit every process is past: the watchdog stops the probe as it starts (pool.test.ts does the same to a page).
    const watched = new PreflightPool({ maxThreads: 1, maxRssMb: 1 });
    try {
      const e = await refusal(check({ layers: { front: image('photo.jpg'), back: image('back.pdf') } }, { sku: 'TANKTOP-M' }, { pool: watched }));
      expect(e).toMatchObject({ code: 'ERR_LAYER_UNREADABLE', layer: 'front' });
      expect(e.message).toMatch(/^The image for layer "front" cannot be decoded as JPEG \(its decoding was stopped by the memory watchdog/);
    } finally {
      await watched.destroy();
    }
  }, 60_000);

  it('the command line: assemble exits 2 with one line naming the layer, its size and the limit, and writes nothing', () => {
    const out = join(dir, 'out.pdf');
    const r = spawnSync(process.execPath, ['bin/print-preflight.js', 'assemble', '--sku', 'TANKTOP-M', '--out', out, image('wide.png'), image('good.png')], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      'print-preflight assemble: The image for layer "front" is 15,001 × 20 pixels; the order service takes images of at most 15,000 pixels per side. Scale it to at most 15,000 pixels on its longer side and send it again.',
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe('the assembly is a change of its own', () => {
  it('check({ layers }) names each assembled layer layers-assembled, in the customer’s words, valid against the published fixed-report schema', async () => {
    const out = await check({ layers: { front: image('good.png'), back: image('good.jpg') } }, { sku: 'TANKTOP-M' }, { pool, fix: 'approve', locale: 'fr', raster: false });
    const assembled = out.fixed!.changes.filter((c) => c.code === 'layers-assembled');
    expect(assembled.map((c) => c.action)).toEqual([expect.stringMatching(/^assembled front: png 600 × 400 px/), expect.stringMatching(/^assembled back: jpeg 600 × 400 px/)]);
    expect(out.fixed!.changes.some((c) => c.code === 'file-not-pdf')).toBe(false);
    for (const c of assembled) {
      expect(c.needsApproval).toBe(true);
      expect(c.customer).toMatch(/^Nous avons créé le fichier d’impression à partir de vos images, une pour chaque partie/);
    }
    // The document batch --fix writes for a fixed file, as an integrator's validator reads it.
    const doc = { ...out.report, fix: { status: out.status, changes: out.fixed!.changes, refused: out.fixed!.refused } };
    const parsed = expectPublished<{ fix: { changes: { code: string }[] } }>('fixed-report', JSON.stringify(doc), 'check({ layers }) as a fixed report');
    expect(parsed.fix.changes.map((c) => c.code)).toContain('layers-assembled');
    // The published schema lists the new code among the known values of the open list.
    const schema = JSON.parse(readFileSync('schemas/fixed-report.schema.json', 'utf8')) as {
      properties: { fix: { properties: { changes: { items: { properties: { code: { examples: string[] } } } } } } };
    };
    expect(schema.properties.fix.properties.changes.items.properties.code.examples).toContain('layers-assembled');
  }, 120_000);
});
