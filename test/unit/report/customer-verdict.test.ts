/**
 * The customer's report says one thing from top to bottom: a header of "nothing to change" is not
 * above parts that each say "Something to change here". A warning is a note (the header counts it
 * as one), so a part with notes alone says there is nothing to change and points at the notes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { loadProfiles } from '../../../src/profile/load.js';
import { customerReportPage } from '../../../src/report/customer-pages.js';
import { renderCustomerText } from '../../../src/report/customer-text.js';
import { uiFormatter } from '../../../src/messages/catalogue.js';

const corpus = (f: string) => new Uint8Array(readFileSync(`test/corpus/files/${f}`));

describe('the header and the parts agree', () => {
  it.each([
    ['reportlab-tanktop-cmyk-spot.pdf', { sku: 'TANKTOP-M' }],
    ['reportlab-tshirt-M-unembedded-font.pdf', { sku: 'T-SHIRT-M' }],
  ] as const)('%s: warnings only — nothing to change, above and on every part', async (file, target) => {
    const report = await preflight(corpus(file), target, { pool: false, raster: false, locale: 'en' });
    expect(report.counts.error).toBe(0);
    expect(report.counts.warning).toBeGreaterThan(0);
    const profile = (await loadProfiles()).resolve(target).profile;
    const html = await customerReportPage({ report, which: 'after', images: new Map(), mockups: new Map(), record: {}, profile, locale: 'en' });
    expect(html).toContain('nothing to change');
    expect(html).not.toContain('Something to change here');
    expect(html).toContain('Nothing to change here; read the notes.');
    const text = renderCustomerText(report, await uiFormatter('en'), profile, { colour: false });
    expect(text).toContain('nothing to change');
    expect(text).not.toContain('Something to change here');
  });

  it('a part with an error still says there is something to change, and the header counts it', async () => {
    const target = { sku: 'CURTAINS-140X260' };
    const report = await preflight(corpus('cairo-curtains-beyond-tolerance.pdf'), target, { pool: false, raster: false, locale: 'en' });
    expect(report.findings.filter((f) => f.page !== null && f.severity === 'error').map((f) => f.code)).toContain('page-size-mismatch');
    const profile = (await loadProfiles()).resolve(target).profile;
    const html = await customerReportPage({ report, which: 'after', images: new Map(), mockups: new Map(), record: {}, profile, locale: 'en' });
    expect(html).toContain('Something to change here');
    expect(html).toMatch(/\d+ things? to change/);
    expect(html).not.toContain('nothing to change');
  });
});
