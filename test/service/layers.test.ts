/**
 * Images in, through the service: POST /v1/checks with one `layer.<id>` part per layer (every kind
 * a customer sends — PNG 8/16-bit with alpha or palette, CMYK and progressive JPEG, CMYK TIFF, WebP,
 * a one-page PDF, and JPEGs in all eight EXIF orientations — made at test time by Pillow,
 * ImageMagick, exiftool and img2pdf), and the JSON form `layers: { id: { url, fit } }`. The check's
 * fixed file is the assembled print PDF: its pages are the layers' sizes (±1 mm, read by pdfinfo),
 * upright (rendered by MuPDF, each band's colour where it belongs), hosted at /v1/files/{token}.pdf,
 * and with fix=approve it waits on the approval page like any fix. The transparent bottom band of
 * a PNG is found. Bad submissions are 4xx problems naming the part. Every answer is checked
 * against the OpenAPI document the server serves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/flow/check.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { Traffic } from '../helpers/traffic.js';
import { expectProblem, settledCheck, tempDir } from './harness.js';

const dir = tempDir('pp-layers-');
const images = join(dir, 'images');
let pool: PreflightPool;
let service: ServiceHandle;
let small: ServiceHandle;
let files: http.Server;
let filesBase: string;
const traffic = new Traffic();

type Check = {
  id: string;
  status: string;
  verdict: string | null;
  fixed: { url: string; sha256: string; changes: { code: string; action: string; customer?: string }[] } | null;
  approval: { state: string } | null;
  report: { findings: { code: string; layer: string | null; page: number | null }[]; assembly?: { layers: { layer: string; fill: string; source: string }[] } } | null;
};

/** Page sizes (trim + 2 × bleed) per SKU and layer, as GET /v1/profiles lists them. */
let sizes: Record<string, { layer: string; widthMm: number; heightMm: number }[]> = {};

beforeAll(async () => {
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'make_layer_images.py'), images]);
  pool = new PreflightPool({ maxThreads: 2 });
  files = http.createServer((req, res) => {
    try {
      const bytes = readFileSync(join(images, (req.url ?? '/').slice(1).replace(/[^a-z0-9.-]/g, '')));
      res.writeHead(200, { 'content-type': req.url?.endsWith('.png') ? 'image/png' : 'image/jpeg' }).end(bytes);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent', allowHosts: ['127.0.0.1'] });
  small = await startService({ port: 0, dataDir: join(dir, 'small'), pool, logLevel: 'silent', maxUploadBytes: 14_000 });
  traffic.observe(service.app.server);
  traffic.observe(small.app.server);
  sizes = pageSizes((await (await fetch(`${service.url}/v1/profiles`)).json()) as Parameters<typeof pageSizes>[0]);
}, 120_000);

afterAll(async () => {
  await service?.close();
  await small?.close();
  await pool?.destroy();
  files?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The listing's page sizes (trim + 2 × bleed) by SKU, in layer order. */
function pageSizes(listing: { variants: { skus: string[]; pages: { layer: string; pageWidthMm: number; pageHeightMm: number }[] }[] }[]) {
  const out: Record<string, { layer: string; widthMm: number; heightMm: number }[]> = {};
  for (const product of listing) for (const v of product.variants) for (const sku of v.skus) out[sku] = v.pages.map((p) => ({ layer: p.layer, widthMm: p.pageWidthMm, heightMm: p.pageHeightMm }));
  return out;
}

/** A multipart body: fields, then one part per layer from the images folder. */
function layersForm(fields: Record<string, string>, parts: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [layer, file] of Object.entries(parts)) fd.append(`layer.${layer}`, new Blob([readFileSync(join(images, file))]), file);
  return fd;
}

async function submit(base: string, body: FormData | Record<string, unknown>): Promise<Response> {
  if (body instanceof FormData) return fetch(`${base}/v1/checks`, { method: 'POST', body });
  return fetch(`${base}/v1/checks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const finished = (res: Response): Promise<Check> => settledCheck<Check>(res, service.url);

/** The fixed file's bytes, as an order would fetch them. */
async function fixedFile(check: Check): Promise<Buffer> {
  const res = await fetch(new URL(check.fixed!.url, service.url));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
  return Buffer.from(await res.arrayBuffer());
}

/** Each page's MediaBox size in mm, as poppler's pdfinfo reads it. */
function pageSizesMm(pdf: Buffer): { widthMm: number; heightMm: number }[] {
  const file = join(dir, `sizes-${Date.now()}-${Math.random()}.pdf`);
  writeFileSync(file, pdf);
  const out = execFileSync('pdfinfo', ['-f', '1', '-l', '100', '-box', file], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+\s+MediaBox:\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)/gm)].map((m) => ({
    widthMm: ((Number(m[3]) - Number(m[1])) * 25.4) / 72,
    heightMm: ((Number(m[4]) - Number(m[2])) * 25.4) / 72,
  }));
}

/** Page n rendered by MuPDF at a low resolution: its RGB pixels. */
async function rendered(pdf: Buffer, n: number): Promise<{ data: Buffer; width: number; height: number }> {
  const file = join(dir, `render-${Date.now()}-${Math.random()}.pdf`);
  const png = `${file}.png`;
  writeFileSync(file, pdf);
  execFileSync('mutool', ['draw', '-q', '-r', '12', '-o', png, file, String(n)]);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

type Colour = 'red' | 'blue' | 'green' | 'yellow' | 'white';
function colourAt(img: { data: Buffer; width: number; height: number }, fx: number, fy: number): Colour | string {
  const x = Math.round(fx * (img.width - 1));
  const y = Math.round(fy * (img.height - 1));
  const i = (y * img.width + x) * 3;
  const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
  if (r > 200 && g > 200 && b > 200) return 'white';
  if (r > 150 && g > 150 && b < 120) return 'yellow';
  if (r > 150 && g < 110 && b < 110) return 'red';
  if (b > r + 60 && b > g + 40) return 'blue';
  if (g > r + 40 && g > b + 40) return 'green';
  return `rgb(${r},${g},${b})`;
}

/** sRGB (8-bit) to CIE L*a*b* (D65). */
function lab(r: number, g: number, b: number): [number, number, number] {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t) / 116 + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/**
 * Mean ΔE76 between a rendered page and its layer's source as Pillow (LittleCMS) draws it —
 * upright by its EXIF orientation, through its embedded ICC profile to sRGB, on white, stretched to
 * the page's pixels (the layers are filled with `stretch`): layer_reference.py. A one-page PDF
 * layer is compared with the JPEG it was made from.
 */
function meanDeltaE(page: { data: Buffer; width: number; height: number }, source: string): number {
  const file = join(images, source === 'one-page.pdf' ? 'for-pdf.jpg' : source);
  const ref = execFileSync('/usr/bin/python3', [join(import.meta.dirname, 'layer_reference.py'), file, String(page.width), String(page.height)], { maxBuffer: 64 << 20 });
  let sum = 0;
  const n = page.width * page.height;
  for (let i = 0; i < n; i++) {
    const a = lab(page.data[i * 3]!, page.data[i * 3 + 1]!, page.data[i * 3 + 2]!);
    const b = lab(ref[i * 3]!, ref[i * 3 + 1]!, ref[i * 3 + 2]!);
    sum += Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  }
  return sum / n;
}

/** Where each band of the design must be on a stretched page: the design upright and not mirrored. */
const UPRIGHT: [number, number, Colour][] = [
  [0.5, 0.08, 'red'],
  [0.25, 0.5, 'green'],
  [0.75, 0.5, 'yellow'],
  [0.5, 0.92, 'blue'],
];

const TSHIRT = 'T-SHIRT-M';
const TSHIRT_LAYERS = ['front', 'back', 'left-sleeve', 'right-sleeve'];
const stretchAll = Object.fromEntries(TSHIRT_LAYERS.map((l) => [`fit.${l}`, 'stretch']));

describe('POST /v1/checks with an image per layer', () => {
  it.each([
    ['PNG 8-bit alpha, PNG 16-bit, PNG palette, CMYK JPEG', ['png8-alpha.png', 'png16.png', 'palette.png', 'cmyk.jpg']],
    ['progressive JPEG, CMYK TIFF, WebP, one-page PDF', ['progressive.jpg', 'cmyk.tif', 'image.webp', 'one-page.pdf']],
    ['EXIF orientations 1-4', ['orientation-1.jpg', 'orientation-2.jpg', 'orientation-3.jpg', 'orientation-4.jpg']],
    ['EXIF orientations 5-8', ['orientation-5.jpg', 'orientation-6.jpg', 'orientation-7.jpg', 'orientation-8.jpg']],
  ])(
    '%s: one hosted PDF, each page its layer size ±1 mm, each design upright',
    async (_what, kinds) => {
      const parts = Object.fromEntries(TSHIRT_LAYERS.map((l, i) => [l, kinds[i]!]));
      const check = await finished(await submit(service.url, layersForm({ sku: TSHIRT, ...stretchAll }, parts)));
      expect(check.status, JSON.stringify(check)).toBe('done');
      expect(check.fixed, 'the assembled file is the fixed file').not.toBeNull();
      expect(check.approval?.state).toBe('auto');
      expect(check.fixed!.changes.filter((c) => c.code === 'layers-assembled').length).toBeGreaterThanOrEqual(4);
      expect(check.report!.assembly!.layers.map((l) => [l.layer, l.fill, l.source])).toEqual(TSHIRT_LAYERS.map((l, i) => [l, 'stretch', kinds[i]!.endsWith('.pdf') ? 'pdf' : 'image']));
      const pdf = await fixedFile(check);
      const got = pageSizesMm(pdf);
      const want = sizes[TSHIRT]!;
      expect(got.length).toBe(4);
      for (const [i, size] of want.entries()) {
        expect(Math.abs(got[i]!.widthMm - size.widthMm), `page ${i + 1} width`).toBeLessThanOrEqual(1);
        expect(Math.abs(got[i]!.heightMm - size.heightMm), `page ${i + 1} height`).toBeLessThanOrEqual(1);
      }
      for (const [i, kind] of kinds.entries()) {
        const img = await rendered(pdf, i + 1);
        const seen = UPRIGHT.map(([x, y]) => colourAt(img, x, y));
        // The transparent bottom band of the alpha PNG prints as the background (white).
        const want = UPRIGHT.map(([, , c], k) => (kind === 'png8-alpha.png' && k === 3 ? 'white' : c));
        expect(seen, `${kind} on page ${i + 1}`).toEqual(want);
        const delta = meanDeltaE(img, kind);
        console.log(`${kind}: mean ΔE76 ${delta.toFixed(2)} against Pillow's rendering of the source`);
        expect(delta, `${kind}: mean ΔE76 against the source`).toBeLessThan(3);
      }
      const transparent = check.report!.findings.filter((f) => f.code === 'image-transparent-area');
      expect(transparent.map((f) => f.layer)).toEqual(kinds.includes('png8-alpha.png') ? ['front'] : []);
    },
    300_000,
  );

  it('fix=approve: the assembled file waits on the approval page with its fill said, and is served once approved', async () => {
    const check = await finished(await submit(service.url, layersForm({ sku: 'TANKTOP-M', fix: 'approve', locale: 'de', 'fit.back': 'mirror' }, { front: 'progressive.jpg', back: 'cmyk.tif' })));
    expect(check.status, JSON.stringify(check)).toBe('needs-approval');
    expect(check.approval?.state).toBe('pending');
    expect(check.report!.assembly!.layers.map((l) => l.fill)).toEqual(['cover', 'mirror']);
    expect(check.fixed!.changes.some((c) => c.code === 'layers-assembled' && c.customer?.startsWith('Wir haben die Druckdatei aus Ihren Bildern gemacht'))).toBe(true);
    const token = check.fixed!.url.match(/([0-9a-f]{48})\.pdf$/)![1]!;
    expect((await fetch(new URL(check.fixed!.url, service.url))).status, 'not served before approval').not.toBe(200);
    const page = await (await fetch(`${service.url}/v1/approvals/${token}`)).text();
    expect(page).toContain('Ihr Bild wird ganz gezeigt; der Rest des Teils setzt seine Ränder gespiegelt fort.');
    expect(page).toContain('Ihr Bild füllt das ganze Teil');
    const approved = await fetch(`${service.url}/v1/checks/${check.id}/approve`, { method: 'POST' });
    expect(approved.status, await approved.clone().text()).toBe(200);
    const pdf = await fixedFile(check);
    expect(pageSizesMm(pdf).length).toBe(2);
  }, 300_000);

  it('JSON: layers by URL, downloaded under the URL rules, with a fill per layer', async () => {
    const check = await finished(
      await submit(service.url, { sku: 'TANKTOP-M', layers: { front: { url: `${filesBase}/png8-alpha.png`, fit: 'contain' }, back: { url: `${filesBase}/orientation-6.jpg` } } }),
    );
    expect(check.status, JSON.stringify(check)).toBe('done');
    expect(check.report!.assembly!.layers.map((l) => [l.layer, l.fill])).toEqual([
      ['front', 'contain'],
      ['back', 'cover'],
    ]);
    expect(check.report!.findings.some((f) => f.code === 'image-transparent-area' && f.layer === 'front')).toBe(true);
    const pdf = await fixedFile(check);
    const want = sizes['TANKTOP-M']!;
    for (const [i, size] of pageSizesMm(pdf).entries()) {
      expect(Math.abs(size.widthMm - want[i]!.widthMm)).toBeLessThanOrEqual(1);
      expect(Math.abs(size.heightMm - want[i]!.heightMm)).toBeLessThanOrEqual(1);
    }
  }, 300_000);

  it('JSON: a layer URL the download rules refuse is the report of that download, not an assembly', async () => {
    const check = await finished(await submit(service.url, { sku: 'TANKTOP-M', layers: { front: { url: `${filesBase}/missing.png` }, back: { url: `${filesBase}/cmyk.jpg` } } }));
    expect(check.status).toBe('done');
    expect(check.verdict).toBe('fail');
    expect(check.fixed).toBeNull();
    expect(check.report!.findings.some((f) => f.code.startsWith('source-'))).toBe(true);
  }, 120_000);
});

describe('bad layer submissions are 4xx problems naming the part', () => {
  const errorsOf = (body: Record<string, unknown>) => (body.errors as { path: string }[]).map((e) => e.path);

  it('a layer missing', async () => {
    const body = await expectProblem(await submit(service.url, layersForm({ sku: 'TANKTOP-M' }, { front: 'cmyk.jpg' })), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['layer.back']);
  });

  it('an unknown layer id, refused before its bytes are stored when the SKU came first', async () => {
    const body = await expectProblem(await submit(service.url, layersForm({ sku: 'TANKTOP-M' }, { front: 'cmyk.jpg', sleeve: 'cmyk.jpg' })), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['layer.sleeve']);
  });

  it('an unknown layer id when the SKU comes after the parts', async () => {
    const fd = new FormData();
    for (const l of ['front', 'back', 'sleeve']) fd.append(`layer.${l}`, new Blob([readFileSync(join(images, 'cmyk.jpg'))]), 'a.jpg');
    fd.append('sku', 'TANKTOP-M');
    const body = await expectProblem(await submit(service.url, fd), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['layer.sleeve']);
  });

  it('a part that is not an image', async () => {
    const body = await expectProblem(await submit(service.url, layersForm({ sku: 'TANKTOP-M' }, { front: 'notes.png', back: 'cmyk.jpg' })), 422, 'layer-not-image');
    expect(errorsOf(body)).toEqual(['layer.front']);
  });

  it('both file and layer parts', async () => {
    const fd = layersForm({ sku: 'TANKTOP-M' }, { front: 'cmyk.jpg' });
    fd.append('file', new Blob([readFileSync(join(images, 'one-page.pdf'))], { type: 'application/pdf' }), 'design.pdf');
    const body = await expectProblem(await submit(service.url, fd), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['file']);
  });

  it('a fill that is not one', async () => {
    const body = await expectProblem(await submit(service.url, layersForm({ sku: 'TANKTOP-M', 'fit.front': 'zoom' }, { front: 'cmyk.jpg', back: 'cmyk.jpg' })), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['fit.front']);
  });

  it('JSON: an unknown layer id and a layer missing', async () => {
    const body = await expectProblem(
      await submit(service.url, { sku: 'TANKTOP-M', layers: { front: { url: `${filesBase}/cmyk.jpg` }, sleeve: { url: `${filesBase}/cmyk.jpg` } } }),
      400,
      'request-invalid',
    );
    expect(errorsOf(body).sort()).toEqual(['layers.back', 'layers.sleeve']);
  });

  it('JSON: both url and layers', async () => {
    await expectProblem(await submit(service.url, { sku: 'TANKTOP-M', url: `${filesBase}/one-page.pdf`, layers: { front: { url: `${filesBase}/cmyk.jpg` } } }), 400, 'request-invalid');
  });

  it('the upload limit holds per part and for the request as a whole', async () => {
    // Each of these JPEGs fits the small server's 14,000 bytes, two of them together do not.
    const sizesOf = ['small-1.jpg', 'small-2.jpg'].map((f) => readFileSync(join(images, f)).length);
    expect(Math.max(...sizesOf)).toBeLessThan(14_000);
    expect(sizesOf[0]! + sizesOf[1]!).toBeGreaterThan(14_000);
    await expectProblem(await submit(small.url, layersForm({ sku: 'TANKTOP-M' }, { front: 'small-1.jpg', back: 'small-2.jpg' })), 413, 'upload-too-large');
    const big = Buffer.alloc(20_000, 0xff);
    big.set([0xff, 0xd8, 0xff, 0xe0]);
    writeFileSync(join(images, 'big.jpg'), big);
    await expectProblem(await submit(small.url, layersForm({ sku: 'TANKTOP-M' }, { front: 'big.jpg', back: 'small-2.jpg' })), 413, 'upload-too-large');
  });

  it('POST /v1/checks/upload stays the PDF upload: a layer part there is an unknown part', async () => {
    const fd = layersForm({ sku: 'TANKTOP-M' }, { front: 'cmyk.jpg', back: 'cmyk.jpg' });
    const body = await expectProblem(await fetch(`${service.url}/v1/checks/upload`, { method: 'POST', body: fd }), 400, 'request-invalid');
    expect(errorsOf(body)).toEqual(['layer.front']);
  });
});

describe("the library's check with a source per layer (what the service and the fleet run)", () => {
  it('assembles paths and bytes, each with its fill, and hands the print file back as the fixed file', async () => {
    const out = await check(
      { layers: { front: join(images, 'png16.png'), back: { input: new Uint8Array(readFileSync(join(images, 'cmyk.tif'))), fit: 'mirror' } } },
      { sku: 'TANKTOP-M' },
      { pool, fix: 'approve', locale: 'it' },
    );
    expect(out.status).toBe('needs-approval');
    expect(Buffer.from(out.fixed!.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(out.report.assembly!.layers.map((l) => [l.layer, l.fill])).toEqual([
      ['front', 'cover'],
      ['back', 'mirror'],
    ]);
    expect(out.fixed!.changes[0]).toMatchObject({ code: 'layers-assembled', needsApproval: true, customer: expect.stringMatching(/^Abbiamo creato il file di stampa/) });
    expect(pageSizesMm(Buffer.from(out.fixed!.bytes)).length).toBe(2);
  }, 120_000);

  it('names a layer the product does not have, and a layer missing', async () => {
    await expect(check({ layers: { front: join(images, 'png16.png'), sleeve: join(images, 'png16.png') } }, { sku: 'TANKTOP-M' }, { pool })).rejects.toThrow(
      /layer sleeve: no such layer.*layer back: missing/,
    );
  });
});

describe('the contract', () => {
  it('every answer is as the served OpenAPI document says (ajv, strict)', async () => {
    await traffic.expectDocumented(service.url);
  });
});
