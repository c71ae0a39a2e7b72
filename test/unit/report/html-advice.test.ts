/** The visual report carries the new advice: page order, resolution at the printed size, one size format. */
import { describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderText } from '../../../src/report/text.js';

const file = (name: string) => `test/corpus/files/${name}`;

describe('HTML and text reports', () => {
  it('page-order-mismatch: the file finding, and per page which layer it looks like', async () => {
    const report = await preflight(file('qpdf-tshirt-M-sleeves-first.pdf'), { sku: 'T-SHIRT-M' }, { raster: false, pool: false });
    const html = renderHtml(report);
    expect(html).toMatch(/<section class="file-findings">[\s\S]*data-code="page-order-mismatch"/);
    expect(html).toContain('<dt>Looks like</dt><dd class="t-bad">left-sleeve or right-sleeve (in position of front)</dd>');
    expect(html).toContain('<dt>Looks like</dt><dd class="t-bad">front or back (in position of left-sleeve)</dd>');
  });

  it('resolution at the printed size: the page prints at 200 %, the table shows printed ppi (placed in brackets) and the ladder', async () => {
    const report = await preflight(file('img2pdf-duvet-half-scale.pdf'), { product: 'duvet-cover', variant: '200x200' }, { raster: false, pool: false });
    expect(report.limits).toMatchObject({ minPpi: 100, minPpiError: 50 });
    expect(report.pages[0]).toMatchObject({ printScale: 2 });
    expect(report.pages[0]!.images[0]).toMatchObject({ ppi: 10, printedPpi: 5 });
    const html = renderHtml(report);
    expect(html).toContain('<dt>Printed at</dt><dd class="t-warn">200 % (scaled to its layer)</dd>');
    expect(html).toMatch(/<td class="t-bad">5 <small>\(10 as placed\)<\/small><\/td>/);
    expect(html).toContain('warning below 100, error below 50');
    const text = renderText(report);
    expect(text).toContain('printed at 200 %, 1 image, lowest 5 ppi');
  });

  it('one size format in text and HTML', async () => {
    const report = await preflight(file('reportlab-tshirt-M-exact.pdf'), { sku: 'T-SHIRT-M' }, { raster: false, pool: false });
    const size = /(\d+(?:\.\d)? kB)/.exec(renderText(report))![1]!;
    expect(renderHtml(report)).toContain(`<dd>${size} (`);
  });
});
