/**
 * The fleet probes layer parts too (issue 43): `serve --redis` (the compiled CLI, as deployed)
 * probes each `layer.<id>` image in its own worker pool before it answers, and refuses one over the
 * product's `maxImagePixels` with the same 422 `layer-too-large` as the embedded server — the same
 * body: code, detail, size, limit and part — and one that cannot be decoded with the same
 * `layer-unreadable`; nothing is queued for either. A good pair is then queued (no worker runs it
 * here), which shows the queue's depth is read where the refusals would have put a job. Images are
 * made at test time by Pillow (/usr/bin/python3).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { eventually, startServe, type ServeProcess } from './fleet-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-fleet-layer-probe-'));
const images = join(dir, 'images');
let redis: RedisServer;
let fleet: ServeProcess | null = null;
let pool: PreflightPool;
let embedded: ServiceHandle;

const MAKE_IMAGES = `
import sys, os
from PIL import Image
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
Image.new('RGB', (15001, 20), (200, 30, 30)).save(os.path.join(out, 'wide.png'))
Image.effect_noise((600, 400), 40).convert('RGB').save(os.path.join(out, 'good.png'))
Image.effect_noise((600, 400), 40).convert('RGB').save(os.path.join(out, 'good.jpg'), quality=90)
jpeg = open(os.path.join(out, 'good.jpg'), 'rb').read()
open(os.path.join(out, 'cut.jpg'), 'wb').write(jpeg[: len(jpeg) // 2])
`;

beforeAll(async () => {
  execFileSync('/usr/bin/python3', ['-c', MAKE_IMAGES, images]);
  redis = await startRedis();
  fleet = await startServe(redis.url, join(dir, 'fleet'));
  pool = new PreflightPool({ maxThreads: 1 });
  embedded = await startService({ port: 0, dataDir: join(dir, 'embedded'), pool, logLevel: 'silent' });
}, 120_000);

afterAll(async () => {
  fleet?.proc.kill('SIGKILL');
  await embedded?.close();
  await pool?.destroy();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function layersForm(parts: Record<string, string>): FormData {
  const fd = new FormData();
  fd.append('sku', 'TANKTOP-M');
  for (const [layer, file] of Object.entries(parts)) fd.append(`layer.${layer}`, new Blob([readFileSync(join(images, file))]), file);
  return fd;
}

async function answer(url: string, parts: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/v1/checks`, { method: 'POST', body: layersForm(parts) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const queueDepth = async (url: string): Promise<number> => Number(/^print_preflight_queue_depth (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? Number.NaN);

describe('serve --redis probes layer parts before it queues a check', () => {
  it.each([
    { front: 'wide.png', back: 'good.jpg', status: 422, code: 'layer-too-large' },
    { front: 'good.png', back: 'cut.jpg', status: 422, code: 'layer-unreadable' },
  ])(
    '$front + $back: the same $status $code as the embedded server, and no job queued',
    async ({ front, back, status, code }) => {
      const local = await answer(embedded.url, { front, back });
      const fleetAnswer = await answer(fleet!.url, { front, back });
      expect(local).toMatchObject({ status, body: { code } });
      expect(fleetAnswer).toEqual(local);
      expect(await queueDepth(fleet!.url)).toBe(0);
    },
    120_000,
  );

  it('the refusal of the image over 15,000 px names the part, its size and the limit', async () => {
    const { body } = await answer(fleet!.url, { front: 'wide.png', back: 'good.jpg' });
    expect(body).toMatchObject({ code: 'layer-too-large', widthPx: 15_001, heightPx: 20, limitPx: 15_000, errors: [{ path: 'layer.front' }] });
  }, 60_000);

  it('a good pair is queued (no worker runs it here): the depth read above is where a job would be', async () => {
    const { status } = await answer(fleet!.url, { front: 'good.png', back: 'good.jpg' });
    expect(status).toBe(202);
    expect(
      await eventually(
        () => queueDepth(fleet!.url),
        (n) => n === 1,
      ),
    ).toBe(1);
  }, 60_000);
});
