/** The installed command line, run as a user runs it (the compiled bin; `npm test` builds first). */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/schema.js';
import { expectPublished } from '../helpers/contracts.js';

const bin = 'bin/print-preflight.js';
const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  checkContract(args, r.status, r.stdout);
  return { code: r.status, out: r.stdout, err: r.stderr };
};
/** What the CLI printed as JSON, against the schema it publishes: every report, fix result and order body. */
function checkContract(args: string[], code: number | null, out: string): void {
  if (!args.includes('--json') && args[0] !== 'order') return;
  if (args[0] === 'check' && (code === 0 || code === 1)) expectPublished('report', out, args.join(' '));
  if (args[0] === 'fix' && (code === 0 || code === 1)) expectPublished('report', JSON.stringify((JSON.parse(out) as { report: unknown }).report), args.join(' '));
  if (args[0] === 'order' && code === 0) expectPublished('order', out, args.join(' '));
}
const f = (name: string) => `test/corpus/files/${name}`;
/** For commands that talk to a server in this process: spawnSync would block its event loop. */
const runAsync = (...args: string[]) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      checkContract(args, code, out);
      resolve({ code, out, err });
    });
  });

describe('print-preflight check', () => {
  it('exits 0 on pass with a readable summary', () => {
    const r = run('check', f('reportlab-tshirt-M-exact.pdf'), '--sku', 'T-SHIRT-M');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ PASS /);
    expect(r.out).toContain('Page 3 left-sleeve: 460 × 260 mm');
  });

  it('exits 0 on warn and 1 on fail', () => {
    expect(run('check', f('pikepdf-curtains-rotate90.pdf'), '--product', 'curtains', '--variant', '140x260').code).toBe(0);
    const r = run('check', f('reportlab-curtains-swapped.pdf'), '--product', 'curtains', '--variant', '140x260');
    expect(r.code).toBe(1);
    expect(r.out).toContain('page-orientation-mismatch');
  });

  it('prints the report as JSON with --json', () => {
    // 18.8 ppi images: below minPpiError (50), an error since resolution is judged with a ladder.
    const r = run('check', f('img2pdf-tanktop-cmyk-jpeg.pdf'), '--sku', 'TANKTOP-M', '--json');
    expect(r.code).toBe(1);
    const report = ReportSchema.parse(JSON.parse(r.out));
    expect(report.verdict).toBe('fail');
    expect(report.findings.filter((x) => x.code === 'image-low-resolution').map((x) => x.severity)).toEqual(['error', 'error']);
    expect(report.pages[0]!.images[0]).toMatchObject({ widthPx: 400, heightPx: 548, colourSpace: 'DeviceCMYK' });
  });

  it('applies --severity and --min-ppi', () => {
    const r = run('check', f('img2pdf-tanktop-cmyk-jpeg.pdf'), '--sku', 'TANKTOP-M', '--json', '--severity', 'colour-space-not-rgb=error', '--min-ppi', '10');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.rules).toEqual({ 'colour-space-not-rgb': 2 });
  });

  it('writes previews with --previews and names them in the JSON report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-prev-'));
    const r = run('check', f('reportlab-tshirt-M-exact.pdf'), '--sku', 'T-SHIRT-M', '--json', '--previews', dir, '--preview-format', 'png', '--preview-size', '400');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(readdirSync(dir).sort()).toEqual(report.pages.map((p: { preview: { file: string } }) => p.preview.file).sort());
    const png = readFileSync(join(dir, report.pages[0].preview.file));
    expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    expect(report.pages[0].preview).toMatchObject({ format: 'png', widthPx: 299, heightPx: 400 });
  });

  it('checks structure only with --no-raster', () => {
    const r = run('check', f('reportlab-tshirt-M-blank-back-edge-gap.pdf'), '--sku', 'T-SHIRT-M', '--json', '--no-raster');
    const report = JSON.parse(r.out);
    expect(report.pages.every((p: { raster: unknown }) => p.raster === null)).toBe(true);
    expect(report.findings).toEqual([]);
    const rendered = JSON.parse(run('check', f('reportlab-tshirt-M-blank-back-edge-gap.pdf'), '--sku', 'T-SHIRT-M', '--json').out);
    expect(rendered.rules).toEqual({ 'page-blank': 1, 'page-edge-gap': 1 });
  });

  it('writes the HTML report with --html', () => {
    const html = join(mkdtempSync(join(tmpdir(), 'pp-html-')), 'r.html');
    expect(run('check', f('gs-duvet-blank-front.pdf'), '--sku', 'DUVET-COVER-200X200', '--html', html).code).toBe(0);
    expect(existsSync(html)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('data-code="page-blank"');
  });

  it('loads profiles from --profiles', () => {
    const r = run('check', f('gs-duvet-exact.pdf'), '--product', 'duvet-cover', '--variant', '200x200', '--profiles', 'profiles');
    expect(r.code).toBe(0);
  });

  it.each([
    [['check', f('gs-duvet-exact.pdf'), '--product', 'pillow', '--variant', 'x'], /Unknown product "pillow"/],
    [['check', f('gs-duvet-exact.pdf'), '--product', 'duvet-cover', '--variant', '1x1'], /Unknown variant "1x1" of duvet-cover/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'NOPE'], /Unknown SKU "NOPE"/],
    [['check', 'missing.pdf', '--sku', 'T-SHIRT-M'], /No such file: missing\.pdf/],
    [['check', f('gs-duvet-exact.pdf')], /--product ID --variant ID, or --sku SKU/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--bogus'], /^print-preflight check: unknown option --bogus\n$/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--severity', 'nope=error'], /unknown finding code "nope"/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--profiles', '/nonexistent'], /cannot read the profiles folder/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--preview-format', 'gif'], /--preview-format must be png, webp or jpeg, got "gif"/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--preview-format', 'jpeg', '--previews', 'x'], /--preview-format jpeg is for the --html report/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--workers', '0'], /--workers needs a whole number from 1/],
    [['check', f('gs-duvet-exact.pdf'), '--sku', 'T-SHIRT-M', '--no-raster', '--previews', 'x'], /--previews needs rendering/],
    [['batch', 'test/corpus/files', '--out', 'x', '--no-raster', '--previews'], /--previews needs rendering: drop --no-raster/],
  ])('exits 2 with a one-line reason for misuse: %j', (args, message) => {
    const r = run(...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.out).toBe('');
  });
});

describe('print-preflight fix and assemble', () => {
  it('fixes a sideways page when told the direction (exit 0), and says what it could not do (exit 1)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pp-fix-')), 'fixed.pdf');
    const refused = run('fix', f('pikepdf-curtains-rotate270-sideways.pdf'), '--sku', 'CURTAINS-140X260', '--out', out);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('say --rotate cw or --rotate ccw');
    const ok = run('fix', f('pikepdf-curtains-rotate270-sideways.pdf'), '--sku', 'CURTAINS-140X260', '--out', out, '--rotate', 'ccw', '--json');
    expect(ok.code).toBe(0);
    const result = JSON.parse(ok.out);
    expect(result.report.verdict).toBe('pass');
    expect(result.changes.map((c: { code: string }) => c.code)).toContain('page-orientation-mismatch');
    expect(existsSync(out)).toBe(true);
    expect(run('fix', f('broken-empty.pdf'), '--sku', 'CURTAINS-140X260', '--out', out).code).toBe(1);
    expect(run('fix', f('gs-duvet-exact.pdf'), '--sku', 'CURTAINS-140X260', '--out', out, '--rotate', 'left').code).toBe(2);
  });

  it('assembles images into a print file that passes', async () => {
    const dir = await solidImages('pp-asm-', [
      ['front.png', 3200, 4400],
      ['back.jpg', 3200, 4400],
    ]);
    const out = join(dir, 'out.pdf');
    const r = run('assemble', '--sku', 'TANKTOP-M', '--out', out, join(dir, 'front.png'), '--layer', `back=${join(dir, 'back.jpg')}`);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^Wrote .*out\.pdf \(\d+(\.\d)? (kB|MB)\)\n$/);
    expect(r.out).toMatch(/^Assembled .*out\.pdf:/);
    expect(r.out).toMatch(/ PASS .*out\.pdf — /);
    expect(r.out).toContain(' PASS ');
    expect(run('assemble', '--sku', 'TANKTOP-M', '--out', out, join(dir, 'front.png')).code).toBe(2);
  }, 60_000);

  it('gives images made at the trim size their bleed mirrored, and --fit cover scales them as asked', async () => {
    // T-SHIRT-M: fronts at 540 × 730 mm proportions, sleeves at 440 × 240 mm.
    const dir = await solidImages('pp-asm-bleed-', [
      ['front.png', 2160, 2920],
      ['sleeve.jpg', 1760, 960],
    ]);
    const out = join(dir, 'out.pdf');
    const files = ['front.png', 'front.png', 'sleeve.jpg', 'sleeve.jpg'].map((f) => join(dir, f));
    const r = run('assemble', '--sku', 'T-SHIRT-M', '--out', out, ...files);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out.match(/bleed: the image is the design up to the cut line \(the image has the trim's proportions\)/g)).toHaveLength(4);
    expect(r.out).not.toContain('page-edge-gap');
    const covered = run('assemble', '--sku', 'T-SHIRT-M', '--out', out, '--fit', 'cover', ...files);
    expect(covered.out).not.toContain('bleed: the image');
    expect(covered.out).toMatch(/front: png 2160 × 2920 px → [^\n]*, cover,/);
  }, 60_000);
});

describe('print-preflight order', () => {
  it('prints the payload for a draft whose sources pass, and lists every failure otherwise', async () => {
    const { startSourceServer } = await import('../helpers/source-server.js');
    const { validDraft } = await import('../helpers/order.js');
    const { writeFileSync } = await import('node:fs');
    const server = await startSourceServer();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'pp-order-'));
      const good = join(dir, 'good.json');
      writeFileSync(good, JSON.stringify(validDraft([`${server.base}/good.pdf`])));
      const ok = await runAsync('order', good, '--allow-host', '127.0.0.1');
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.out).rows[0].sources[0].type).toBe('file');
      const bad = join(dir, 'bad.json');
      const d = validDraft([`${server.base}/bad.pdf`]);
      d.shipping_address.country_code = 'PRT';
      writeFileSync(bad, JSON.stringify(d));
      const fail = await runAsync('order', bad, '--allow-host', '127.0.0.1');
      expect(fail.code).toBe(1);
      expect(fail.out).toContain('- shipping_address.country_code: must be an ISO 3166-1 alpha-2 country code');
      const blocked = await runAsync('order', good);
      expect(blocked.code).toBe(1);
      expect(blocked.out).toMatch(/rows\[0\]\.sources\[0\]: .*source-address-blocked/);
      expect((await runAsync('order', join(dir, 'missing.json'))).code).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('print-preflight profiles, schema, --help', () => {
  it('lists products with page sizes', () => {
    const r = run('profiles');
    expect(r.code).toBe(0);
    expect(r.out).toContain('DUVET-COVER-200X200');
    expect(r.out).toContain('front, back 560 × 750 mm; left-sleeve, right-sleeve 460 × 260 mm');
  });

  it('lists products as JSON', () => {
    const list = JSON.parse(run('profiles', '--json').out);
    const curtains = list.find((p: { id: string }) => p.id === 'curtains');
    expect(curtains.variants[1].pages[0]).toEqual({ layer: 'left', trimWidthMm: 1400, trimHeightMm: 2600, pageWidthMm: 1440, pageHeightMm: 2640 });
  });

  it('prints JSON Schemas and help', () => {
    expect(JSON.parse(run('schema', 'report').out).title).toBe('print-preflight report');
    expect(run('--help').out).toContain('Usage: print-preflight <command>');
    expect(run('check', '--help').out).toContain('Exit status: 0 pass or warn, 1 fail (or warn with --fail-on warning), 2 misuse');
    expect(run('--version').out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

/** A new folder of one-colour images by sharp (PNG or JPEG by each name's extension), each `w` × `h` px. */
async function solidImages(prefix: string, specs: ReadonlyArray<readonly [string, number, number]>): Promise<string> {
  const sharp = (await import('sharp')).default;
  const { writeFileSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, w, h] of specs) {
    writeFileSync(
      join(dir, name),
      await sharp({ create: { width: w, height: h, channels: 3, background: '#2266aa' } })
        .toFormat(name.endsWith('png') ? 'png' : 'jpeg')
        .toBuffer(),
    );
  }
  return dir;
}
