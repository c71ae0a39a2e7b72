/**
 * probeImage (issue 43): the header's size always; the pixels decoded only within the largest side,
 * failing on any error. A PNG over the side whose pixels are damaged is measured, not decoded: the
 * size is judged before a pixel is read. Images made by Pillow (/usr/bin/python3).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeImage } from '../../../src/raster/image-probe.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-image-probe-'));

const MAKE = `
import sys, os
from PIL import Image
out = sys.argv[1]
def damaged(name, src):
    b = bytearray(open(os.path.join(out, src), 'rb').read())
    at = b.index(b'IDAT') + 200
    for k in range(at, min(at + 400, len(b) - 20)):
        b[k] ^= 0x5A
    open(os.path.join(out, name), 'wb').write(bytes(b))
Image.effect_noise((15001, 20), 40).convert('RGB').save(os.path.join(out, 'wide.png'))
Image.effect_noise((800, 600), 40).convert('RGB').save(os.path.join(out, 'good.png'))
Image.effect_noise((800, 600), 40).convert('RGB').save(os.path.join(out, 'good.jpg'), quality=90)
Image.effect_noise((800, 600), 40).convert('RGB').save(os.path.join(out, 'good.webp'))
damaged('wide-damaged.png', 'wide.png')
damaged('damaged.png', 'good.png')
jpeg = open(os.path.join(out, 'good.jpg'), 'rb').read()
open(os.path.join(out, 'cut.jpg'), 'wb').write(jpeg[: len(jpeg) // 2])
png = open(os.path.join(out, 'good.png'), 'rb').read()
open(os.path.join(out, 'cut.png'), 'wb').write(png[: len(png) // 2])
open(os.path.join(out, 'notes.png'), 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + b'not really' * 20)
`;

beforeAll(() => {
  execFileSync('/usr/bin/python3', ['-c', MAKE, dir]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('probeImage', () => {
  it.each([
    { file: 'good.png', max: 15_000, want: { format: 'png', widthPx: 800, heightPx: 600, decoded: true, unreadable: null } },
    { file: 'good.jpg', max: 15_000, want: { format: 'jpeg', widthPx: 800, heightPx: 600, decoded: true, unreadable: null } },
    { file: 'good.webp', max: 15_000, want: { format: 'webp', widthPx: 800, heightPx: 600, decoded: true, unreadable: null } },
    { file: 'wide.png', max: 15_000, want: { format: 'png', widthPx: 15_001, heightPx: 20, decoded: false, unreadable: null } },
    { file: 'wide.png', max: 15_001, want: { format: 'png', widthPx: 15_001, heightPx: 20, decoded: true, unreadable: null } },
    // Over the side: measured from its header, its damaged pixels never read.
    { file: 'wide-damaged.png', max: 15_000, want: { format: 'png', widthPx: 15_001, heightPx: 20, decoded: false, unreadable: null } },
    { file: 'wide-damaged.png', max: 15_001, want: { format: 'png', widthPx: 15_001, heightPx: 20, decoded: false, unreadable: expect.any(String) } },
    { file: 'damaged.png', max: 15_000, want: { format: 'png', widthPx: 800, heightPx: 600, decoded: false, unreadable: expect.any(String) } },
    { file: 'cut.png', max: 15_000, want: { format: 'png', widthPx: 800, heightPx: 600, decoded: false, unreadable: expect.any(String) } },
    { file: 'cut.jpg', max: 15_000, want: { format: 'jpeg', widthPx: 800, heightPx: 600, decoded: false, unreadable: expect.stringMatching(/premature end/i) } },
    { file: 'notes.png', max: 15_000, want: { format: null, widthPx: null, heightPx: null, decoded: false, unreadable: expect.any(String) } },
  ])('$file within $max px', async ({ file, max, want }) => {
    expect(await probeImage(readFileSync(join(dir, file)), max)).toEqual(want);
  });
});
