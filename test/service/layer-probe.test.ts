/**
 * Layer images are probed in the pool before a check is accepted (issue 43): an image over the
 * product's `maxImagePixels` on a side (the order service's 15,000 px, or an operator's stricter
 * profile) is a 422 `layer-too-large` naming the part and its size, read from its header; an image
 * that cannot be decoded (a JPEG cut short, a PNG damaged behind good first bytes) a 422
 * `layer-unreadable` — both before any 202, and no check is created. A good image is still a 202.
 * The images are made at test time by Pillow (/usr/bin/python3), not by our own code.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { Traffic } from '../helpers/traffic.js';
import { expectProblem, tempDir } from './harness.js';

const dir = tempDir('pp-layer-probe-');
const images = join(dir, 'images');
let pool: PreflightPool;
let service: ServiceHandle;
/** A server whose operator lowered the tank top's maxImagePixels to 1,000. */
let strict: ServiceHandle;
const traffic = new Traffic();

const MAKE_IMAGES = `
import sys, os
from PIL import Image
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
Image.new('RGB', (15001, 20), (200, 30, 30)).save(os.path.join(out, 'wide.png'))
Image.effect_noise((1200, 900), 40).convert('RGB').save(os.path.join(out, 'good.jpg'), quality=90)
Image.effect_noise((600, 400), 40).convert('RGB').save(os.path.join(out, 'good.png'))
jpeg = open(os.path.join(out, 'good.jpg'), 'rb').read()
open(os.path.join(out, 'cut.jpg'), 'wb').write(jpeg[: len(jpeg) // 2])
png = bytearray(open(os.path.join(out, 'good.png'), 'rb').read())
at = png.index(b'IDAT') + 2000
for k in range(at, at + 400):
    png[k] ^= 0x5A
open(os.path.join(out, 'damaged.png'), 'wb').write(bytes(png))
`;

beforeAll(async () => {
  execFileSync('/usr/bin/python3', ['-c', MAKE_IMAGES, images]);
  const profiles = join(dir, 'profiles');
  cpSync('profiles', profiles, { recursive: true });
  const tanktop = JSON.parse(readFileSync(join(profiles, 'tanktop.json'), 'utf8')) as { limits: { maxImagePixels: number } };
  tanktop.limits.maxImagePixels = 1000;
  writeFileSync(join(profiles, 'tanktop.json'), JSON.stringify(tanktop));
  pool = new PreflightPool({ maxThreads: 1 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
  strict = await startService({ port: 0, dataDir: join(dir, 'strict'), pool, logLevel: 'silent', profiles });
  traffic.observe(service.app.server);
  traffic.observe(strict.app.server);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await strict?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function layersForm(parts: Record<string, string>, sku = 'TANKTOP-M'): FormData {
  const fd = new FormData();
  fd.append('sku', sku);
  for (const [layer, file] of Object.entries(parts)) fd.append(`layer.${layer}`, new Blob([readFileSync(join(images, file))]), file);
  return fd;
}

const submit = (base: string, fd: FormData) => fetch(`${base}/v1/checks`, { method: 'POST', body: fd });

describe('layer images are probed before the check is accepted', () => {
  it.each([
    { front: 'wide.png', back: 'good.jpg', code: 'layer-too-large', part: 'layer.front' },
    { front: 'good.jpg', back: 'cut.jpg', code: 'layer-unreadable', part: 'layer.back' },
    { front: 'damaged.png', back: 'good.png', code: 'layer-unreadable', part: 'layer.front' },
  ])('$front + $back: 422 $code naming $part, and no check is created', async ({ front, back, code, part }) => {
    const before = await service.store.ids();
    const body = await expectProblem(await submit(service.url, layersForm({ front, back })), 422, code);
    expect(body.errors).toEqual([{ path: part, message: expect.any(String) }]);
    expect(body.detail).toContain(`"${part}"`);
    expect(await service.store.ids()).toEqual(before);
  });

  it('an image over 15,000 px says its size and the limit, read from its header', async () => {
    const body = await expectProblem(await submit(service.url, layersForm({ front: 'wide.png', back: 'good.jpg' })), 422, 'layer-too-large');
    expect(body).toMatchObject({ widthPx: 15001, heightPx: 20, limitPx: 15000, errors: [{ path: 'layer.front', message: '15,001 × 20 pixels, over 15,000 pixels per side' }] });
    expect(body.detail).toContain('15,001 × 20 pixels');
  });

  it("the operator's stricter profile is the limit", async () => {
    const body = await expectProblem(await submit(strict.url, layersForm({ front: 'good.png', back: 'good.jpg' })), 422, 'layer-too-large');
    expect(body).toMatchObject({ widthPx: 1200, heightPx: 900, limitPx: 1000, errors: [{ path: 'layer.back' }] });
  });

  it('good images are still accepted: 202 and a check', async () => {
    const before = await service.store.ids();
    const res = await submit(service.url, layersForm({ front: 'good.png', back: 'good.jpg' }));
    const text = await res.text();
    expect(res.status, text).toBe(202);
    const { id } = JSON.parse(text) as { id: string };
    expect(await service.store.ids()).toEqual([...before, id].sort());
  });
});

describe('the contract', () => {
  it('every answer, the new 422s included, is as the served OpenAPI document says (ajv, strict)', async () => {
    await traffic.expectDocumented(service.url);
  });
});
