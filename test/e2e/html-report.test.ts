/**
 * The visual report in a real browser: Debian's Chromium (installed by .ci/run) loads the HTML
 * written by `print-preflight check --html`, runs its scripts, and dumps the DOM. Every preview
 * must have decoded (naturalWidth > 0, recorded by the page's own script) and the findings shown
 * must be the JSON report's, in order, with the same verdict.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM, dumpDomArgs } from '../helpers/chromium.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-html-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function dumpDom(file: string): string {
  return execFileSync(CHROMIUM, dumpDomArgs(join(dir, 'profile'), `file://${file}`), {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 60_000,
  });
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

describe.each([
  ['reportlab-tshirt-M-blank-back-edge-gap.pdf', 'T-SHIRT-M'],
  ['pikepdf-tanktop-forms-inline-stencil.pdf', 'TANKTOP-M'],
  ['img2pdf-tanktop-cmyk-jpeg.pdf', 'TANKTOP-M'],
  ['pikepdf-curtains-rotate270-sideways.pdf', 'CURTAINS-140X260'],
])('HTML report of %s in Chromium', (file, sku) => {
  const html = join(dir, `${file}.html`);
  const run = spawnSync(process.execPath, ['bin/print-preflight.js', 'check', `test/corpus/files/${file}`, '--sku', sku, '--json', '--html', html], {
    encoding: 'utf8',
  });
  const report = JSON.parse(run.stdout);
  const dom = dumpDom(html);

  it('shows the verdict of the JSON report', () => {
    expect(attr(/<header[^>]*class="banner[^"]*"[^>]*>/.exec(dom)![0], 'data-verdict')).toBe(report.verdict);
  });

  it('decodes every page preview', () => {
    const imgs = dom.match(/<img[^>]*class="preview"[^>]*>/g) ?? [];
    expect(imgs).toHaveLength(report.pages.length);
    for (const img of imgs) expect(Number(attr(img, 'data-natural-width'))).toBeGreaterThan(0);
    expect(dom).not.toContain('class="broken"');
  });

  it('shows exactly the findings of the JSON report, in order', () => {
    const shown = (dom.match(/<li class="finding[^>]*>/g) ?? []).map((li) => [attr(li, 'data-code'), attr(li, 'data-severity'), attr(li, 'data-page')]);
    const expected = report.findings.map((f: { code: string; severity: string; page: number | null }) => [f.code, f.severity, f.page === null ? '' : String(f.page)]);
    expect(shown).toEqual(expected);
  });

  it('is self-contained: no request leaves the file', () => {
    const source = readFileSync(html, 'utf8');
    expect(source).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
