/**
 * Bleed by extension through the service: a T-shirt's images made at the trim size (ImageMagick,
 * the trim's proportions; the sleeves stating their size at 100 ppi) posted as `layer.<id>` parts
 * with no fill come back as one hosted PDF whose pages are the layers' sizes, each design in its
 * place with its bleed mirrored — the report's `assembly` and the fixed file's changes say `bleed`,
 * the approval page shades the bleed — and `fit.<id>=cover` still scales the design to the page.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { drawPage } from '../helpers/outside-render.js';
import { settledCheck, tempDir } from './harness.js';

const dir = tempDir('pp-layers-bleed-');
let pool: PreflightPool;
let service: ServiceHandle;

type Check = {
  id: string;
  status: string;
  fixed: { url: string; changes: { code: string; action: string }[] } | null;
  report: {
    findings: { code: string; page: number | null }[];
    pages: { widthMm: number; heightMm: number }[];
    assembly?: { layers: { layer: string; fill: string; bleed?: { chosen: string } | null }[] };
  } | null;
};

/** A design by ImageMagick: a field, a red band along its left edge 20 mm wide at `ppmm` px a mm, a disc; `ppi` stated when given. */
function design(name: string, w: number, h: number, ppmm: number, ppi: number | null): string {
  const out = join(dir, name);
  const band = Math.round(20 * ppmm);
  execFileSync('/usr/bin/convert', [
    '-size',
    `${w}x${h}`,
    'xc:#2050a0',
    ...['-fill', '#d02020', '-draw', `rectangle 0,0 ${band - 1},${h - 1}`],
    ...['-fill', '#f0c020', '-draw', `circle ${w / 2},${h / 2} ${w / 2},${h / 2 + Math.min(w, h) / 4}`],
    ...(ppi ? ['-units', 'PixelsPerInch', '-density', String(ppi)] : []),
    out,
  ]);
  return out;
}

function form(fields: Record<string, string>, parts: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [layer, file] of Object.entries(parts)) fd.append(`layer.${layer}`, new Blob([readFileSync(file)]), file.split('/').pop()!);
  return fd;
}

const finished = (res: Response): Promise<Check> => settledCheck<Check>(res, service.url);

let front: string;
let sleeve: string;

beforeAll(async () => {
  front = design('front.png', 2126, 2874, 100 / 25.4, null); // 540 × 730 mm proportions
  sleeve = design('sleeve.png', 1732, 945, 100 / 25.4, 100); // states 440 × 240 mm
  pool = new PreflightPool({ maxThreads: 1 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/checks with images made at the trim size', () => {
  it('gives each its bleed mirrored, says so, shades it on the approval page, and serves the file once approved', async () => {
    const parts = { front, back: front, 'left-sleeve': sleeve, 'right-sleeve': sleeve };
    const check = await finished(await fetch(`${service.url}/v1/checks`, { method: 'POST', body: form({ sku: 'T-SHIRT-M', fix: 'approve', locale: 'en', 'fit.back': 'cover' }, parts) }));
    expect(check.status, JSON.stringify(check.report?.findings)).toBe('needs-approval');
    expect(check.report!.assembly!.layers.map((l) => [l.layer, l.fill, l.bleed?.chosen ?? null])).toEqual([
      ['front', 'bleed', 'trim-proportions'],
      ['back', 'cover', null],
      ['left-sleeve', 'bleed', 'stated-size'],
      ['right-sleeve', 'bleed', 'stated-size'],
    ]);
    expect(check.fixed!.changes.find((c) => c.action.startsWith('assembled front:'))!.action).toMatch(/bleed: the image is the design up to the cut line/);
    const codes = check.report!.findings.map((f) => f.code);
    for (const c of ['page-edge-gap', 'page-size-mismatch', 'page-bleed-missing']) expect(codes).not.toContain(c);
    const token = check.fixed!.url.match(/([0-9a-f]{48})\.pdf$/)![1]!;
    const page = await (await fetch(`${service.url}/v1/approvals/${token}`)).text();
    expect(page).toContain('Your image keeps its size and place up to the cut line');
    expect(page.match(/class="bleed-marks"/g)).toHaveLength(3);
    expect((await fetch(`${service.url}/v1/checks/${check.id}/approve`, { method: 'POST' })).status).toBe(200);
    const pdf = new Uint8Array(await (await fetch(new URL(check.fixed!.url, service.url))).arrayBuffer());
    // At 25.4 dpi a mm is a pixel. Front: the 20 mm red band from the trim's edge (10 mm) to 30 mm,
    // mirrored into the bleed (0–10 mm); back (cover: enlarged 560 / 540 from the page edge): 0–20.7 mm.
    const bandEnd = async (n: number) => {
      const d = await drawPage(pdf, n, 25.4, 'mupdf');
      const y = Math.floor(d.height / 2);
      const red = (x: number) => d.rgb[(y * d.width + x) * 3]! > 150 && d.rgb[(y * d.width + x) * 3 + 2]! < 100;
      expect([d.width, d.height]).toEqual([560, 750]);
      expect([0, 3, 9].every(red), `page ${n}: the bleed is red`).toBe(true);
      let x = 0;
      while (red(x)) x++;
      return x;
    };
    expect(Math.abs((await bandEnd(1)) - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs((await bandEnd(2)) - 20.7)).toBeLessThanOrEqual(1);
  }, 300_000);
});
