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
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { Traffic } from '../helpers/traffic.js';
import { expectProblem, settledCheck, tempDir } from './harness.js';

const dir = tempDir('pp-layer-probe-');
const images = join(dir, 'images');
let pool: PreflightPool;
let service: ServiceHandle;
/** A server whose operator lowered the tank top's maxImagePixels to 1,000. */
let strict: ServiceHandle;
/** A server whose pool's memory watchdog stops every task (maxRssMb 1): a probe's worker stops under it. */
let watched: ServiceHandle;
let watchedPool: PreflightPool;
/** Serves the images (and a text file) to layers given by URL. */
let files: http.Server;
let filesBase: string;
const traffic = new Traffic();

const MAKE_IMAGES = `
import sys, os
from PIL import Image
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
Image.new('RGB', (15001, 20), (200, 30, 30)).save(os.path.join(out, 'wide.png'))
Image.effect_noise((4000, 3000), 40).convert('RGB').save(os.path.join(out, 'photo.jpg'), quality=90)
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
  writeFileSync(join(images, 'notes.txt'), 'Our designer will send the artwork on Monday.\n');
  // A one-page PDF layer is left to the assembly (not probed): beside it, the probe of the image is the only task.
  execFileSync('img2pdf', [join(images, 'good.jpg'), '-o', join(images, 'back.pdf')]);
  files = http.createServer((req, res) => {
    try {
      const name = (req.url ?? '/').slice(1).replace(/[^a-z0-9.-]/g, '');
      const bytes = readFileSync(join(images, name));
      res.writeHead(200, { 'content-type': name.endsWith('.png') ? 'image/png' : name.endsWith('.jpg') ? 'image/jpeg' : 'text/plain' }).end(bytes);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  pool = new PreflightPool({ maxThreads: 1 });
  watchedPool = new PreflightPool({ maxThreads: 1, maxRssMb: 1 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent', allowHosts: ['127.0.0.1'] });
  strict = await startService({ port: 0, dataDir: join(dir, 'strict'), pool, logLevel: 'silent', profiles });
  watched = await startService({ port: 0, dataDir: join(dir, 'watched'), pool: watchedPool, logLevel: 'silent' });
  traffic.observe(service.app.server);
  traffic.observe(strict.app.server);
  traffic.observe(watched.app.server);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await strict?.close();
  await watched?.close();
  await pool?.destroy();
  await watchedPool?.destroy();
  files?.close();
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

describe('layers given by URL: probed after their download, refused by the same rule', () => {
  const submitJson = (body: Record<string, unknown>) => fetch(`${service.url}/v1/checks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  type Settled = { status: string; error: Record<string, unknown> | null; fixed: unknown; report: unknown };

  it('an image over 15,000 px ends the check in error: the code, the layer, its size and the limit, nothing assembled', async () => {
    const res = await submitJson({ sku: 'TANKTOP-M', layers: { front: { url: `${filesBase}/good.png` }, back: { url: `${filesBase}/wide.png`, fit: 'tile' } } });
    expect(res.status).toBe(202);
    const check = await settledCheck<Settled>(res, service.url);
    expect(check.status).toBe('error');
    expect(check.error).toEqual({
      code: 'ERR_LAYER_TOO_LARGE',
      layer: 'back',
      widthPx: 15_001,
      heightPx: 20,
      limitPx: 15_000,
      message:
        'The image for layer "back" is 15,001 × 20 pixels; the order service takes images of at most 15,000 pixels per side. Scale it to at most 15,000 pixels on its longer side and send it again.',
    });
    expect(check.fixed).toBeNull();
    expect(check.report).toBeNull();
  }, 120_000);

  it('a URL that answers with no image ends the check in error with the layer-unreadable wording', async () => {
    const check = await settledCheck<Settled>(await submitJson({ sku: 'TANKTOP-M', layers: { front: { url: `${filesBase}/notes.txt` }, back: { url: `${filesBase}/good.jpg` } } }), service.url);
    expect(check.status).toBe('error');
    expect(check.error).toMatchObject({ code: 'ERR_LAYER_UNREADABLE', layer: 'front' });
    expect(check.error!.message).toBe(
      'The image for layer "front" cannot be decoded (not a PNG, JPEG, TIFF, WebP or PDF file: it starts with "Our designer will send t"): the file is damaged, cut short or no image. Export the image again and send it whole.',
    );
  }, 120_000);
});

describe('a probe whose worker stops, and a pool that is closed', () => {
  it('a worker stopped under a probe (here by the memory watchdog) is the file’s 422 layer-unreadable naming the part, not a 500', async () => {
    const before = await watched.store.ids();
    const body = await expectProblem(await submit(watched.url, layersForm({ front: 'photo.jpg', back: 'back.pdf' })), 422, 'layer-unreadable');
    expect(body.errors).toEqual([{ path: 'layer.front', message: expect.stringMatching(/^cannot be decoded: its decoding was stopped by the memory watchdog/) }]);
    expect(body.detail).toMatch(/^The part "layer\.front" cannot be decoded as JPEG \(its decoding was stopped by the memory watchdog/);
    expect(await watched.store.ids()).toEqual(before);
  }, 60_000);

  it('a closed pool is 503 pool-unavailable with Retry-After, and no check', async () => {
    const closedPool = new PreflightPool({ maxThreads: 1 });
    const closing = await startService({ port: 0, dataDir: join(dir, 'closing'), pool: closedPool, logLevel: 'silent' });
    traffic.observe(closing.app.server);
    try {
      await closedPool.destroy();
      const res = await submit(closing.url, layersForm({ front: 'good.png', back: 'good.jpg' }));
      expect(res.headers.get('retry-after')).toBe('10');
      await expectProblem(res, 503, 'pool-unavailable');
      expect(await closing.store.ids()).toEqual([]);
    } finally {
      await closing.close();
    }
  }, 60_000);
});

describe('the contract', () => {
  it('every answer, the new 422s included, is as the served OpenAPI document says (ajv, strict)', async () => {
    await traffic.expectDocumented(service.url);
  });
});
